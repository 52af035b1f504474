#!/bin/bash
# build-deb.sh — dist/pingate_<version>_<arch>.deb from this clone.
#
#   packaging/build-deb.sh [--no-build] [--output DIR] [--lintian]
#
# Ships the same files as install.sh (both read packaging/layout.sh). The
# archive holds the helper as root:root 0755, because the pingate group exists
# only once postinst has run; postinst then registers
#   dpkg-statoverride --update --add root pingate 2755 /usr/libexec/pingate/pingate-verify
# which dpkg also applies to every later upgrade. postinst also creates the
# group, the store and the machine key; prerm (remove) takes the profile out of
# the common-* stacks with pam-auth-update before the module leaves the disk;
# postrm (purge) removes the store, the statoverride and the group.
#
# Depends is computed with dpkg-shlibdeps (minimum versions of libc6, libpam0g,
# libsodium23, libstdc++6 and libgcc-s1 that the binaries need), plus
# libpam-runtime for pam-auth-update and adduser for addgroup.
#
# Needs no root: dpkg-deb --root-owner-group makes every file root:root.
# Exit status: 0 built (and lintian found no errors, with --lintian), 1 failed, 2 usage.

set -euo pipefail
umask 022

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=packaging/layout.sh
. "$REPO_ROOT/packaging/layout.sh"
DEBIAN_DIR="$REPO_ROOT/packaging/debian"

BUILD=1
OUTPUT="$REPO_ROOT/dist"
LINTIAN=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) BUILD=0; shift ;;
        --output) [ -n "${2:-}" ] || { echo "build-deb.sh: --output needs a directory" >&2; exit 2; }
                  OUTPUT="$2"; shift 2 ;;
        --lintian) LINTIAN=1; shift ;;
        -h|--help) sed -n '4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

die() { echo "build-deb.sh: $*" >&2; exit 1; }

if [ "$BUILD" = 1 ]; then
    (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib) || die "swift build failed"
    make -C "$REPO_ROOT/pam" || die "make -C pam failed"
    make -C "$REPO_ROOT/po" || die "make -C po failed"
fi

ARCH="$(dpkg --print-architecture)"
PACKAGE="$OUTPUT/pingate_${PINGATE_VERSION}_${ARCH}.deb"
WORK="$(mktemp -d /tmp/pingate-deb.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/pingate"
DOC="$STAGE/usr/share/doc/pingate"

# Reproducible: every timestamp is the changelog's.
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$DEBIAN_DIR/changelog" -STimestamp)}"
export SOURCE_DATE_EPOCH

# --- the files ------------------------------------------------------------------

while read -r kind destination mode _owner group source; do
    [ -f "$source" ] || die "missing $source: build it first (run me without --no-build)"
    mkdir -p "$STAGE$(dirname "$destination")"
    pingate_prepare "$kind" "$source" "$STAGE$destination"
    # The setgid bit needs the group, which postinst creates: see the statoverride.
    [ "$group" = root ] || mode=0755
    chmod "$mode" "$STAGE$destination"
done < <(pingate_files)

mkdir -p "$DOC"
install -m 0644 "$DEBIAN_DIR/copyright" "$DOC/copyright"
# A native package (no Debian revision): its changelog is changelog.gz.
gzip -9n -c "$DEBIAN_DIR/changelog" > "$DOC/changelog.gz"
chmod 0644 "$DOC/changelog.gz"

# --- the control area --------------------------------------------------------------

maintainer() {
    if [ -n "${DEBEMAIL:-}" ]; then echo "${DEBFULLNAME:-PinGate maintainers} <$DEBEMAIL>"; return; fi
    dpkg-parsechangelog -l "$DEBIAN_DIR/changelog" -SMaintainer
}

# dpkg-shlibdeps wants a source tree: a debian/control naming the package and
# the binaries in their final place.
shared_library_depends() {
    mkdir -p "$WORK/debian" "$STAGE/DEBIAN"
    printf 'Source: pingate\n\nPackage: pingate\nArchitecture: any\n' > "$WORK/debian/control"
    local binaries=("$STAGE$PINGATE_HELPER" "$STAGE$PINGATE_CLI" "$STAGE$PINGATE_MODULE" "$STAGE$PINGATE_LOCK")
    (cd "$WORK" && dpkg-shlibdeps -O -e"${binaries[0]}" -e"${binaries[1]}" -e"${binaries[2]}" -e"${binaries[3]}" 2>/dev/null) |
        sed -n 's/^shlibs:Depends=//p'
    rm -rf "$WORK/debian"
}

DEPENDS="$(shared_library_depends)"
[ -n "$DEPENDS" ] || die "dpkg-shlibdeps found no dependencies for the binaries"
DEPENDS="$DEPENDS, libpam-runtime (>= 1.0.1-6), adduser"

mkdir -p "$STAGE/DEBIAN"
INSTALLED_SIZE="$(du -sk --apparent-size --exclude=DEBIAN "$STAGE" | cut -f1)"
sed -e "s/@VERSION@/$PINGATE_VERSION/" -e "s/@ARCH@/$ARCH/" \
    -e "s/@MAINTAINER@/$(maintainer | sed 's/[&/\]/\\&/g')/" \
    -e "s/@INSTALLED_SIZE@/$INSTALLED_SIZE/" -e "s/@DEPENDS@/$DEPENDS/" \
    "$DEBIAN_DIR/control.in" > "$STAGE/DEBIAN/control"
install -m 0644 "$DEBIAN_DIR/conffiles" "$STAGE/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 0755 "$DEBIAN_DIR/$script" "$STAGE/DEBIAN/$script"
done
(cd "$STAGE" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
    xargs -d '\n' md5sum) > "$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/md5sums"

find "$STAGE" -type d -exec chmod 0755 {} +
find "$STAGE" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$OUTPUT"
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$PACKAGE" > /dev/null
echo "built $PACKAGE"

if [ "$LINTIAN" = 1 ]; then
    command -v lintian > /dev/null || die "lintian is not installed (apt-get install lintian)"
    lintian --no-tag-display-limit "$PACKAGE" || true
    if lintian "$PACKAGE" 2>&1 | grep -q '^E: '; then die "lintian reports errors"; fi
fi
