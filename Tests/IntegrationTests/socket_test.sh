#!/bin/bash
# socket_test.sh — pingate-verify.socket: the verifier reached over a unix
# socket where a spawned helper cannot count (pingate_protocol.h, SOCKET).
#
# polkit 127 runs its agent helper with NoNewPrivileges (the setgid bit is
# not applied) and a read-only /var/lib: there the module connects to
# /run/pingate-verify/socket, and systemd starts `pingate-verify --socket`
# for the connection. Here systemd-socket-activate stands in for the socket
# unit (--seqpacket --accept --inetd: one verifier per connection, the
# connection on its stdin and stdout, as StandardInput=socket gives), in a
# private /run with a simulated logind (session_lib.sh). The callers are the
# real module in pam_harness, as a locker runs it: pgalice's own process,
# with no_new_privs set (setpriv --no-new-privs), or with the store mounted
# read-only in its own mount namespace. booted_test.sh runs the real units.
#
# usage: bash Tests/IntegrationTests/socket_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
. "$here/session_lib.sh"
sandbox_enter "$@"

CONF="$SANDBOX/socket-conf"
# sufficient, as `pingate enable i3lock` writes it: no answer, the password.
write_service "$CONF" i3lock "auth sufficient $SANDBOX/pam_pingate.so" "$(next_line)"
private_run_with_sessions
find_cgroup_root
SOCKET=/run/pingate-verify/socket
ACTIVATOR=""

# listen: the socket unit's stand-in, serving with the installed helper.
listen() {
    mkdir -p /run/pingate-verify
    rm -f "$SOCKET"
    systemd-socket-activate --seqpacket --accept --inetd -l "$SOCKET" "$HELPER" --socket \
        > "$SANDBOX/activator.log" 2>&1 &
    ACTIVATOR=$!
    local i
    # Anyone may connect, as the unit's SocketMode=0666 allows.
    for i in $(seq 50); do [ -S "$SOCKET" ] && chmod 0666 "$SOCKET" && return 0; sleep 0.1; done
    fail "systemd-socket-activate did not listen on $SOCKET: $(cat "$SANDBOX/activator.log")"
}

stop_listening() {
    if [ -n "$ACTIVATOR" ]; then
        kill "$ACTIVATOR" 2>/dev/null || true
        wait "$ACTIVATOR" 2>/dev/null || true
    fi
    ACTIVATOR=""
    rm -f "$SOCKET"
}

fresh() {
    need_cli
    stop_listening
    store_reset
    enroll pgalice "$TEST_PIN" --pin
    session 50 0 61001      # pgalice at the seat
    session 51 1 61001      # and over ssh
    user_sessions 61001 50 51
    trap stop_listening EXIT
}

# locker SESSION INPUT: the module as pgalice's locker runs it, in her
# session SESSION, with no_new_privs set, as polkit 127 sets it.
locker() {
    out=$(printf '%s' "$2" | in_session "$1" setpriv --reuid=61001 --regid=61001 --clear-groups --no-new-privs \
        --reset-env -- "$HARNESS" --confdir "$CONF" --service i3lock --user pgalice) && rc=0 || rc=$?
}

# read_only_locker INPUT: the same with the store read-only in the locker's
# own mount namespace (the verifier's namespace keeps it writable).
read_only_locker() {
    out=$(printf '%s' "$1" | in_session 50 unshare --mount --propagation private sh -c \
        'mount -o remount,bind,ro /var/lib/pingate && exec setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$@"' \
        sh "$HARNESS" --confdir "$CONF" --service i3lock --user pgalice) && rc=0 || rc=$?
}

failures() { helper_status pgalice | sed -n 's/.*failures=\([0-9]*\).*/\1/p'; }

# raw_request USER SESSION LINES...: one request message over the socket,
# sent by USER from logind session SESSION (any process may connect);
# prints the answer message.
raw_request() {
    local user=$1 id=$2; shift 2
    local request="pingate-verify/1" line uid
    uid="$(id -u "$user")"
    for line in "$@"; do request+=$'\n'"$line"; done
    in_cgroup "user.slice/user-$uid.slice/session-$id.scope" \
        setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(sys.argv[2].encode() + b"\n")
sys.stdout.write(s.recv(4096).decode())' "$SOCKET" "$request"
}

test_under_no_new_privs_the_pin_goes_over_the_socket_and_is_counted() {
    fresh; listen
    locker 50 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the right PIN (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
    locker 50 "1357"$'\n'
    assert_contains "$out" "Wrong PIN" "a wrong PIN"
    assert_eq 1 "$(failures)" "pgalice's failures after a wrong PIN over the socket"
    locker 50 "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the right PIN again"
}

# Without the socket, a spawned helper without its setgid bit cannot open the
# store: no PIN question, one line saying so, and the password as before.
test_under_no_new_privs_without_the_socket_only_the_password_is_asked() {
    fresh
    locker 50 "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$(grep -c 'PROMPT_ECHO_OFF PIN' <<< "$out")" "PIN questions (transcript: $out)"
    assert_contains "$out" "INFO PIN sign-in cannot be used here now — use your password"
    assert_contains "$out" "INFO NEXT authtok=" "the password modules"
    assert_eq 0 "$(failures)" "pgalice's failures"
}

# The spawned helper's status opens the record for writing, as a verify
# does: a store it cannot write is not offered. Over the socket it is.
test_a_read_only_store_offers_no_pin_unless_the_socket_answers() {
    fresh
    read_only_locker "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$(grep -c 'PROMPT_ECHO_OFF PIN' <<< "$out")" "PIN questions on a read-only store (transcript: $out)"
    assert_contains "$out" "INFO PIN sign-in cannot be used here now — use your password"
    listen
    read_only_locker "2468"$'\n'
    assert_contains "$out" "Wrong PIN" "a wrong PIN over the socket (transcript: $out)"
    assert_eq 1 "$(failures)" "pgalice's failures"
    read_only_locker "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the right PIN over the socket"
}

# The verifier runs outside every session; it judges its peer's process.
test_the_socket_judges_its_peers_session_not_its_own() {
    fresh; listen
    locker 51 "$TEST_PIN"$'\n'
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
    assert_eq 0 "$(grep -c 'PROMPT_ECHO_OFF PIN' <<< "$out")" "PIN questions from ssh (transcript: $out)"
    assert_eq 0 "$(failures)" "pgalice's failures"
}

# Any user may connect. The peer's uid is what counts: a non-root peer asks
# only about itself, and what it claims of another caller is not believed.
test_a_peer_is_its_uid_whatever_it_writes() {
    fresh; listen
    local answer
    session 52 0 61002      # pgbob at the seat too
    answer="$(raw_request pgbob 52 op=status user=pgalice service=i3lock caller_uid=61001 caller_pid=1)"
    assert_eq "refused a user may only ask about their own PIN
end 7" "$answer" "pgbob asking about pgalice, claiming to be her"
    answer="$(raw_request pgalice 50 op=status user=pgalice service=i3lock rhost=example.org)"
    assert_contains "$answer" "not-local" "a remote host written by the peer"
    answer="$(raw_request pgalice 50 op=status user=pgalice service=i3lock)"
    assert_contains "$answer" "enrolled kind=pin" "pgalice at the seat asking about herself"
    assert_eq 0 "$(failures)" "pgalice's failures"
}

# A verifier that never answers (here: a sleep accepted in its place) costs
# the caller the module's timeout= (5 s, its least), then the password.
test_a_verifier_that_never_answers_costs_the_timeout_then_the_password() {
    fresh
    write_service "$CONF" i3lock "auth sufficient $SANDBOX/pam_pingate.so timeout=5" "$(next_line)"
    mkdir -p /run/pingate-verify
    systemd-socket-activate --seqpacket --accept --inetd -l "$SOCKET" /bin/sleep 30 > "$SANDBOX/activator.log" 2>&1 &
    ACTIVATOR=$!
    local i start
    for i in $(seq 50); do [ -S "$SOCKET" ] && chmod 0666 "$SOCKET" && break; sleep 0.1; done
    start=$(date +%s%N)
    locker 50 "$TEST_PASSWORD"$'\n'
    local took=$(( ($(date +%s%N) - start) / 1000000 ))
    write_service "$CONF" i3lock "auth sufficient $SANDBOX/pam_pingate.so" "$(next_line)"
    assert_contains "$out" "INFO PIN sign-in cannot be used here now — use your password" "transcript"
    assert_contains "$out" "INFO NEXT authtok=" "the password modules"
    [ "$took" -ge 4900 ] && [ "$took" -lt 9000 ] || fail "the sign-in took $took ms, not the 5 s timeout"
}

# A peer that connects and sends nothing holds its verifier only for
# PINGATE_SOCKET_REQUEST_SECONDS (3 s): it is then refused and the
# connection closed, so no account holds the socket's units by waiting
# (booted_test.sh section 4d floods the real units).
test_a_peer_that_sends_nothing_is_refused_and_dropped_after_3_s() {
    fresh; listen
    local answer
    answer="$(setpriv --reuid=61002 --regid=61002 --clear-groups --reset-env -- python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
start = time.monotonic()
s.settimeout(10)
answer = s.recv(4096).decode()
closed = s.recv(4096) == b""
print(answer.strip().replace("\n", " / "), "| closed" if closed else "| open", int((time.monotonic() - start) * 1000))' "$SOCKET")"
    echo "      a silent peer: $answer" >&2
    assert_contains "$answer" "refused no request within 3 s of the connection / end 7 | closed" "a silent peer's answer"
    local took=${answer##* }
    [ "$took" -ge 2900 ] && [ "$took" -lt 6000 ] || fail "the silent peer was dropped after $took ms, not 3 s"
}

test_the_verifier_refuses_socket_mode_without_a_socket_and_from_a_user() {
    need_cli
    local answer
    answer="$(printf 'pingate-verify/1\nop=status\nuser=root\n' | "$HELPER" --socket 2>&1 || true)"
    assert_contains "$answer" "refused --socket needs stdin to be a connection to pingate-verify.socket"
    answer="$(printf 'pingate-verify/1\nop=status\nuser=pgalice\n' | as_user pgalice "$HELPER" --socket 2>&1 || true)"
    assert_contains "$answer" "refused pingate-verify takes no arguments"
}

run_tests
