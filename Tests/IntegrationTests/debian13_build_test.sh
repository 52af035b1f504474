#!/bin/bash
# debian13_build_test.sh — the tree builds on Debian 13 (trixie) as on 12
# (issue 39): pingate-lock's headers come from pkg-config, not from paths
# that held on one release only (Debian 13's cairo 1.18 no longer brings
# glib's headers, so `import CCairo` failed there with "'glib-object.h' file
# not found"). And the PAM module builds with Debian 13's gcc 14 and -Werror.
#
# How (container_lib.sh): a layer of the build packages (install.sh's list,
# packaging/layout.sh) and what swift.org's toolchain needs to run, over the
# cached Debian 13 tree; the toolchain this machine builds with
# (/opt/swift) bind-mounted read-only; the tree copied in (without its build
# outputs) and built there by `container_run`, not booted: a build needs no
# systemd. Only what Debian 13 broke is built, in debug: the pingate-lock
# product (with the modules it imports) and pam/. Debian 12 builds it all
# before the suite starts (Tests/run-all.sh).
#
# Run as root: bash Tests/IntegrationTests/debian13_build_test.sh

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$REPO_ROOT/packaging/layout.sh"

# What /opt/swift's binaries load beyond the base system (swift-build:
# libcurl, libxml2, libsqlite3, libncurses; the link: libstdc++'s archives).
TOOLCHAIN_PACKAGES=(libc6-dev libstdc++-14-dev libcurl4t64 libxml2 libsqlite3-0 libncurses6)
# The build packages with the first of each "A|B", and the Wayland front
# end's (the toolchain here is 6.3, which builds it).
LAYER_PACKAGES=("${TOOLCHAIN_PACKAGES[@]}")
for entry in "${PINGATE_BUILD_PACKAGES[@]}" "${PINGATE_WAYLAND_LIBRARIES[@]}"; do LAYER_PACKAGES+=("${entry%%|*}"); done

WORK="$(mktemp -d /tmp/pingate-debian13-build.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# The toolchain's root: /opt/swift for /opt/swift/usr/bin/swift.
SWIFT="$(command -v swift || true)"
TOOLCHAIN=""
if [ -n "$SWIFT" ]; then TOOLCHAIN="$(dirname "$(dirname "$(dirname "$(readlink -f "$SWIFT")")")")"; fi

test_pingate_lock_and_the_module_build_on_debian13() {
    [ "$(id -u)" = 0 ] || skip "needs root (debootstrap, overlay mounts, systemd-nspawn)"
    command -v systemd-nspawn > /dev/null || skip "systemd-nspawn is not installed"
    [ -n "$TOOLCHAIN" ] && [ "$TOOLCHAIN" != / ] && [ "$TOOLCHAIN" != /usr ] ||
        skip "needs a Swift toolchain in a directory of its own (such as /opt/swift), to bind-mount; swift is ${SWIFT:-not on PATH}"
    local layer
    layer="$(container_layer trixie build "${LAYER_PACKAGES[@]}" 2> "$WORK/layer.out")" ||
        fail "could not make the trixie build layer: $(tail -20 "$WORK/layer.out")"
    grep -h '^(built the' "$WORK/layer.out" || true

    local rc=0 start=$SECONDS
    container_run trixie --layer "$layer" --bind-ro "$TOOLCHAIN" --bind-ro "$REPO_ROOT:/repo" \
            -- env "PATH=$TOOLCHAIN/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" bash -c '
        set -e
        mkdir /src
        tar -C /repo --exclude=./.build --exclude=./pam/build --exclude=./po/build --exclude=./dist -c . | tar -C /src -x
        cd /src
        echo "== Debian $(cat /etc/debian_version), $(swift --version 2>&1 | head -1)"
        timeout 1200 swift build --product pingate-lock
        make -s -C pam all' > "$WORK/build.out" 2>&1 || rc=$?
    echo "    (built in Debian 13 in $((SECONDS - start)) s)"
    [ "$rc" = 0 ] || fail "the build in Debian 13 failed (status $rc): $(tail -40 "$WORK/build.out")"
    head -1 "$WORK/build.out" | sed 's/^/    /'
    assert_contains "$(cat "$WORK/build.out")" "Build of product 'pingate-lock' complete!" "swift build's output"
    ! grep -E "warning:" "$WORK/build.out" || fail "the Debian 13 build printed the warnings above"
}

run_tests
