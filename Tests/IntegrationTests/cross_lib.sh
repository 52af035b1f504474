# cross_lib.sh — a Debian 13 (trixie) tree that builds PinGate's packages for
# another architecture (arm64) on this amd64 machine, as
# `packaging/build-deb.sh --arch ARCH` does on a Debian 13 system set up for it:
# Debian's own swiftlang 6.0.3 (the amd64 compiler, clang and lld), the
# target's Swift runtime and static libraries unpacked from swiftlang:ARCH
# and libswiftlang:ARCH (they cannot be installed beside the amd64 ones),
# the target's libraries through multiarch (libpam0g-dev:ARCH, ...) and the
# cross C compiler for the PAM module. Debian 13, not this machine's 12:
# trixie's Swift runtime for arm64 is built against glibc 2.41.
#
#   . container_lib.sh; . cross_lib.sh
#   cross_layer ARCH           path of the cached layer (made if missing)
#   cross_build ARCH LAYER OUT packages of this tree for ARCH into OUT
#
# The layer is container_lib.sh's (an overlay's upper directory over the
# cached tree, keyed by the tree, the lists and the code below) with
# ARCH added to dpkg's architectures before the packages go in.

REPO_ROOT="${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

# cross_packages ARCH: what the layer installs: the build tools (the native
# ones as well, so the same layer builds and checks amd64 with Swift 6.0.3),
# Debian's Swift, the target's C toolchain and libraries.
cross_packages() {
    local arch="$1" gnu entry packages=()
    gnu="$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)"
    . "$REPO_ROOT/packaging/layout.sh"
    for entry in "${PINGATE_BUILD_PACKAGES[@]}"; do packages+=("${entry%%|*}"); done
    packages+=(swiftlang dpkg-dev libstdc++-14-dev "gcc-$gnu" "binutils-$gnu"
               "libc6-dev:$arch" "libgcc-14-dev:$arch" "libstdc++-14-dev:$arch")
    for entry in "${PINGATE_BUILD_LIBRARIES[@]}"; do packages+=("$entry:$arch"); done
    echo "${packages[@]}"
}

# The target's Swift, unpacked (not installed) into /opt/swiftlang-ARCH.
CROSS_SWIFT_PACKAGES="swiftlang libswiftlang"

# cross_layer_install ROOT RELEASE ARCH PACKAGES...: in ROOT (the overlay,
# in a mount namespace of its own), ARCH becomes one of dpkg's architectures,
# ct_layer_install installs PACKAGES (without manuals), then a second apt session downloads
# CROSS_SWIFT_PACKAGES of ARCH and unpacks them into /opt/swiftlang-ARCH.
cross_layer_install() {
    local root="$1" release="$2" arch="$3" apt=/var/tmp/pingate-cross package
    shift 3
    chroot "$root" dpkg --add-architecture "$arch" || return 1
    # No manuals or documentation: a build reads none, and a few packages of
    # two architectures ship different ones (libpsl-dev's libpsl.3.gz, amd64's
    # from a binNMU), which dpkg refuses to install side by side.
    printf 'path-exclude=/usr/share/man/*\npath-exclude=/usr/share/doc/*\n' > "$root/etc/dpkg/dpkg.cfg.d/pingate-cross"
    ct_layer_install "$root" "$release" "$@" || return 1
    mkdir -p "$root$apt/lists/partial" "$root$apt/cache/archives/partial" "$root$apt/debs"
    echo "deb $CT_MIRROR $release main" > "$root$apt/sources.list"
    local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::State::Lists=$apt/lists"
                   -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
    local rc=0 debs=()
    for package in $CROSS_SWIFT_PACKAGES; do debs+=("$package:$arch"); done
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 apt-get "${options[@]}" update &&
        chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
            sh -c 'cd "$1" && shift && apt-get "$@"' sh "$apt/debs" "${options[@]}" download "${debs[@]}" || rc=$?
    if [ "$rc" = 0 ]; then
        mkdir -p "$root/opt/swiftlang-$arch"
        for package in "$root$apt"/debs/*.deb; do
            dpkg-deb -x "$package" "$root/opt/swiftlang-$arch" || { rc=1; break; }
        done
    fi
    rm -rf "$root$apt"
    return "$rc"
}

# ct_build_cross_layer RELEASE NAME TREE FINAL LOG ARCH PACKAGES...: as
# container_lib.sh's ct_build_layer, with cross_layer_install.
ct_build_cross_layer() {
    local release="$1" name="$2" tree="$3" final="$4" log="$5" tmp
    shift 5
    tmp="$(mktemp -d "$CT_CACHE/layers/.building-$release-$name.XXXXXX")"
    mkdir "$tmp/upper" "$tmp/work" "$tmp/root"
    if ! CT_MIRROR="$CT_MIRROR" CROSS_SWIFT_PACKAGES="$CROSS_SWIFT_PACKAGES" timeout 2400 \
            unshare --mount --propagation private bash -c "$(declare -f ct_layer_install cross_layer_install)"'
            mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/root" &&
                cross_layer_install "$2/root" "${@:3}"' _ "$tree" "$tmp" "$release" "$@" > "$log" 2>&1; then
        echo "making the $release $name layer failed; its log: $log" >&2
        tail -20 "$log" >&2
        rm -rf --one-file-system "$tmp"
        return 1
    fi
    mv -T "$tmp/upper" "$final"
    rm -rf --one-file-system "$tmp"
}

# cross_layer ARCH: prints the path of the trixie layer that builds for ARCH.
cross_layer() {
    local arch="$1" packages key
    packages="$(cross_packages "$arch")" || return 1
    key="$({ ct_tree_key trixie; echo "$arch $packages $CROSS_SWIFT_PACKAGES"
             declare -f ct_layer_install cross_layer_install ct_build_cross_layer; } | sha256sum | cut -c1-12)"
    # shellcheck disable=SC2086  # the list is words
    ct_cached_layer trixie "cross-$arch" "$key" ct_build_cross_layer "$arch" $packages
}
