#!/bin/bash
# owner_test.sh — only its owner, only at the machine.
#
# A PIN is offered only when the one asking is the user it belongs to (the
# calling process's real uid is PAM_USER's, or the caller is root, and no
# PAM_RUSER names someone else) — the module refuses that with no prompt and
# no helper call — and only at the machine, which the helper decides for
# every path (the module, the helper run directly, `pingate verify` and
# `change`) from logind's state through sd-login: PAM_RHOST of any kind, a
# remote or seatless session, a user manager with nobody at the seat are not
# at the machine. Every refusal leaves the record untouched.
#
# Real setuid-root clients: a setuid copy of pam/tests/pam_harness (the shape
# of su, sudo and polkit's agent helper), the real `su` through a pty, the
# real `sudo` with targetpw and inside a simulated remote logind session (a
# real cgroup named session-N.scope and a state file in a private /run).
#
# usage: bash Tests/IntegrationTests/owner_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
. "$here/session_lib.sh"
sandbox_enter "$@"

CONF="$SANDBOX/owner-conf"
SUID_HARNESS="$SANDBOX/suid-harness"
install -o root -g root -m 4755 "$HARNESS" "$SUID_HARNESS"
for service in sudo su i3lock; do write_service "$CONF" "$service" "$(module_line)" "$(next_line)"; done

private_run_with_sessions
find_cgroup_root
sudo_stack

fresh() {
    store_reset
    # su is allowed here on purpose: the owner rule, not the list, must stop it.
    echo "services = sudo su i3lock" >> /etc/pingate/pingate.conf
    enroll pgalice "$TEST_PIN" --pin
    # Each test user's own local login, for the callers of the owner tests.
    session 40 0 61001
    session 41 0 61002
}

# at_seat USER COMMAND...: COMMAND as USER in USER's local session (fresh).
at_seat() {
    local user=$1; shift
    local uid; uid=$(id -u "$user")
    in_cgroup "user.slice/user-$uid.slice/session-$((uid - 60961)).scope" \
        setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- "$@"
}

# suid_run CALLER SERVICE USER INPUT: the setuid harness run by CALLER at the machine.
suid_run() {
    local caller=$1 service=$2 user=$3 input=$4
    out=$(printf '%s' "$input" | at_seat "$caller" "$SUID_HARNESS" --confdir "$CONF" \
        --service "$service" --user "$user") && rc=0 || rc=$?
}

# --- only its owner ---------------------------------------------------------------

test_setuid_client_run_by_another_user_does_not_offer_the_pin() {
    need_cli; fresh
    local before service; before="$(record_state pgalice)"
    for service in sudo su; do
        suid_run pgbob "$service" pgalice "$TEST_PIN"$'\n'
        assert_ignored
        assert_eq 0 "$(prompts)" "prompts ($service)"
    done
    assert_eq "$before" "$(record_state pgalice)" "pgalice's record"
}

# Not even the status is asked: with a stand-in helper that writes down every
# request, another user's attempts leave none.
test_setuid_client_run_by_another_user_never_runs_the_helper() {
    need_cli; fresh
    local fake="$SANDBOX/fake"
    rm -rf "$fake"; mkdir -p "$fake"
    cp "$REPO_ROOT/pam/tests/fake-helper.sh" "$fake/fake-helper"; chmod 755 "$fake/fake-helper"
    echo "0 enrolled kind=pin failures=0" > "$fake/status"; echo "0 ok" > "$fake/verify"
    write_service "$SANDBOX/fake-conf" sudo "$(module_line helper=$fake/fake-helper)" "$(next_line)"
    out=$(printf '%s\n' "$TEST_PIN" | at_seat pgbob "$SUID_HARNESS" --confdir "$SANDBOX/fake-conf" \
        --service sudo --user pgalice) && rc=0 || rc=$?
    assert_ignored
    assert_eq 0 "$(ls "$fake" | grep -c '^request\.' || true)" "helper requests for another user"
    out=$(printf '%s\n' "$TEST_PIN" | at_seat pgalice "$SUID_HARNESS" --confdir "$SANDBOX/fake-conf" \
        --service sudo --user pgalice) && rc=0 || rc=$?
    assert_eq 2 "$(ls "$fake" | grep -c '^request\.' || true)" "helper requests for the owner (status, verify)"
}

# The module starts the helper with posix_spawn, which cannot change ids, so a
# setuid client's helper (euid 0, the user's real uid) takes root's real uid
# itself: the caller is judged root, and the user cannot signal the run. Read
# while the run waits for the PIN.
test_setuid_clients_helper_takes_roots_real_uid() {
    need_cli; fresh
    local fifo="$SANDBOX/pin-fifo" pid uids
    rm -f "$fifo"; mkfifo -m 666 "$fifo"
    at_seat pgalice "$SUID_HARNESS" --confdir "$CONF" --service sudo --user pgalice < "$fifo" > "$SANDBOX/suid.out" &
    local client=$!
    exec 7> "$fifo"
    for _ in $(seq 100); do pid=$(pgrep -x pingate-verify | head -n 1); [ -n "$pid" ] && break; sleep 0.05; done
    [ -n "$pid" ] || { exec 7>&-; wait "$client"; fail "no helper run waited for the PIN"; }
    # Found as soon as it is exec'd: give it the moment before main's first step.
    for _ in $(seq 40); do
        uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$pid/status")
        [ "$uids" = "0 0 0 0" ] && break; sleep 0.05
    done
    printf '%s\n' "$TEST_PIN" >&7; exec 7>&-
    wait "$client" || true
    assert_eq "0 0 0 0" "$uids" "the helper's real, effective, saved and file-system uids"
    assert_contains "$(cat "$SANDBOX/suid.out")" "PAM_SUCCESS" "the sign-in"
}

test_setuid_client_run_by_the_owner_offers_the_pin() {
    need_cli; fresh
    suid_run pgalice sudo pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
}

test_another_users_guesses_cannot_lock_the_owner_out() {
    need_cli; fresh
    local i
    for i in 1 2 3 4 5 6 7 8 9 10 11; do suid_run pgbob su pgalice $'1397\n'; done
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures after pgbob's 11 tries"
    suid_run pgalice sudo pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "pgalice's own PIN still works"
}

test_real_su_to_another_user_asks_only_for_the_password() {
    need_cli; fresh
    command -v su >/dev/null || skip "su is not installed"
    printf '%s\n' "auth sufficient $SANDBOX/pam_pingate.so" "@include common-auth" \
        "@include common-account" "@include common-session" > /etc/pam.d/su
    local before transcript; before="$(record_state pgalice)"
    transcript=$(cd / && timeout 30 python3 "$here/pty_drive.py" expect:"Password:" send:"$TEST_PASSWORD\r" \
        expect:SU-DONE -- setpriv --reuid=61002 --regid=61002 --clear-groups -- \
        su pgalice -c 'echo SU-DONE-$(id -un)') || fail "su did not finish (transcript: $transcript)"
    assert_contains "$transcript" "SU-DONE-pgalice" "su ran as pgalice"
    assert_not_contains "$transcript" "PIN" "su's prompts"
    assert_eq "$before" "$(record_state pgalice)" "pgalice's record"
}

test_sudo_targetpw_does_not_offer_the_targets_pin() {
    need_cli; fresh
    local sudoers; sudoers="$SANDBOX/sudoers"
    cp "$sudoers" "$SANDBOX/sudoers.saved"
    echo 'Defaults:pgbob targetpw' >> "$sudoers"
    local before; before="$(record_state pgalice)"
    err=$(printf '%s\n' "$TEST_PASSWORD" | as_user pgbob timeout 30 sudo -S -k -u pgalice true 2>&1 >/dev/null) && rc=0 || rc=$?
    cp "$SANDBOX/sudoers.saved" "$sudoers"
    assert_eq 0 "$rc" "sudo exit status with pgalice's password (stderr: $err)"
    assert_not_contains "$err" "PIN" "sudo's prompts"
    assert_eq "$before" "$(record_state pgalice)" "pgalice's record"
}

# --- a root service on a unix socket: the peer is the caller ----------------------------
# polkit >= 125 runs its agent helper as root from a socket unit
# (polkit-agent-helper@.service, stdin/stdout the connection accepted on
# /run/polkit/agent-helper.socket), and sets PAM_RUSER to the target itself.
# unix_inetd SOCKET starts the same shape: a root listener that, on the first
# connection, puts it on fd 0 and 1 and runs the harness as root for service
# polkit-1, user and ruser pgalice, with the stand-in helper in $SANDBOX/fake.

unix_inetd() {
    local socket=$1 helper=${2:-fake} option=""
    store_reset   # the default services, which have polkit-1
    rm -rf "$SANDBOX/fake" "$socket" "$socket.ready"; mkdir -p "$SANDBOX/fake"
    cp "$REPO_ROOT/pam/tests/fake-helper.sh" "$SANDBOX/fake/fake-helper"; chmod 755 "$SANDBOX/fake/fake-helper"
    echo "0 enrolled kind=pin failures=0" > "$SANDBOX/fake/status"; echo "0 ok" > "$SANDBOX/fake/verify"
    [ "$helper" = fake ] && option="helper=$SANDBOX/fake/fake-helper"
    write_service "$SANDBOX/polkit-conf" polkit-1 "$(module_line $option)" "$(next_line)"
    python3 -c '
import os, socket, sys
path, argv = sys.argv[1], sys.argv[2:]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.chmod(path, 0o666)
listener.listen(1)
listener.settimeout(20)
open(path + ".ready", "w").close()
connection, _ = listener.accept()
listener.close()
os.dup2(connection.fileno(), 0)
os.dup2(connection.fileno(), 1)
os.execv(argv[0], argv)
' "$socket" "$HARNESS" --confdir "$SANDBOX/polkit-conf" --service polkit-1 --user pgalice --ruser pgalice \
        > /dev/null 2>&1 &
    INETD_PID=$!
    local i
    for i in $(seq 100); do [ -e "$socket.ready" ] && return 0; sleep 0.05; done
    fail "the unix-socket listener did not start"
}

# connect_as COMMAND... -- SOCKET ANSWER: connects (run under COMMAND, e.g.
# as_user pgbob), answers a prompt with ANSWER, and sets $out to the
# harness's transcript.
connect_as() {
    local prefix=()
    while [ "$1" != "--" ]; do prefix+=("$1"); shift; done
    shift
    out=$("${prefix[@]}" python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rwb", buffering=0)
for line in f:
    sys.stdout.write(line.decode())
    if line.startswith(b"PROMPT_"):
        s.sendall(sys.argv[2].encode() + b"\n")
' "$1" "$2") || true
    wait "$INETD_PID" || true
}

fake_requests() { ls "$SANDBOX/fake" | grep -c '^request\.' || true; }

test_a_root_agent_helper_on_a_unix_socket_offers_no_pin_to_another_users_agent() {
    unix_inetd "$SANDBOX/agent.sock"
    connect_as as_user pgbob -- "$SANDBOX/agent.sock" "$TEST_PIN"
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(fake_requests)" "helper requests"
}

test_a_root_agent_helper_on_a_unix_socket_offers_the_pin_to_its_owners_agent() {
    session 30 0
    unix_inetd "$SANDBOX/agent.sock"
    connect_as in_session 30 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env \
        -- "$SANDBOX/agent.sock" "$TEST_PIN"
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
}

# The "at the machine" rule runs on the peer's process, not the root helper's:
# the module passes the peer's uid and pid, and the real helper judges them.
test_a_root_agent_helper_on_a_unix_socket_judges_the_peers_session() {
    session 31 1
    unix_inetd "$SANDBOX/agent.sock" real
    enroll pgalice "$TEST_PIN" --pin
    connect_as in_session 31 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env \
        -- "$SANDBOX/agent.sock" "$TEST_PIN"
    assert_ignored
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures"
}

test_the_module_passes_the_peers_uid_and_pid_to_the_helper() {
    session 32 0
    unix_inetd "$SANDBOX/agent.sock"
    connect_as in_session 32 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env \
        -- "$SANDBOX/agent.sock" "$TEST_PIN"
    local request; request="$(cat "$SANDBOX"/fake/request.* | head -20)"
    assert_contains "$request" "caller_uid=61001" "the status request"
    assert_contains "$request" "caller_pid=" "the status request"
    assert_not_contains "$request" "caller_pid=$INETD_PID" "the status request (the peer's pid, not the root helper's)"
}

# --- only at the machine: logind sessions ---------------------------------------------

session_run() {
    local id=$1 input=$2; shift 2
    out=$(printf '%s' "$input" | in_session "$id" "$HARNESS" --confdir "$CONF" --service sudo \
        --user pgalice "$@") && rc=0 || rc=$?
}

test_sudo_in_a_remote_logind_session_does_not_offer_the_pin() {
    need_cli; fresh
    session 7 1
    local before; before="$(record_state pgalice)"
    err=$(printf '%s\n' "$TEST_PASSWORD" | in_session 7 setpriv --reuid=61001 --regid=61001 \
        --clear-groups --reset-env -- timeout 30 sudo -S -k true 2>&1 >/dev/null) && rc=0 || rc=$?
    assert_not_contains "$err" "PIN" "sudo's prompts in a remote session"
    assert_contains "$err" "password for pgalice" "sudo's prompts in a remote session"
    assert_eq "$before" "$(record_state pgalice)" "pgalice's record"
}

test_remote_logind_session_is_not_offered_without_rhost() {
    need_cli; fresh
    session 8 1
    session_run 8 "$TEST_PIN"$'\n'
    assert_ignored
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures"
}

test_local_logind_session_is_offered() {
    need_cli; fresh
    session 9 0
    session_run 9 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
}

test_session_without_a_state_file_is_treated_as_remote() {
    need_cli; fresh
    session 10 absent
    session_run 10 "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
}

# A session file without REMOTE= (a foreign or damaged writer): sd-login
# answers ENODATA for it, and the helper takes that as not at the machine.
test_a_session_without_remote_is_not_at_the_machine() {
    need_cli; fresh
    session 10 0
    session_run 10 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the same session with REMOTE=0 (transcript: $out)"
    sed -i '/^REMOTE=/d' /run/systemd/sessions/10
    session_run 10 "$TEST_PIN"$'\n'
    assert_ignored
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
    assert_eq 0 "$(prompts)" "prompts"
}

test_allow_remote_offers_the_pin_in_a_remote_session() {
    need_cli; fresh
    write_service "$SANDBOX/allow-remote" sudo "$(module_line allow_remote)" "$(next_line)"
    session 11 1
    out=$(printf '%s\n' "$TEST_PIN" | in_session 11 "$HARNESS" --confdir "$SANDBOX/allow-remote" \
        --service sudo --user pgalice) && rc=0 || rc=$?
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
}

# A "session-N.scope" the user made under their own service manager is not
# logind's: the module finds no session, and the user's remote session counts.
test_a_session_scope_outside_loginds_layout_is_not_a_session() {
    need_cli; fresh
    session 13 0
    session 14 1
    user_sessions 61001 14
    locker_in_cgroup "user.slice/user-61001.slice/user@61001.service/app.slice/session-13.scope" "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    rm -f /run/systemd/users/61001
}

# locker_in_cgroup CGROUP INPUT: the harness as pgalice for i3lock (a
# user-run locker), its process in CGROUP; sets $out and $rc.
locker_in_cgroup() {
    out=$(printf '%s' "$2" | in_cgroup "$1" \
        setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        "$HARNESS" --confdir "$CONF" --service i3lock --user pgalice) && rc=0 || rc=$?
}

# user_manager_run INPUT: the same in her own service manager
# (user@61001.service), outside any session scope, as a desktop terminal or
# `systemd-run --user` is.
user_manager_run() {
    locker_in_cgroup "user.slice/user-61001.slice/user@61001.service/app.slice/term.scope" "$1"
}

# `systemd-run --user sudo …` from an ssh shell runs outside any session
# scope: while the user has a remote session, that is remote too.
test_a_caller_outside_any_session_counts_as_remote_while_the_user_has_a_remote_one() {
    need_cli; fresh
    session 16 1
    session 17 0
    user_sessions 61001 17 16
    user_manager_run "$TEST_PIN"$'\n'
    assert_ignored
    rm -f /run/systemd/users/61001
}

# A desktop terminal runs under the user's service manager: offered while
# every session of hers is local (her service manager's own session, class
# "manager" since systemd 256, is no login). Without logind's list of her
# sessions nothing says she is at the machine.
test_a_caller_under_the_users_service_manager_is_offered_with_only_local_sessions() {
    need_cli; fresh
    session 17 0
    session 19 0 61001 manager -
    user_sessions 61001 17 19
    user_manager_run "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "with only local sessions (transcript: $out)"
    rm -f /run/systemd/users/61001
    user_manager_run "$TEST_PIN"$'\n'
    assert_ignored
}

# logind lists every session on one SESSIONS= line: a remote one listed after
# 260 local ones (over 1 KiB into the line) still counts.
test_a_remote_session_listed_late_in_a_long_sessions_line_counts() {
    need_cli; fresh
    local id ids=()
    for id in $(seq 1000 1259); do session "$id" 0; ids+=("$id"); done
    session 9999 1
    user_sessions 61001 "${ids[@]}" 9999
    user_manager_run "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    user_sessions 61001 "${ids[@]}"
    user_manager_run "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "with the 260 local sessions only (transcript: $out)"
    rm -f /run/systemd/users/61001 /run/systemd/sessions/1??? /run/systemd/sessions/9999
}

# A cron or at job where cron's PAM stack runs pam_systemd: its session is
# local to logind (REMOTE=0) but of class "background": nobody is at the machine.
test_a_background_session_is_not_at_the_machine() {
    need_cli; fresh
    session 20 0 61001 background
    session_run 20 "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    session 20 0 61001 user
    session_run 20 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the same session as class user (transcript: $out)"
}

# A user's process in a system service (cron without pam_systemd, a CGI) is
# outside any session and outside her service manager: not at the machine,
# even while her only session is local.
test_a_caller_in_a_system_service_is_not_at_the_machine() {
    need_cli; fresh
    session 17 0
    user_sessions 61001 17
    locker_in_cgroup "system.slice/cron.service" "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    rm -f /run/systemd/users/61001
}

test_a_session_that_is_not_the_callers_counts_as_remote() {
    need_cli; fresh
    session 18 0 61002
    locker_in_cgroup "user.slice/user-61001.slice/session-18.scope" "$TEST_PIN"$'\n'
    assert_ignored
}

test_a_root_caller_outside_sessions_is_judged_by_rhost() {
    need_cli; fresh
    pam_run "$CONF" sudo pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "no session, no rhost"
    pam_run "$CONF" sudo pgalice "$TEST_PIN"$'\n' --rhost 192.0.2.7
    assert_ignored
}

# Tunnels end at the loopback address: localhost is remote like any host.
test_a_loopback_rhost_is_remote() {
    need_cli; fresh
    local host
    for host in localhost 127.0.0.1 ::1; do
        pam_run "$CONF" sudo pgalice "$TEST_PIN"$'\n' --rhost "$host"
        assert_ignored
        assert_eq 0 "$(prompts)" "prompts (rhost $host)"
    done
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures"
}

# Where logind does not run (no seat0; a leftover /run/systemd/sessions says
# nothing), PAM_RHOST alone decides, for every caller.
test_without_seat0_rhost_alone_decides() {
    need_cli; fresh
    session 21 1
    logind_stops
    session_run 21 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "a 'remote' session without logind (transcript: $out)"
    user_sessions 61001
    user_manager_run "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "outside any session without logind (transcript: $out)"
    session_run 21 "$TEST_PIN"$'\n' --rhost 127.0.0.1
    assert_ignored
    logind_starts
}

# The first sign-in of a boot takes the password at a display manager's
# login (it unlocks the keyring and an encrypted home): gdm-password and
# lightdm offer the PIN only while the user already has a session
# (unlocking, switching back), and without logind never.
test_the_first_sign_in_at_a_login_screen_takes_the_password() {
    need_cli; fresh
    sed -i 's/^services = .*/services = sudo su i3lock gdm-password lightdm/' /etc/pingate/pingate.conf
    local service
    for service in gdm-password lightdm; do
        write_service "$CONF" "$service" "$(module_line)" "$(next_line)"
        user_sessions 61001                 # logind lists no session of hers yet
        pam_run "$CONF" "$service" pgalice "$TEST_PIN"$'\n'
        assert_ignored
        assert_contains "$out" "INFO The first sign-in since the machine started takes your password"
        assert_eq 0 "$(prompts)" "prompts at $service's first sign-in"
        user_sessions 61001 40              # she is signed in: unlocking, switching back
        pam_run "$CONF" "$service" pgalice "$TEST_PIN"$'\n'
        assert_eq PAM_SUCCESS "$(result)" "$service with a session of hers (transcript: $out)"
    done
    logind_stops
    pam_run "$CONF" gdm-password pgalice "$TEST_PIN"$'\n'
    assert_ignored
    logind_starts
    pam_run "$CONF" sudo pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "sudo is no login screen"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    rm -f /run/systemd/users/61001
}

# lightdm's XDMCP displays (issue 40, item 4): its root session child puts
# the remote X server's address in PAM_TTY ("HOST:N") and sets no
# PAM_RHOST, so the display is all that tells the sign-in is remote. gdm
# sets PAM_RHOST for every display that is not local (design.md, section 8).
test_an_xdmcp_display_at_lightdm_is_not_at_the_machine() {
    need_cli; fresh
    sed -i 's/^services = .*/services = sudo lightdm/' /etc/pingate/pingate.conf
    write_service "$CONF" lightdm "$(module_line)" "$(next_line)"
    user_sessions 61001 40      # she sits at the seat: lightdm offers the PIN here
    pam_run "$CONF" lightdm pgalice "$TEST_PIN"$'\n' --tty xterminal.example:0
    assert_ignored
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
    assert_eq 0 "$(prompts)" "prompts at an XDMCP display"
    pam_run "$CONF" lightdm pgalice "$TEST_PIN"$'\n' --tty :0
    assert_eq PAM_SUCCESS "$(result)" "lightdm at the seat's own display (transcript: $out)"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    rm -f /run/systemd/users/61001
}

# --- marks only for sign-ins that open sessions (issue 40, item 2) ----------------------
# A PIN success at login or a display manager's login, by root's worker
# outside any session, marks that process: the session it opens is no
# sign-in with the password. Every root caller outside a session was marked:
# four sudo commands answered with the PIN at once from a desktop terminal
# (under the user manager) filled the record's three marks, and the
# overflow turned the PIN off at gdm-password until the next boot.

# record_marks USER: the PIN-opened-session marks of both slots of USER's
# record (RecordLayout: slots of 512 bytes, the three leaders' pids at 432,
# the overflow byte at 444), one "overflow=N leaders=P P P" line a slot.
record_marks() {
    local path slot
    path="/var/lib/pingate/$(id -u "$1").record"
    for slot in 0 1; do
        # shellcheck disable=SC2046 # the pids, split and joined by one space
        printf 'overflow=%s leaders=%s\n' "$(od -An -tu1 -j $((slot * 512 + 444)) -N1 "$path" | tr -d ' ')" \
            "$(echo $(od -An -tu4 -j $((slot * 512 + 432)) -N12 "$path"))"
    done
}

# held_signin OUTPUT SERVICE HARNESS [RUNNER...]: HARNESS (run under
# RUNNER) signing pgalice in to SERVICE with the PIN through
# $SANDBOX/marks-conf and holding its process for 60 s after the success,
# as a sudo waiting for its command does and as login and a display
# manager's worker do while their session lasts; in the background, its
# pid in $HELD.
held_signin() {
    local output=$1 service=$2 harness=$3; shift 3
    local wrapper=("$@")
    printf '%s\n' "$TEST_PIN" | "${wrapper[@]}" "$harness" --confdir "$SANDBOX/marks-conf" --service "$service" \
        --user pgalice --session 60 > "$output" 2>&1 &
    HELD=$!
}

# wait_for_sessions FILE...: until every harness has held its session.
wait_for_sessions() {
    local file i
    for file in "$@"; do
        for i in $(seq 300); do grep -q '^SESSION' "$file" 2>/dev/null && break; sleep 0.05; done
        grep -q '^SESSION PAM_SUCCESS' "$file" || fail "no held session in $file: $(tr '\n' ' ' < "$file")"
    done
}

test_four_concurrent_sudo_and_a_root_polkit_helper_leave_gdm_offering_the_pin() {
    need_cli; fresh
    sed -i 's/^services = .*/services = sudo polkit-1 login gdm-password/' /etc/pingate/pingate.conf
    local service held=() outputs=() i
    for service in sudo polkit-1 login; do
        write_service "$SANDBOX/marks-conf" "$service" "$(module_line)" "$(next_line)" "session optional pam_permit.so"
    done
    write_service "$CONF" gdm-password "$(module_line)" "$(next_line)"
    user_sessions 61001 40      # she sits at the seat, signed in with the password
    # Four sudo (setuid root, her real uid) from a terminal under her user
    # manager, and polkit's agent helper as a root service: all at once.
    for i in 1 2 3 4; do
        held_signin "$SANDBOX/sudo-$i.out" sudo "$SUID_HARNESS" in_cgroup "$MANAGER_CGROUP" \
            setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env --
        outputs+=("$SANDBOX/sudo-$i.out")
    done
    held_signin "$SANDBOX/polkit.out" polkit-1 "$HARNESS"
    held+=("$HELD"); outputs+=("$SANDBOX/polkit.out")
    wait_for_sessions "${outputs[@]}"
    # (The four sudo run as their runner's children: their pids are the cgroup's.)
    held+=($(cat "$CGROUP_ROOT/$MANAGER_CGROUP/cgroup.procs"))
    assert_eq "overflow=0 leaders=0 0 0
overflow=0 leaders=0 0 0" "$(record_marks pgalice)" "the marks after four sudo and polkit-1 at once"
    pam_run "$CONF" gdm-password pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "gdm-password with the PIN beside them (transcript: $out)"
    # A console's login does open a session: it is marked.
    held_signin "$SANDBOX/login.out" login "$HARNESS"
    held+=("$HELD")
    wait_for_sessions "$SANDBOX/login.out"
    assert_contains "$(record_marks pgalice)" "overflow=0 leaders=$HELD 0 0" "the marks after a console login with the PIN"
    kill "${held[@]}" 2>/dev/null
    wait 2>/dev/null
    assert_eq 0 "$(record_failures pgalice)" "failures"
    rm -f /run/systemd/users/61001
}

# --- only at the machine, on every path: the helper decides ----------------------------

# direct_helper ID OP SECRET [FIELD=VALUE...]: pgalice runs the setgid helper
# herself inside session ID (or CGROUP when ID holds a /); prints the answer
# and exit=N.
direct_helper() {
    local where=$1 op=$2 secret=$3 request field
    shift 3
    request=$(printf 'pingate-verify/1\nop=%s\nuser=pgalice' "$op")
    [ -z "$secret" ] || request+=$'\n'"secret=$secret"
    for field in "$@"; do request+=$'\n'"$field"; done
    request+=$'\n'
    local runner=(in_session "$where")
    case "$where" in */*) runner=(in_cgroup "$where") ;; esac
    printf '%s' "$request" | "${runner[@]}" setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env \
        -- "$HELPER" && echo "exit=0" || echo "exit=$?"
}

# cli_as ID ARGS...: pgalice's `pingate ARGS` in session ID (or a cgroup path); sets $out and $rc.
cli_as() {
    local where=$1; shift
    local runner=(in_session "$where")
    case "$where" in */*) runner=(in_cgroup "$where") ;; esac
    out=$("${runner[@]}" setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$PINGATE" "$@" 2>&1) && rc=0 || rc=$?
}

MANAGER_CGROUP="user.slice/user-61001.slice/user@61001.service/app.slice/run-r1.service"

# assert_every_path_refused WHERE: the module, the helper run directly,
# `pingate verify` (right and wrong PIN) and `pingate change` from WHERE
# (a session ID or a cgroup path) — none offers, none counts.
assert_every_path_refused() {
    local where=$1 answer
    case "$where" in */*) locker_in_cgroup "$where" "$TEST_PIN"$'\n' ;; *) session_run "$where" "$TEST_PIN"$'\n' ;; esac
    assert_ignored
    assert_eq 0 "$(prompts)" "module prompts from $where"
    answer=$(direct_helper "$where" verify 1397)
    assert_contains "$answer" "not-local" "the helper run directly from $where"
    assert_contains "$answer" "exit=8" "the helper's exit status from $where"
    answer=$(direct_helper "$where" status "" service=sudo)
    assert_contains "$answer" "not-local" "a status request for sudo from $where"
    answer=$(direct_helper "$where" status "" then=verify)
    assert_contains "$answer" "not-local" "a status with then=verify from $where"
    printf '%s\n' "$TEST_PIN" > "$SANDBOX/pin-input"; chmod 644 "$SANDBOX/pin-input"
    cli_as "$where" verify pgalice --stdin < "$SANDBOX/pin-input"
    assert_eq 3 "$rc" "pingate verify (right PIN) from $where: $out"
    assert_contains "$out" "only by someone at the machine" "pingate verify from $where"
    cli_as "$where" verify pgalice --stdin <<< "1397"
    assert_eq 3 "$rc" "pingate verify (wrong PIN) from $where: $out"
    printf '%s\n%s\n%s\n' "$TEST_PIN" 2580 2580 > "$SANDBOX/change-input"; chmod 644 "$SANDBOX/change-input"
    cli_as "$where" change --stdin < "$SANDBOX/change-input"
    assert_eq 3 "$rc" "pingate change from $where: $out"
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures after every path from $where"
    assert_own_status_answered "$where"
}

# assert_own_status_answered WHERE: the owner's plain `pingate status` is
# answered from WHERE too, read only: the record's bytes and times stay as
# they were, and another user's status is still refused.
assert_own_status_answered() {
    local where=$1 before answer
    before=$(record_state pgalice; stat -c %Z "/var/lib/pingate/$(id -u pgalice).record")
    cli_as "$where" status
    assert_eq 0 "$rc" "pgalice's own pingate status from $where: $out"
    assert_contains "$out" "pgalice" "her status from $where"
    answer=$(direct_helper "$where" status "")
    assert_contains "$answer" "enrolled kind=pin failures=" "a plain status request from $where, without the PIN's length"
    assert_contains "$answer" "exit=0" "the plain status's exit from $where"
    cli_as "$where" status root
    assert_eq 3 "$rc" "pgalice's status of root from $where: $out"
    assert_eq "$before" "$(record_state pgalice; stat -c %Z "/var/lib/pingate/$(id -u pgalice).record")" "pgalice's record after the status from $where"
}

# An attacker with pgalice's ssh key: `loginctl enable-linger`, a
# `systemd-run --user` timer that guesses, log out. The job runs under her
# user manager with no session at all.
test_a_lingering_user_manager_is_refused_on_every_path() {
    need_cli; fresh
    user_sessions 61001
    assert_every_path_refused "$MANAGER_CGROUP"
}

# ssh through a reverse tunnel: pam_systemd records REMOTE=0 for localhost,
# and no seat.
test_ssh_through_a_loopback_tunnel_is_refused_on_every_path() {
    need_cli; fresh
    session 50 0 61001 user -
    assert_every_path_refused 50
    # ... and her user manager while that is her only session.
    user_sessions 61001 50
    assert_every_path_refused "$MANAGER_CGROUP"
}

test_a_real_ssh_session_is_refused_on_every_path() {
    need_cli; fresh
    session 51 1
    assert_every_path_refused 51
}

# At the seat every path works; the user manager too, until the same user
# also has a remote or seatless session.
test_at_the_seat_every_path_works_and_the_user_manager_until_a_remote_session_appears() {
    need_cli; fresh
    session 52 0
    session_run 52 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the module at the seat (transcript: $out)"
    assert_contains "$(direct_helper 52 status "")" "enrolled kind=pin length=4 failures=" "a plain status at the seat, with the PIN's length"
    printf '%s\n' "$TEST_PIN" > "$SANDBOX/pin-input"; chmod 644 "$SANDBOX/pin-input"
    cli_as 52 verify pgalice --stdin < "$SANDBOX/pin-input"
    assert_eq 0 "$rc" "pingate verify at the seat: $out"
    user_sessions 61001 52
    locker_in_cgroup "$MANAGER_CGROUP" "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the user manager while she sits at the seat (transcript: $out)"
    session 53 1
    user_sessions 61001 52 53
    assert_every_path_refused "$MANAGER_CGROUP"
    session 53 0 61001 user -
    assert_every_path_refused "$MANAGER_CGROUP"
    rm -f /run/systemd/users/61001
}

run_tests
rc=$?
cleanup_cgroups
exit $rc
