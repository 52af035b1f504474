#!/bin/bash
# arm64_deb_test.sh — the arm64 packages, built on this amd64 machine (issue 38):
# `packaging/build-deb.sh --arch arm64` makes pingate_*_arm64.deb and
# pingate-lock_*_arm64.deb with the files and modes of the amd64 ones, aarch64
# executables with full RELRO, no RUNPATH and the Swift runtime inside, a
# Depends line from the arm64 libraries, and no lintian error.
#
# How (container_lib.sh, cross_lib.sh): the cross layer over the cached Debian
# 13 tree (Debian's swiftlang 6.0.3, the arm64 Swift runtime unpacked, arm64
# libraries through multiarch, gcc-aarch64-linux-gnu); the tree's sources
# copied in and built there by build-deb.sh --arch arm64, not booted
# (cross_debs: built once per state of the source, shared with
# arm64_booted_test.sh). The checks run here on the .debs: readelf instead of ldd, which
# cannot read arm64 binaries. Nothing is run on arm64 here (that is a booted
# arm64 tree's job).
#
# Run as root: bash Tests/IntegrationTests/arm64_deb_test.sh
# (PINGATE_ARM64_DIST=DIR: check the .debs in DIR instead of building them.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/cross_lib.sh"

# The version the packages carry, as build-deb.sh takes it.
VERSION="$(sed -n 's/^PINGATE_VERSION=//p' "$(dirname "${BASH_SOURCE[0]}")/../../packaging/layout.sh")"

ARCH=arm64
WORK="$(mktemp -d /tmp/pingate-arm64-deb.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/dist" "$WORK/amd64"

# Built once for every test.
SKIP_ALL=""
BUILD_STATUS=1
if [ -n "${PINGATE_ARM64_DIST:-}" ]; then     # packages built elsewhere (debugging)
    cp "$PINGATE_ARM64_DIST"/*_"$ARCH".deb "$WORK/dist/" && BUILD_STATUS=0
    : > "$WORK/build.out"
elif [ "$(id -u)" != 0 ]; then
    SKIP_ALL="needs root (debootstrap, overlay mounts, systemd-nspawn)"
elif ! command -v systemd-nspawn > /dev/null; then
    SKIP_ALL="systemd-nspawn is not installed"
elif ! DIST="$(cross_debs "$ARCH" 2> "$WORK/layer.out")"; then
    if grep -q '^(build-deb.sh' "$WORK/layer.out"; then
        cp "$WORK/layer.out" "$WORK/build.out"      # the build failed: need_debs says so
    else
        SKIP_ALL="could not make the trixie cross-$ARCH layer: $(tail -5 "$WORK/layer.out")"
    fi
else
    grep -h '^(built the\|^(build-deb.sh' "$WORK/layer.out" || true
    cp "$DIST"/*_"$ARCH".deb "$WORK/dist/" && cp "$DIST/build.log" "$WORK/build.out" && BUILD_STATUS=0
fi
DEB="$(ls "$WORK"/dist/pingate_*_$ARCH.deb 2>/dev/null | head -1)"
LOCK_DEB="$(ls "$WORK"/dist/pingate-lock_*_$ARCH.deb 2>/dev/null | head -1)"

need_debs() {
    [ -z "$SKIP_ALL" ] || skip "$SKIP_ALL"
    [ "$BUILD_STATUS" = 0 ] && [ -f "$DEB" ] && [ -f "$LOCK_DEB" ] ||
        fail "build-deb.sh --arch $ARCH failed (status $BUILD_STATUS): $(tail -40 "$WORK/build.out")"
}

# elf_files DEB DIR: unpacks DEB into DIR/NAME and prints its ELF files.
elf_files() {
    local into="$2/$(basename "$1")"
    mkdir -p "$into"
    dpkg-deb -x "$1" "$into"
    find "$into" -type f -exec sh -c 'head -c 4 "$1" | grep -q "ELF" && echo "$1"' sh {} \;
}

test_the_packages_are_named_and_marked_arm64() {
    need_debs
    assert_eq "pingate_${VERSION}_$ARCH.deb" "$(basename "$DEB")" "file name"
    assert_eq "pingate-lock_${VERSION}_$ARCH.deb" "$(basename "$LOCK_DEB")" "file name"
    assert_eq "$ARCH" "$(dpkg-deb -f "$DEB" Architecture)" "pingate's Architecture"
    assert_eq "$ARCH" "$(dpkg-deb -f "$LOCK_DEB" Architecture)" "pingate-lock's Architecture"
    ! grep -E "warning:" "$WORK/build.out" || fail "the arm64 build printed the warnings above"
}

# The same files with the same modes as the amd64 packages of this tree, the
# PAM module under the aarch64 triplet (the amd64 ones from the release
# build the suite makes first).
test_the_packages_hold_the_amd64_packages_files_and_modes() {
    need_debs
    [ -x "${PINGATE_RELEASE_BIN:-$REPO_ROOT/.build/release}/pingate-verify" ] ||
        skip "no amd64 release build to compare with (swift build -c release)"
    "$REPO_ROOT/packaging/build-deb.sh" --no-build --output "$WORK/amd64" > "$WORK/amd64.out" 2>&1 ||
        fail "build-deb.sh --no-build (amd64) failed: $(cat "$WORK/amd64.out")"
    local package native
    for package in pingate pingate-lock; do
        native="$(ls "$WORK"/amd64/"${package}"_*.deb)"
        assert_eq "$(dpkg-deb -c "$native" | awk '{print $1, $2, $6}' | sed 's/x86_64-linux-gnu/aarch64-linux-gnu/' | LC_ALL=C sort -k3)" \
                  "$(dpkg-deb -c "$WORK/dist/${package}_${VERSION}_$ARCH.deb" | awk '{print $1, $2, $6}' | LC_ALL=C sort -k3)" \
                  "files and modes of $package (amd64, arm64)"
    done
}

test_the_executables_are_aarch64_with_full_relro_no_runpath_and_the_swift_runtime_inside() {
    need_debs
    local binary count=0
    for binary in $(elf_files "$DEB" "$WORK/x") $(elf_files "$LOCK_DEB" "$WORK/x"); do
        count=$((count + 1))
        assert_contains "$(readelf -h "$binary")" "AArch64" "machine of $binary"
        assert_contains "$(readelf -lW "$binary")" "GNU_RELRO" "program headers of $binary"
        readelf -d "$binary" | grep -qE 'BIND_NOW|FLAGS.*NOW' || fail "$binary is not linked with -z now"
        assert_not_contains "$(readelf -d "$binary")" "PATH" "RUNPATH or RPATH of $binary"
        assert_not_contains "$(readelf -d "$binary" | grep NEEDED)" "libswift" "libraries $binary loads"
    done
    assert_eq 4 "$count" "ELF files (helper, CLI, module, lock screen)"
}

# Debian 13's arm64 Swift runtime is built against glibc 2.41: the highest
# GLIBC_ version any binary needs says whether Debian 12 arm64 (2.36) can
# install the packages too.
test_the_glibc_versions_needed_are_debian_13s() {
    need_debs
    local binary highest=0 version
    for binary in $(elf_files "$DEB" "$WORK/v") $(elf_files "$LOCK_DEB" "$WORK/v"); do
        version="$(readelf -VW "$binary" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)"
        echo "    $(basename "$binary"): GLIBC_$version" >&2
        highest="$(printf '%s\n%s\n' "$highest" "$version" | sort -V | tail -1)"
    done
    echo "    highest: GLIBC_$highest (Debian 12 has 2.36, Debian 13 2.41)" >&2
    [ "$(printf '%s\n2.41\n' "$highest" | sort -V | tail -1)" = 2.41 ] || fail "needs GLIBC_$highest, above Debian 13's 2.41"
    assert_contains "$(dpkg-deb -f "$DEB" Depends)" "libc6 (>= " "pingate's Depends"
}

test_depends_names_the_arm64_runtime_libraries() {
    need_debs
    local depends
    depends="$(dpkg-deb -f "$DEB" Depends)"
    assert_contains "$depends" "libpam0g" "pingate's Depends"
    assert_contains "$depends" "libpam-runtime (>= 1.0.1-6)" "pingate's Depends"
    assert_not_contains "$depends" "libsodium" "pingate's Depends"
    # The static archives linked in, from the target's packages.
    assert_contains "$(dpkg-deb -f "$DEB" Built-Using)" "gcc-14 (= " "pingate's Built-Using"
    assert_contains "$(dpkg-deb -f "$DEB" Built-Using)" "libsodium (= " "pingate's Built-Using"
    depends="$(dpkg-deb -f "$LOCK_DEB" Depends)"
    assert_contains "$depends" "libcairo2" "pingate-lock's Depends"
    assert_contains "$depends" "pingate (= $VERSION)" "pingate-lock's Depends"
}

test_lintian_reports_no_errors() {
    need_debs
    command -v lintian > /dev/null || skip "lintian is not installed"
    local deb out
    for deb in "$DEB" "$LOCK_DEB"; do
        out="$(lintian "$deb" 2>&1 | grep -v 'running with root privileges')" || true
        assert_not_contains "$out" "E: " "lintian on $(basename "$deb")"
        echo "$out" | grep '^W: ' | sed 's/^/    lintian: /' >&2 || true
    done
}

run_tests
