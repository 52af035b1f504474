# shellcheck shell=bash
# cross.sh — how build-deb.sh --arch ARCH builds on this machine for another
# architecture (arm64 on amd64). Sourced by build-deb.sh (ARCH, REPO_ROOT,
# SWIFT_BUILD, MAKE_PAM and die set) before layout.sh; it only sets variables.
#
# Everything comes from Debian 13's archive, on a Debian 13 machine (Debian
# 12 has no swiftlang) with ARCH added to dpkg's architectures:
#
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install swiftlang dpkg-dev gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu \
#       libc6-dev:arm64 libgcc-14-dev:arm64 libstdc++-14-dev:arm64 \
#       libpam0g-dev:arm64 libsodium-dev:arm64 libsystemd-dev:arm64 libtss2-dev:arm64 \
#       libx11-dev:arm64 libxrandr-dev:arm64 libcairo2-dev:arm64 libpango1.0-dev:arm64 \
#       make pkgconf gettext chrpath
#   apt-get download swiftlang:arm64
#   mkdir -p /opt/swiftlang-arm64
#   dpkg-deb --fsys-tarfile swiftlang_*_arm64.deb | tar -x -C /opt/swiftlang-arm64 \
#       ./usr/libexec/swift/lib/swift_static ./usr/libexec/swift/lib/clang/17/include
#
# The compiler is Debian's swiftlang (6.0.3 in Debian 13): the target's Swift
# modules and static runtime (swift_static/linux/*.a, the -static-stdlib link's
# static-stdlib-args.lnk) come from the same version's swiftlang:ARCH, which
# cannot be installed beside the amd64 one, so they are unpacked from it with
# the clang headers swift_static/clang points to (nothing else of it is read:
# not the target's compiler nor its shared runtime, libswiftlang); their
# directory is /opt/swiftlang-ARCH or $PINGATE_TARGET_SWIFT. Swift links with lld for
# the target (clang --target), C with the cross gcc; pkg-config reads the
# target's .pc files; dpkg-shlibdeps the target's libraries (DEB_HOST_ARCH).

GNU_TYPE="$(dpkg-architecture -a"$ARCH" -qDEB_HOST_GNU_TYPE 2> /dev/null)" ||
    die "--arch $ARCH: not an architecture dpkg-architecture knows (install dpkg-dev)"
# The GNU type with the vendor Swift names: aarch64-linux-gnu -> aarch64-unknown-linux-gnu.
SWIFT_TRIPLE="${GNU_TYPE%%-*}-unknown-${GNU_TYPE#*-}"
TARGET_SWIFT="${PINGATE_TARGET_SWIFT:-/opt/swiftlang-$ARCH}"
TARGET_SWIFT_LIB="$TARGET_SWIFT/usr/libexec/swift/lib"

PINGATE_CC="$GNU_TYPE-gcc"
PINGATE_STRIP="$GNU_TYPE-strip"
PINGATE_RELEASE_BIN="$REPO_ROOT/.build/$SWIFT_TRIPLE/release"
PINGATE_MODULE_BUILD="$REPO_ROOT/pam/build/$ARCH/pam_pingate.so"
export DEB_HOST_ARCH="$ARCH"
export PKG_CONFIG_LIBDIR="/usr/lib/$GNU_TYPE/pkgconfig:/usr/share/pkgconfig"

# Debian's swift, whose version is the target runtime's.
SWIFT_COMMAND=/usr/bin/swift
[ -x "$SWIFT_COMMAND" ] || SWIFT_COMMAND=""
# What needs() in build-deb.sh checks besides layout.sh's lists: these tools,
# and these libraries of the target (CROSS_SUFFIX).
CROSS_TOOLS=(swiftlang "gcc-$GNU_TYPE" "binutils-$GNU_TYPE")
GCC_MAJOR="$("$PINGATE_CC" -dumpversion 2> /dev/null | cut -d. -f1)"
CROSS_LIBRARIES=(libc6-dev "libgcc-${GCC_MAJOR:-14}-dev" "libstdc++-${GCC_MAJOR:-14}-dev")
CROSS_SUFFIX=":$ARCH"
[ -f "$TARGET_SWIFT_LIB/swift_static/linux/static-stdlib-args.lnk" ] ||
    CROSS_MISSING="the $ARCH Swift runtime in $TARGET_SWIFT (apt-get download swiftlang:$ARCH; unpack its usr/libexec/swift/lib/swift_static and usr/libexec/swift/lib/clang/17/include there, as packaging/cross.sh shows)"

SWIFT_BUILD+=(--triple "$SWIFT_TRIPLE"
              -Xswiftc -resource-dir -Xswiftc "$TARGET_SWIFT_LIB/swift_static"
              -Xswiftc -Xclang-linker -Xswiftc "--target=$GNU_TYPE")
MAKE_PAM=(CC="$PINGATE_CC" BUILD="build/$ARCH")
# The clang that links the Swift executables picks the GCC installation of
# libgcc-14-dev:ARCH (/usr/lib/gcc/GNU_TYPE/14), not the cross compiler's:
# Built-Using names the archives it takes.
LINK_DRIVER=(/usr/libexec/swift/bin/clang "--target=$GNU_TYPE")
