#!/bin/bash
# The helper logs to syslog (authpriv, ident "pingate"): successes, failures,
# lockouts and refusals, with user, service and tty — never the secret.
# A small listener stands in for the system logger on /dev/log.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sandbox.sh"
sandbox_enter "$@"

LOG="$SANDBOX/syslog"

start_listener() {
    if [ -e /dev/log ]; then
        # A socket nobody listens on is left over from an interrupted run.
        python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect("/dev/log")' 2>/dev/null &&
            skip "a system logger owns /dev/log; not replacing it"
        rm -f /dev/log
    fi
    python3 - "$LOG" <<'PY' &
import os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind("/dev/log")
os.chmod("/dev/log", 0o666)
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        data = sock.recv(65536)
        if data == b"quit":
            break
        out.write(data + b"\n")
os.unlink("/dev/log")
PY
    LISTENER=$!
    trap stop_listener EXIT
    for _ in $(seq 50); do [ -S /dev/log ] && return; sleep 0.05; done
    fail "listener did not start"
}

stop_listener() {
    trap - EXIT
    python3 -c 'import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"quit", "/dev/log")'
    wait "$LISTENER" 2>/dev/null || true
    rm -f /dev/log
}

enroll_pin() { printf '%s\n%s\n' "$2" "$2" | "$PINGATE" enroll "$1" --stdin --allow-weak --force >/dev/null; }

test_verifications_are_logged_to_authpriv_without_the_secret() {
    enroll_pin pgalice 9586
    : > "$LOG"
    start_listener
    helper_request as pgalice op=verify user=pgalice service=i3lock tty=:0 secret=3817 >/dev/null
    helper_request as pgalice op=verify user=pgalice service=i3lock tty=:0 secret=9586 >/dev/null
    helper_request as pgalice op=status user=pgbob >/dev/null
    helper_request as pgalice op=verify user=pgalice secret=12 >/dev/null
    stop_listener
    local log; log="$(cat "$LOG")"
    # <PRI> of authpriv (10) * 8 + severity: warning 4 → 84, notice 5 → 85.
    assert_contains "$log" "<84>" "a warning at authpriv"
    assert_contains "$log" "<85>" "a notice at authpriv"
    assert_contains "$log" "pingate[" "ident"
    # A user's request names its service and tty itself: logged as claims.
    assert_contains "$log" "verify: wrong credential, failure 1 (user=pgalice uid=61001 claimed_service=i3lock claimed_tty=:0 caller_uid=61001)" "failure line"
    assert_contains "$log" "verify: success (user=pgalice" "success line"
    assert_contains "$log" "refused: a user may only ask about their own PIN (claimed_user=\"pgbob\" caller_uid=61001)" "refusal line"
    assert_contains "$log" "not a well-formed credential, not counted" "malformed line"
    # The secrets must not appear anywhere past the ident's [pid].
    local bodies; bodies="$(sed -E 's/^.*pingate\[[0-9]+\]: //' "$LOG")"
    assert_not_contains "$bodies" "3817" "log"
    assert_not_contains "$bodies" "9586" "log"
    assert_not_contains "$bodies" "secret=" "log"
}

# A refused user's name is whatever the request said: logged as a quoted
# claim, so that neither spaces and quotes (a forged field) nor a line
# separator or a bidi override (a forged or reordered line) get through.
test_a_refused_users_name_is_logged_as_a_quoted_claim() {
    : > "$LOG"
    start_listener
    helper_request as pgalice op=status 'user=pgbob" caller_uid=0 x\' >/dev/null
    local separator=$'\xe2\x80\xa8' override=$'\xe2\x80\xae'  # U+2028, U+202E
    helper_request as pgalice op=status "user=pg${separator}bob${override}x" >/dev/null
    stop_listener
    local log; log="$(cat "$LOG")"
    assert_contains "$log" 'own PIN (claimed_user="pgbob\" caller_uid=0 x\\" caller_uid=61001)' "quoted claim"
    assert_contains "$log" 'own PIN (claimed_user="pg?bob?x" caller_uid=61001)' "separator and override replaced"
    assert_not_contains "$log" "$separator" "log"
    assert_not_contains "$log" "$override" "log"
}

# service, tty and rhost are whatever the caller wrote, spaces included: a
# value that could read as further fields is quoted.
test_claimed_fields_with_spaces_are_quoted() {
    enroll_pin pgalice 9586
    : > "$LOG"
    start_listener
    # (A service name can hold no space: one outside the list is answered
    # not-offered before anything is logged.)
    helper_request as pgalice op=verify user=pgalice service=sudo 'tty=pts/1 uid=0' 'rhost=a"b' secret=1111 >/dev/null
    stop_listener
    assert_contains "$(cat "$LOG")" 'claimed_service=sudo claimed_tty="pts/1 uid=0" claimed_rhost="a\"b" caller_uid=61001' "quoted claims"
}

test_roots_request_fields_are_logged_as_facts() {
    enroll_pin pgalice 9586
    : > "$LOG"
    start_listener
    helper_request op=verify user=pgalice service=sudo tty=pts/3 secret=9586 >/dev/null
    stop_listener
    assert_contains "$(cat "$LOG")" "verify: success (user=pgalice uid=61001 service=sudo tty=pts/3 caller_uid=0)" "success line"
}

# The module's debug lines say what it decided, never what was typed: not
# the length of a malformed PIN, not whether a forwarded answer looked
# like a PIN.
test_module_debug_logs_nothing_derived_from_the_typed_text() {
    enroll_pin pgalice 9586
    local conf="$SANDBOX/debug-conf"
    mkdir -p "$conf"
    printf '%s\n' "auth [success=done default=ignore] $SANDBOX/pam_pingate.so debug forward_pass" \
        "auth required pam_deny.so" > "$conf/sudo"
    : > "$LOG"
    start_listener
    printf '12\n' | "$PAM_BUILD/pam_harness" --confdir "$conf" --service sudo --user pgalice >/dev/null || true
    printf 'hunter2 horse\n' | "$PAM_BUILD/pam_harness" --confdir "$conf" --service sudo --user pgalice >/dev/null || true
    stop_listener
    local log; log="$(cat "$LOG")"
    assert_contains "$log" "pam_pingate(sudo:auth): authenticate pgalice" "the module's debug lines are there"
    assert_not_contains "$log" "got 2" "log"
    assert_not_contains "$log" "2 digits" "log"
    assert_not_contains "$log" "not a PIN or pattern" "log"
    assert_not_contains "$log" "hunter2" "log"
}

# PAM_USER is typed by whoever sits at a login prompt, PAM_RUSER and the
# service are the application's: the module's own log lines show their
# control bytes as \xNN, so no name can forge a log line or send escapes.
# debug_conf: prints $SANDBOX/debug-conf, whose sudo runs the module with debug.
debug_conf() {
    mkdir -p "$SANDBOX/debug-conf"
    printf '%s\n' "auth [success=done default=ignore] $SANDBOX/pam_pingate.so debug" \
        "auth required pam_deny.so" > "$SANDBOX/debug-conf/sudo"
    echo "$SANDBOX/debug-conf"
}

# module_log_for_user NAME: what the module logs for one sudo sign-in of NAME.
module_log_for_user() {
    local conf; conf="$(debug_conf)"
    : > "$LOG"
    start_listener
    "$PAM_BUILD/pam_harness" --confdir "$conf" --service sudo --user "$1" < /dev/null >/dev/null 2>&1 || true
    stop_listener
    cat "$LOG"
}

test_module_log_lines_escape_control_characters_in_names() {
    local conf; conf="$(debug_conf)"
    cp "$conf/sudo" "$conf/$(printf 'svc\033x')"
    : > "$LOG"
    start_listener
    "$PAM_BUILD/pam_harness" --confdir "$conf" --service sudo --user "$(printf 'pg\033[2Jbob\rroot')" \
        --ruser "$(printf 'evil\033]0;x\a')" < /dev/null >/dev/null 2>&1 || true
    "$PAM_BUILD/pam_harness" --confdir "$conf" --service "$(printf 'svc\033x')" --user pgalice \
        < /dev/null >/dev/null 2>&1 || true
    stop_listener
    local log; log="$(cat "$LOG")"
    assert_contains "$log" 'PAM_RUSER evil\x1b]0;x\x07 is not pg\x1b[2Jbob\x0droot: not offered' "the ruser line"
    assert_contains "$log" 'authenticate pg\x1b[2Jbob\x0droot:' "the result line"
    # The service goes to the helper as a placeholder, which does not offer a PIN there.
    assert_contains "$log" 'not-offered (unprintable)' "the service's status line"
    # libpam's own prefix, pam_pingate(SERVICE:auth), shows the service as the
    # application set it; every other byte of every line is the module's.
    if grep -av "pam_pingate(svc" "$LOG" | grep -q "$(printf '\033')"; then
        fail "an escape byte reached the log: $(grep -a "$(printf '\033')" "$LOG" | od -c | head -3)"
    fi
}

# The same for the characters that forge or reorder a line without a
# control byte: C1 controls, U+2028 and the bidi controls (the contract's
# pingate_is_untrusted_control, which the helper's lines use too), and a
# byte that is no UTF-8, each byte of them as \xNN.
test_module_log_lines_escape_separators_bidi_controls_and_stray_bytes() {
    local log; log="$(module_log_for_user "$(printf 'ali\u202ece\u2028x\u0085y\xe9z')")"
    assert_contains "$log" 'authenticate ali\xe2\x80\xaece\xe2\x80\xa8x\xc2\x85y\xe9z:' "the result line"
    assert_not_contains "$log" "$(printf '\u202e')" "log"
    assert_not_contains "$log" "$(printf '\u2028')" "log"
}

# Letters of any script are no controls: a name in Chinese is logged as it is.
test_module_log_lines_keep_names_in_other_scripts() {
    assert_contains "$(module_log_for_user "張三")" "authenticate 張三:" "the result line"
}

test_a_lockout_is_logged() {
    enroll_pin pgalice 9586
    : > "$LOG"
    start_listener
    local i
    for i in 1 2 3 4 5 6; do helper_request as pgalice op=verify user=pgalice secret="381$i" >/dev/null; done
    stop_listener
    local log; log="$(cat "$LOG")"
    assert_contains "$log" "failure 5, locked for 60 s" "lockout line"
    assert_contains "$log" "refused, locked for" "refusal during timeout"
}

run_tests
