# shellcheck shell=bash
# screensaver_lib.sh — a desktop's own screensaver, locked and unlocked as a
# person does, for mate_test.sh and cinnamon_test.sh. Both lockers are run
# the same way: as pgalice inside her simulated local seat session 40
# (session_lib.sh, so the helper's "only at the machine" rule lets the PIN
# through), on a session bus of her own, on Xvfb; both have a command with
# --lock and --query ("The screensaver is active" or "inactive"), and a
# --debug trace of the PAM conversation, which tells the test what the
# dialog shows.
#
# Set before screensaver_setup: SAVER (the PAM service and program name),
# SAVER_ARGS (its options), SAVER_ENV (extra VAR=VALUE for it),
# SAVER_COMMAND (its --lock/--query command) and
# PROMPT_TRACE (the trace's text just before a question is shown; PROMPT_END,
# if set, what follows it; READY_TRACE, if set, the trace's text once the
# entry takes keys again).
# Source after sandbox.sh, stack_lib.sh, session_lib.sh, x_lib.sh and
# desktop_lib.sh; call screensaver_setup inside the sandbox.

# screensaver_setup: pgalice signed in at seat0, the locker's PAM service
# enabled by install.sh, the X server, and the locker running.
screensaver_setup() {
    private_run_with_sessions
    find_cgroup_root || { echo "no writable cgroup hierarchy for a logind session" >&2; return 1; }
    session 40 0 61001
    user_sessions 61001 40
    enable_like_install_sh locker "$SAVER" || return 1
    log_what_follows_pingate "$SAVER" || return 1
    start_xvfb 1024x768 || return 1
    LOG="$SANDBOX/$SAVER.log"
    SHOTS="$SANDBOX/shots"
    mkdir -p "$SHOTS"
    trap screensaver_teardown EXIT
    start_screensaver
}

screensaver_teardown() {
    stop_screensaver
    kill "$XVFB_PID" 2>/dev/null; wait 2>/dev/null
    cleanup_cgroups
    rm -rf "$SANDBOX"
}

# as_pgalice COMMAND...: in her session, on her desktop.
as_pgalice() {
    in_session 40 setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        env DISPLAY="$DISPLAY" HOME="$SANDBOX/home/pgalice" PATH=/usr/bin:/bin LANG=C.UTF-8 ${SAVER_ENV:-} "$@"
}

# start_screensaver: hers, on a session bus of her own, as her desktop session starts it.
start_screensaver() {
    BUS=$(as_pgalice dbus-daemon --session --fork --print-address=1) || { echo "no session bus" >&2; return 1; }
    as_pgalice env DBUS_SESSION_BUS_ADDRESS="$BUS" "$SAVER" $SAVER_ARGS >> "$LOG" 2>&1 &
    SCREENSAVER_PID=$!
    local _
    for _ in $(seq 150); do saver_command --query | grep -q "is inactive" && return 0; sleep 0.1; done
    echo "$SAVER did not start: $(tail -5 "$LOG")" >&2
    return 1
}

# stop_screensaver: ends everything in her session (the bus, the locker, its dialog).
stop_screensaver() {
    local pid
    for pid in $(cat "$CGROUP_ROOT/user.slice/user-61001.slice/session-40.scope/cgroup.procs" 2>/dev/null); do
        kill -KILL "$pid" 2>/dev/null
    done
    wait "${SCREENSAVER_PID:-}" 2>/dev/null || true
    return 0
}

saver_command() { as_pgalice env DBUS_SESSION_BUS_ADDRESS="$BUS" "$SAVER_COMMAND" "$@" 2>/dev/null; }
locked() { saver_command --query | grep -q "is active"; }

# fresh_screensaver: pgalice's PIN enrolled anew, nothing logged, unlocked
# (a locker an earlier failed test left locked is started again).
fresh_screensaver() {
    store_reset
    enroll pgalice "$TEST_PIN" --pin
    forget_what_followed
    if locked; then
        stop_screensaver; start_screensaver || fail "cannot start $SAVER again"
    fi
    return 0
}

# --- what the person does and sees ---------------------------------------------------

# The trace since this test locked the screen (MARK: the lines before).
MARK=0
trace() { tail -n +$((MARK + 1)) "$LOG"; }
seen() { trace | grep -cF -- "$1" || true; }

# wait_for TEXT [COUNT]: until the trace says TEXT COUNT times in this test (10 s).
wait_for() {
    local _
    for _ in $(seq 200); do
        [ "$(seen "$1")" -ge "${2:-1}" ] && return 0
        sleep 0.05
    done
    return 1
}

# wait_question TEXT [COUNT]: until the dialog asked TEXT (a question's
# beginning) COUNT times in this test, and its entry takes keys again
# (READY_TRACE, if set, follows every question once the entry does).
wait_question() {
    wait_for "$PROMPT_TRACE$1" "${2:-1}" || return 1
    [ -z "${READY_TRACE:-}" ] || wait_for "$READY_TRACE" "$(seen "$PROMPT_TRACE")" || return 1
    sleep 0.3   # the toolkit draws the entry and gives it the focus
}

# lock_and_wake: lock, then click as someone coming back does: the dialog
# appears and asks its first question.
lock_and_wake() {
    MARK=$(wc -l < "$LOG")
    saver_command --lock || fail "$SAVER-command --lock failed: $(tail -5 "$LOG")"
    local _
    for _ in $(seq 100); do locked && break; sleep 0.1; done
    locked || fail "the screen did not lock"
    xdotool mousemove 100 100 click 1
    wait_question "" || fail "no question after a click: $(tail -5 "$LOG")"
}

# type_and_enter TEXT: typed into the dialog, then Return.
type_and_enter() { xdotool type --delay 40 -- "$1"; xdotool key Return; }

# questions: the questions PAM asked in this test, one a line, as the trace has them.
questions() { trace | grep -F "$PROMPT_TRACE" | sed "s/.*$PROMPT_TRACE//; s/${PROMPT_END:-}\$//"; }

# wait_unlocked START: until the locker says inactive; prints the milliseconds since START.
wait_unlocked() {
    local start=$1 _
    for _ in $(seq 200); do locked || { ms_since "$start"; return 0; }; sleep 0.05; done
    fail "still locked 10 s later; questions: $(questions | tr '\n' '|')"
}

# unlock_with ANSWER [WHAT]: typed and entered; once the screen is unlocked,
# prints how long that took after Return ("(WHAT)" after it).
unlock_with() {
    local start ms
    start=$(date +%s%N)
    type_and_enter "$1"
    ms=$(wait_unlocked "$start")
    echo "    unlocked ${ms} ms after Return${2:+ ($2)}"
}

# lock_with_wrong_pins: five different wrong PINs (WRONG_PINS), each at the
# question that follows the last, as someone who keeps guessing: the fifth
# locks the PIN.
WRONG_PINS=(1397 2468 3579 1470 2581)
lock_with_wrong_pins() {
    local pin n=1
    for pin in "${WRONG_PINS[@]}"; do
        type_and_enter "$pin"
        n=$((n + 1))
        [ "$n" -le 5 ] && { wait_question "" "$n" || fail "no question $n: $(questions | tr '\n' '|')"; }
    done
    return 0
}

# check_the_password_unlocks_uncounted: a password typed at the first
# question goes on to pam_unix without a second one, and is no PIN attempt.
# The logger saw it, so the checks that a PIN never goes on can fail.
check_the_password_unlocks_uncounted() {
    need_cli; fresh_screensaver
    lock_and_wake
    unlock_with "$TEST_PASSWORD" password
    assert_eq 0 "$(record_failures pgalice)" "failures"
    grep -qxF "$TEST_PASSWORD" "$AUTHTOK_LOG" || fail "the password did not reach pam_unix: [$(cat "$AUTHTOK_LOG")]"
}

# shot NAME: the middle of the screen, where the dialog is (into
# $PINGATE_SCREENSHOTS too when set, with fewer colours: docs/screenshots).
shot() {
    import -window root -crop 560x380+232+194 +repage "$SHOTS/$1.png" 2>/dev/null
    if [ -n "${PINGATE_SCREENSHOTS:-}" ]; then
        mkdir -p "$PINGATE_SCREENSHOTS"
        convert "$SHOTS/$1.png" -strip -colors 128 "$PINGATE_SCREENSHOTS/$1.png"
    fi
}
