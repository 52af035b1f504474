#!/bin/bash
# polkit_test.sh — real polkit (Debian 12's polkit 122): pkexec asks polkitd,
# polkitd asks the user's authentication agent (pkttyagent), and the agent runs
# the setuid-root polkit-agent-helper-1, which runs PAM service polkit-1 with
# the real uid of the user running the agent:
#
#   auth sufficient $SANDBOX/pam_pingate.so
#   @include common-auth                      (pam_unix)
#
# Inside the sandbox this file starts its own system bus (a private
# /run/dbus) and polkitd, with private rules directories holding only
#
#   pgalice is the only admin (unix-user:pgalice);
#   pkexec /bin/true: pgalice → AUTH_SELF, everyone else → AUTH_ADMIN;
#   pkexec /bin/echo: everyone → AUTH_ADMIN.
#
# Each run is `client.sh PROGRAM` as the test user on a pseudo-terminal
# (pty_drive.py): it registers `pkttyagent --process $$` for itself — pkexec's
# subject is its parent process — waits until the agent is registered, then
# runs `pkexec PROGRAM` and prints "pkexec exit=N". pkexec's own text agent is
# not used: in polkit 122 it ends every authentication with "No session for
# cookie" (fixed upstream).
#
# Only the user being authenticated may spend a PIN: pgbob asked for the
# admin pgalice's password must see no PIN prompt, and pgalice's failure count
# must not move (docs/design.md, section 8).
#
# When polkit or the bus cannot run here, every test is skipped with the reason.
#
# usage: bash Tests/IntegrationTests/polkit_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
sandbox_enter "$@"

POLKITD=/usr/lib/polkit-1/polkitd
AGENT_HELPER=/usr/lib/polkit-1/polkit-agent-helper-1
CLIENT="$SANDBOX/client.sh"
POLKIT_SKIP=""            # why polkit cannot be tested here, once known
DBUS_PID="" POLKITD_PID=""

# --- the system bus and polkitd, private to this namespace -------------------

polkit_installed() {
    local missing=() program
    for program in dbus-daemon dbus-send pkexec pkttyagent "$POLKITD" "$AGENT_HELPER"; do
        command -v "$program" >/dev/null || missing+=("$program")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        POLKIT_SKIP="not installed: ${missing[*]} (apt: pkexec polkitd dbus-daemon dbus-bin)"
        return 1
    fi
    if [ ! -u "$(command -v pkexec)" ] || [ ! -u "$AGENT_HELPER" ]; then
        POLKIT_SKIP="pkexec or $AGENT_HELPER is not setuid root"
        return 1
    fi
}

# A tmpfs over /run/dbus, so the bus socket exists only in this namespace.
# Where /run/dbus is missing, the mount goes over /run: never create it on the host.
private_run_dbus() {
    if [ -d /run/dbus ]; then
        mount -t tmpfs -o mode=0755 tmpfs /run/dbus
    else
        mount -t tmpfs -o mode=0755 tmpfs /run && mkdir -m 0755 /run/dbus
    fi
}

# The system bus configuration without what needs an init system: no fork, no
# pid file, no syslog, and no service activation — a polkitd that dies must
# not be replaced behind the test's back by dbus-daemon-launch-helper.
write_bus_config() {
    sed -e '/<fork\/>/d' -e '/<pidfile>/d' -e '/<syslog\/>/d' \
        -e '/<standard_system_servicedirs\/>/d' -e '/<servicehelper>/d' \
        -e 's|<includedir>system.d</includedir>|<includedir>/usr/share/dbus-1/system.d</includedir>|' \
        /usr/share/dbus-1/system.conf > "$SANDBOX/dbus-system.conf"
}

write_polkit_rules() {
    mkdir -p "$SANDBOX/polkit-rules" "$SANDBOX/polkit-share-rules"
    cat > "$SANDBOX/polkit-rules/10-pingate-test.rules" <<'EOF'
polkit.addAdminRule(function(action, subject) {
    return ["unix-user:pgalice"];
});
polkit.addRule(function(action, subject) {
    if (action.id != "org.freedesktop.policykit.exec")
        return polkit.Result.NOT_HANDLED;
    if (/\/echo$/.test(action.lookup("program")))
        return polkit.Result.AUTH_ADMIN;
    return subject.user == "pgalice" ? polkit.Result.AUTH_SELF : polkit.Result.AUTH_ADMIN;
});
EOF
    chown -R polkitd:root "$SANDBOX/polkit-rules"
    chmod 700 "$SANDBOX/polkit-rules"
    mount --bind "$SANDBOX/polkit-rules" /etc/polkit-1/rules.d
    mount --bind "$SANDBOX/polkit-share-rules" /usr/share/polkit-1/rules.d
}

polkit_stack() {
    cat > /etc/pam.d/polkit-1 <<EOF
#%PAM-1.0
auth       sufficient $SANDBOX/pam_pingate.so
@include common-auth
@include common-account
@include common-password
session    required   pam_env.so readenv=1 user_readenv=0
@include common-session-noninteractive
EOF
}

# name_has_owner NAME: true once NAME is owned on the system bus.
name_has_owner() {
    timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}

# wait_for WHAT PID LOG CONDITION...: up to 10 s; on failure sets POLKIT_SKIP.
wait_for() {
    local what=$1 pid=$2 log=$3; shift 3
    local _
    for _ in $(seq 100); do
        "$@" && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    POLKIT_SKIP="$what did not start: $(tr '\n' ' ' < "$log")"
    return 1
}

# Both daemons write to log files, never to this script's output: a daemon
# holding the pipe open would keep `run-all.sh | tee` waiting.
start_polkit() {
    polkit_installed || return 1
    private_run_dbus || { POLKIT_SKIP="cannot mount a private /run/dbus"; return 1; }
    write_bus_config
    dbus-daemon --config-file="$SANDBOX/dbus-system.conf" --nofork --nopidfile \
        </dev/null >"$SANDBOX/dbus.log" 2>&1 &
    DBUS_PID=$!
    wait_for dbus-daemon "$DBUS_PID" "$SANDBOX/dbus.log" test -S /run/dbus/system_bus_socket || return 1
    write_polkit_rules
    # Started as root: polkitd drops to the polkitd user itself, and refuses
    # to start as polkitd ("Error clearing groups: Operation not permitted").
    # Without --no-debug, which would send its reasons to the absent syslog.
    "$POLKITD" </dev/null >"$SANDBOX/polkitd.log" 2>&1 &
    POLKITD_PID=$!
    wait_for polkitd "$POLKITD_PID" "$SANDBOX/polkitd.log" name_has_owner org.freedesktop.PolicyKit1
}

stop_polkit() {
    local pid _
    for pid in $POLKITD_PID $DBUS_PID; do kill "$pid" 2>/dev/null; done
    for _ in $(seq 20); do
        kill -0 $POLKITD_PID $DBUS_PID 2>/dev/null || return 0
        sleep 0.1
    done
    for pid in $POLKITD_PID $DBUS_PID; do kill -KILL "$pid" 2>/dev/null; done
    return 0
}

# client.sh: the user's side, on the terminal pty_drive gives it.
write_client() {
    cat > "$CLIENT" <<'EOF'
#!/bin/bash
# client.sh PROGRAM ARGS...: an agent for this shell, then pkexec PROGRAM.
# The agent closes fd 4 once registered; the read returns at that EOF.
exec 3< <(exec pkttyagent --process $$ --notify-fd 4 4>&1 >/dev/tty 2>&1)
agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null' EXIT
read -r -u 3 _
exec 3<&-
kill -0 "$agent" 2>/dev/null || { echo "client: pkttyagent did not register"; exit 98; }
pkexec "$@"
rc=$?
echo "pkexec exit=$rc"
exit $rc
EOF
    chmod 755 "$CLIENT"
}

trap 'stop_polkit; rm -rf "$SANDBOX"' EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM
start_polkit
polkit_stack
write_client

# --- helpers for the tests -----------------------------------------------------

fresh() {
    [ -z "$POLKIT_SKIP" ] || skip "$POLKIT_SKIP"
    [ -x "$HELPER" ] || skip "the release helper is not built ($RELEASE_BIN/pingate-verify)"
    need_cli
    store_reset
}

# pkexec_as USER PROGRAM STEPS...: USER runs `pkexec PROGRAM` through client.sh
# on a pseudo-terminal driven by pty_drive STEPS; sets $out (the transcript)
# and $rc (pty_drive's: the client's exit status, 99 if an expect timed out).
pkexec_as() {
    local user=$1 program=$2; shift 2
    out=$(timeout -s KILL 60 python3 "$here/pty_drive.py" "$@" -- \
        setpriv --reuid="$(id -u "$user")" --regid="$(id -u "$user")" --clear-groups --reset-env -- \
        "$CLIENT" "$program") && rc=0 || rc=$?
}

# --- the user authenticating as themself -------------------------------------

test_own_pin_authorizes_pkexec_for_auth_self() {
    fresh
    enroll pgalice "$TEST_PIN" --pin
    pkexec_as pgalice /bin/true expect:'Authenticating as: PinGate test user (pgalice)' \
        expect:'PIN: ' send:"$TEST_PIN"'\r' expect:'pkexec exit='
    assert_eq 0 "$rc" "client exit status (transcript: $out)"
    assert_contains "$out" "AUTHENTICATION COMPLETE" "transcript"
    assert_contains "$out" "pkexec exit=0" "transcript"
    assert_not_contains "$out" "Password:" "transcript"
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures"
}

test_wrong_pin_falls_through_to_the_password() {
    fresh
    enroll pgalice "$TEST_PIN" --pin
    pkexec_as pgalice /bin/true expect:'PIN: ' send:'1397\r' \
        expect:'Password: ' send:"$TEST_PASSWORD"'\r' expect:'pkexec exit='
    assert_eq 0 "$rc" "client exit status (transcript: $out)"
    assert_contains "$out" "pkexec exit=0" "transcript"
    assert_eq 1 "$(record_failures pgalice)" "pgalice's failures (the wrong PIN counts)"
}

test_admin_asked_for_an_admin_is_asked_for_her_own_pin() {
    fresh
    enroll pgalice "$TEST_PIN" --pin
    pkexec_as pgalice /bin/echo expect:'Authenticating as: PinGate test user (pgalice)' \
        expect:'PIN: ' send:"$TEST_PIN"'\r' expect:'pkexec exit='
    assert_eq 0 "$rc" "client exit status (transcript: $out)"
    assert_contains "$out" "pkexec exit=0" "transcript"
    assert_eq 0 "$(record_failures pgalice)" "pgalice's failures"
}

test_user_without_pin_sees_only_the_password_prompt() {
    fresh
    pkexec_as pgalice /bin/true expect:'Password: ' send:"$TEST_PASSWORD"'\r' expect:'pkexec exit='
    assert_eq 0 "$rc" "client exit status (transcript: $out)"
    assert_not_contains "$out" "PIN" "transcript"
}

# --- one user asked for another's (the admin's) password ---------------------

# pgbob types a guess at any PIN prompt, as someone spending the admin's
# attempts would, then the admin's password at the password prompt.
test_non_admin_asked_for_admin_password_gets_no_pin_prompt() {
    fresh
    enroll pgalice "$TEST_PIN" --pin
    enroll pgbob 5926 --pin
    pkexec_as pgbob /bin/true expect:'Authenticating as: PinGate test user (pgalice)' \
        'reply:PIN: =>1397\r' expect:'Password: ' send:"$TEST_PASSWORD"'\r' expect:'pkexec exit='
    local failures pin_prompt=no
    failures=$(record_failures pgalice)
    case "$out" in *"PIN: "*) pin_prompt=yes ;; esac
    if [ "$pin_prompt" = yes ] || [ "$failures" != 0 ]; then
        fail "pgbob was offered pgalice's PIN: PIN prompt shown: $pin_prompt; pgalice's failures 0 -> $failures (transcript: $out)"
    fi
    assert_eq 0 "$rc" "client exit status (transcript: $out)"
    assert_contains "$out" "pkexec exit=0" "transcript"
    assert_eq 0 "$(record_failures pgbob)" "pgbob's failures"
}

test_wrong_admin_password_is_refused() {
    fresh
    enroll pgalice "$TEST_PIN" --pin
    pkexec_as pgbob /bin/true 'reply:PIN: =>1397\r' expect:'Password: ' send:'not the password\r' \
        expect:'pkexec exit='
    [ "$rc" -ne 0 ] || fail "pkexec succeeded with a wrong password (transcript: $out)"
    assert_contains "$out" "AUTHENTICATION FAILED" "transcript"
}

run_tests
