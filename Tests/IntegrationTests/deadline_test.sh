#!/bin/bash
# Nothing waits forever: a helper stopped (SIGSTOP) while it holds a record's
# writer lock, or with its verification in flight, costs later requests for
# that user at most the lock wait (LockWait, 2 s), never a hang; and a
# terminal's Ctrl-Z cannot stop a helper at all.
#
# The stopped helper is the debug build with PINGATE_TEST_FAULT=STEP:stop
# (root only); later requests go through the installed setgid helper as the
# user, and root's pingate CLI. Every waiting command runs under `timeout`,
# so a regression fails here instead of hanging the suite.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sandbox.sh"
source "$(dirname "$0")/stack_lib.sh"
sandbox_enter "$@"

private_sudo_rundir
sudo_stack
write_service "$SANDBOX/locker-conf" i3lock "$(module_line)" "$(next_line)"

DEBUG_HELPER="$DEBUG_BIN/pingate-verify"
LOCK_WAIT_MS=2000
# An answer must come within the lock wait plus this (process start, KDF).
SLACK_MS=1500

enroll_pin() { printf '%s\n%s\n' "$2" "$2" | timeout 10 "$PINGATE" enroll "$1" --stdin --allow-weak --force >/dev/null; }
failures() { timeout 5 "$PINGATE" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["failures"])'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# stop_helper_at STEP SECRET: a debug helper verifying SECRET for pgalice,
# stopped by its fault point at STEP; prints its pid once it is stopped. Its
# answer, if it ever gives one, goes to $SANDBOX/stopped-answer.
stop_helper_at() {
    local step="$1" secret="$2" pid
    printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=%s\n' "$secret" > "$SANDBOX/stopped-request"
    ( PINGATE_TEST_FAULT="$step:stop" exec "$DEBUG_HELPER" < "$SANDBOX/stopped-request" > "$SANDBOX/stopped-answer" 2>&1 ) &
    pid=$!
    echo "$pid" >> "$STOPPED_PIDS"
    wait_until_stopped "$pid" && { echo "$pid"; return 0; }
    kill -KILL "$pid" 2>/dev/null
    fail "the helper did not stop at $step"
}

# Every helper stop_helper_at started is killed when the test ends, pass or
# fail (each test sets this trap: its subshell does not inherit the file's),
# since a stopped one left behind would hold the next test's record.
STOPPED_PIDS="$SANDBOX/stopped-pids"
kill_stopped_helpers() {
    local pid
    for pid in $(cat "$STOPPED_PIDS" 2>/dev/null); do end_helper "$pid"; done
    rm -f "$STOPPED_PIDS"
}
trap 'kill_stopped_helpers; rm -rf "$SANDBOX"' EXIT

# end_helper PID: kills a stopped helper (not a child of this shell: it was
# started in a command substitution) and waits until it is gone.
end_helper() { kill -KILL "$1" 2>/dev/null || true; timeout 5 tail --pid="$1" -f /dev/null || true; }

# timed_verify SECRET: a verification as pgalice through the setgid helper,
# under a timeout; sets ANSWER (first line), RC and MS (how long it took).
timed_verify() {
    local start; start="$(now_ms)"
    RC=0
    ANSWER="$(printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=%s\n' "$1" |
        timeout 10 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$HELPER")" || RC=$?
    MS=$(( $(now_ms) - start ))
}

assert_within_deadline() {
    [ "$MS" -lt $((LOCK_WAIT_MS + SLACK_MS)) ] || fail "$1 took $MS ms (lock wait $LOCK_WAIT_MS ms; exit $RC)"
}

test_a_helper_stopped_holding_the_lock_costs_a_later_verify_the_deadline_and_counts_nothing() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper at $DEBUG_HELPER (swift build)"
    trap kill_stopped_helpers EXIT
    local step secret pid before
    # The steps at which a helper holds the record's writer lock (flock).
    for step in lock-held counted cleared; do
        secret=1111; [ "$step" = cleared ] && secret=0427   # only a success reaches "cleared"
        enroll_pin pgalice 0427
        pid="$(stop_helper_at "$step" "$secret")"
        before="$(failures pgalice)"
        timed_verify 0427
        assert_eq 6 "$RC" "exit status of a verify behind a helper stopped at $step"
        assert_eq "error record /var/lib/pingate/61001.record is busy: held by process $pid (pingate-verify), stopped; kill it or try again" \
            "$ANSWER" "answer behind a helper stopped at $step"
        assert_within_deadline "a verify behind a helper stopped at $step"
        [ "$MS" -ge "$LOCK_WAIT_MS" ] || fail "answered busy after only $MS ms: it did not wait for the lock"
        assert_eq "$before" "$(failures pgalice)" "failures after the busy answer (stopped at $step)"
        echo "    stopped at $step: busy answer after $MS ms"
        end_helper "$pid"
        timed_verify 0427
        assert_eq ok "$ANSWER" "a verify once the stopped helper is gone (stopped at $step)"
    done
}

# The callers people use: sudo (the module as root) and a user-run locker
# (the module as the user). Behind a helper stopped holding the lock, the PIN
# path answers within the lock wait and the password still works.
test_sudo_behind_a_stopped_helper_goes_on_to_the_password_within_the_deadline() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    command -v sudo >/dev/null || fail "sudo is not installed"
    trap kill_stopped_helpers EXIT
    enroll_pin pgalice 0427
    local pid start err rc=0
    pid="$(stop_helper_at lock-held 1111)"
    start="$(now_ms)"
    err=$(printf '0427\n%s\n' "$TEST_PASSWORD" | timeout 20 setpriv --reuid=61001 --regid=61001 --clear-groups \
        --reset-env -- sudo -S -k true 2>&1 >/dev/null) || rc=$?
    MS=$(( $(now_ms) - start ))
    end_helper "$pid"
    assert_eq 0 "$rc" "sudo exit status (stderr: $err)"
    assert_contains "$err" "PIN: " "sudo's prompts"
    assert_contains "$err" "password for pgalice" "sudo's prompts"
    assert_within_deadline "sudo behind a helper stopped holding the lock"
    assert_eq 0 "$(failures pgalice)" "failures"
}

test_a_user_run_locker_behind_a_stopped_helper_answers_within_the_deadline() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    trap kill_stopped_helpers EXIT
    enroll_pin pgalice 0427
    local pid start
    pid="$(stop_helper_at counted 1111)"
    start="$(now_ms)"
    out=$(printf '0427\n' | timeout 20 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        "$HARNESS" --confdir "$SANDBOX/locker-conf" --service i3lock --user pgalice) || true
    MS=$(( $(now_ms) - start ))
    end_helper "$pid"
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "the locker's result (transcript: $out)"
    assert_within_deadline "a locker behind a helper stopped holding the lock"
    assert_eq 1 "$(failures pgalice)" "failures (the stopped helper's own attempt, counted before it stopped)"
}

test_status_never_waits_for_a_stopped_helper() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    trap kill_stopped_helpers EXIT
    enroll_pin pgalice 0427
    local pid start answer
    pid="$(stop_helper_at lock-held 1111)"
    start="$(now_ms)"
    answer="$(timeout 5 bash -c 'printf "pingate-verify/1\nop=status\nuser=pgalice\n" |
        setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$0"' "$HELPER")" || true
    local ms=$(( $(now_ms) - start ))
    end_helper "$pid"
    assert_eq "enrolled kind=pin length=4 failures=0" "$answer" "status while a helper holds the lock"
    [ "$ms" -lt 1000 ] || fail "status took $ms ms"
}

test_a_helper_stopped_in_flight_during_a_lockout_leaves_the_lockout_to_answer_locked() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    trap kill_stopped_helpers EXIT
    local step pid i
    # The steps at which a counted verification is in flight (its OFD mark held).
    for step in released verified; do
        enroll_pin pgalice 0427
        for i in 1 2 3 4; do timed_verify 111$i; done
        assert_eq 4 "$(failures pgalice)" "four free failures"
        # The fifth failure starts a lockout and stays in flight, stopped.
        pid="$(stop_helper_at "$step" 1111)"
        assert_eq 5 "$(failures pgalice)" "the stopped attempt is counted"
        timed_verify 0427
        assert_eq 2 "$RC" "exit status behind a verification stopped at $step during a lockout"
        assert_contains "$ANSWER" "locked seconds=" "answer"
        assert_contains "$ANSWER" "failures=5" "answer"
        assert_within_deadline "a verify behind a verification stopped at $step"
        assert_eq 5 "$(failures pgalice)" "nothing counted behind the stopped verification ($step)"
        echo "    stopped at $step during a lockout: locked after $MS ms"
        end_helper "$pid"
        assert_eq 5 "$(failures pgalice)" "killing the stopped helper changes no count"
    done
}

test_unlock_fails_within_the_deadline_naming_the_stopped_helper_then_succeeds_once_it_is_killed() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    trap kill_stopped_helpers EXIT
    enroll_pin pgalice 0427
    timed_verify 1111
    local pid start ms rc=0 err
    pid="$(stop_helper_at lock-held 1111)"
    start="$(now_ms)"
    err="$(timeout 10 "$PINGATE" unlock pgalice 2>&1 >/dev/null)" || rc=$?
    ms=$(( $(now_ms) - start ))
    assert_eq 5 "$rc" "exit status of unlock on a busy record"
    assert_eq "pingate: record /var/lib/pingate/61001.record is busy: held by process $pid (pingate-verify), stopped; kill it or try again" \
        "$err" "unlock's error (one line)"
    [ "$ms" -lt $((LOCK_WAIT_MS + SLACK_MS)) ] || fail "unlock took $ms ms"
    echo "    unlock on a busy record: exit 5 after $ms ms"
    assert_eq 1 "$(failures pgalice)" "the failed unlock changed nothing"
    end_helper "$pid"
    rc=0; timeout 10 "$PINGATE" unlock pgalice >/dev/null || rc=$?
    assert_eq 0 "$rc" "unlock once the stopped helper is killed"
    assert_eq 0 "$(failures pgalice)" "failures after the unlock"
}

test_remove_does_not_wait_for_a_stopped_helper_and_its_resumed_attempt_cannot_succeed() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    trap kill_stopped_helpers EXIT
    enroll_pin pgalice 0427
    local pid start ms rc=0
    # Stopped after the count with the right PIN: resumed, it would succeed.
    pid="$(stop_helper_at counted 0427)"
    start="$(now_ms)"
    timeout 10 "$PINGATE" remove pgalice >/dev/null || rc=$?
    ms=$(( $(now_ms) - start ))
    assert_eq 0 "$rc" "exit status of remove while a helper holds the lock"
    [ "$ms" -lt 1000 ] || fail "remove took $ms ms"
    kill -CONT "$pid"
    local waited=0; timeout 10 tail --pid="$pid" -f /dev/null || waited=$?
    assert_eq 0 "$waited" "the resumed helper finishes"
    assert_contains "$(cat "$SANDBOX/stopped-answer")" "error record /var/lib/pingate/61001.record was replaced" \
        "answer of a verification resumed after its record was removed"
}

# run_in_terminal COMMAND KEYS...: an interactive bash as pgalice on a
# pseudo-terminal runs COMMAND as a foreground job, then prints its exit
# status + 100, while root holds pgalice's record lock for 1.5 s (so the
# helper is mid-request); 0.5 s in, KEYS are typed (\x1a Ctrl-Z, \x03 Ctrl-C,
# \x1c Ctrl-\): the terminal signals its foreground process group.
# Prints the transcript.
run_in_terminal() {
    local command="$1" key keys=(); shift
    for key in "$@"; do keys+=("send:$key" sleep:0.1); done
    printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=0427\n' > "$SANDBOX/tty-request"
    chmod 644 "$SANDBOX/tty-request"
    ( timeout 5 flock /var/lib/pingate/61001.record sleep 1.5 ) &
    local holder=$!
    sleep 0.2
    timeout 30 python3 "$(dirname "$0")/pty_drive.py" \
        'expect:READY$ ' "send:$command; echo ANSWER=\$((\$? + 100))\\r" sleep:0.5 "${keys[@]}" \
        expect:ANSWER=1 sleep:0.2 'send:exit\r' -- \
        setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        env PS1='READY$ ' HOME=/ bash --norc --noprofile -i 2>&1 || true
    wait "$holder" 2>/dev/null || true
}

test_ctrl_z_ctrl_c_ctrl_backslash_in_a_terminal_cannot_stop_or_kill_a_helper_in_a_pipeline() {
    # The helper is not its group's leader here, so it leaves for a session
    # of its own, out of the terminal's reach.
    enroll_pin pgalice 0427
    local transcript
    transcript="$(run_in_terminal "cat $SANDBOX/tty-request | $HELPER" '\x1a' '\x03' '\x1c')"
    assert_not_contains "$transcript" "Stopped" "terminal transcript"
    assert_contains "$transcript" $'ok\r\nANSWER=100' "terminal transcript"
}

test_ctrl_z_in_a_terminal_cannot_stop_a_helper_run_as_a_job_by_itself() {
    # Here the helper leads its process group, so setsid fails: it ignores
    # the terminal's stop signals instead (Ctrl-C may kill it: harmless, as
    # killing at any moment never loses a count).
    enroll_pin pgalice 0427
    local transcript
    transcript="$(run_in_terminal "$HELPER < $SANDBOX/tty-request" '\x1a')"
    assert_not_contains "$transcript" "Stopped" "terminal transcript"
    assert_contains "$transcript" $'ok\r\nANSWER=100' "terminal transcript"
}

test_a_stalled_system_logger_delays_each_answer_briefly_never_forever() {
    # A logger that stops reading /dev/log: its queue (10 lines) fills, and
    # glibc's syslog(3) would then block the helper for good. In a nested
    # mount namespace, so the real /dev/log (if any) is untouched.
    local out rc=0
    out="$(timeout 60 unshare --mount --propagation private bash -c '
        dev="$(mktemp -d "$1/dev.XXXXXX")"; chmod 755 "$dev"
        for node in null zero urandom random tty; do touch "$dev/$node"; mount --bind "/dev/$node" "$dev/$node"; done
        mount --bind "$dev" /dev
        python3 -c "import socket, os, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(\"/dev/log\"); os.chmod(\"/dev/log\", 0o666)
time.sleep(60)" &
        listener=$!
        for _ in $(seq 50); do [ -S /dev/log ] && break; sleep 0.05; done
        for i in $(seq 14); do
            start=$(date +%s%N)
            answer="$(printf "pingate-verify/1\nop=status\nuser=pgbob\n" |
                timeout 5 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$2" | cut -d" " -f1)"
            echo "$(( ($(date +%s%N) - start) / 1000000 )) ${answer:-none}"
        done
        kill "$listener"' _ "$SANDBOX" "$HELPER")" || rc=$?
    assert_eq 0 "$rc" "the nested namespace ran"
    local ms answer slowest=0 count=0
    while read -r ms answer; do
        count=$((count + 1))
        assert_eq refused "$answer" "answer $count with the logger stalled"
        [ "$ms" -lt 1000 ] || fail "answer $count took $ms ms with the logger stalled"
        [ "$ms" -gt "$slowest" ] && slowest="$ms"
    done <<<"$out"
    assert_eq 14 "$count" "answers"
    echo "    14 refusals with a stalled logger: slowest $slowest ms"
}

run_tests
