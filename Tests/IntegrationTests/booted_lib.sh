# booted_lib.sh — what the tests on booted containers share (booted_test.sh,
# sway_test.sh): the package under test, a release booted for one test, a
# layer of more packages over its tree, apt-get install of a package inside.
# Sourced after lib.sh and container_lib.sh, with REPO_ROOT and WORK (the
# test file's scratch directory) set.
#
#   PINGATE_BOOTED_DEB=PATH   test this pingate_*.deb instead of building one
#                             from the tree with build-deb.sh --no-build

# Why every test skips, when the machine cannot boot containers at all.
SKIP_ALL=""
if [ "$(id -u)" != 0 ]; then
    SKIP_ALL="needs root (debootstrap, overlay mounts, systemd-nspawn)"
else
    for command in debootstrap systemd-nspawn nsenter; do
        command -v "$command" > /dev/null || { SKIP_ALL="$command is not installed"; break; }
    done
fi

BUILD_STATUS=1
if [ -n "${PINGATE_BOOTED_DEB:-}" ]; then     # a package built elsewhere (debugging)
    mkdir -p "$WORK/dist" && cp "$PINGATE_BOOTED_DEB" "$WORK/dist/" && BUILD_STATUS=0
elif [ -z "$SKIP_ALL" ]; then
    "$REPO_ROOT/packaging/build-deb.sh" --no-build --output "$WORK/dist" > "$WORK/build.out" 2>&1
    BUILD_STATUS=$?
fi
DEB="$(ls "$WORK"/dist/pingate_*.deb 2>/dev/null | head -1)"

need_deb() {
    [ -z "$SKIP_ALL" ] || skip "$SKIP_ALL"
    [ "$BUILD_STATUS" = 0 ] && [ -f "$DEB" ] || fail "build-deb.sh failed: $(cat "$WORK/build.out")"
}

# archive_or_fail WHAT OUTPUT: fails the test with OUTPUT (a file) that says
# why WHAT could not be made; skips instead when the reason is that Debian's
# archive cannot be reached (a machine's limit). Anything else, such as a
# package name the release does not have, is a failure.
archive_or_fail() {
    if grep -qE "Failed getting release file|Couldn't download|Could not resolve|Temporary failure|Connection (refused|timed out)" "$2"; then
        skip "could not make $1: Debian's archive ($CT_MIRROR) is not reachable: $(tail -3 "$2" | tr '\n' ' ')"
    fi
    fail "could not make $1: $(cat "$2")"
}

# boot RELEASE [OPTION...]: boots the release's tree for this test (the
# test's subshell stops it on exit); skips when the tree cannot be made (no
# archive). The options are container_boot's (--upper DIR, --layer DIR,
# --host-network).
boot() {
    local release="$1"
    shift
    # The container goes with the test's subshell, however it ends.
    trap container_stop EXIT
    trap 'exit 143' TERM INT HUP
    container_tree "$release" > "$WORK/tree-$release.out" 2>&1 || archive_or_fail "the $release tree" "$WORK/tree-$release.out"
    grep -h '^(built the' "$WORK/tree-$release.out" || true
    container_boot "$release" "$@" || fail "the $release container did not boot (above)"
}

# layer RELEASE NAME PACKAGES...: sets LAYER to container_layer's path for
# boot's --layer, making it first when needed (skipped without the archive).
LAYER=""
layer() {
    local release="$1" name="$2"
    LAYER="$(container_layer "$@" 2> "$WORK/layer-$release-$name.out")" ||
        archive_or_fail "the $release $name layer" "$WORK/layer-$release-$name.out"
    grep -h '^(built the' "$WORK/layer-$release-$name.out" || true
}

# install_deb RELEASE DEB [TRANSCRIPT [APT_OPTION...]]: apt-get install ./DEB
# inside, unforced (the containers have no network: nothing is downloaded);
# the transcript is kept in TRANSCRIPT.
install_deb() {
    local release="$1" deb="$2" transcript="${3:-$WORK/apt-$1.log}"
    shift 2; if [ $# -gt 0 ]; then shift; fi
    cp "$deb" "$(ct_root)/tmp/" || fail "could not copy $deb into the container"
    local rc=0
    CT_TIMEOUT=300 ct_sh "$(basename "$deb")" "$@" > "$transcript" 2>&1 <<'EOF' || rc=$?
deb="$1"; shift
cd /tmp && apt-get install -y "$@" "./$deb" < /dev/null
EOF
    [ "$rc" = 0 ] || fail "apt-get install ./$(basename "$deb") failed on $release (status $rc); its transcript:
$(cat "$transcript")"
}
