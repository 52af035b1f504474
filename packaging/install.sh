#!/bin/bash
# install.sh — build PinGate from this clone and install it, or take it out again.
#
#   packaging/install.sh [--no-build] [--root DIR]       build, then install (idempotent)
#   packaging/install.sh --enable sudo                   also put the PIN in front of sudo's password
#   packaging/install.sh --enable locker NAME            ... or a screen locker's (i3lock, swaylock, ...)
#   packaging/install.sh --force --enable ...            ... even where the PIN would skip more than the password
#   packaging/install.sh --disable sudo|locker NAME      undo one --enable
#   packaging/install.sh --uninstall [--purge]           remove it all; --purge also the store
#   packaging/install.sh --tpm                           also seal the machine key into this machine's TPM
#
# Run as root. Every file of docs/design.md's table is installed with its owner and
# mode, through a temporary file and a rename, and only when it differs: a second
# run prints "unchanged" for each. The machine key is made once and never
# replaced; /etc/pingate/pingate.conf is a config file and is never overwritten.
# The pam-auth-update profile is installed, not enabled. A machine key sealed
# by the TPM (`pingate key seal`, or --tpm here) is the key: it is kept, and
# no clear key is made beside it. --tpm seals the key when a TPM is present
# (/dev/tpmrm0) and says so when none is: sealing is never required.
#
# --root DIR (or DESTDIR=DIR) installs into a staged tree. Owners are still the
# names root and pingate: the group is added to DIR/etc/group (groupadd --prefix)
# when that file exists, so the numbers are the target's; otherwise the host's
# pingate group is used, and the install stops if the host has none.
# pam-auth-update is never run on a staged tree.
#
# --enable never weakens a stack: a PIN success skips every auth module after
# the line it adds, so --enable first reads the whole auth stack from there on
# and refuses, after building but before installing anything, when any of
# those modules is more than the password (a second factor, a lockout, a
# directory, an access check). The stack is read by `pingate stack` (the CLI
# just built, with --root DIR when staged), the one reader of PAM stacks, which
# follows libpam's own rules (comments, continuations, @include, `auth
# include|substack`); the policy is in Sources/PinGateCore/PAMConfig/
# PAMPasswordModules.swift. --force enables anyway and names what a PIN
# success will skip. A password sign-in always passes the whole original stack.
#
# Exit status: 0 done, 1 failed (nothing half-installed is left behind for the
# file that failed), 2 usage, or --enable refused a stack (nothing changed).

set -euo pipefail
umask 022

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=packaging/layout.sh
. "$REPO_ROOT/packaging/layout.sh"

BUILD_PACKAGES=(libpam0g-dev libsodium-dev libsystemd-dev libtss2-dev gettext chrpath libx11-dev libxrandr-dev libcairo2-dev libpango1.0-dev)
# "A|B": either satisfies it; Debian 13's tpm2-tss is libtss2-mu-4.0.1-0t64, which
# does not Provide Debian 12's name (the other renamed libraries do).
RUNTIME_PACKAGES=(libpam0g libsodium23 libtss2-esys-3.0.2-0 libtss2-tctildr0 "libtss2-mu0|libtss2-mu-4.0.1-0t64"
                  libtss2-rc0 libtss2-tcti-device0)
BACKUP_SUFFIX=.pingate-backup
MARKER="# Added by PinGate's install.sh --enable; install.sh --disable or --uninstall removes it."
# Lock screens whose PAM service Debian does not ship (KDE's kscreenlocker asks
# for `kde`) make libpam read /etc/pam.d/other: `pingate stack` says
# `create_from_other = yes` for them, and --enable creates the file from
# other's stack, marked; --disable removes it again.
CREATED_MARKER="# Created by PinGate's install.sh --enable from /etc/pam.d/other, which libpam used for this service; install.sh --disable removes it."

usage() {
    sed -n '4,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "Options: --no-build (install the artefacts already built), --root DIR, --purge, --force, --tpm, -h"
}

die() { echo "install.sh: $*" >&2; exit 1; }
usage_error() { echo "install.sh: $*" >&2; usage >&2; exit 2; }
say() { printf '  %-10s %s\n' "$1" "$2"; }

# --- arguments ---------------------------------------------------------------

ROOT="${DESTDIR:-}"
BUILD=1
ACTION=install
PURGE=0
FORCE=0
TPM=0
ENABLE=()
DISABLE=()

# service_argument REST...: reads `sudo`, `locker NAME` or a plain service name;
# sets SERVICE and SHIFT (how many words it took).
service_argument() {
    case "${1:-}" in
        "") usage_error "--enable/--disable needs a service: sudo, or locker NAME" ;;
        locker) [ -n "${2:-}" ] || usage_error "'locker' needs the locker's PAM service name (i3lock, swaylock, ...)"
                SERVICE="$2"; SHIFT=2 ;;
        *) SERVICE="$1"; SHIFT=1 ;;
    esac
    # libpam looks a service up in lower case: /etc/pam.d/Sudo is never read for "Sudo".
    [[ "$SERVICE" =~ ^[a-z0-9][a-z0-9._-]*$ ]] || usage_error "'$SERVICE' is not a PAM service name (lower case: libpam looks it up so)"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ -n "${2:-}" ] || usage_error "--root needs a directory"; ROOT="$2"; shift 2 ;;
        --root=*) ROOT="${1#--root=}"; shift ;;
        --no-build) BUILD=0; shift ;;
        --force) FORCE=1; shift ;;
        --enable) shift; service_argument "$@"; ENABLE+=("$SERVICE"); shift "$SHIFT" ;;
        --disable) shift; service_argument "$@"; DISABLE+=("$SERVICE"); ACTION=disable; shift "$SHIFT" ;;
        --uninstall) ACTION=uninstall; shift ;;
        --purge) ACTION=uninstall; PURGE=1; shift ;;
        --tpm) TPM=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage_error "unknown argument '$1'" ;;
    esac
done
if [ "$ACTION" != install ] && [ ${#ENABLE[@]} -gt 0 ]; then
    usage_error "--enable cannot be combined with --disable or --uninstall"
fi
if [ "$FORCE" = 1 ] && [ ${#ENABLE[@]} -eq 0 ]; then
    usage_error "--force only applies to --enable"
fi
ROOT="${ROOT%/}"
if [ -n "$ROOT" ]; then
    [[ "$ROOT" = /* ]] || usage_error "--root needs an absolute path, got '$ROOT'"
    mkdir -p "$ROOT"
fi
[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 ...): I set owners, a setgid bit and a group"

WORK="$(mktemp -d /tmp/pingate-install.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# --- helpers -----------------------------------------------------------------

# numeric_id NAME: the gid of group NAME in the target system.
group_id() {
    if [ -n "$ROOT" ] && [ -f "$ROOT/etc/group" ]; then
        awk -F: -v name="$1" '$1 == name { print $3; exit }' "$ROOT/etc/group"
    else
        getent group "$1" | cut -d: -f3
    fi
}
owner_ids() {
    local user="$1" group="$2" gid=0
    [ "$user" = root ] || die "unexpected owner $user"
    if [ "$group" != root ]; then gid="$PINGATE_GID"; fi
    echo "0:$gid"
}

# has_owner_and_mode PATH UID:GID MODE
has_owner_and_mode() {
    local actual
    actual="$(stat -c '%u:%g %a' "$1")" || return 1
    [ "${actual% *}" = "$2" ] && [ $((8#${actual#* })) = $((8#$3)) ]
}

ensure_group() {
    if [ -n "$ROOT" ] && [ -f "$ROOT/etc/group" ]; then
        if [ -z "$(group_id "$PINGATE_GROUP")" ]; then
            groupadd --prefix "$ROOT" --system "$PINGATE_GROUP"
            say created "group $PINGATE_GROUP in $ROOT/etc/group"
        else
            say unchanged "group $PINGATE_GROUP"
        fi
    elif [ -n "$ROOT" ]; then
        [ -n "$(group_id "$PINGATE_GROUP")" ] ||
            die "$ROOT/etc/group does not exist and this host has no group $PINGATE_GROUP: create one of them first"
        say unchanged "group $PINGATE_GROUP (the host's: $ROOT has no etc/group)"
    elif [ -z "$(group_id "$PINGATE_GROUP")" ]; then
        groupadd --system "$PINGATE_GROUP"
        say created "group $PINGATE_GROUP"
    else
        say unchanged "group $PINGATE_GROUP"
    fi
    PINGATE_GID="$(group_id "$PINGATE_GROUP")"
    [ -n "$PINGATE_GID" ] || die "group $PINGATE_GROUP could not be resolved after creating it"
}

# ensure_directory PATH MODE OWNER GROUP
ensure_directory() {
    local target="$ROOT$1" ids
    ids="$(owner_ids "$3" "$4")"
    if [ -L "$target" ] || { [ -e "$target" ] && [ ! -d "$target" ]; }; then
        die "$target exists and is not a directory: move it away and run me again"
    fi
    if [ ! -d "$target" ]; then
        mkdir -p "$(dirname "$target")"
        mkdir -m "$2" "$target"
        chown "$ids" "$target"
        chmod "$2" "$target"
        say created "$1/"
    elif has_owner_and_mode "$target" "$ids" "$2"; then
        say unchanged "$1/"
    else
        chown "$ids" "$target"
        chmod "$2" "$target"
        say fixed "$1/ (now $3:$4 $2)"
    fi
}

# install_file KIND DESTINATION MODE OWNER GROUP SOURCE
install_file() {
    local kind="$1" destination="$2" mode="$3" source="$6" target="$ROOT$2" ids prepared staging verb
    ids="$(owner_ids "$4" "$5")"
    [ -f "$source" ] || die "missing $source: build it first (run me without --no-build)"
    prepared="$WORK/prepared"
    pingate_prepare "$kind" "$source" "$prepared"
    if [ -L "$target" ] || { [ -e "$target" ] && [ ! -f "$target" ]; }; then
        die "$target exists and is not a regular file: move it away and run me again"
    fi
    if [ "$kind" = conf ] && [ -e "$target" ]; then
        if cmp -s "$prepared" "$target"; then say unchanged "$destination"
        else say kept "$destination (a config file with local changes)"; fi
        return
    fi
    if [ -e "$target" ] && cmp -s "$prepared" "$target" && has_owner_and_mode "$target" "$ids" "$mode"; then
        say unchanged "$destination"
        return
    fi
    verb=installed
    [ -e "$target" ] && verb=updated
    mkdir -p "$(dirname "$target")"
    staging="$(mktemp "$(dirname "$target")/.pingate-new.XXXXXX")"
    cat "$prepared" > "$staging"
    chown "$ids" "$staging"      # before chmod: chown clears the setgid bit
    chmod "$mode" "$staging"
    mv -f "$staging" "$target"
    say "$verb" "$destination"
}

# ensure_machine_key: the key is made by the CLI just installed (`pingate
# init`), so install.sh, the .deb and doctor's fix make it the one way the core
# checks it: 32 bytes from libsodium, root:pingate 0640, linked into place so an
# existing key is never replaced; a wrong owner or mode is set right. The gid is
# passed because with --root the group is the one in DIR/etc/group, which this
# host's pingate cannot look up.
ensure_machine_key() {
    local target="$ROOT$PINGATE_KEY" before=missing
    if [ -e "$ROOT$PINGATE_SEALED_KEY" ]; then
        before=sealed
    elif [ -e "$target" ] || [ -L "$target" ]; then
        if [ -f "$target" ] && [ ! -L "$target" ] && has_owner_and_mode "$target" "0:$PINGATE_GID" 0640; then before=right; else before=wrong; fi
    fi
    # A staged root has its own group file; on this system, init also refuses
    # a pingate group with members (as good as root: pingate(8), init).
    local staged=()
    [ -z "$ROOT" ] || staged=(--group-id "$PINGATE_GID")
    LC_ALL=C "$ROOT$PINGATE_CLI" init --store "$ROOT$PINGATE_STORE" "${staged[@]}" > /dev/null ||
        die "pingate init could not set up $ROOT$PINGATE_STORE (the reason and its fix are above)"
    case "$before" in
        missing) say created "$PINGATE_KEY" ;;
        right) say unchanged "$PINGATE_KEY" ;;
        wrong) say fixed "$PINGATE_KEY (now root:$PINGATE_GROUP 0640)" ;;
        sealed) say unchanged "$PINGATE_SEALED_KEY (the machine key, sealed by the TPM)" ;;
    esac
}

# ensure_key_unit: the boot unit that loads a sealed key is enabled where
# systemd runs (its condition skips it while the key is a file); without
# systemd, an admin runs `pingate key load` after each boot.
ensure_key_unit() {
    [ -z "$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null || return 0
    systemctl daemon-reload
    if ! systemctl is-enabled --quiet pingate-key.service 2>/dev/null; then
        systemctl enable --quiet pingate-key.service && say enabled "pingate-key.service (loads a sealed key at boot)"
    fi
}

# seal_with_tpm (--tpm): seal the machine key into this machine's TPM, once.
seal_with_tpm() {
    if [ -n "$ROOT" ]; then
        echo "note: --tpm is ignored with --root: seal on the machine itself (pingate key seal)" >&2
    elif [ -e "$PINGATE_SEALED_KEY" ]; then
        say unchanged "$PINGATE_SEALED_KEY (already sealed)"
    elif [ ! -e /dev/tpmrm0 ] && ! grep -qs '^[[:space:]]*tpm_tcti[[:space:]]*=' "$PINGATE_CONF"; then
        echo "note: --tpm: this machine has no TPM (/dev/tpmrm0); the machine key stays a file" >&2
    else
        "$PINGATE_CLI" key seal || die "pingate key seal failed (the reason is above); the machine key is still the file $PINGATE_KEY"
        say sealed "$PINGATE_KEY into the TPM"
    fi
}

# ensure_packages PACKAGE...: apt-get install the ones that are missing.
ensure_packages() {
    local missing=() entry
    for entry in "$@"; do
        installed_one_of "$entry" || missing+=("$(installable_one_of "$entry")")
    done
    [ ${#missing[@]} -eq 0 ] && return
    echo "Installing missing packages: ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" ||
        { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; } ||
        die "could not install ${missing[*]} with apt-get"
}

# installed_one_of "A|B": one of the packages is installed.
installed_one_of() {
    local package
    for package in ${1//|/ }; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' && return 0
    done
    return 1
}

# installable_one_of "A|B": the first package apt has a candidate for (else A,
# so that apt's error names it).
installable_one_of() {
    local package
    for package in ${1//|/ }; do
        apt-cache policy "$package" 2>/dev/null | grep -q 'Candidate: [^(]' && { echo "$package"; return; }
    done
    echo "${1%%|*}"
}

# as_repo_owner COMMAND...: builds as the clone's owner, so that `sudo install.sh`
# leaves no root-owned files in a user's checkout.
as_repo_owner() {
    local owner home
    owner="$(stat -c %U "$REPO_ROOT")"
    if [ "$owner" = root ] || ! home="$(getent passwd "$owner" | cut -d: -f6)"; then
        "$@"
    else
        runuser -u "$owner" -- env "HOME=$home" "PATH=$PATH" "$@"
    fi
}

build() {
    ensure_packages "${BUILD_PACKAGES[@]}"
    local swift
    swift="$(command -v swift || true)"
    [ -n "$swift" ] || { [ -x /opt/swift/usr/bin/swift ] && swift=/opt/swift/usr/bin/swift; } ||
        die "swift is not on PATH: install a Swift toolchain (swift.org) or add it to PATH"
    echo "Building release binaries (swift build -c release --static-swift-stdlib) ..."
    (cd "$REPO_ROOT" && as_repo_owner "$swift" build -c release --static-swift-stdlib) ||
        die "swift build failed"
    echo "Building the PAM module (make -C pam) ..."
    as_repo_owner make -C "$REPO_ROOT/pam" || die "make -C pam failed"
    echo "Building the message catalogues (make -C po) ..."
    as_repo_owner make -C "$REPO_ROOT/po" || die "make -C po failed"
}

# --- PAM stacks ----------------------------------------------------------------

# stack_reader: the `pingate` that reads stacks, `pingate stack` (see
# stack_facts): the one just built, or else the one installed.
stack_reader() {
    local cli
    for cli in "$PINGATE_RELEASE_BIN/pingate" "$ROOT$PINGATE_CLI"; do
        [ -x "$cli" ] && { echo "$cli"; return 0; }
    done
    return 1
}

# stack_facts SERVICE: what `pingate stack SERVICE` says of its auth stack, read
# as libpam reads it (in DIR when --root): `rule`, `pingate_rule = FILE:LINE`,
# `insert_before = LINE` and `guard = MODULE FILE:LINE` lines. Callers keep it
# in a variable (FACTS) for the functions below; a failure ends install.sh.
stack_facts() {
    local cli
    cli="$(stack_reader)" || die "no pingate to read /etc/pam.d/$1 with: build it first (run me without --no-build)"
    LC_ALL=C "$cli" stack "$1" ${ROOT:+--root "$ROOT"} ||
        die "pingate stack $1 could not read /etc/pam.d/$1 (nothing changed)"
}

# uses_pingate FILE: FILE (a stack of /etc/pam.d) has a pam_pingate.so rule of
# its own. Without a pingate to ask (a broken installation), or for a name
# libpam never looks up as a service (upper case: only an include reads it),
# any auth line that names the module counts: better to keep the module than
# break a stack.
uses_pingate() {
    local name="${1##*/}" facts
    if stack_reader > /dev/null && [[ "$name" != *[A-Z]* ]]; then
        facts="$(stack_facts "$name" 2>/dev/null)" || return 0
        local file="${1#"$ROOT"}"
        grep -q "^pingate_rule = ${file//./\\.}:" <<< "$facts"
    else
        grep -Eq '^[[:space:]]*-?auth[[:space:]].*pam_pingate\.so' "$1"
    fi
}

# The line a stack enabled by an older install.sh has for swaylock and hyprlock:
# a password success there skipped the rest of the stack, and it brought
# nullok back where the admin had removed it.
OLD_LOCKER_UNIX_LINE="auth       sufficient pam_unix.so use_first_pass nullok"

# stack_lines FACTS: the lines --enable inserts: the marker and the module
# line `pingate stack` names for the service (`enable_line`), always just the
# module, so that anything but a correct PIN goes on through the stack exactly
# as before. Its options fit how each program shows PAM's questions; they are
# written once, in Sources/PinGateCore/PAMConfig/PAMClient.swift. No pam_unix
# line of ours: as `sufficient` it would end the stack on a password and skip
# whatever follows (pam_faillock's authsucc, a second factor forced past the
# check below); a password left as PAM_AUTHTOK (forward_pass,
# again_or_password) is taken by the stack's own pam_unix without asking again.
stack_lines() {
    local line
    line="$(sed -n 's/^enable_line = //p' <<< "$1")"
    [ -n "$line" ] || die "$(stack_reader) names no line to enable: it is older than this install.sh (build it first; nothing changed)"
    echo "$MARKER"
    echo "$line"
}

# without_pingate_lines FILE: FILE without the block --enable inserted (also
# the pam_unix line an older install.sh added for swaylock and hyprlock).
without_pingate_lines() {
    awk -v marker="$MARKER" '
        $0 == marker { inside = 1; next }
        inside && /^auth +(sufficient|\[[^]]*\]) +pam_(pingate\.so|unix\.so use_first_pass nullok)/ { next }
        { inside = 0; print }' "$1"
}

# replace_file FILE CONTENT_FILE: rewrite FILE keeping its owner and mode.
replace_file() {
    local staging
    staging="$(mktemp "$(dirname "$1")/.pingate-new.XXXXXX")"
    cat "$2" > "$staging"
    chown --reference="$1" "$staging"
    chmod --reference="$1" "$staging"
    mv -f "$staging" "$1"
}

# enabled_already FACTS SERVICE: prints why SERVICE already offers the PIN, or
# fails: a pam_pingate.so rule in its own file, or in common-auth when its
# stack reads that (pam-auth-update's place). A rule in another included stack
# (i3lock's `auth include login`) is that stack's own.
enabled_already() {
    if grep -q "^pingate_rule = /etc/pam.d/${2//./\\.}:" <<< "$1"; then
        echo "uses pam_pingate.so"
    elif grep -q "^pingate_rule = /etc/pam.d/common-auth:" <<< "$1"; then
        echo "common-auth has pam_pingate.so: pam-auth-update enabled it everywhere"
    else
        return 1
    fi
}

# insertion_line FACTS: the number of the line of /etc/pam.d/SERVICE --enable
# puts its lines before, or nothing when the file has no auth rule. In front of
# the password: before the first @include or `auth include|substack` that
# brings in auth rules, so requisite checks such as pam_nologin above it keep
# their place; otherwise before the first auth rule.
insertion_line() { sed -n 's/^insert_before = //p' <<< "$1"; }

# --- what a PIN success may skip -------------------------------------------------
#
# `auth sufficient pam_pingate.so` ends the auth stack on a correct PIN, so every
# auth module after it is skipped: only the password may be. Which modules are
# no more than the password (pam_unix, common-auth's structure, pam_env, the
# keyring unlockers, ...), and why each of the others is refused, is written
# once, in Sources/PinGateCore/PAMConfig/PAMPasswordModules.swift; `pingate
# stack` applies it to the stack libpam reads.

# skipped_guards FACTS: the modules a PIN success would skip that are more
# than the password, as "MODULE WHERE" lines (WHERE: /etc/pam.d/NAME:LINE);
# nothing when there are none. What libpam cannot read is a guard too, e.g.
# "(unreadable:/etc/pam.d/NAME)", so that it is refused rather than trusted.
skipped_guards() { sed -n 's/^guard = //p' <<< "$1"; }

# refuse_weakening_enables: after the build, before anything is installed,
# check every --enable; unless --force, refuse them all (exit 2, nothing
# changed) when one of them would let a PIN skip more than the password.
refuse_weakening_enables() {
    local service facts guards refused=0
    [ "$FORCE" = 0 ] || return 0
    for service in "${ENABLE[@]}"; do
        # A missing stack is checked as libpam reads it (`other`) when
        # enable_service will create it from there; else enable_service says so.
        facts="$(stack_facts "$service")" || exit 1
        [ -f "$ROOT/etc/pam.d/$service" ] || creatable "$facts" || continue
        enabled_already "$facts" "$service" > /dev/null && continue
        guards="$(skipped_guards "$facts")"
        [ -n "$guards" ] || continue
        {
            echo "install.sh: refusing --enable $service: a correct PIN would skip these auth modules of /etc/pam.d/$service, which do more than check the password:"
            echo "$guards" | awk '{ printf "    %-28s %s\n", $1, $2 }'
            echo "  A PIN may stand in for the password, never for a second factor, a lockout, a directory or an access check."
            echo "  Nothing was changed. To enable it anyway, so that a correct PIN skips them: install.sh --force --enable $service"
            echo "  Or put pam_pingate.so by hand where it skips only the password (README, \"Wire a stack by hand\")."
        } >&2
        refused=1
    done
    [ "$refused" = 0 ] || exit 2
}

# creatable FACTS: true for a lock screen's service that Debian does not ship
# (`create_from_other = yes`), where /etc/pam.d/other is there to start from.
creatable() {
    grep -qx "create_from_other = yes" <<< "$1" && [ -f "$ROOT/etc/pam.d/other" ]
}

# create_from_other SERVICE: /etc/pam.d/SERVICE as other's stack, marked.
create_from_other() {
    { echo "$CREATED_MARKER"; cat "$ROOT/etc/pam.d/other"; } > "$WORK/created"
    install -m 0644 "$WORK/created" "$ROOT/etc/pam.d/$1"
    say created "/etc/pam.d/$1 (other's stack, which libpam used for $1 until now)"
}

enable_service() {
    local service="$1" file="$ROOT/etc/pam.d/$1" backup lines result at reason guards facts
    backup="$file$BACKUP_SUFFIX"
    facts="$(stack_facts "$service")" || exit 1
    if [ ! -f "$file" ]; then
        creatable "$facts" || die "$file does not exist: is $service installed? (nothing changed)"
        create_from_other "$service"
        facts="$(stack_facts "$service")" || exit 1
    fi
    if reason="$(enabled_already "$facts" "$service")"; then
        say unchanged "/etc/pam.d/$service ($reason)"
        if grep -qxF "$OLD_LOCKER_UNIX_LINE" "$file"; then
            echo "warning: /etc/pam.d/$service has the pam_unix line an older install.sh added: a password there skips the rest of the stack, and nullok lets an empty password in. Run --disable $service, then --enable $service again." >&2
        fi
        # Our own lines, but not the one this client needs now (the
        # `sufficient` line of MATE, Cinnamon and GNOME before their line
        # ended the try on a wrong PIN): it is not rewritten behind the
        # admin's back, but said.
        local wanted
        wanted="$(sed -n 's/^enable_line = //p' <<< "$facts")"
        if [ -n "$wanted" ] && grep -qxF "$MARKER" "$file" && ! grep -qxF -- "$wanted" "$file"; then
            echo "warning: /etc/pam.d/$service has the PinGate line an older install.sh wrote, not the one it needs now ($wanted). Run --disable $service, then --enable $service again." >&2
        fi
        return
    fi
    # pingate.conf has one reader, the helper's (the CLI shares it): ask it.
    local offered
    offered="$(LC_ALL=C "$ROOT$PINGATE_CLI" policy --config "$ROOT$PINGATE_CONF" 2>/dev/null | sed -n 's/^services = //p')"
    case " $offered " in
        *" $service "*) ;;
        "  ") echo "warning: cannot read the services of $PINGATE_CONF (see: pingate policy check)" >&2 ;;
        *) echo "warning: $service is not in the services of $PINGATE_CONF (services = $offered): no PIN is offered there until you add it" >&2 ;;
    esac
    at="$(insertion_line "$facts")"
    [ -n "$at" ] || die "$file has no auth line: nothing to put the PIN in front of (nothing changed)"
    guards="$(skipped_guards "$facts")"
    if [ ! -e "$backup" ]; then
        cp -p "$file" "$backup"
        say "backed up" "/etc/pam.d/$service to $service$BACKUP_SUFFIX"
    fi
    lines="$WORK/lines"; result="$WORK/stack"
    stack_lines "$facts" > "$lines"
    awk -v lines="$lines" -v at="$at" '
        NR == at { while ((getline line < lines) > 0) print line }
        { print }' "$file" > "$result"
    replace_file "$file" "$result"
    say enabled "/etc/pam.d/$service ($(grep -c pam_pingate "$lines") line: $(grep pam_pingate "$lines" | sed 's/  */ /g'))"
    if [ -n "$guards" ]; then
        echo "warning: --force: a correct PIN in /etc/pam.d/$service skips $(echo "$guards" | awk '{ printf "%s%s (%s)", (NR > 1 ? ", " : ""), $1, $2 }'); a password still passes them all" >&2
    fi
}

disable_service() {
    local service="$1" file="$ROOT/etc/pam.d/$1" backup result
    backup="$file$BACKUP_SUFFIX"
    [ -f "$file" ] || { say unchanged "/etc/pam.d/$service (does not exist)"; return; }
    result="$WORK/stack"
    without_pingate_lines "$file" > "$result"
    if [ -e "$backup" ] && cmp -s "$result" "$backup"; then
        mv -f "$backup" "$file"
        say restored "/etc/pam.d/$service from $service$BACKUP_SUFFIX"
        if [ "$(head -n 1 "$file")" = "$CREATED_MARKER" ]; then
            rm -f "$file"
            say removed "/etc/pam.d/$service (created by --enable: libpam uses other again)"
        fi
    elif cmp -s "$result" "$file"; then
        say unchanged "/etc/pam.d/$service (no lines from install.sh)"
    else
        replace_file "$file" "$result"
        say disabled "/etc/pam.d/$service"
    fi
    if [ -e "$backup" ]; then
        echo "warning: /etc/pam.d/$service changed since $backup was made; kept both — compare them" >&2
    fi
}

# services_enabled_here: every stack that carries install.sh's marker or backup.
services_enabled_here() {
    local file
    for file in "$ROOT"/etc/pam.d/*; do
        [ -f "$file" ] || continue
        case "$file" in
            *"$BACKUP_SUFFIX") basename "${file%"$BACKUP_SUFFIX"}" ;;
            *) grep -qxF "$MARKER" "$file" && basename "$file" ;;
        esac
    done | sort -u
}

# --- actions -------------------------------------------------------------------

do_install() {
    if [ "$BUILD" = 1 ]; then
        build
    elif [ -z "$ROOT" ]; then
        ensure_packages "${RUNTIME_PACKAGES[@]}"
    fi
    refuse_weakening_enables   # with the pingate just built, before anything is installed
    echo "Installing PinGate $PINGATE_VERSION${ROOT:+ into $ROOT}:"
    ensure_group
    local destination mode owner group kind source
    while read -r destination mode owner group; do
        ensure_directory "$destination" "$mode" "$owner" "$group"
    done < <(pingate_directories)
    while read -r kind destination mode owner group source; do
        install_file "$kind" "$destination" "$mode" "$owner" "$group" "$source"
    done < <(pingate_files)
    ensure_machine_key
    ensure_key_unit
    [ "$TPM" = 0 ] || seal_with_tpm
    local service
    for service in "${ENABLE[@]}"; do enable_service "$service"; done
    [ ${#ENABLE[@]} -gt 0 ] || print_next_steps
}

print_next_steps() {
    cat <<EOF

PinGate is installed but not yet used by any PAM service. Next steps:
  pingate enroll USER --pin            give USER a PIN (--pattern for a pattern)
  pingate doctor                       check the installation
  $0 --no-build --enable sudo
                                       PIN first, then the password, for sudo only
  pam-auth-update --enable pingate     or: one "PIN or password" prompt everywhere
  pingate unlock USER                  after 10 wrong PINs the PIN is disabled
  $0 --uninstall [--purge]
                                       take it out again (--purge: the store too)
EOF
}

do_disable() {
    local service
    for service in "${DISABLE[@]}"; do disable_service "$service"; done
}

do_uninstall() {
    echo "Removing PinGate${ROOT:+ from $ROOT}:"
    local service file
    for service in $(services_enabled_here); do disable_service "$service"; done
    if [ -z "$ROOT" ] && [ -e "$PINGATE_PROFILE" ] && command -v pam-auth-update >/dev/null; then
        if grep -qs pam_pingate /etc/pam.d/common-*; then
            pam-auth-update --package --remove pingate
            say disabled "pam-auth-update profile pingate (common-* stacks)"
        fi
    fi
    # A stack that still names the module would lose it: stop before removing anything.
    local users=()
    for file in "$ROOT"/etc/pam.d/*; do
        [ "$file" = "$ROOT$PINGATE_LOCK_SERVICE" ] && continue  # ours: removed with the files below
        [ -f "$file" ] && [[ "$file" != *"$BACKUP_SUFFIX" ]] && uses_pingate "$file" && users+=("$file")
    done
    [ ${#users[@]} -eq 0 ] ||
        die "these PAM stacks still use pam_pingate.so: ${users[*]} — remove those lines (or run pam-auth-update --remove pingate) and run me again; the files are still installed"

    if [ -z "$ROOT" ] && [ -e "$PINGATE_SEALED_KEY" ] && [ "$PURGE" = 0 ]; then
        echo "note: the machine key stays sealed in $PINGATE_SEALED_KEY; after a reinstall 'pingate key load' (or the boot unit) loads it" >&2
    fi
    if [ -z "$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
        systemctl disable --quiet pingate-key.service 2>/dev/null || true
    fi
    local kind destination mode owner group source
    while read -r kind destination mode owner group source; do
        remove_file "$kind" "$destination" "$source"
    done < <(pingate_files)
    # pingate.8 may be absent from this clone but present from an earlier install.
    remove_file man /usr/share/man/man8/pingate.8.gz ""
    remove_empty_directory /usr/libexec/pingate
    if [ "$PURGE" = 1 ]; then
        if [ -e "$ROOT$PINGATE_STORE" ]; then rm -rf -- "$ROOT${PINGATE_STORE:?}"; say removed "$PINGATE_STORE/ (the store)"; fi
        # The key loaded into memory goes with the store: left there, it would
        # stay readable by whatever group is given the removed group's gid.
        # The key first, so that a mount too busy to go takes no key with it.
        if [ -z "$ROOT" ] && [ -e "$PINGATE_LOADED_KEY_DIR" ]; then
            find "${PINGATE_LOADED_KEY_DIR:?}" -mindepth 1 -delete 2>/dev/null || true
            if mountpoint -q "$PINGATE_LOADED_KEY_DIR"; then
                umount "$PINGATE_LOADED_KEY_DIR" 2>/dev/null || umount -l "$PINGATE_LOADED_KEY_DIR" 2>/dev/null || true
            fi
            if rmdir "$PINGATE_LOADED_KEY_DIR" 2>/dev/null; then
                say removed "$PINGATE_LOADED_KEY_DIR/ (the key loaded into memory)"
            else
                echo "warning: could not remove $PINGATE_LOADED_KEY_DIR entirely: $(ls -A "$PINGATE_LOADED_KEY_DIR" 2>&1 | tr '\n' ' ')" >&2
            fi
        fi
        remove_empty_directory /etc/pingate
        remove_group
    else
        remove_empty_directory /etc/pingate
        [ -e "$ROOT$PINGATE_STORE" ] && say kept "$PINGATE_STORE/ and group $PINGATE_GROUP (enrolments; --purge removes them)"
    fi
    return 0
}

# remove_file KIND DESTINATION SOURCE
remove_file() {
    local target="$ROOT$2"
    [ -e "$target" ] || [ -L "$target" ] || return 0
    if [ "$1" = conf ] && [ "$PURGE" = 0 ] && ! cmp -s "$3" "$target"; then
        say kept "$2 (changed locally; --purge removes it)"
        return
    fi
    rm -f "$target"
    say removed "$2"
}

remove_empty_directory() {
    [ -d "$ROOT$1" ] || return 0
    if rmdir "$ROOT$1" 2>/dev/null; then say removed "$1/"; fi
}

remove_group() {
    [ -n "$(group_id "$PINGATE_GROUP")" ] || return 0
    if [ -n "$ROOT" ] && [ -f "$ROOT/etc/group" ]; then
        groupdel --prefix "$ROOT" "$PINGATE_GROUP"
    elif [ -z "$ROOT" ]; then
        groupdel "$PINGATE_GROUP"
    else
        return 0  # the host's group, only borrowed for the staged tree
    fi
    say removed "group $PINGATE_GROUP"
}

case "$ACTION" in
    install) do_install ;;
    disable) do_disable ;;
    uninstall) do_uninstall ;;
esac
