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
#   cross_debs ARCH            directory of this tree's packages for ARCH
#   cross_emulator ARCH        the root of the layer's qemu for ARCH
#
# The layer is container_lib.sh's (an overlay's upper directory over the
# cached tree, keyed by the tree, the lists and the code below) with
# ARCH added to dpkg's architectures before the packages go in.

REPO_ROOT="${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

# cross_packages ARCH: what the layer installs: the build tools (the native
# ones as well, so the same layer builds and checks amd64 with Swift 6.0.3),
# Debian's Swift, the target's C toolchain and libraries, and qemu-user, the
# emulator that runs ARCH's programs here (cross_emulator; libglib2.0-dev of
# ARCH brings it anyway, through cross-exe-wrapper). Debian 13's qemu 10.0,
# not Debian 12's qemu-user-static 7.2: its clone() refuses CLONE_PIDFD, so
# Debian 13's systemd 257 starts no service ("Failed to spawn executor").
cross_packages() {
    local arch="$1" gnu entry packages=()
    gnu="$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)"
    . "$REPO_ROOT/packaging/layout.sh"
    for entry in "${PINGATE_BUILD_PACKAGES[@]}"; do packages+=("${entry%%|*}"); done
    packages+=(swiftlang dpkg-dev libstdc++-14-dev "gcc-$gnu" "binutils-$gnu" qemu-user
               "libc6-dev:$arch" "libgcc-14-dev:$arch" "libstdc++-14-dev:$arch")
    for entry in "${PINGATE_BUILD_LIBRARIES[@]}"; do packages+=("$entry:$arch"); done
    echo "${packages[@]}"
}

# The target's Swift, unpacked (not installed) into /opt/swiftlang-ARCH:
# from swiftlang:ARCH only what a -static-stdlib build for ARCH reads (the
# static runtime and the modules beside it, 170 MB, and the clang headers
# its swift_static/clang link points to, 14 MB), not the 2.1 GB of the
# target's compiler, debugger and shared runtime, which nothing here runs.
CROSS_SWIFT_PACKAGES="swiftlang"
CROSS_SWIFT_PATHS="./usr/libexec/swift/lib/swift_static ./usr/libexec/swift/lib/clang/17/include"

# cross_layer_install ROOT RELEASE ARCH PACKAGES...: in ROOT (the overlay,
# in a mount namespace of its own), ARCH becomes one of dpkg's architectures,
# ct_layer_install installs PACKAGES (without manuals), then a second apt session downloads
# CROSS_SWIFT_PACKAGES of ARCH and unpacks CROSS_SWIFT_PATHS of them into
# /opt/swiftlang-ARCH.
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
            # shellcheck disable=SC2086  # the paths are words
            dpkg-deb --fsys-tarfile "$package" | tar -x -C "$root/opt/swiftlang-$arch" $CROSS_SWIFT_PATHS ||
                { rc=1; break; }
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
    if ! CT_MIRROR="$CT_MIRROR" CROSS_SWIFT_PACKAGES="$CROSS_SWIFT_PACKAGES" CROSS_SWIFT_PATHS="$CROSS_SWIFT_PATHS" timeout 2400 \
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
    key="$({ ct_tree_key trixie; echo "$arch $packages $CROSS_SWIFT_PACKAGES $CROSS_SWIFT_PATHS"
             declare -f ct_layer_install cross_layer_install ct_build_cross_layer; } | sha256sum | cut -c1-12)"
    # shellcheck disable=SC2086  # the list is words
    ct_cached_layer trixie "cross-$arch" "$key" ct_build_cross_layer "$arch" $packages
}

# cross_emulator ARCH: prints the layer's path, the root under which its
# emulator for ARCH is (usr/bin/qemu-CPU, usr/share/qemu/binfmt.d/qemu-CPU.conf):
# container_lib.sh's CT_EMULATOR_ROOT.
cross_emulator() {
    cross_layer "$1"
}

# cross_debs ARCH: prints the directory that holds this tree's packages for
# ARCH (pingate_*_ARCH.deb, pingate-lock_*_ARCH.deb, build.log, the build's
# output, and pam_bench, packaging/benchmarks' PAM driver for ARCH), built once per state of the source in the cross layer by
# build-deb.sh --arch ARCH: the tests that read the arm64 packages (the
# static checks, the booted arm64 tree) share one build. Keyed by the
# layer and by every file git would commit (tracked or not ignored, as they
# are now: only these are copied into the build) but the integration tests,
# which no package holds; older builds for ARCH are removed. The build's own time is in build.log's last line.
cross_debs() {
    local arch="$1" layer key final
    layer="$(cross_layer "$arch")" || return 1
    key="$({ echo "$layer"; cd "$REPO_ROOT" && cross_sources | grep -zv '^Tests/IntegrationTests/' | sort -z |
             xargs -0 -r sha256sum; } | sha256sum | cut -c1-12)"
    final="$CT_CACHE/debs/$arch-$key"
    mkdir -p "$CT_CACHE/debs"
    (
        flock -w 2400 9 || { echo "could not lock the package cache" >&2; exit 1; }
        [ -d "$final" ] && exit 0
        rm -rf --one-file-system "$CT_CACHE/debs/.building-$arch".* 2>/dev/null
        local tmp start=$SECONDS status=0
        tmp="$(mktemp -d "$CT_CACHE/debs/.building-$arch.XXXXXX")"
        mkdir "$tmp/src" "$tmp/out"
        cross_sources | tar -C "$REPO_ROOT" --null -T - -c | tar -C "$tmp/src" -x || status=1
        [ "$status" != 0 ] || container_run trixie --layer "$layer" --bind-ro "$tmp/src:/src" --bind "$tmp/out:/out" -- bash -c '
            set -e
            cp -a /src /build && cd /build
            timeout 1800 packaging/build-deb.sh --arch "$1" --output /out
            # The benchmark'"'"'s PAM driver too, to time sign-ins on ARCH.
            "$(dpkg-architecture -a"$1" -qDEB_HOST_GNU_TYPE 2> /dev/null)-gcc" -O2 -Wall -Wextra -Werror \
                packaging/benchmarks/pam_bench.c -o /out/pam_bench -lpam' _ "$arch" > "$tmp/out/build.log" 2>&1 || status=$?
        echo "(build-deb.sh --arch $arch in the cross layer: $((SECONDS - start)) s, status $status)" | tee -a "$tmp/out/build.log" >&2
        if [ "$status" != 0 ]; then
            echo "building the $arch packages failed; the end of its log:" >&2
            tail -40 "$tmp/out/build.log" >&2
            rm -rf --one-file-system "$tmp"
            exit 1
        fi
        local old
        for old in "$CT_CACHE/debs/$arch"-*; do rm -rf --one-file-system "$old"; done
        mv -T "$tmp/out" "$final"
        rm -rf --one-file-system "$tmp"
    ) 9> "$CT_CACHE/debs/.lock-$arch" || return 1
    echo "$final"
}

# cross_sources: the tree's files as git would commit them now (tracked and
# present, or untracked and not ignored), NUL-separated, relative to REPO_ROOT.
cross_sources() {
    git -C "$REPO_ROOT" ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' file; do [ -f "$REPO_ROOT/$file" ] && printf '%s\0' "$file"; done
}
