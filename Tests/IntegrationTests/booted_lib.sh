# booted_lib.sh — what the tests on booted containers share (booted_test.sh,
# the lock screens' tests, sudo_rs_test.sh, run0_test.sh): the test's
# scratch and report directories, the people (alice's and bob's PINs and
# passwords), the package under test, a release booted for one test, a layer
# of more packages over its tree, apt-get install of a package inside; alice
# and bob with passwords, PINs, the Debian profile and sshd (setup_users,
# with the programs that try sudo and su inside, and alice's failure count);
# a command on a terminal from alice's seat session or over ssh, typed into
# by pty_drive.py on the host (write_tty_program, tty_run, seen, try_tty);
# and end_with, the exit trap that always powers the container off.
#
#   . lib.sh; . container_lib.sh; . booted_lib.sh NAME [REPORT]
#
# sets REPO_ROOT; WORK, /tmp/pingate-NAME.XXXXXX, removed at exit; and
# REPORT_DIR, where the test keeps what a person would look at (transcripts,
# screenshots, unlock-times.txt): $PINGATE_<REPORT>_REPORT, or
# /tmp/pingate-REPORT (REPORT defaults to NAME; "debian13-x11" reads
# PINGATE_DEBIAN13_X11_REPORT). try_tty wants REPORT (a file).
#
#   PINGATE_BOOTED_DEB=PATH   test this pingate_*.deb instead of building one
#                             from the tree with build-deb.sh --no-build
#
# BOOTED_ARCH=ARCH set before sourcing (another architecture than this
# machine's, arm64): the package is ARCH's, cross-built (cross_lib.sh's
# cross_debs; the caller sources cross_lib.sh), and boot takes --arch ARCH.

: "${1:?usage: . booted_lib.sh NAME [REPORT]}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# The people every booted test signs in as. PINs that are not weak (no
# repeated digit, no constant step, not common). Five different wrong PINs,
# because the same wrong PIN again is not counted twice: free_failures is 4,
# so the fifth locks the PIN for a minute.
# shellcheck disable=SC2034  # used by the test files
{
    PIN=4827
    WRONG_PIN=9051
    WRONG_PINS=(9051 6284 1739 5062 3918)
    ALICE_PASSWORD=alice-pw-7Qz
    BOB_PIN=6173
    BOB_PASSWORD=bob-pw-3Kv
}

# The helper's line, once a run, for the machine key read onto a page not
# locked in RAM: every booted container's seccomp filter refuses mlock
# (design.md, the swap row), so every run of the helper inside writes it,
# status ones too. Tests that read pingate's journal for what was verified
# leave it out (grep -v "$KEY_PAGE_LINE").
# shellcheck disable=SC2034  # used by the test files
KEY_PAGE_LINE='is read onto a page not locked in RAM'

booted_report="PINGATE_$(tr 'a-z-' 'A-Z_' <<< "${2:-$1}")_REPORT"
REPORT_DIR="${!booted_report:-/tmp/pingate-${2:-$1}}"
WORK="$(mktemp -d "/tmp/pingate-$1.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$REPORT_DIR"

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
elif [ -z "$SKIP_ALL" ] && [ -n "${BOOTED_ARCH:-}" ]; then
    if booted_dist="$(cross_debs "$BOOTED_ARCH" 2> "$WORK/build.out")"; then
        grep -h '^(built the\|^(build-deb.sh' "$WORK/build.out" || true
        mkdir -p "$WORK/dist" && cp "$booted_dist"/pingate_*_"$BOOTED_ARCH".deb "$WORK/dist/" && BUILD_STATUS=0
    fi
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
# --host-network); with BOOTED_ARCH set, --arch BOOTED_ARCH comes first.
boot() {
    local release="$1"
    shift
    # The container goes with the test's subshell, however it ends.
    trap container_stop EXIT
    trap 'exit 143' TERM INT HUP
    container_tree "$release" ${BOOTED_ARCH:-} > "$WORK/tree-$release.out" 2>&1 ||
        archive_or_fail "the $release${BOOTED_ARCH:+ $BOOTED_ARCH} tree" "$WORK/tree-$release.out"
    grep -h '^(built the' "$WORK/tree-$release.out" || true
    container_boot "$release" ${BOOTED_ARCH:+--arch "$BOOTED_ARCH"} "$@" || fail "the $release container did not boot (above)"
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

# --- alice and bob, and the programs that try sudo and su (from booted_test.sh) ----

# The program each case runs as alice (or through ssh): sudo -S -k id -u, or
# su bob -c 'id -u', answered with $2 on stdin; prints what it answered and
# the prompts it showed.
write_try_program() {
    cat > "$(ct_root)/usr/local/bin/pingate-try" <<'EOF'
#!/bin/sh
err="$(mktemp)"
case "$1" in
    sudo)   out="$(printf '%s\n' "$2" | timeout 30 sudo -S -k id -u 2> "$err")" ;;
    su-bob) out="$(printf '%s\n' "$2" | timeout 30 su bob -c 'id -u' 2> "$err")" ;;
esac
echo "result=[$out] prompts=[$(tr '\n' ' ' < "$err")]"
rm -f "$err"
EOF
    chmod 0755 "$(ct_root)/usr/local/bin/pingate-try"
    # The contexts, run inside as root: pingate-case CONTEXT WHAT ANSWER.
    cat > "$(ct_root)/usr/local/bin/pingate-case" <<'EOF'
set -u
context="$1"; shift
alice_uid="$(id -u alice)"
seat_env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user"
case "$context" in
    seat)       # a seat session of its own, as a display manager makes it
        systemd-run --quiet --wait --pipe --collect -p PAMName=login -p User=alice -p "$seat_env" \
            /usr/local/bin/pingate-try "$@" < /dev/null ;;
    user-manager)   # a job of alice's systemd --user
        runuser -u alice -- env XDG_RUNTIME_DIR="/run/user/$alice_uid" \
            DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$alice_uid/bus" \
            systemd-run --user --quiet --wait --pipe --collect /usr/local/bin/pingate-try "$@" < /dev/null ;;
    ssh)
        ssh -p 2222 -i /root/alice_key -o BatchMode=yes -o StrictHostKeyChecking=no \
            -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR alice@127.0.0.1 /usr/local/bin/pingate-try "$@" < /dev/null ;;
    ssh-veth)   # run in the test's own network namespace (veth_setup): over the veth
        ssh -p 2222 -i /root/alice_key -o BatchMode=yes -o StrictHostKeyChecking=no -o ConnectTimeout=10 \
            -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR alice@10.213.47.2 /usr/local/bin/pingate-try "$@" < /dev/null ;;
    cron)       # cron's PAM service, no seat
        systemd-run --quiet --wait --pipe --collect -p PAMName=cron -p User=alice \
            /usr/local/bin/pingate-try "$@" < /dev/null ;;
    seat-start) # seat-start [TYPE]: a seat session that stays, until seat-stop;
                # TYPE is its XDG_SESSION_TYPE (x11; GNOME's is wayland)
        systemd-run --quiet --unit=pingate-alice-seat -p PAMName=login -p User=alice \
            -p "Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=${1:-x11} XDG_SESSION_CLASS=user" \
            sleep 900 < /dev/null
        for i in $(seq 100); do
            session="$(loginctl show-user alice -p Display --value 2>/dev/null)"
            [ -n "$session" ] && [ "$(loginctl show-session "$session" -p Active --value)" = yes ] && exit 0
            sleep 0.1
        done
        echo "alice's seat session did not become active"; loginctl; exit 1 ;;
    seat-stop)
        systemctl stop pingate-alice-seat.service
        for i in $(seq 100); do
            [ -z "$(loginctl show-user alice -p Display --value 2>/dev/null)" ] && exit 0
            sleep 0.1
        done
        echo "alice's seat session did not end"; loginctl; exit 1 ;;
    sessions)
        loginctl list-sessions --no-legend ;;
esac
EOF
}

# add_alice RELEASE: with pingate installed, alice with her password and her PIN.
add_alice() {
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
EOF
)" || fail "setting up alice on $1 failed: $out"
}

# setup_users RELEASE: with pingate installed, the users (alice 1000, bob
# 1001), PINs, profile and sshd.
setup_users() {
    local release="$1"
    write_try_program
    local out
    out="$(CT_TIMEOUT=120 ct_sh "$PIN" "$BOB_PIN" "$ALICE_PASSWORD" "$BOB_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
useradd -m -s /bin/sh bob
printf 'alice:%s\nbob:%s\n' "$3" "$4" | chpasswd
usermod -aG sudo alice
pam-auth-update --enable pingate < /dev/null
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
printf '%s\n%s\n' "$2" "$2" | pingate enroll bob --pin --stdin > /dev/null
ssh-keygen -q -t ed25519 -N '' -f /root/alice_key
install -d -o alice -g alice -m 0700 /home/alice/.ssh
install -o alice -g alice -m 0600 /root/alice_key.pub /home/alice/.ssh/authorized_keys
systemctl unmask ssh.service > /dev/null 2>&1
systemctl start ssh.service
echo setup done
EOF
)" || fail "setting up alice, bob and sshd on $release failed: $out"
    assert_contains "$out" "setup done" "setup on $release"
}
# run_case CONTEXT WHAT ANSWER: one try (pingate-case inside); prints
# pingate-try's line. The ssh-veth context runs in the test's network
# namespace (booted_test.sh's veth_setup, VETH_NETNS).
run_case() {
    local net=""
    [ "$1" != ssh-veth ] || net="${VETH_NETNS:-}"
    CT_NET="$net" CT_TIMEOUT="${CASE_TIMEOUT:-90}" ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-case "$@"
EOF
}

# count USER: USER's failure count (pingate status --json inside).
count() {
    ct_sh "$1" <<'EOF'
pingate status "$1" --json | sed -nE 's/.*"failures": *([0-9]+).*/\1/p'
EOF
}

# --- a terminal, as a person has one --------------------------------------------------

# write_tty_program: pingate-tty CONTEXT COMMAND...: COMMAND on a terminal of
# its own, as alice: from a seat session of its own (systemd-run --pty with
# PAMName=login and XDG_SEAT=seat0, as a display manager's session; its tty
# is a pseudo-terminal that systemd-run relays), or over ssh -tt to
# 127.0.0.1:2222 (a remote logind session). Run as `sh FILE` by tty_run.
# In the seat session a shell runs COMMAND, then writes "status=N" (its exit
# status) on the terminal and keeps it open 0.3 s: systemd-run --pty
# sometimes ended without relaying the last lines written (seen once in
# about ten runs: a failed run0 without its "==== AUTHENTICATION FAILED ===="
# and "Access denied"), and now and then exited 255 (the unit's result
# "signal") after COMMAND had succeeded and its output had come.
write_tty_program() {
    cat > "$(ct_root)/usr/local/bin/pingate-tty" <<'EOF'
context="$1"; shift
case "$context" in
    seat) exec systemd-run --quiet --pty --wait --collect -p PAMName=login -p User=alice \
              -p "Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user" \
              /bin/sh -c '"$@"; status=$?; echo "status=$status"; sleep 0.3; exit $status' sh "$@" ;;
    ssh)  exec ssh -tt -p 2222 -i /root/alice_key -o BatchMode=yes -o StrictHostKeyChecking=no \
              -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR alice@127.0.0.1 "$@" ;;
esac
echo "pingate-tty: unknown context $context" >&2; exit 2
EOF
}

# tty_run CONTEXT STEP... -- COMMAND...: pingate-tty CONTEXT COMMAND inside,
# on a pseudo-terminal of pty_drive.py's on the host, which takes the steps
# (expect:TEXT, send:TEXT, ...); prints the raw transcript, which ends in a
# line "status=N": COMMAND's status (in the seat session the shell around
# it writes that line, and systemd-run's own status is not shown unless
# the run did not end: 99, an expect timed out; 124 or 137, the deadline).
tty_run() {
    local context="$1" steps=() rc=0
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do steps+=("$1"); shift; done
    shift
    timeout -k 5 120 python3 "$REPO_ROOT/Tests/IntegrationTests/pty_drive.py" "${steps[@]}" -- \
        "${CT_ENTER[@]}" nsenter -t "$CT_PID" -a env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=xterm sh /usr/local/bin/pingate-tty "$context" "$@" 2>&1 || rc=$?
    echo
    if [ "$context" != seat ] || [ "$rc" = 99 ] || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "status=$rc"
    fi
}

# seen: what a person saw, from a transcript on stdin: terminal control
# sequences (colours, the window title systemd-run sets) and carriage
# returns gone, trailing blanks cut, empty lines dropped; the clock time of
# a notice of failed attempts ("at 14:02") becomes HH:MM, a transient
# unit's numbers (run-p123-i456.service) N.
seen() {
    perl -pe 's/\e\][^\a\e]*(?:\a|\e\\)//g; s/\e\[[0-9;:?]*[ -\/]*[@-~]//g; s/\r//g; s/[ \t]+$//;
              s/\bat \d\d:\d\d\b/at HH:MM/g; s/\brun-p\d+-i\d+\.service/run-pN-iN.service/g; $_ = "" if /^$/'
}

# unseen: alice's failed attempts not yet told (pingate status --json).
unseen() {
    ct_sh <<'EOF'
pingate status alice --json | sed -nE 's/.*"unseen_failures": *([0-9]+).*/\1/p'
EOF
}

# try_tty NAME CONTEXT STEP... -- COMMAND...: one tty_run, what the person
# saw appended to $REPORT under NAME and shown on stderr; prints it.
try_tty() {
    local name="$1" context="$2" raw shown all
    shift 2
    all="$*"
    raw="$(tty_run "$context" "$@")"
    shown="$(seen <<< "$raw")"
    printf '== %s (%s): %s\n%s\n\n' "$name" "$context" "${all##*-- }" "$shown" >> "${REPORT:-/dev/null}"
    echo "      $name ($context):" >&2
    sed 's/^/        | /' <<< "$shown" >&2
    case "$shown" in *"status=99"*|*"closed by remote host"*)   # what went on inside
        CT_TIMEOUT=20 ct_sh 2>&1 <<'EOF' | tee -a "${REPORT:-/dev/null}" | sed 's/^/        journal: /' >&2
journalctl -b -q -o short-precise --no-pager -n 30
EOF
    esac
    printf '%s\n' "$shown"
}

# stop_user_managers: stops every user manager inside; status 1 if they are
# not gone within 5 s. Now and then a poweroff after these tests' sessions
# waited past container_stop's 20 s on alice's user@1000.service stop job
# (once in three runs, and more often with the machine busy): systemd inside
# left it "deactivating (final-sigkill)" with none of its processes left, as
# if it never learnt that the unit's cgroup was empty. Stopped first, it
# takes ~50 ms and the poweroff ~0.2 s; when it hangs, the container (a
# throwaway overlay) is better killed at once than after 20 s (end_with).
stop_user_managers() {
    CT_TIMEOUT=20 ct_sh > /dev/null 2>&1 <<'EOF'
timeout 5 systemctl stop 'user@*.service'
EOF
}

# end_with [COMMANDS]: the test's exit trap, however it ends: COMMANDS
# (keeping a log, ending a session), then the user managers stopped and a
# poweroff, or a kill when they hang. The tests run under set -e, which holds
# in a trap too: a COMMANDS step that fails (the session a failure left
# behind is gone already) would end the trap before the poweroff and leave
# the container running, so their failures are ignored.
end_with() {
    # shellcheck disable=SC2064  # COMMANDS are the caller's text, expanded when the trap runs
    trap "{ ${1:-:} ; } || true; stop_user_managers && container_stop || ct_cleanup" EXIT
}

# lock_the_pin USER: five different wrong PINs (WRONG_PINS) for USER with
# `pingate verify` inside, as any sign-in counts them; fails unless the PIN
# is locked then. Prints (on stderr) the count and how long it is locked.
lock_the_pin() {
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$1" "${WRONG_PINS[@]}" 2>&1 <<'SH'
user="$1"
shift
for wrong in "$@"; do echo "$wrong" | pingate verify "$user" --stdin > /dev/null 2>&1; done
status="$(pingate status "$user" --json)"
echo "failures $(echo "$status" | sed -nE 's/.*"failures": *([0-9]+).*/\1/p')," \
     "locked for $(echo "$status" | sed -nE 's/.*"locked_seconds": *([0-9]+).*/\1/p') s"
SH
)"
    echo "      five wrong PINs with pingate verify: $out" >&2
    [[ "$out" =~ locked\ for\ [1-9][0-9]*\ s ]] || fail "$1's PIN is not locked after five wrong PINs: $out"
}
