#!/bin/bash
# arm64_booted_test.sh — the arm64 package on a booted Debian 13 (trixie)
# arm64 system, emulated on this amd64 machine (issue 38): apt installs it
# unforced, alice's PIN opens sudo from her seat session and is refused over
# ssh with nothing counted, a wrong PIN is counted, five lock the PIN and the
# password still works, `pingate doctor` is content with the installation;
# and a sign-in's time next to pam_unix's, both under the same emulation.
#
# How (container_lib.sh, booted_lib.sh; booted_test.sh says how the trees
# are made and booted):
#   * Tree: debootstrap --arch arm64 of Debian 13 (the list booted_test.sh's
#     trees have), cached by architecture in /var/cache/pingate-tests/trees/
#     arm64/; its arm64 executables run by Debian 13's qemu-aarch64 from the
#     cross layer (cross_lib.sh's cross_emulator) through binfmt_misc
#     (container_lib.sh's ct_binfmt). Debian 12's qemu 7.2 cannot start
#     Debian 13's services.
#   * Package: cross_lib.sh's cross_debs, the build arm64_deb_test.sh checks
#     (one build per state of the source).
#   * Boot: systemd-nspawn -b of that tree: the container's systemd, logind,
#     sudo, sshd and PinGate are aarch64 code, emulated instruction by
#     instruction by qemu-aarch64 (the kernel is this machine's).
#   * Cases: booted_lib.sh's (pingate-case: sudo from a seat session made
#     by systemd-run with PAMName=login and XDG_SEAT=seat0, over ssh to
#     127.0.0.1:2222 with alice's key).
#
# What this boot does not prove (it cannot, under qemu-user):
#   * the verifier unit's sandbox (pingate-verify@.service): qemu-user
#     refuses a guest's seccomp filters (they would filter the emulator's
#     own system calls), and systemd, finding no seccomp, starts every unit
#     without its SystemCallFilter, SystemCallArchitectures,
#     MemoryDenyWriteExecute and the other filters; and qemu cannot clone()
#     into a new mount namespace, so no unit may have ProtectSystem,
#     PrivateTmp or credentials here (container_lib.sh's
#     ct_emulated_services turns them off for every service of the boot, in
#     its overlay: the tests', not the package's). That the unit's filters
#     let the helper work on arm64 (an aarch64 system call they refuse) is
#     not shown; booted_test.sh shows the unit on amd64.
#   * the kernel: it is amd64's; the arm64 system calls, signals and
#     mlock/madvise go through qemu's translation, not an arm64 kernel.
#   * timing: an emulated sign-in is many times slower than a phone's.
#
# Run as root: bash Tests/IntegrationTests/arm64_booted_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of cross-building one;
# the pam_bench beside it times the sign-ins. CT_EMULATOR_ROOT=DIR: the qemu
# under DIR instead of the cross layer's.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/cross_lib.sh"
BOOTED_ARCH=arm64
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" arm64-booted

# Each case is one emulated sudo, ssh or su: seconds, not milliseconds.
CASE_TIMEOUT=300

# The emulator: the cross layer's (Debian 13's qemu), where the package is built.
EMULATOR_STATUS=0
if [ -z "$SKIP_ALL" ] && [ -z "$CT_EMULATOR_ROOT" ]; then
    CT_EMULATOR_ROOT="$(cross_emulator "$BOOTED_ARCH" 2> "$WORK/emulator.out")" || EMULATOR_STATUS=1
fi

# emulated: what runs inside is aarch64 code on an emulator.
emulated() {
    local out
    out="$(ct_sh 2>&1 <<'EOF'
echo "$(uname -m) $(dpkg --print-architecture)"
EOF
)"
    assert_eq "aarch64 arm64" "$out" "machine and dpkg architecture inside"
    echo "      inside: $out, emulated by Debian's qemu-user" \
         "$(dpkg-query --admindir="$CT_EMULATOR_ROOT/var/lib/dpkg" -W -f='${Version}' qemu-user)" >&2
}

# seat_sudo ANSWER / ssh_sudo ANSWER: pingate-try's line for sudo as alice.
seat_sudo() { run_case seat sudo "$1"; }
ssh_sudo() { run_case ssh sudo "$1"; }

# signin_times ROUNDS N: alice's sign-in with her PIN through PinGate (the
# line `auth required pam_pingate.so`) and with her password through
# pam_unix (yescrypt, as chpasswd set it), each a complete pam_start,
# pam_authenticate and pam_end by packaging/benchmarks/pam_bench.c built
# for arm64, run as alice in a seat session of hers (as a lock screen
# signs in), at the default KDF; ROUNDS alternating rounds of N each.
# Prints pam_bench's lines (times in microseconds), "pingate ..." and "unix ...".
signin_times() {
    local dist
    if [ -n "${PINGATE_BOOTED_DEB:-}" ]; then dist="$(dirname "$PINGATE_BOOTED_DEB")"
    else dist="$(cross_debs "$BOOTED_ARCH" 2> /dev/null)"; fi
    [ -x "$dist/pam_bench" ] || fail "no pam_bench for $BOOTED_ARCH in $dist (cross_lib.sh's cross_debs builds it)"
    cp "$dist/pam_bench" "$(ct_root)/usr/local/bin/pam_bench"
    CT_TIMEOUT=900 ct_sh "$1" "$2" "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -u
rounds="$1" n="$2" pin="$3" password="$4" d=/var/tmp/bench
mkdir -p "$d/pingate" "$d/unix"
echo "auth required pam_pingate.so" > "$d/pingate/sudo"
echo "auth required pam_unix.so" > "$d/unix/sudo"
chmod -R a+rX "$d"
# Under a shell: with PAMName= the unit's main process is the parent of the
# process that holds its PAM session, which pam_bench would wait for with
# its workers.
bench() {   # STACK SECRET
    systemd-run --quiet --wait --pipe --collect -p PAMName=login -p User=alice \
        -p "Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user" \
        /bin/sh -c '/usr/local/bin/pam_bench "$@"' sh --confdir "$d/$1" --service sudo --user alice \
        --secret "$2" --iterations "$n" --warmup 1 < /dev/null
}
for r in $(seq "$rounds"); do
    echo "pingate $(bench pingate "$pin")"
    echo "unix $(bench unix "$password")"
done
EOF
}

test_debian_13_arm64_installs_and_the_pin_opens_sudo_only_at_the_seat_counts_and_locks() {
    need_deb
    [ "$EMULATOR_STATUS" = 0 ] || archive_or_fail "the cross layer's emulator" "$WORK/emulator.out"
    local start=$SECONDS
    boot trixie
    echo "      booted in $((SECONDS - start)) s" >&2
    end_with
    emulated
    start=$SECONDS
    install_deb trixie "$DEB" "$REPORT_DIR/apt-install-arm64.log"
    echo "      apt-get install: $((SECONDS - start)) s; $(grep -E '^(Unpacking|Setting up) pingate' "$REPORT_DIR/apt-install-arm64.log" | tr '\n' ';')" >&2
    local modes out
    modes="$(ct_sh <<'EOF'
stat -c '%U:%G %a %n' /usr/libexec/pingate/pingate-verify /var/lib/pingate /var/lib/pingate/machine.key
EOF
)"
    assert_eq "root:pingate 2755 /usr/libexec/pingate/pingate-verify
root:pingate 750 /var/lib/pingate
root:pingate 640 /var/lib/pingate/machine.key" "$modes" "modes of the helper, the store and the key"
    # As installed, before any service is turned on (as booted_test.sh asks it).
    out="$(CT_TIMEOUT=120 ct_sh 2>&1 <<'EOF'
pingate doctor; echo "exit status $?"
EOF
)"
    printf '%s\n' "$out" > "$REPORT_DIR/doctor-arm64.txt"
    assert_contains "$out" "exit status 0" "pingate doctor on arm64"
    # The unit as systemd would start it here (see the top).
    out="$(ct_sh <<'EOF'
systemctl show pingate-verify@0.service -p ProtectSystem -p PrivateTmp | tr '\n' ' '
EOF
)"
    echo "      pingate-verify@.service under emulation: $out" >&2
    start=$SECONDS
    setup_users trixie
    # alice may use sudo by a sudoers line instead of the sudo group: under
    # qemu, SO_PEERGROUPS of a peer in two groups or more fails again and
    # again with the length not told, and sd-bus asks forever, so her user
    # manager and every systemctl --user of hers spin.
    ct_sh <<'EOF' || fail "could not move alice's sudo right to a sudoers line"
gpasswd -d alice sudo > /dev/null
echo 'alice ALL=(ALL:ALL) ALL' > /etc/sudoers.d/alice
chmod 0440 /etc/sudoers.d/alice
EOF
    echo "      users, PINs and sshd set up: $((SECONDS - start)) s" >&2

    start=$SECONDS
    out="$(seat_sudo "$WRONG_PIN")"
    echo "      seat, wrong PIN: $out ($((SECONDS - start)) s)" >&2
    assert_not_contains "$out" "result=[0]" "sudo with a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN at the seat"
    start=$SECONDS
    out="$(seat_sudo "$PIN")"
    echo "      seat, the PIN: $out ($((SECONDS - start)) s)" >&2
    assert_contains "$out" "result=[0]" "sudo with the PIN from alice's seat session"
    assert_contains "$out" "PIN" "sudo's prompt at the seat"

    start=$SECONDS
    out="$(ssh_sudo "$PIN")"
    echo "      ssh, the PIN: $out ($((SECONDS - start)) s)" >&2
    assert_not_contains "$out" "result=[0]" "sudo with the PIN over ssh"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN over ssh"
    out="$(ssh_sudo "$ALICE_PASSWORD")"
    echo "      ssh, the password: $out" >&2
    assert_contains "$out" "result=[0]" "sudo with the password over ssh"

    start=$SECONDS
    local wrong
    for wrong in "${WRONG_PINS[@]}"; do
        out="$(seat_sudo "$wrong")"
        assert_not_contains "$out" "result=[0]" "sudo with the wrong PIN $wrong"
    done
    out="$(ct_sh <<'EOF'
pingate status alice --json
EOF
)"
    echo "      after five wrong PINs at the seat ($((SECONDS - start)) s): $out" >&2
    [[ "$out" =~ \"locked_seconds\":\ *[1-9] ]] || fail "alice's PIN is not locked after five wrong PINs: $out"
    out="$(seat_sudo "$PIN")"
    echo "      seat, the PIN while locked: $out" >&2
    assert_not_contains "$out" "result=[0]" "sudo with the PIN while it is locked"
    out="$(seat_sudo "$ALICE_PASSWORD")"
    echo "      seat, the password while locked: $out" >&2
    assert_contains "$out" "result=[0]" "sudo with the password while the PIN is locked"


    # The sign-in's time, the PIN unlocked first.
    ct_sh > /dev/null <<'EOF' || fail "pingate unlock alice failed"
pingate unlock alice
EOF
    start=$SECONDS
    out="$(signin_times 2 10)"
    printf '%s\n' "$out" > "$REPORT_DIR/signin-times-arm64.txt"
    echo "      sign-ins under emulation ($((SECONDS - start)) s; microseconds):" >&2
    sed 's/^/        /' <<< "$out" >&2
    [ "$(grep -c '^pingate .*ok=10 fail=0' <<< "$out")" = 2 ] || fail "the PIN's timed sign-ins did not all succeed: $out"
    [ "$(grep -c '^unix .*ok=10 fail=0' <<< "$out")" = 2 ] || fail "the password's timed sign-ins did not all succeed: $out"
}

run_tests
