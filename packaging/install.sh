#!/bin/bash
# install.sh — build PinGate from this clone and install it, or take it out again.
#
#   packaging/install.sh [--no-build] [--root DIR]       build, then install (idempotent)
#   packaging/install.sh --enable sudo                   also put the PIN in front of sudo's password (pingate enable)
#   packaging/install.sh --enable locker NAME            ... or a screen locker's (i3lock, swaylock, ...)
#   packaging/install.sh --force --enable ...            ... even where the PIN would skip more than the password
#   packaging/install.sh --disable sudo|locker NAME      undo one --enable (pingate disable)
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
# --enable and --disable are `pingate enable` and `pingate disable` (the CLI just
# built, with --root DIR when staged): the one implementation of turning the PIN
# on, shared with package installs. It writes the line the client table names for
# each service (Sources/PinGateCore/PAMConfig/PAMClient.swift) and never weakens a
# stack: it refuses, here after building but before installing anything, when a
# correct PIN would skip more than the password or a jump above the line would
# cross it. --force enables anyway and names what a PIN success will skip. A
# password sign-in always passes the whole original stack.
#
# Exit status: 0 done, 1 failed (nothing half-installed is left behind for the
# file that failed), 2 usage, or --enable refused a stack (nothing changed).

set -euo pipefail
umask 022

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=packaging/layout.sh
. "$REPO_ROOT/packaging/layout.sh"

# "A|B": either satisfies it; Debian 13's tpm2-tss is libtss2-mu-4.0.1-0t64, which
# does not Provide Debian 12's name (the other renamed libraries do).
RUNTIME_PACKAGES=(libpam0g libtss2-esys-3.0.2-0 libtss2-tctildr0 "libtss2-mu0|libtss2-mu-4.0.1-0t64"
                  libtss2-rc0 libtss2-tcti-device0)
BACKUP_SUFFIX=.pingate-backup

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
# host's pingate cannot look up. On this system (no --root) init also binds
# records of format 1 to the account each uid has now (pingate(8), init).
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

# ensure_units: the boot unit that loads a sealed key is enabled where
# systemd runs (its condition skips it while the key is a file), and the
# verifier's socket listens; without systemd, an admin runs `pingate key
# load` after each boot, and sandboxed callers get the password only.
ensure_units() {
    [ -z "$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null || return 0
    systemctl daemon-reload
    if ! systemctl is-enabled --quiet pingate-key.service 2>/dev/null; then
        systemctl enable --quiet pingate-key.service && say enabled "pingate-key.service (loads a sealed key at boot)"
    fi
    if ! systemctl is-enabled --quiet pingate-verify.socket 2>/dev/null; then
        systemctl enable --quiet --now pingate-verify.socket &&
            say enabled "pingate-verify.socket (the verifier for sandboxed sign-ins, such as polkit's agent helper)"
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
        pingate_installed_one_of "$entry" || missing+=("$(installable_one_of "$entry")")
    done
    [ ${#missing[@]} -eq 0 ] && return
    echo "Installing missing packages: ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" ||
        { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; } ||
        die "could not install ${missing[*]} with apt-get"
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
    ensure_packages "${PINGATE_BUILD_PACKAGES[@]}" "${PINGATE_WAYLAND_LIBRARIES[@]}"
    local swift
    swift="$(pingate_swift)" ||
        die "swift is not on PATH nor in /opt/swift/usr/bin: install a Swift toolchain (swift.org's, or Debian 13's swiftlang) or add it to PATH"
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
# as libpam reads it (in DIR when --root): `pingate_rule = FILE:LINE` lines for
# uses_pingate; a failure ends install.sh.
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

# switch_services enable|disable ARGS...: `pingate enable|disable ARGS` on this
# system or the staged root. Its refusal (2: nothing changed) stays 2; any other
# failure is 1.
switch_services() {
    local cli rc=0
    cli="$(stack_reader)" || die "no pingate to change the PAM stacks with: build it first (run me without --no-build)"
    LC_ALL=C "$cli" "$@" ${ROOT:+--root "$ROOT"} || rc=$?
    case "$rc" in 0) ;; 2) exit 2 ;; *) exit 1 ;; esac
}

# check_enables: before anything is installed, every --enable as a dry run, so a
# refused stack stops install.sh with nothing changed. Only a refusal is shown.
check_enables() {
    [ ${#ENABLE[@]} -gt 0 ] || return 0
    local forced=()
    [ "$FORCE" = 0 ] || forced=(--force)
    (switch_services enable --dry-run "${forced[@]}" "${ENABLE[@]}") > /dev/null 2> "$WORK/enable-check" && return
    local rc=$?
    cat "$WORK/enable-check" >&2
    exit "$rc"
}

enable_services() {
    [ ${#ENABLE[@]} -gt 0 ] || return 0
    local forced=()
    [ "$FORCE" = 0 ] || forced=(--force)
    switch_services enable "${forced[@]}" "${ENABLE[@]}"
}

# --- actions -------------------------------------------------------------------

do_install() {
    if [ "$BUILD" = 1 ]; then
        build
    elif [ -z "$ROOT" ]; then
        ensure_packages "${RUNTIME_PACKAGES[@]}"
    fi
    check_enables   # with the pingate just built, before anything is installed
    echo "Installing PinGate $PINGATE_VERSION${ROOT:+ into $ROOT}:"
    ensure_group
    local destination mode owner group kind source
    while read -r destination mode owner group; do
        ensure_directory "$destination" "$mode" "$owner" "$group"
    done < <(pingate_directories)
    while read -r kind destination mode owner group source; do
        install_file "$kind" "$destination" "$mode" "$owner" "$group" "$source"
    done < <(pingate_files)
    remove_former_files
    ensure_machine_key
    ensure_units
    [ "$TPM" = 0 ] || seal_with_tpm
    enable_services
    [ ${#ENABLE[@]} -gt 0 ] || print_next_steps
}

print_next_steps() {
    cat <<EOF

PinGate is installed but not yet used by any PAM service. Next steps:
  pingate enroll USER --pin            give USER a PIN (--pattern for a pattern)
  pingate enable sudo                  PIN first, then the password, for sudo and sudo -i
                                       (pingate doctor names the lock screens to enable here)
  pingate doctor                       check the installation
  pingate unlock USER                  after 10 wrong PINs the PIN is disabled
  $0 --uninstall [--purge]
                                       take it out again (--purge: the store too)
EOF
}

do_disable() {
    switch_services disable "${DISABLE[@]}"
}

do_uninstall() {
    echo "Removing PinGate${ROOT:+ from $ROOT}:"
    local file
    if stack_reader > /dev/null; then switch_services disable --all; fi
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
        systemctl disable --quiet --now pingate-verify.socket 2>/dev/null || true
    fi
    local kind destination mode owner group source
    while read -r kind destination mode owner group source; do
        remove_file "$kind" "$destination" "$source"
    done < <(pingate_files)
    remove_former_files
    # pingate.8 may be absent from this clone but present from an earlier install.
    remove_file man /usr/share/man/man8/pingate.8.gz ""
    remove_empty_directory /usr/libexec/pingate
    remove_empty_directory "$PINGATE_DOC/examples/pam.d"
    remove_empty_directory "$PINGATE_DOC/examples"
    remove_empty_directory "$PINGATE_DOC"
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

# remove_former_files: an earlier install's files in places this version
# does not use (never the very file installed now, should the two paths meet).
remove_former_files() {
    local pair former current
    for pair in "${PINGATE_FORMER_FILES[@]}"; do
        former="${pair% *}" current="${pair#* }"
        [ -e "$ROOT$former" ] && ! [ "$ROOT$former" -ef "$ROOT$current" ] || continue
        rm -f "$ROOT$former"
        say removed "$former (moved to $current)"
    done
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
