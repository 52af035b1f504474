# container_lib.sh — booted Debian systems for the integration tests: a
# debootstrap tree per release, made once and cached on the machine, booted
# with real systemd and logind by systemd-nspawn on a throwaway overlay, and
# driven from outside with nsenter. booted_test.sh says how it is used.
#
#   container_tree RELEASE [ARCH] path of the cached tree (made if missing);
#                                 ARCH (another than this machine's, arm64)
#                                 runs under qemu-user-static (ct_binfmt)
#   container_layer RELEASE NAME PACKAGES...
#                                 path of a cached layer: PACKAGES installed
#                                 over the tree, kept as an overlay upper dir
#   container_boot RELEASE [--upper DIR] [--layer DIR] [--host-network] [--arch ARCH]
#                                 boots it; sets CT_PID (the container's PID 1)
#   container_run RELEASE [--layer DIR] [--bind[-ro] SRC[:DST]]... -- CMD...
#                                 runs CMD in the tree, not booted (a build)
#   ct CMD...                     runs CMD inside (timeout'd), stdin passed on
#                                 (CT_NET=FILE: in another network namespace)
#   container_stop                clean poweroff with a deadline, then cleanup

CT_CACHE="${PINGATE_TEST_CACHE:-/var/cache/pingate-tests}"
CT_MIRROR="${PINGATE_TEST_MIRROR:-http://deb.debian.org/debian}"

# What every tree holds besides minbase: real systemd and logind, the clients
# the tests drive (sudo, ssh, su, cron's PAM service, polkit), and every
# package pingate's Depends names, so `apt-get install ./pingate_*.deb` needs
# no download (the containers have no network).
CT_PACKAGES_COMMON="systemd-sysv dbus dbus-user-session libpam-systemd login passwd sudo
  openssh-server openssh-client polkitd pkexec procps iproute2 libpam-runtime
  libpam-modules adduser debconf libsodium23 cron"
# The tpm2-tss runtime: Debian 13 renamed the libraries built with 64-bit time_t.
CT_PACKAGES_bookworm="libtss2-esys-3.0.2-0 libtss2-tctildr0 libtss2-mu0 libtss2-rc0 libtss2-tcti-device0"
CT_PACKAGES_trixie="libtss2-esys-3.0.2-0t64 libtss2-tctildr0t64 libtss2-mu-4.0.1-0t64 libtss2-rc0t64 libtss2-tcti-device0t64"
# Debian 14 (forky, testing): trixie's tpm2-tss names; no libsodium23 (only
# libsodium26, which nothing here needs: the package links libsodium's
# archive). Bookworm's debootstrap has no forky script: sid's makes it.
CT_PACKAGES_forky="libtss2-esys-3.0.2-0t64 libtss2-tctildr0t64 libtss2-mu-4.0.1-0t64 libtss2-rc0t64 libtss2-tcti-device0t64"
CT_WITHOUT_forky="libsodium23"
CT_SCRIPT_forky=/usr/share/debootstrap/scripts/sid

# ct_packages RELEASE: the common list and the release's own, less what the
# release lacks (CT_WITHOUT_<release>).
ct_packages() {
    local extra="CT_PACKAGES_$1" without="CT_WITHOUT_$1" package out=()
    for package in $CT_PACKAGES_COMMON ${!extra}; do
        [[ " ${!without:-} " == *" $package "* ]] || out+=("$package")
    done
    echo "${out[@]}"
}

# ct_configure_tree DIR: what the tree gets after debootstrap (part of the
# cache key, as the package list is).
ct_configure_tree() {
    local dir="$1"
    echo pingate-test > "$dir/etc/hostname"
    printf '127.0.0.1 localhost\n127.0.1.1 pingate-test\n::1 localhost\n' > "$dir/etc/hosts"
    # Nothing in a test boot waits for a network, a clock or the archive.
    local unit
    for unit in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
                fstrim.timer man-db.timer systemd-timesyncd.service getty@tty1.service \
                console-getty.service ssh.service ssh.socket; do
        ln -sf /dev/null "$dir/etc/systemd/system/$unit"
    done
    # man-db's trigger is slow and no test reads a man page.
    rm -f "$dir/var/lib/man-db/auto-update"
    # apt and dpkg inside: no download, no documentation prompts.
    rm -f "$dir"/etc/apt/sources.list "$dir"/etc/apt/sources.list.d/*
    : > "$dir/etc/apt/sources.list"
    chroot "$dir" apt-get clean
    # sshd on the container's own loopback (the containers have their own
    # network namespace), started by the tests when they need it.
    mkdir -p "$dir/etc/ssh/sshd_config.d"
    printf 'Port 2222\nListenAddress 127.0.0.1\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM yes\n' \
        > "$dir/etc/ssh/sshd_config.d/pingate-test.conf"
}

# The cache key: the release, the package list and the code that builds it,
# and the architecture when it is not this machine's (so the keys of this
# machine's trees stay what they were).
ct_tree_key() {
    local release="$1" arch="${2:-}"
    local script="CT_SCRIPT_$release"
    { echo "$release"; ct_packages "$release"; declare -f ct_configure_tree ct_build_tree
      [ -z "${!script:-}" ] || echo "script ${!script}"
      ! ct_is_foreign "$arch" || { echo "arch $arch"; declare -f ct_build_foreign_tree; }; } |
        sha256sum | cut -c1-12
}

# ct_is_foreign ARCH: ARCH is given and is not this machine's architecture.
ct_is_foreign() {
    [ -n "$1" ] && [ "$1" != "$(dpkg --print-architecture)" ]
}

# ct_tree_dir ARCH: where trees of ARCH are cached: this machine's in trees/,
# another architecture's in trees/ARCH/ (so the removal of a release's old
# trees, by name, never takes another architecture's).
ct_tree_dir() {
    if ct_is_foreign "$1"; then echo "$CT_CACHE/trees/$1"; else echo "$CT_CACHE/trees"; fi
}

# ct_binfmt ARCH: the kernel runs ARCH's executables through qemu (binfmt_misc,
# mounted if it is not). The emulator is the one under CT_EMULATOR_ROOT
# (usr/bin/qemu-CPU and its binfmt.d line; cross_lib.sh's cross_emulator),
# registered as pingate-qemu-CPU when it is not yet, or without
# CT_EMULATOR_ROOT the one qemu-user-static registers. The F flag opens it at
# once, so it works inside chroots and containers that do not have it; the C
# flag (added) gives a setuid or setgid program its owner's credentials, not
# the emulator's (without it sudo says "effective uid is not 0" and
# pingate-verify could not read the store). An
# entry registered later for the same executables would be used instead (the
# newest comes first).
CT_EMULATOR_ROOT="${CT_EMULATOR_ROOT:-}"
ct_binfmt() {
    local cpu conf name qemu
    cpu="$(dpkg-architecture -a"$1" -qDEB_HOST_GNU_CPU 2>/dev/null)" || { echo "unknown architecture $1" >&2; return 1; }
    [ -e /proc/sys/fs/binfmt_misc/register ] ||
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
    if [ -n "$CT_EMULATOR_ROOT" ]; then
        conf="$CT_EMULATOR_ROOT/usr/share/qemu/binfmt.d/qemu-$cpu.conf"
        qemu="$CT_EMULATOR_ROOT/usr/bin/qemu-$cpu"
        name="pingate-qemu-$cpu"
        [ -f "$conf" ] && [ -x "$qemu" ] || { echo "no qemu-$cpu under $CT_EMULATOR_ROOT" >&2; return 1; }
        [ -e "/proc/sys/fs/binfmt_misc/$name" ] ||
            awk -F: -v OFS=: -v name="$name" -v qemu="$qemu" '{ $2 = name; $(NF - 1) = qemu; if ($NF !~ /C/) $NF = $NF "C"; print }' \
                "$conf" > /proc/sys/fs/binfmt_misc/register 2>/dev/null
    else
        conf="/usr/lib/binfmt.d/qemu-$cpu.conf"
        [ -f "$conf" ] || { echo "$conf is missing: install qemu-user-static" >&2; return 1; }
        name="$(cut -d: -f2 "$conf")"
        [ -e "/proc/sys/fs/binfmt_misc/$name" ] || cat "$conf" > /proc/sys/fs/binfmt_misc/register 2>/dev/null
    fi
    [ -e "/proc/sys/fs/binfmt_misc/$name" ] || { echo "could not register $conf with binfmt_misc" >&2; return 1; }
}

ct_build_tree() {
    local release="$1" final="$2" log="$3" tmp script="CT_SCRIPT_$1"
    mkdir -p "$CT_CACHE/trees"
    tmp="$(mktemp -d "$CT_CACHE/trees/.building-$release.XXXXXX")"
    # A deadline: an archive that stops answering must not hang the suite.
    if ! timeout 1200 debootstrap --variant=minbase --include="$(ct_packages "$release" | tr ' ' ',')" \
            "$release" "$tmp" "$CT_MIRROR" ${!script:-} > "$log" 2>&1; then
        echo "debootstrap $release failed; its log: $log" >&2
        tail -20 "$log" >&2
        rm -rf --one-file-system "$tmp"
        return 1
    fi
    ct_configure_tree "$tmp" >> "$log" 2>&1 || { rm -rf --one-file-system "$tmp"; return 1; }
    # Complete: only now does it get the name that says it is cached.
    mv -T "$tmp" "$final"
}

# ct_build_foreign_tree RELEASE FINAL LOG ARCH: ct_build_tree for another
# architecture (a function of its own, so that this machine's tree keys,
# which hash ct_build_tree, stay what they were): debootstrap --arch runs
# the tree's maintainer scripts under qemu-user-static (ct_binfmt). About
# 10 minutes here, against 2 for this machine's own.
ct_build_foreign_tree() {
    local release="$1" final="$2" log="$3" arch="$4" tmp
    tmp="$(mktemp -d "$(dirname "$final")/.building-$release.XXXXXX")"
    if ! timeout 1800 debootstrap --arch="$arch" --variant=minbase --include="$(ct_packages "$release" | tr ' ' ',')" \
            "$release" "$tmp" "$CT_MIRROR" > "$log" 2>&1; then
        echo "debootstrap --arch=$arch $release failed; its log: $log" >&2
        tail -20 "$log" >&2
        rm -rf --one-file-system "$tmp"
        return 1
    fi
    ct_configure_tree "$tmp" >> "$log" 2>&1 || { rm -rf --one-file-system "$tmp"; return 1; }
    mv -T "$tmp" "$final"
}

# container_tree RELEASE [ARCH]: prints the cached tree's path, building it
# first if needed. Builds of one release are serialized by a lock; a half tree
# left by an interrupted build keeps its .building-* name and is removed here.
container_tree() {
    local release="$1" arch="${2:-}" key final log dir
    if ct_is_foreign "$arch"; then ct_binfmt "$arch" || return 1; else arch=""; fi
    key="$(ct_tree_key "$release" "$arch")"
    dir="$(ct_tree_dir "$arch")"
    final="$dir/$release-$key"
    mkdir -p "$dir"
    (
        flock -w 1800 9 || { echo "could not lock the tree cache" >&2; exit 1; }
        if [ ! -d "$final" ]; then
            rm -rf --one-file-system "$dir/.building-$release".* 2>/dev/null
            log="$dir/$release-$key.log"
            local start=$(date +%s)
            if [ -n "$arch" ]; then
                ct_build_foreign_tree "$release" "$final" "$log" "$arch" || exit 1
            else
                ct_build_tree "$release" "$final" "$log" || exit 1
            fi
            echo "(built the $release${arch:+ $arch} tree in $(( $(date +%s) - start )) s, $(du -sh "$final" | cut -f1): $final)" >&2
            # Trees of this release made by older package lists or code are
            # never used again.
            local old
            for old in "$dir/$release"-*; do
                [ "$old" = "$final" ] || [ "$old" = "$log" ] || rm -rf --one-file-system "$old"
            done
        fi
    ) 9> "$dir/.lock-$release" || return 1
    echo "$final"
}

# --- layers: more packages over a tree ------------------------------------------

# A layer is what installing PACKAGES changes in a release's tree (a desktop's
# packages: hundreds of MB no other test needs), kept as the upper directory
# of an overlay whose lower dir was the tree; container_boot --layer stacks it
# over the tree again. Made once per machine in $CT_CACHE/layers/, keyed by
# the tree's key, the package list and the code below, so a new tree or list
# makes a new layer.

# ct_layer_install ROOT RELEASE PACKAGES...: apt-get install in ROOT (the
# overlay), run in a mount namespace of its own (unshare), so its mounts go
# when it ends, however it ends. apt's sources, lists and downloads are in a
# directory removed afterwards, policy-rc.d starts no daemon, and /run and
# /tmp are tmpfs: the upper dir keeps only what the packages installed.
ct_layer_install() {
    local root="$1" release="$2" apt=/var/tmp/pingate-layer
    shift 2
    mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" &&
        mount -t tmpfs tmpfs "$root/run" && mount -t tmpfs tmpfs "$root/tmp" || return 1
    mkdir -p "$root$apt/lists/partial" "$root$apt/cache/archives/partial"
    echo "deb $CT_MIRROR $release main" > "$root$apt/sources.list"
    printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
    chmod 0755 "$root/usr/sbin/policy-rc.d"
    local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::State::Lists=$apt/lists"
                   -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
    local rc=0
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
        apt-get "${options[@]}" update || rc=$?
    [ "$rc" != 0 ] || chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive apt-get "${options[@]}" install -y --no-install-recommends "$@" < /dev/null || rc=$?
    rm -rf "$root$apt" "$root/usr/sbin/policy-rc.d"
    return "$rc"
}

ct_layer_key() {
    local release="$1"
    shift
    { ct_tree_key "$release"; echo "$@"; declare -f ct_layer_install ct_build_layer; } |
        sha256sum | cut -c1-12
}

ct_build_layer() {
    local release="$1" name="$2" tree="$3" final="$4" log="$5" tmp
    shift 5
    tmp="$(mktemp -d "$CT_CACHE/layers/.building-$release-$name.XXXXXX")"
    mkdir "$tmp/upper" "$tmp/work" "$tmp/root"
    # A deadline, as for the tree: an archive that stops answering.
    if ! CT_MIRROR="$CT_MIRROR" timeout 1200 unshare --mount --propagation private bash -c "$(declare -f ct_layer_install)"'
            mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/root" &&
                ct_layer_install "$2/root" "${@:3}"' _ "$tree" "$tmp" "$release" "$@" > "$log" 2>&1; then
        echo "installing $* over the $release tree failed; its log: $log" >&2
        tail -20 "$log" >&2
        rm -rf --one-file-system "$tmp"
        return 1
    fi
    mv -T "$tmp/upper" "$final"
    rm -rf --one-file-system "$tmp"
}

# container_layer RELEASE NAME PACKAGES...: prints the path of the layer NAME
# of RELEASE (PACKAGES and what they depend on, without recommends), making
# the tree and the layer first if needed; locked, built under a .building-*
# name and renamed when complete, as container_tree does.
container_layer() {
    local release="$1" name="$2"
    shift 2
    ct_cached_layer "$release" "$name" "$(ct_layer_key "$release" "$@")" ct_build_layer "$@"
}

# ct_cached_layer RELEASE NAME KEY BUILDER ARGS...: prints the path of the
# layer NAME-KEY of RELEASE, first running `BUILDER RELEASE NAME TREE FINAL
# LOG ARGS...` (which makes FINAL, the upper directory) when it is missing.
# container_layer's builder is ct_build_layer; cross_lib.sh has another.
ct_cached_layer() {
    local release="$1" name="$2" key="$3" builder="$4" tree final log
    shift 4
    tree="$(container_tree "$release")" || return 1
    final="$CT_CACHE/layers/$release-$name-$key"
    mkdir -p "$CT_CACHE/layers"
    (
        flock -w 1800 9 || { echo "could not lock the layer cache" >&2; exit 1; }
        if [ ! -d "$final" ]; then
            rm -rf --one-file-system "$CT_CACHE/layers/.building-$release-$name".* 2>/dev/null
            log="$final.log"
            local start
            start=$(date +%s)
            "$builder" "$release" "$name" "$tree" "$final" "$log" "$@" || exit 1
            echo "(built the $release $name layer in $(( $(date +%s) - start )) s, $(du -sh "$final" | cut -f1): $final)" >&2
            # Layers of an older tree, package list or code are never used again.
            local old
            for old in "$CT_CACHE/layers/$release-$name"-*; do
                [ "$old" = "$final" ] || [ "$old" = "$log" ] || rm -rf --one-file-system "$old"
            done
        fi
    ) 9> "$CT_CACHE/layers/.lock-$release-$name" || return 1
    echo "$final"
}

# --- running one command ---------------------------------------------------------

# container_run RELEASE [--layer DIR] [--bind SRC[:DST]] [--bind-ro SRC[:DST]]... -- CMD...:
# CMD as root in the release's tree (with the layer over it), on a throwaway
# overlay and without a network, not booted: no systemd or logind inside, as
# a build needs none. --bind and --bind-ro are systemd-nspawn's. stdin and the
# outputs are CMD's; so is the exit status (1 if it could not start). nspawn's
# complaint that it may not remove its propagation directory (this host's /run
# is no tmpfs) is left out of stderr.
container_run() {
    local release="$1" tree layer="" run status=0 binds=()
    shift
    while [ $# -gt 0 ]; do
        case "$1" in
            --layer) layer="${2:?container_run: --layer needs a directory}"; shift 2 ;;
            --bind|--bind-ro) binds+=("$1=${2:?container_run: $1 needs a path}"); shift 2 ;;
            --) shift; break ;;
            *) echo "container_run: unknown option $1" >&2; return 1 ;;
        esac
    done
    tree="$(container_tree "$release")" || return 1
    run="$(mktemp -d /tmp/pingate-run-"$release".XXXXXX)"
    mkdir "$run/upper" "$run/work" "$run/root"
    if mount -t overlay overlay -o "lowerdir=${layer:+$layer:}$tree,upperdir=$run/upper,workdir=$run/work" "$run/root"; then
        # stderr through the filter, stdout straight on (fd 3); the status
        # through a file, whatever the caller's errexit and pipefail.
        { { systemd-nspawn --quiet --register=no --keep-unit --private-network --pipe -D "$run/root" \
                --machine="pingate-run-$release-$$" "${binds[@]}" --setenv=LANG=C.UTF-8 --setenv=HOME=/root \
                -- "$@" && echo 0 > "$run/status" || echo $? > "$run/status"; } 2>&1 1>&3 3>&- |
              { grep -v '^Attempted to remove disk file system under "/run/systemd/nspawn/propagate/' >&2 || :; }
        } 3>&1
        status="$(cat "$run/status" 2>/dev/null || echo 1)"
        umount "$run/root" 2>/dev/null || umount -l "$run/root"
    else
        echo "could not mount an overlay over $tree" >&2
        status=1
    fi
    rm -rf --one-file-system "$run"
    return "$status"
}

# --- booting ---------------------------------------------------------------------

CT_PID=""        # the container's systemd, as the host sees it
CT_NSPAWN=""     # systemd-nspawn's pid
CT_RUN=""        # this boot's scratch directory: the overlay's upper dir, the console log
CT_CGROUPS=()    # the host cgroups the container was started from, one per hierarchy
CT_RELEASE=""
CT_EMULATED=""   # set when the container's programs run under qemu (container_boot --arch)

# ct_alive PID: the process runs (a zombie does not count).
ct_alive() {
    [ -n "$1" ] && [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# ct_cleanup: unmounts and removes whatever container_boot made; safe to call
# twice and from a trap.
ct_cleanup() {
    if ct_alive "$CT_NSPAWN"; then
        [ -n "$CT_PID" ] && kill -KILL "$CT_PID" 2>/dev/null
        kill -KILL "$CT_NSPAWN" 2>/dev/null
        local i
        for i in $(seq 50); do ct_alive "$CT_NSPAWN" || break; sleep 0.1; done
    fi
    if [ -n "$CT_RUN" ]; then
        if mountpoint -q "$CT_RUN/root" 2>/dev/null; then
            umount "$CT_RUN/root" 2>/dev/null || umount -l "$CT_RUN/root"
        fi
        rm -rf --one-file-system "$CT_RUN"
    fi
    local cgroup
    for cgroup in "${CT_CGROUPS[@]}"; do
        # Empty sub-cgroups first (nspawn's payload leaves some behind).
        [ -d "$cgroup" ] && find "$cgroup" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    CT_PID="" CT_NSPAWN="" CT_RUN="" CT_CGROUPS=() CT_ENTER=()
}

# ct_host_cgroup_roots: where a container's fresh cgroups are made: every
# writable hierarchy systemd uses, the name=systemd one of a cgroup v1 host
# and the unified one beside it (or the one unified hierarchy of a v2 host).
# The unified one matters most: with SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 the
# container's systemd runs there, under `payload` of the cgroup nspawn
# starts in, so two containers started from one cgroup would share
# payload/user.slice/user-1000.slice, and one container's `loginctl
# kill-user alice` would kill the other's alice.
ct_host_cgroup_roots() {
    local dir found=1
    for dir in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified; do
        if [ -f "$dir/cgroup.procs" ] && [ -w "$dir" ]; then echo "$dir"; found=0; fi
    done
    if [ "$found" = 1 ] && [ -f /sys/fs/cgroup/cgroup.procs ] && [ -w /sys/fs/cgroup ]; then
        echo /sys/fs/cgroup; found=0
    fi
    return "$found"
}

# ct_emulated_services ROOT: what no service can have under qemu-user, off for
# every service of the tree at ROOT (a drop-in in the boot's overlay, never
# in the cached tree nor a package): a mount namespace (qemu refuses clone()
# with CLONE_NEWNS: systemd 257 then fails the unit "at step NAMESPACE",
# logind and journald among them) and credentials (mounted in one). seccomp
# needs nothing: qemu refuses it, and systemd, finding no seccomp, starts the
# units without their SystemCallFilter and the other filters (logging
# "SECCOMP features not detected in the kernel, skipping").
ct_emulated_services() {
    mkdir -p "$1/etc/systemd/system/service.d"
    cat > "$1/etc/systemd/system/service.d/pingate-qemu-user.conf" <<'EOF'
# The tests' own (container_lib.sh, ct_emulated_services): under qemu-user no
# service may have a mount namespace or credentials.
[Service]
PrivateTmp=no
PrivateDevices=no
PrivateMounts=no
ProtectSystem=no
ProtectHome=no
ProtectKernelTunables=no
ProtectKernelModules=no
ProtectKernelLogs=no
ProtectControlGroups=no
ProtectProc=default
ProcSubset=all
MountAPIVFS=no
ReadWritePaths=
ReadOnlyPaths=
InaccessiblePaths=
ExecPaths=
NoExecPaths=
TemporaryFileSystem=
BindPaths=
BindReadOnlyPaths=
LoadCredential=
LoadCredentialEncrypted=
ImportCredential=
SetCredential=
SetCredentialEncrypted=
EOF
}

# container_boot RELEASE [--upper DIR] [--layer DIR] [--host-network]: boots
# the cached tree on a fresh overlay; returns 1 (with the reason on stderr)
# when it does not reach a running system within its deadline.
#   --upper DIR     the overlay's upper and work directories are DIR/upper and
#                   DIR/work (made if missing), which container_stop keeps: a
#                   second boot with the same DIR starts from what the first
#                   left, as a reboot does. The caller removes DIR (after
#                   container_stop, whose unmount releases it).
#   --layer DIR     a layer (container_layer's path) between the tree and the
#                   upper dir: lowerdir=DIR:TREE, the layer's files over the
#                   tree's; it is never written to.
#   --host-network  no --private-network: the container shares the host's
#                   network namespace, so its 127.0.0.1 is the host's (a
#                   swtpm the test started on the host, say). Nothing inside
#                   may then listen on a port the host uses (sshd on 2222).
#   --arch ARCH     the tree of ARCH (container_tree RELEASE ARCH): another
#                   architecture's boots under qemu-user-static, slowly (its
#                   deadlines below are longer).
container_boot() {
    local release="$1" tree root upper="" layer="" network=--private-network arch=""
    shift
    while [ $# -gt 0 ]; do
        case "$1" in
            --upper) upper="${2:?container_boot: --upper needs a directory}"; shift 2 ;;
            --layer) layer="${2:?container_boot: --layer needs a directory}"; shift 2 ;;
            --host-network) network=""; shift ;;
            --arch) arch="${2:?container_boot: --arch needs an architecture}"; shift 2 ;;
            *) echo "container_boot: unknown option $1" >&2; return 1 ;;
        esac
    done
    CT_RELEASE="$release"
    tree="$(container_tree "$release" "$arch")" || return 1
    # Under emulation each step of a boot takes several times as long.
    local slow=1
    CT_EMULATED=""
    ! ct_is_foreign "$arch" || { slow=5; CT_EMULATED="$arch"; }
    CT_RUN="$(mktemp -d /tmp/pingate-ct-"$release".XXXXXX)"
    [ -n "$upper" ] || upper="$CT_RUN"
    mkdir -p "$upper/upper" "$upper/work" "$CT_RUN/root"
    root="$CT_RUN/root"
    mount -t overlay overlay -o "lowerdir=${layer:+$layer:}$tree,upperdir=$upper/upper,workdir=$upper/work" "$root" ||
        { echo "could not mount an overlay over $tree (upper dir $upper/upper)" >&2; return 1; }
    ! ct_is_foreign "$arch" || ct_emulated_services "$root"
    local cgroot name="pingate-test-$release-$$-$RANDOM" roots
    roots="$(ct_host_cgroup_roots)" || { echo "no writable cgroup hierarchy on the host" >&2; return 1; }
    CT_CGROUPS=()
    for cgroot in $roots; do
        mkdir "$cgroot/$name" || return 1
        CT_CGROUPS+=("$cgroot/$name")
    done
    # The launching subshell moves itself into the fresh cgroups, then becomes
    # nspawn: each container has cgroups of its own, so two never share unit
    # names such as session-c1.scope or user-1000.slice.
    (
        for cgroot in "${CT_CGROUPS[@]}"; do echo "$BASHPID" > "$cgroot/cgroup.procs" || exit 1; done
        exec env SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn --quiet --register=no --keep-unit \
            ${network:+"$network"} --console=read-only --machine="pingate-$release" -D "$root" -b
    ) < /dev/null > "$CT_RUN/console.log" 2>&1 &
    CT_NSPAWN=$!
    # PID 1 of the container: nspawn's child whose innermost pid is 1.
    local i pid
    for i in $(seq 200); do
        for pid in $(pgrep -P "$CT_NSPAWN" 2>/dev/null); do
            if [ "$(awk '/^NSpid:/ {print $NF}' "/proc/$pid/status" 2>/dev/null)" = 1 ] &&
               [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = systemd ]; then
                CT_PID="$pid"; break 2
            fi
        done
        ct_alive "$CT_NSPAWN" || break
        sleep 0.1
    done
    if [ -z "$CT_PID" ]; then
        echo "the $release container's systemd did not start; nspawn's output:" >&2
        tail -30 "$CT_RUN/console.log" >&2
        return 1
    fi
    # Ready: the boot finished (running, or degraded with the failed units
    # shown) and logind has seat0.
    # systemd's own socket first (its /run is a tmpfs of the container's mount
    # namespace: seen from here through /proc/PID/root).
    for i in $(seq $((300 * slow))); do
        [ -S "/proc/$CT_PID/root/run/systemd/private" ] && break
        ct_alive "$CT_PID" || break
        sleep 0.1
    done
    local state
    state="$(CT_TIMEOUT=$((90 * slow)) ct_sh 2>"$CT_RUN/ready.err" <<'EOF'
systemctl is-system-running --wait
EOF
)"
    case "$state" in
        running) ;;
        degraded) echo "(the $release container booted degraded: $(ct_sh <<'EOF' | tr '\n' ' '
systemctl --failed --no-legend --plain | awk '{print $1}'
EOF
))" >&2 ;;
        *) echo "the $release container did not finish booting within $((90 * slow)) s (state: ${state:-none}; $(head -c 300 "$CT_RUN/ready.err")); its console:" >&2
           tail -30 "$CT_RUN/console.log" >&2
           return 1 ;;
    esac
    for i in $(seq $((100 * slow))); do
        [ -e "/proc/$CT_PID/root/run/systemd/seats/seat0" ] && { ct_enter_cgroup; return 0; }
        sleep 0.1
    done
    echo "logind has no seat0 in the $release container" >&2
    return 1
}

# ct CMD...: CMD inside the container as root, with a clean environment and a
# deadline (CT_TIMEOUT seconds, 60 by default); stdin is passed on. With
# CT_NET=FILE (a /proc/PID/ns/net), CMD runs in that network namespace
# instead of the container's, everything else being the container's.
ct() {
    timeout -k 5 "${CT_TIMEOUT:-60}" "${CT_ENTER[@]}" nsenter -t "$CT_PID" -a --net="${CT_NET:-/proc/$CT_PID/ns/net}" \
        env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}

# ct_enter_cgroup: a cgroup inside the container's own tree (beside its
# init.scope, in every hierarchy it was started in) that commands entering
# the container run in, as a process started inside would: from the host's
# cgroup, /proc/self/cgroup would read "/../..", which sd-login cannot place
# ("logind's state cannot be read"). CT_ENTER is the command prefix that
# moves itself there, then execs the rest (`ct`, booted_lib.sh's tty_run).
CT_ENTER=()
ct_enter_cgroup() {
    local cgroup cgroups=()
    for cgroup in "${CT_CGROUPS[@]}"; do
        [ -d "$cgroup/payload" ] || continue
        mkdir -p "$cgroup/payload/pingate-ct" && cgroups+=("$cgroup/payload/pingate-ct")
    done
    CT_ENTER=(sh -c 'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs"; shift; done; shift; exec "$@"' sh "${cgroups[@]}" --)
}

# ct_sh [ARGS...] <<'EOF' ... EOF: a shell script on stdin, run inside as root
# (sh -s -- ARGS), with the deadline above.
ct_sh() {
    ct sh -s -- "$@"
}

# ct_root: the container's file system as its processes see it (its /tmp and
# /run are its own tmpfs mounts), from the host.
ct_root() { echo "/proc/$CT_PID/root"; }

# container_stop: a clean poweroff with a 20 s deadline; PID 1 and nspawn are
# killed if it hangs. Then the overlay is unmounted and removed (an upper
# directory given by --upper is kept).
container_stop() {
    if ct_alive "$CT_PID"; then
        # systemd: poweroff. Under qemu a signal from here reaches the
        # emulated systemd as another one (qemu keeps real-time signals for
        # itself and renumbers the rest), so it is asked from inside.
        if [ -n "$CT_EMULATED" ]; then
            CT_TIMEOUT=10 ct_sh > /dev/null 2>&1 <<'EOF'
systemctl --no-block poweroff
EOF
        else
            kill -RTMIN+4 "$CT_PID" 2>/dev/null
        fi
        local i
        for i in $(seq 200); do
            ct_alive "$CT_NSPAWN" || break
            sleep 0.1
        done
        if ct_alive "$CT_NSPAWN"; then
            echo "(the $CT_RELEASE container did not power off within 20 s: killed)" >&2
        fi
    fi
    ct_cleanup
}

# --- the previous release's packages ------------------------------------------------

# ct_previous_debs COMMIT: prints the directory that holds the pingate and
# pingate-lock .debs built from COMMIT of this repository (release build,
# PAM module, catalogues, that commit's own build-deb.sh), building them
# once into $CT_CACHE/debs/COMMIT (a temporary directory renamed into place
# when complete). Status 2 when the clone does not have COMMIT.
ct_previous_debs() {
    local commit="$1" repo="$2" final="$CT_CACHE/debs/$1"
    mkdir -p "$CT_CACHE/debs"
    git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null || [ -d "$final" ] || return 2
    (
        flock -w 1800 9 || { echo "could not lock the package cache" >&2; exit 1; }
        [ -d "$final" ] && exit 0
        rm -rf --one-file-system "$CT_CACHE/debs/.building-$commit".* 2>/dev/null
        local tmp start=$(date +%s)
        tmp="$(mktemp -d "$CT_CACHE/debs/.building-$commit.XXXXXX")"
        mkdir "$tmp/src" "$tmp/debs"
        if ! { git -C "$repo" archive --format=tar "$commit" | tar -x -C "$tmp/src" &&
               cd "$tmp/src" &&
               timeout 1800 swift build -c release --static-swift-stdlib &&
               make -s -C pam && make -s -C po &&
               packaging/build-deb.sh --no-build --output "$tmp/debs"; } > "$CT_CACHE/debs/$commit.log" 2>&1; then
            echo "building the packages of $commit failed; the end of $CT_CACHE/debs/$commit.log:" >&2
            tail -20 "$CT_CACHE/debs/$commit.log" >&2
            rm -rf --one-file-system "$tmp"
            exit 1
        fi
        mv -T "$tmp/debs" "$final"
        rm -rf --one-file-system "$tmp"
        echo "(built the packages of $commit in $(( $(date +%s) - start )) s: $final)" >&2
    ) 9> "$CT_CACHE/debs/.lock-$commit" || return 1
    echo "$final"
}
