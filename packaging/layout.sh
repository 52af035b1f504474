# shellcheck shell=bash
# layout.sh — where PinGate's files go on an installed system (docs/design.md,
# "Files on an installed system"). Sourced by install.sh and build-deb.sh so
# that the two install paths cannot drift apart; it only defines variables and
# functions.
#
# Needs REPO_ROOT set by the caller; PINGATE_RELEASE_BIN may point at other
# release binaries than $REPO_ROOT/.build/release.

# What a build needs besides a Swift toolchain: install.sh installs what is
# missing, build-deb.sh names it. "A|B": either will do. The libraries are
# the target's (a cross build takes them as LIBRARY:ARCH), the tools the host's.
# shellcheck disable=SC2034  # read by the scripts that source this file
PINGATE_BUILD_TOOLS=(gcc make "pkgconf|pkg-config" gettext chrpath)
PINGATE_BUILD_LIBRARIES=(libpam0g-dev libsodium-dev libsystemd-dev libtss2-dev libx11-dev libxrandr-dev
                         libcairo2-dev libpango1.0-dev)
# pingate-lock's Wayland front end, built where Swift 6.3 or later builds
# (Package.swift): libwayland-client, the protocol XML and wayland-scanner
# that generates code from it, xkbcommon. A cross build (Debian 13's Swift
# 6.0.3, cross.sh) makes an X11-only pingate-lock and does not need them.
PINGATE_WAYLAND_LIBRARIES=(libwayland-dev wayland-protocols libxkbcommon-dev)
PINGATE_BUILD_PACKAGES=("${PINGATE_BUILD_TOOLS[@]}" "${PINGATE_BUILD_LIBRARIES[@]}")

# The C compiler and strip for the machine the binaries are for: the host's
# unless a cross build (build-deb.sh --arch) names the target's.
PINGATE_CC="${PINGATE_CC:-cc}"
PINGATE_STRIP="${PINGATE_STRIP:-strip}"

# pingate_install_fact NAME: the value of NAME in pam/pingate_install.h, the
# one copy of the facts the module, the Swift side and these scripts share
# (as the compiler sees it, so the multiarch triplet is the target's).
pingate_install_fact() {
    "$PINGATE_CC" -E -dM "$REPO_ROOT/pam/pingate_install.h" | sed -n "s/^#define $1 \"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p"
}

# pingate_swift: the swift command: PATH's, else the toolchain in /opt/swift
# (swift.org's archive unpacked there); status 1 when there is none.
pingate_swift() {
    command -v swift || { [ -x /opt/swift/usr/bin/swift ] && echo /opt/swift/usr/bin/swift; }
}

# pingate_installed_one_of "A|B": one of the packages is installed.
pingate_installed_one_of() {
    local package
    for package in ${1//|/ }; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' && return 0
    done
    return 1
}

# shellcheck disable=SC2034  # read by the scripts that source this file
PINGATE_VERSION=0.3.0
PINGATE_GROUP="$(pingate_install_fact PINGATE_GROUP)"
PINGATE_MULTIARCH="$(pingate_install_fact PINGATE_MULTIARCH)"
PINGATE_HELPER="$(pingate_install_fact PINGATE_HELPER_PATH)"
PINGATE_HELPER_MODE="$(pingate_install_fact PINGATE_HELPER_MODE | sed 's/^0*//')"
if [ -z "$PINGATE_GROUP" ] || [ -z "$PINGATE_MULTIARCH" ] || [ -z "$PINGATE_HELPER" ] || [ -z "$PINGATE_HELPER_MODE" ]; then
    echo "layout.sh: cannot read pam/pingate_install.h with $PINGATE_CC -E (is it installed? apt-get install $([ "$PINGATE_CC" = cc ] && echo gcc || echo "gcc-${PINGATE_CC%-gcc}"))" >&2
    exit 1
fi
PINGATE_RELEASE_BIN="${PINGATE_RELEASE_BIN:-$REPO_ROOT/.build/release}"
PINGATE_MODULE_BUILD="${PINGATE_MODULE_BUILD:-$REPO_ROOT/pam/build/pam_pingate.so}"

# In /usr/bin, on every user's PATH: a user runs `pingate status` and
# `pingate change` by name; the commands for root refuse anyone else.
PINGATE_CLI=/usr/bin/pingate
# Under /usr/lib, never /lib: /lib is a symlink to usr/lib on every Debian
# since 12 (merged /usr), and a package that ships through it makes dpkg
# warn at purge that /lib/...'s directories are not empty.
PINGATE_MODULE="/usr/lib/$PINGATE_MULTIARCH/security/pam_pingate.so"
PINGATE_CONF=/etc/pingate/pingate.conf
PINGATE_STORE=/var/lib/pingate
PINGATE_KEY=/var/lib/pingate/machine.key
PINGATE_PROFILE=/usr/share/pam-configs/pingate
PINGATE_DOC=/usr/share/doc/pingate
PINGATE_LOCK=/usr/bin/pingate-lock
PINGATE_LOCK_SERVICE=/etc/pam.d/pingate-lock
# Unseals a TPM-sealed machine key at boot (`pingate key load`); skipped
# while the key is a file.
PINGATE_KEY_UNIT=/usr/lib/systemd/system/pingate-key.service
# The verifier over a unix socket, for callers that cannot run the setgid
# helper (pam/pingate_protocol.h, SOCKET): enabled and started by the package.
PINGATE_VERIFY_SOCKET_UNIT=/usr/lib/systemd/system/pingate-verify.socket
PINGATE_VERIFY_SERVICE_UNIT=/usr/lib/systemd/system/pingate-verify@.service
# "FORMER CURRENT": where earlier versions put a file that lives elsewhere
# now (0.2.0's CLI in /usr/sbin). install.sh removes FORMER on install and
# uninstall; dpkg removes the package's own. (The /lib paths need no entry:
# /lib is usr/lib, the same files.)
PINGATE_FORMER_FILES=("/usr/sbin/pingate $PINGATE_CLI")
PINGATE_SEALED_KEY=/var/lib/pingate/machine.key.sealed
# Where `pingate key load` puts the unsealed key: a ramfs, gone at reboot
# (StoreLocation.defaultLoadedKeyDirectory); a purge takes it away sooner.
PINGATE_LOADED_KEY_DIR=/run/pingate

# pingate_files [PACKAGE]: one line per shipped file, fields separated by spaces:
#   KIND DESTINATION MODE OWNER GROUP SOURCE
# KIND is `elf` (stripped, RUNPATH removed), `man` and `doc` (gzip -9n,
# DESTINATION ends in .gz), `conf` (installed only when missing) or `data`
# (copied as is).
# A man page whose source does not exist yet is left out (pingate.8 comes from
# the CLI's author); every other source must exist. Message catalogues come from
# po/Makefile, one per language of po/LINGUAS.
# Two Debian packages share the files: `pingate` (helper, CLI, module, profile,
# catalogues: what a server needs) and `pingate-lock` (the X11 lock screen and
# its PAM service, which bring Xlib, cairo and pango). Without PACKAGE: both,
# as install.sh installs them.
pingate_files() {
    case "${1:-}" in
        pingate) pingate_core_files ;;
        pingate-lock) pingate_lock_files ;;
        "") pingate_core_files; pingate_lock_files ;;
        *) echo "pingate_files: unknown package $1" >&2; return 1 ;;
    esac
}

pingate_core_files() {
    cat <<EOF
elf  $PINGATE_HELPER $PINGATE_HELPER_MODE root $PINGATE_GROUP $PINGATE_RELEASE_BIN/pingate-verify
elf  $PINGATE_CLI 0755 root root $PINGATE_RELEASE_BIN/pingate
elf  $PINGATE_MODULE 0644 root root $PINGATE_MODULE_BUILD
data $PINGATE_PROFILE 0644 root root $REPO_ROOT/pam/pam-configs/pingate
conf $PINGATE_CONF 0644 root root $REPO_ROOT/packaging/pingate.conf
data $PINGATE_KEY_UNIT 0644 root root $REPO_ROOT/packaging/systemd/pingate-key.service
data $PINGATE_VERIFY_SOCKET_UNIT 0644 root root $REPO_ROOT/packaging/systemd/pingate-verify.socket
data $PINGATE_VERIFY_SERVICE_UNIT 0644 root root $REPO_ROOT/packaging/systemd/pingate-verify@.service
data /usr/share/bash-completion/completions/pingate 0644 root root $REPO_ROOT/packaging/completion/pingate
EOF
    pingate_man_pages pam_pingate.8 pingate.conf.5 pingate.8
    # What to read after an install: the README (the guide `enable` and
    # `doctor` point at) and the example stacks of pam/pam.d.
    echo "doc  $PINGATE_DOC/README.md.gz 0644 root root $REPO_ROOT/README.md"
    local example
    for example in "$REPO_ROOT"/pam/pam.d/*; do
        echo "data $PINGATE_DOC/examples/pam.d/$(basename "$example") 0644 root root $example"
    done
    local lang
    for lang in $(grep -v '^#' "$REPO_ROOT/po/LINGUAS"); do
        echo "data /usr/share/locale/$lang/LC_MESSAGES/pingate.mo 0644 root root $REPO_ROOT/po/build/$lang/LC_MESSAGES/pingate.mo"
    done
}

pingate_lock_files() {
    cat <<EOF
elf  $PINGATE_LOCK 0755 root root $PINGATE_RELEASE_BIN/pingate-lock
conf $PINGATE_LOCK_SERVICE 0644 root root $REPO_ROOT/pam/pam.d/pingate-lock
EOF
    pingate_man_pages pingate-lock.1
}

# pingate_man_pages PAGE...: the man lines for the pages that exist.
pingate_man_pages() {
    local page section
    for page in "$@"; do
        section="${page##*.}"
        [ -f "$REPO_ROOT/packaging/man/$page" ] || continue
        echo "man  /usr/share/man/man$section/$page.gz 0644 root root $REPO_ROOT/packaging/man/$page"
    done
}

# pingate_directories: directories the install creates, as
#   DESTINATION MODE OWNER GROUP
# (parents such as /usr/share/man/man8 are created 0755 root:root when missing
# and never removed).
pingate_directories() {
    cat <<EOF
/usr/libexec/pingate 0755 root root
/etc/pingate 0755 root root
$PINGATE_STORE 0750 root $PINGATE_GROUP
EOF
}

# pingate_prepare KIND SOURCE OUTPUT: writes the bytes to install for SOURCE.
# The result is a pure function of the source, so a second install compares
# equal and says "unchanged".
pingate_prepare() {
    local kind="$1" source="$2" output="$3"
    case "$kind" in
        elf)
            # Debug symbols make the Swift binaries 40% larger; SwiftPM's $ORIGIN
            # RUNPATH is meaningless (and ignored) in /usr/bin or a setgid helper.
            "$PINGATE_STRIP" --strip-unneeded --remove-section=.comment --remove-section=.note \
                -o "$output" "$source"
            if readelf -d "$output" 2>/dev/null | grep -q 'R\(UN\)\?PATH'; then
                if command -v chrpath >/dev/null; then
                    chrpath -d "$output" >/dev/null
                else
                    echo "warning: chrpath is missing; $(basename "$source") keeps its \$ORIGIN RUNPATH" >&2
                fi
            fi
            ;;
        man|doc) gzip -9n -c "$source" > "$output" ;;
        *) cat "$source" > "$output" ;;
    esac
}
