#!/bin/bash
# build-deb.sh — dist/pingate_<version>_<arch>.deb and
# dist/pingate-lock_<version>_<arch>.deb from this clone.
#
#   packaging/build-deb.sh [--no-build] [--output DIR] [--lintian] [--arch ARCH]
#
# --arch ARCH builds for another architecture (arm64 on amd64) with Debian 13's
# own tools: swiftlang's compiler, the target's static Swift runtime unpacked
# from swiftlang:ARCH into /opt/swiftlang-ARCH (or
# $PINGATE_TARGET_SWIFT), the target's libraries (LIBRARY:ARCH, multiarch) and
# the cross C compiler; packaging/cross.sh says how, and names what is missing.
#
# Ships the same files as install.sh (both read packaging/layout.sh), split in
# two packages so that a server gets no X libraries: `pingate` (helper, CLI,
# PAM module, profile, catalogues, man pages) and `pingate-lock` (the X11 lock
# screen, its PAM service and man page; it depends on this very version of
# pingate). Each package's control file, conffiles and maintainer scripts are
# in packaging/debian/<package>/; changelog and copyright are shared.
#
# The pingate archive holds the helper as root:root 0755, because the pingate
# group exists only once postinst has run; postinst then registers
#   dpkg-statoverride --update --add root pingate 2755 /usr/libexec/pingate/pingate-verify
# (those values filled in from pam/pingate_install.h)
# which dpkg also applies to every later upgrade. postinst also creates the
# group, the store and the machine key; prerm (remove) takes the profile out of
# the common-* stacks with pam-auth-update before the module leaves the disk;
# postrm (purge) removes the store, the statoverride and the group.
#
# Depends is computed with dpkg-shlibdeps for each package's binaries, plus
# libpam-runtime for pam-auth-update, adduser for addgroup, debconf for the
# question whether to seal the key with the TPM, and
# libtss2-tcti-device0 (pingate: the TCTI loader opens /dev/tpmrm0's TCTI
# with dlopen, which dpkg-shlibdeps cannot see) and pingate (= version)
# (pingate-lock).
#
# One set of packages installs on Debian 12 and on Debian 13. Debian 13 renamed
# the libraries built with 64-bit time_t (the "t64" transition); each renamed
# package Provides its old name, so the Depends computed here on Debian 12 holds
# there too — all but libtss2-mu-4.0.1-0t64, which ships the same soname as
# libtss2-mu0, Conflicts with it and Provides nothing: it is added as an
# alternative (RELEASE_ALTERNATIVES).
#
# Built-Using (pingate) names the Debian sources of the static archives linked
# into the helper (libsodium, libstdc++ and its unwinder) and into the CLI and
# pingate-lock (libsodium; Package.swift says why), so a security update of
# one of them is known to need a rebuild.
#
# Needs no root: dpkg-deb --root-owner-group makes every file root:root.
# Exit status: 0 built (and lintian found no errors, with --lintian), 1 failed, 2 usage.

set -euo pipefail
umask 022

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEBIAN_DIR="$REPO_ROOT/packaging/debian"

BUILD=1
OUTPUT="$REPO_ROOT/dist"
LINTIAN=0
ARCH="$(dpkg --print-architecture)"
HOST_ARCH="$ARCH"
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) BUILD=0; shift ;;
        --output) [ -n "${2:-}" ] || { echo "build-deb.sh: --output needs a directory" >&2; exit 2; }
                  OUTPUT="$2"; shift 2 ;;
        --lintian) LINTIAN=1; shift ;;
        --arch) [ -n "${2:-}" ] || { echo "build-deb.sh: --arch needs a Debian architecture (arm64)" >&2; exit 2; }
                ARCH="$2"; shift 2 ;;
        -h|--help) sed -n '5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

die() { echo "build-deb.sh: $*" >&2; exit 1; }

# Native: this machine's compilers, swift from PATH or /opt/swift. Cross:
# cross.sh sets PINGATE_CC, PINGATE_STRIP, the Swift build's arguments and
# where its binaries land, before layout.sh reads the install facts with
# the target's compiler.
SWIFT_BUILD=(build -c release --static-swift-stdlib)
MAKE_PAM=()
LINK_DRIVER=(cc)
if [ "$ARCH" != "$HOST_ARCH" ]; then
    # shellcheck source=packaging/cross.sh
    . "$REPO_ROOT/packaging/cross.sh"
fi
# shellcheck source=packaging/layout.sh
. "$REPO_ROOT/packaging/layout.sh"

# needs: stops, saying in one line what this machine lacks to build (the
# build packages of layout.sh, and cross.sh's for --arch), with swift found
# as install.sh finds it.
needs() {
    local entry missing=() problems=""
    for entry in dpkg-dev "${PINGATE_BUILD_TOOLS[@]}" "${CROSS_TOOLS[@]}"; do
        pingate_installed_one_of "$entry" || missing+=("${entry%%|*}")
    done
    for entry in "${PINGATE_BUILD_LIBRARIES[@]}" "${CROSS_LIBRARIES[@]}"; do
        pingate_installed_one_of "$entry${CROSS_SUFFIX:-}" || missing+=("$entry${CROSS_SUFFIX:-}")
    done
    if [ -z "${CROSS_SUFFIX:-}" ]; then
        for entry in "${PINGATE_WAYLAND_LIBRARIES[@]}"; do pingate_installed_one_of "$entry" || missing+=("$entry"); done
    fi
    [ -n "$SWIFT_COMMAND" ] || problems="no swift (on PATH or in /opt/swift/usr/bin: swift.org's toolchain, or Debian 13's swiftlang)"
    [ ${#missing[@]} -eq 0 ] || problems="${problems:+$problems; }missing packages (apt-get install ${missing[*]})"
    [ -z "${CROSS_MISSING:-}" ] || problems="${problems:+$problems; }no $CROSS_MISSING"
    [ -z "$problems" ] || die "cannot build${CROSS_SUFFIX:+ for $ARCH}: $problems"
}

if [ "$BUILD" = 1 ]; then
    [ -n "${SWIFT_COMMAND+set}" ] || SWIFT_COMMAND="$(pingate_swift)" || SWIFT_COMMAND=""
    needs
    (cd "$REPO_ROOT" && "$SWIFT_COMMAND" "${SWIFT_BUILD[@]}") || die "swift build failed"
    make -C "$REPO_ROOT/pam" "${MAKE_PAM[@]}" || die "make -C pam failed"
    make -C "$REPO_ROOT/po" || die "make -C po failed"
fi

WORK="$(mktemp -d /tmp/pingate-deb.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# Reproducible: every timestamp is the changelog's.
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$DEBIAN_DIR/changelog" -STimestamp)}"
export SOURCE_DATE_EPOCH

# built_using ARCHIVE...: "source (= version), ..." of the packages holding
# the static archives a package's executables are linked with, as found by
# the driver that links them (LINK_DRIVER: cc, whose GCC installation the
# toolchain's clang also takes; cross.sh names the target's clang).
built_using() {
    local archive packages=()
    for archive in "$@"; do
        packages+=("$(dpkg-query -S "$(realpath "$("${LINK_DRIVER[@]}" -print-file-name="$archive")")" | cut -d: -f1)")
    done
    dpkg-query -W -f='${source:Package} (= ${source:Version})\n' "${packages[@]}" | sort -u | paste -sd, | sed 's/,/, /g'
}

maintainer() {
    if [ -n "${DEBEMAIL:-}" ]; then echo "${DEBFULLNAME:-PinGate maintainers} <$DEBEMAIL>"; return; fi
    dpkg-parsechangelog -l "$DEBIAN_DIR/changelog" -SMaintainer
}

# shared_library_depends PACKAGE STAGE BINARY...: dpkg-shlibdeps wants a
# source tree, a debian/control naming the package, and the binaries in their
# final place.
shared_library_depends() {
    local package="$1" stage="$2"; shift 2
    local tree="$WORK/shlibs-$package" binary arguments=()
    mkdir -p "$tree/debian"
    printf 'Source: pingate\n\nPackage: %s\nArchitecture: any\n' "$package" > "$tree/debian/control"
    for binary in "$@"; do arguments+=("-e$stage$binary"); done
    (cd "$tree" && dpkg-shlibdeps -O "${arguments[@]}" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}

# A Depends entry of Debian 12 and the package Debian 13 has in its place,
# where that package does not Provide the old name.
RELEASE_ALTERNATIVES=("libtss2-mu0 libtss2-mu-4.0.1-0t64")

# with_release_alternatives: the Depends line on stdin, each entry of
# RELEASE_ALTERNATIVES followed by "| ITS_SUCCESSOR".
with_release_alternatives() {
    local pair expression=()
    for pair in "${RELEASE_ALTERNATIVES[@]}"; do
        expression+=(-e "s/(^|, )(${pair%% *}( \\([^)]*\\))?)(,|\$)/\\1\\2 | ${pair#* }\\4/")
    done
    sed -E "${expression[@]}"
}

# build_package PACKAGE EXTRA_DEPENDS: stages the package's files, its docs
# and control area, and writes the .deb to $OUTPUT.
build_package() {
    local package="$1" extra_depends="$2"
    local stage="$WORK/$package" control="$DEBIAN_DIR/$package"
    local doc="$stage/usr/share/doc/$package" binaries=()
    local kind destination mode group source
    while read -r kind destination mode _ group source; do
        [ -f "$source" ] || die "missing $source: build it first (run me without --no-build)"
        mkdir -p "$stage$(dirname "$destination")"
        pingate_prepare "$kind" "$source" "$stage$destination"
        # The setgid bit needs the group, which postinst creates: see the statoverride.
        [ "$group" = root ] || mode=0755
        chmod "$mode" "$stage$destination"
        [ "$kind" = elf ] && binaries+=("$destination")
    done < <(pingate_files "$package")

    mkdir -p "$doc"
    install -m 0644 "$DEBIAN_DIR/copyright" "$doc/copyright"
    # A native package (no Debian revision): its changelog is changelog.gz.
    gzip -9n -c "$DEBIAN_DIR/changelog" > "$doc/changelog.gz"
    chmod 0644 "$doc/changelog.gz"

    local depends
    depends="$(shared_library_depends "$package" "$stage" "${binaries[@]}" | with_release_alternatives)"
    [ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies for $package's binaries"
    depends="$depends, $extra_depends"

    mkdir -p "$stage/DEBIAN"
    local installed_size
    installed_size="$(du -sk --apparent-size --exclude=DEBIAN "$stage" | cut -f1)"
    sed -e "s/@VERSION@/$PINGATE_VERSION/" -e "s/@ARCH@/$ARCH/" \
        -e "s/@MAINTAINER@/$(maintainer | sed 's/[&/\]/\\&/g')/" \
        -e "s/@INSTALLED_SIZE@/$installed_size/" -e "s/@DEPENDS@/$depends/" -e "s/@BUILT_USING@/$(built_using libsodium.a libstdc++.a libgcc_eh.a)/" \
        -e "s/@BUILT_USING_SODIUM@/$(built_using libsodium.a)/" \
        "$control/control.in" > "$stage/DEBIAN/control"
    install -m 0644 "$control/conffiles" "$stage/DEBIAN/conffiles"
    local script
    # debconf's question (templates) and the script that asks it (config).
    if [ -f "$control/templates" ]; then install -m 0644 "$control/templates" "$stage/DEBIAN/templates"; fi
    for script in config postinst prerm postrm; do
        [ -f "$control/$script" ] || continue
        sed -e "s|@HELPER@|$PINGATE_HELPER|g" -e "s|@HELPER_MODE@|$PINGATE_HELPER_MODE|g" \
            -e "s|@GROUP@|$PINGATE_GROUP|g" -e "s|@LOADED_KEY_DIR@|$PINGATE_LOADED_KEY_DIR|g" \
            "$control/$script" > "$stage/DEBIAN/$script"
        chmod 0755 "$stage/DEBIAN/$script"
        ! grep -q '@[A-Z_]*@' "$stage/DEBIAN/$script" || die "$script has a placeholder build-deb.sh does not fill"
    done
    (cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
        xargs -d '\n' md5sum) > "$stage/DEBIAN/md5sums"
    chmod 0644 "$stage/DEBIAN/md5sums"

    find "$stage" -type d -exec chmod 0755 {} +
    find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

    local deb="$OUTPUT/${package}_${PINGATE_VERSION}_${ARCH}.deb"
    mkdir -p "$OUTPUT"
    dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
    echo "built $deb"
    PACKAGES+=("$deb")
}

PACKAGES=()
build_package pingate "libpam-runtime (>= 1.0.1-6), adduser, libtss2-tcti-device0, debconf (>= 0.5) | debconf-2.0"
build_package pingate-lock "pingate (= $PINGATE_VERSION)"

if [ "$LINTIAN" = 1 ]; then
    command -v lintian > /dev/null || die "lintian is not installed (apt-get install lintian)"
    for deb in "${PACKAGES[@]}"; do
        lintian --no-tag-display-limit "$deb" || true
        if lintian "$deb" 2>&1 | grep -q '^E: '; then die "lintian reports errors in $(basename "$deb")"; fi
    done
fi
