#!/bin/bash
# install.sh — build PinGate from this clone and install it, or take it out again.
#
#   packaging/install.sh [--no-build] [--root DIR]       build, then install (idempotent)
#   packaging/install.sh --enable sudo                   also put the PIN in front of sudo's password
#   packaging/install.sh --enable locker NAME            ... or a screen locker's (i3lock, swaylock, ...)
#   packaging/install.sh --disable sudo|locker NAME      undo one --enable
#   packaging/install.sh --uninstall [--purge]           remove it all; --purge also the store
#
# Run as root. Every file of DESIGN.md's table is installed with its owner and
# mode, through a temporary file and a rename, and only when it differs: a second
# run prints "unchanged" for each. The machine key is made once and never
# replaced; /etc/pingate/pingate.conf is a config file and is never overwritten.
# The pam-auth-update profile is installed, not enabled.
#
# --root DIR (or DESTDIR=DIR) installs into a staged tree. Owners are still the
# names root and pingate: the group is added to DIR/etc/group (groupadd --prefix)
# when that file exists, so the numbers are the target's; otherwise the host's
# pingate group is used, and the install stops if the host has none.
# pam-auth-update is never run on a staged tree.
#
# Exit status: 0 done, 1 failed (nothing half-installed is left behind for the
# file that failed), 2 usage.

set -euo pipefail
umask 022

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=packaging/layout.sh
. "$REPO_ROOT/packaging/layout.sh"

BUILD_PACKAGES=(libpam0g-dev libsodium-dev gettext chrpath libx11-dev libxrandr-dev libcairo2-dev libpango1.0-dev)
RUNTIME_PACKAGES=(libpam0g libsodium23)
BACKUP_SUFFIX=.pingate-backup
MARKER="# Added by PinGate's install.sh --enable; install.sh --disable or --uninstall removes it."

usage() {
    sed -n '4,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "Options: --no-build (install the artefacts already built), --root DIR, --purge, -h"
}

die() { echo "install.sh: $*" >&2; exit 1; }
usage_error() { echo "install.sh: $*" >&2; usage >&2; exit 2; }
say() { printf '  %-10s %s\n' "$1" "$2"; }

# --- arguments ---------------------------------------------------------------

ROOT="${DESTDIR:-}"
BUILD=1
ACTION=install
PURGE=0
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
    [[ "$SERVICE" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || usage_error "'$SERVICE' is not a PAM service name"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ -n "${2:-}" ] || usage_error "--root needs a directory"; ROOT="$2"; shift 2 ;;
        --root=*) ROOT="${1#--root=}"; shift ;;
        --no-build) BUILD=0; shift ;;
        --enable) shift; service_argument "$@"; ENABLE+=("$SERVICE"); shift "$SHIFT" ;;
        --disable) shift; service_argument "$@"; DISABLE+=("$SERVICE"); ACTION=disable; shift "$SHIFT" ;;
        --uninstall) ACTION=uninstall; shift ;;
        --purge) ACTION=uninstall; PURGE=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage_error "unknown argument '$1'" ;;
    esac
done
if [ "$ACTION" != install ] && [ ${#ENABLE[@]} -gt 0 ]; then
    usage_error "--enable cannot be combined with --disable or --uninstall"
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

# ensure_machine_key: 32 random bytes, made once. The key is written to a
# temporary name and linked into place: link(2) fails rather than replace an
# existing key, whoever made it.
ensure_machine_key() {
    local target="$ROOT$PINGATE_KEY" ids="0:$PINGATE_GID" staging
    if [ -L "$target" ] || { [ -e "$target" ] && [ ! -f "$target" ]; }; then
        die "$target is not a regular file: move it away (records need the key they were made with)"
    fi
    if [ -e "$target" ]; then
        if has_owner_and_mode "$target" "$ids" 0640; then say unchanged "$PINGATE_KEY"
        else chown "$ids" "$target"; chmod 0640 "$target"; say fixed "$PINGATE_KEY (now root:$PINGATE_GROUP 0640)"; fi
        [ "$(stat -c %s "$target")" = 32 ] || echo "warning: $target is not 32 bytes long" >&2
        return
    fi
    staging="$(mktemp "$ROOT$PINGATE_STORE/.machine.key.XXXXXX")"
    chown "$ids" "$staging"
    chmod 0640 "$staging"
    head -c 32 /dev/urandom > "$staging"
    [ "$(stat -c %s "$staging")" = 32 ] || { rm -f "$staging"; die "could not read 32 bytes from /dev/urandom"; }
    sync "$staging" 2>/dev/null || true
    if ln -T "$staging" "$target" 2>/dev/null; then say created "$PINGATE_KEY"
    else say unchanged "$PINGATE_KEY (made meanwhile by someone else)"; fi
    rm -f "$staging"
}

# ensure_packages PACKAGE...: apt-get install the ones that are missing.
ensure_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return
    echo "Installing missing packages: ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" ||
        { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; } ||
        die "could not install ${missing[*]} with apt-get"
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

uses_pingate() { grep -Eq '^[[:space:]]*-?auth[[:space:]].*pam_pingate\.so' "$1"; }

# stack_lines SERVICE: the lines --enable inserts. Lockers that answer a single
# prompt get forward_pass, and pam_unix takes that answer as the password
# (use_first_pass) instead of asking again — see pam/pam.d/swaylock.
stack_lines() {
    echo "$MARKER"
    case "$1" in
        swaylock|hyprlock)
            echo "auth       sufficient pam_pingate.so forward_pass"
            echo "auth       sufficient pam_unix.so use_first_pass nullok" ;;
        *)  echo "auth       sufficient pam_pingate.so" ;;
    esac
}

# without_pingate_lines FILE: FILE without the block --enable inserted.
without_pingate_lines() {
    awk -v marker="$MARKER" '
        $0 == marker { inside = 1; next }
        inside && /^auth +sufficient +pam_(pingate\.so|unix\.so use_first_pass nullok)/ { next }
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

enable_service() {
    local service="$1" file="$ROOT/etc/pam.d/$1" backup lines result
    backup="$file$BACKUP_SUFFIX"
    [ -f "$file" ] || die "$file does not exist: is $service installed? (nothing changed)"
    if uses_pingate "$file"; then
        say unchanged "/etc/pam.d/$service (uses pam_pingate.so)"
        return
    fi
    if grep -Eq '^[[:space:]]*@include[[:space:]]+common-auth' "$file" &&
        [ -f "$ROOT/etc/pam.d/common-auth" ] && uses_pingate "$ROOT/etc/pam.d/common-auth"; then
        say unchanged "/etc/pam.d/$service (common-auth has pam_pingate.so: pam-auth-update enabled it everywhere)"
        return
    fi
    case " $(grep -E '^[[:space:]]*services[[:space:]]*=' "$ROOT$PINGATE_CONF" 2>/dev/null | cut -d= -f2 | tr ',\t' '  ') " in
        "  ") case " ${PINGATE_DEFAULT_SERVICES} " in *" $service "*) ;;
              *) echo "warning: $service is not in the default services; add it to 'services =' in $PINGATE_CONF" >&2 ;; esac ;;
        *" $service "*) ;;
        *) echo "warning: $service is not in 'services =' of $PINGATE_CONF: the module will ignore it there" >&2 ;;
    esac
    if [ ! -e "$backup" ]; then
        cp -p "$file" "$backup"
        say "backed up" "/etc/pam.d/$service to $service$BACKUP_SUFFIX"
    fi
    lines="$WORK/lines"; result="$WORK/stack"
    stack_lines "$service" > "$lines"
    # In front of the password: before `@include common-auth` (or an include of
    # another stack) when there is one, so requisite checks such as pam_nologin
    # above it keep their place; otherwise before the first auth line.
    awk -v lines="$lines" '
        function insert() { while ((getline line < lines) > 0) print line; done = 1 }
        { text[NR] = $0 }
        !target && /^[[:space:]]*(@include[[:space:]]+common-auth|-?auth[[:space:]]+(include|substack)[[:space:]])/ { target = NR }
        !first && /^[[:space:]]*(-?auth[[:space:]]|@include[[:space:]]+common-auth)/ { first = NR }
        END {
            at = target ? target : first
            for (i = 1; i <= NR; i++) { if (i == at) insert(); print text[i] }
            if (!done) exit 3
        }' "$file" > "$result" || die "$file has no auth line: nothing to put the PIN in front of (nothing changed)"
    replace_file "$file" "$result"
    say enabled "/etc/pam.d/$service ($(grep -c pam_pingate "$lines") line: $(grep pam_pingate "$lines" | sed 's/  */ /g'))"
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

PINGATE_DEFAULT_SERVICES="sudo login polkit-1 i3lock swaylock xscreensaver gdm-password lightdm sddm kde cinnamon-screensaver gnome-screensaver hyprlock"

do_install() {
    if [ "$BUILD" = 1 ]; then
        build
    elif [ -z "$ROOT" ]; then
        ensure_packages "${RUNTIME_PACKAGES[@]}"
    fi
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

    local kind destination mode owner group source
    while read -r kind destination mode owner group source; do
        remove_file "$kind" "$destination" "$source"
    done < <(pingate_files)
    # pingate.8 may be absent from this clone but present from an earlier install.
    remove_file man /usr/share/man/man8/pingate.8.gz ""
    remove_empty_directory /usr/libexec/pingate
    if [ "$PURGE" = 1 ]; then
        if [ -e "$ROOT$PINGATE_STORE" ]; then rm -rf -- "$ROOT${PINGATE_STORE:?}"; say removed "$PINGATE_STORE/ (the store)"; fi
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
