#!/bin/bash
# kde_test.sh — KDE Plasma 5.27's own lock screen with a PIN, driven as a
# person would: the real kscreenlocker_greet (--testing: the same greeter,
# PAM conversation and Breeze lock screen, without the screen grabs) under
# Xvfb, run as pgalice (setpriv, no supplementary groups) in her systemd
# user manager with a local display session, as Plasma's systemd startup
# runs it; xdotool moves the mouse and types; the service `kde` is what the
# real `install.sh --enable locker kde` writes, with the real module, the
# setgid helper and pam_unix checking "correct horse".
#
# What the greeter does with PAM (kscreenlocker 5.27, greeter/pamauthenticator.cpp
# and Breeze's LockScreenUi.qml): the first key or mouse event starts
# pam_authenticate; a secret prompt's text is ignored (the field says
# "Password"); info and error lines are shown above the field; the field is
# not cleared between questions of one conversation, only when it fails
# ("Unlocking failed", the field disabled for 3 s, then a new conversation);
# success makes the greeter quit with status 0 (--testing: nothing else
# happens). Its debug log (QT_LOGGING_RULES) prints each info line and
# "Auth done RC N", which tells the test what the person is shown and when.
#
# PINGATE_SCREENSHOTS=DIR saves the lock screen before and after a wrong PIN
# there; docs/screenshots/kde-*.png are those, cut to the greeter's block:
# convert DIR/NAME.png -crop 600x330+340+225 +repage -strip +dither -colors 256
#
# usage: bash Tests/IntegrationTests/kde_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
. "$here/session_lib.sh"
. "$here/x_lib.sh"
. "$here/desktop_lib.sh"

GREETER=$(ls /usr/lib/*/libexec/kscreenlocker_greet 2>/dev/null | head -n 1)
if [ "${PINGATE_IN_SANDBOX:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
    missing=""
    for tool in Xvfb xdotool xdpyinfo import; do command -v "$tool" >/dev/null || missing+=" $tool"; done
    [ -n "$GREETER" ] || missing+=" kscreenlocker_greet"
    if [ -n "$missing" ]; then
        echo "skip: missing$missing (apt: xvfb xdotool x11-utils imagemagick libkscreenlocker5 plasma-workspace; Tests/run-all.sh installs them)"
        echo "0 passed, 0 failed, 1 skipped"; exit 0
    fi
fi
sandbox_enter "$@"
[ -n "${KDE_TEST_TRACE:-}" ] && set -x

# --- the machine: a local display session, the kde service ---------------------------

private_run_with_sessions
find_cgroup_root || { echo "no writable cgroup hierarchy"; echo "0 passed, 1 failed"; exit 1; }
session 60 0                 # her Plasma session at seat0
user_sessions 61001 60       # ... which logind names her display session
# Plasma's systemd startup runs ksmserver, which starts the greeter, here.
GREETER_CGROUP="user.slice/user-61001.slice/user@61001.service/session.slice/plasma-ksmserver.service"

# The service exactly as `install.sh --enable locker kde` creates it from
# `other`; tests start from this copy.
enable_like_install_sh locker kde || { echo "0 passed, 1 failed"; exit 1; }
cp /etc/pam.d/kde "$SANDBOX/kde.installed"

start_xvfb 1280x800 +extension RANDR || { echo "0 passed, 1 failed"; exit 1; }
trap 'kill "$XVFB_PID" 2>/dev/null; wait "$XVFB_PID" 2>/dev/null; cleanup_cgroups; rm -rf "$SANDBOX"' EXIT
RUNTIME="$SANDBOX/home/pgalice/runtime"
install -d -o 61001 -g 61001 -m 700 "$RUNTIME"
OUT="$SANDBOX/greeter.out"      # "Locked at T" once the lock screen is up
LOG="$SANDBOX/greeter.log"      # its debug log: info lines, "Auth done RC N"
SHOTS="${PINGATE_SCREENSHOTS:-}"

# --- the greeter ---------------------------------------------------------------------

# start_greeter: kscreenlocker_greet --testing as pgalice in her user manager,
# with a session bus as Plasma has (without one it takes seconds to quit);
# returns when the lock screen is up (the greeter prints "Locked at").
start_greeter() {
    : > "$OUT"; : > "$LOG"
    in_cgroup "$GREETER_CGROUP" setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        env DISPLAY="$DISPLAY" HOME="$SANDBOX/home/pgalice" XDG_RUNTIME_DIR="$RUNTIME" LANG=C.UTF-8 \
        PATH=/usr/bin:/bin QT_LOGGING_RULES="kscreenlocker_greet.debug=true" \
        dbus-run-session -- "$GREETER" --testing > "$OUT" 2> "$LOG" &
    GREETER_PID=$!
    trap 'rc=$?; stop_greeter; exit $rc' EXIT
    wait_for "$OUT" "Locked at" 1 20 || fail "the lock screen did not come up: $(tail -5 "$LOG")"
}

stop_greeter() {
    kill -KILL "$GREETER_PID" 2>/dev/null || true
    wait "$GREETER_PID" 2>/dev/null || true
}

# wait_for FILE TEXT [COUNT] [SECONDS]: until TEXT is in FILE COUNT times.
wait_for() {
    local file=$1 text=$2 count=${3:-1} seconds=${4:-10} i
    for i in $(seq "$(awk -v s="$seconds" 'BEGIN { print int(s * 20) }')"); do
        [ "$(grep -cF -- "$text" "$file")" -ge "$count" ] && return 0
        sleep 0.05
    done
    return 1
}

# wake [COUNT] [TEXT]: the person moves the mouse, again while nothing shows
# (the greeter may still be loading its scene); the greeter shows its field
# and starts PAM, whose COUNTth question is announced (TEXT, default the
# PIN's). After a failure the greeter asks again by itself 3 s later.
wake() {
    local count=${1:-1} text=${2:-$ANNOUNCE_PIN} i
    for i in $(seq 40); do
        xdotool mousemove $((600 + i % 2 * 40)) 420
        wait_for "$LOG" "$text" "$count" 0.5 && return 0
    done
    fail "no announcement: $(greeter_log | tail -5)"
}

# answer TEXT: typed into the field, then Enter.
answer() { xdotool type --delay 40 "$1"; xdotool key Return; }

# answer_password [COUNT TEXT]: the password typed as `answer` types it, for a
# conversation announced by TEXT (COUNT times so far). Once, on a cold greeter
# (the first of the run, on a loaded host), pam_unix failed it: the field had
# not yet taken its first keys. pam_unix's own reading is logged
# (log_what_follows_pingate), so only that case, pam_unix given other text
# than was typed, is typed again, once, and said; pam_unix failing what was
# typed stays a failure.
answer_password() {
    local count=${1:-1} text=${2:-$ANNOUNCE_PIN} done_before got
    done_before=$(grep -c "Auth done RC" "$LOG" || true)
    forget_what_followed
    answer "$TEST_PASSWORD"
    wait_for "$LOG" "Auth done RC" $((done_before + 1)) || return 0   # wait_unlocked says why
    got=$(tail -n 1 "$UNIX_AUTHTOK_LOG")
    if grep "Auth done RC" "$LOG" | tail -n 1 | grep -q "RC 7" && [ -n "$got" ] && [ "$got" != "$TEST_PASSWORD" ]; then
        echo "    keys lost: pam_unix read ${#got} of the ${#TEST_PASSWORD} characters typed; typed again"
        wake $((count + 1)) "$text"
        answer "$TEST_PASSWORD"
    fi
}

# wait_unlocked [SECONDS]: the greeter exits; sets $greeter_rc.
wait_unlocked() {
    local i
    for i in $(seq $((${1:-10} * 20))); do kill -0 "$GREETER_PID" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$GREETER_PID" 2>/dev/null && fail "still locked: $(greeter_log | tail -5)"
    wait "$GREETER_PID" && greeter_rc=0 || greeter_rc=$?
}

# greeter_log: the greeter's log without Qt's complaints about what the sandbox lacks.
greeter_log() { grep -F "kscreenlocker_greet:" "$LOG"; }

assert_locked() { kill -0 "$GREETER_PID" 2>/dev/null || fail "the greeter exited: $(greeter_log | tail -5)"; }

# a_failure_shown COUNT: the COUNTth conversation failed ("Unlocking failed"
# on the screen); the greeter starts the next one 3 s later, announced again.
a_failure_shown() {
    wait_for "$LOG" "Auth done RC" "$1" || fail "no result: $(greeter_log | tail -5)"
    assert_locked
}

# screenshot NAME [SECONDS]: with PINGATE_SCREENSHOTS, the screen after
# SECONDS (the greeter fades in, and shakes its field after a failure).
screenshot() {
    [ -n "$SHOTS" ] || return 0
    sleep "${2:-0}"
    mkdir -p "$SHOTS"
    import -window root "$SHOTS/$1.png"
}

fresh() { store_reset; install -m 644 "$SANDBOX/kde.installed" /etc/pam.d/kde; }

ANNOUNCE_PIN="Type your PIN, or your password"
ANNOUNCE_PATTERN="Type your pattern, or your password"

# --- tests -----------------------------------------------------------------------------

test_the_right_pin_unlocks_and_the_lock_screen_says_a_pin_is_accepted() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    start_greeter
    wake
    xdotool type --delay 40 "$TEST_PIN"
    local start verified; start=$(date +%s%N)
    xdotool key Return
    wait_for "$LOG" "Auth done RC 0" 1 && verified=$(date +%s%N)
    wait_unlocked
    echo "    right PIN: Enter to PAM's success $(( (verified - start) / 1000000 )) ms, to the greeter's exit $(( ($(date +%s%N) - start) / 1000000 )) ms"
    assert_eq 0 "$greeter_rc" "the greeter's exit status (log: $(greeter_log))"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# KDE keeps the field's text between the questions of one conversation, so
# a second question would find the wrong PIN's dots still there (seen with
# `retries=2`: "1397" then "4821" arrived as "13974821"). The kde line ends
# the conversation on a wrong PIN instead: KDE shows the module's line and
# its own "Unlocking failed", clears the field and asks afresh.
test_after_a_wrong_pin_the_field_is_cleared_and_the_right_pin_unlocks() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    start_greeter
    wake
    screenshot kde-before 2
    answer 1397
    a_failure_shown 1
    screenshot kde-wrong-pin 1.5
    assert_contains "$(greeter_log)" "Wrong PIN — 4 attempts left" "what the greeter shows"
    assert_eq 1 "$(record_failures pgalice)" "failures after the wrong PIN"
    wake 2
    answer "$TEST_PIN"
    wait_unlocked
    assert_eq 0 "$greeter_rc" "the greeter's exit status (log: $(greeter_log))"
    # The next try told the owner of the wrong PIN above the field, before
    # the PIN was typed (the greeter quits at success: a notice then would
    # never be read), and the right PIN spent it.
    assert_contains "$(greeter_log)" "1 failed PIN attempt since your last PIN sign-in, at " "what the greeter showed"
    assert_eq 0 "$(unseen_failures pgalice)" "failed attempts not yet told"
}

test_the_password_unlocks() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    log_what_follows_pingate kde || fail "no logger after PinGate's line"
    start_greeter
    wake
    answer_password
    wait_unlocked
    assert_eq 0 "$greeter_rc" "the greeter's exit status (log: $(greeter_log))"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# A pattern at a keyboard is its cells' numbers; the legend says which.
test_a_pattern_typed_as_digits_unlocks() {
    need_cli; fresh
    enroll pgalice "$TEST_PATTERN" --pattern
    start_greeter
    wake 1 "$ANNOUNCE_PATTERN"
    assert_contains "$(greeter_log)" "Pattern grid — enter the cells in order" "what the greeter shows"
    answer "${TEST_PATTERN//-/}"
    wait_unlocked
    assert_eq 0 "$greeter_rc" "the greeter's exit status (log: $(greeter_log))"
}

# Every password module after PinGate's line sees what pam_unix would take
# as the password: a logger right after it records PAM_AUTHTOK. A wrong
# PIN, the same wrong PIN again, a wrong password, then the right PIN: only
# the first is counted (the repeat is not, the password is pam_unix's); the
# right PIN and a first wrong one never reach the password modules, and the
# same wrong answer typed again goes there as the password (issue 32: it
# may be a password of as many digits as the PIN).
test_only_pins_are_counted_and_the_right_pin_never_reaches_the_password_modules() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    log_what_follows_pingate kde || fail "no logger after PinGate's line"
    start_greeter
    wake
    answer 1397
    a_failure_shown 1
    assert_eq "" "$(cat "$AUTHTOK_LOG")" "what the password modules received after a wrong PIN"
    wake 2
    answer 1397
    a_failure_shown 2
    assert_eq 1 "$(record_failures pgalice)" "failures after the same wrong PIN twice"
    assert_eq 1397 "$(cat "$AUTHTOK_LOG")" "what the password modules received after the same wrong PIN again"
    wake 3
    answer "wrong horse"
    a_failure_shown 3
    assert_eq 1 "$(record_failures pgalice)" "failures after a wrong password"
    wake 4
    answer "$TEST_PIN"
    wait_unlocked
    assert_eq 0 "$greeter_rc" "the greeter's exit status (log: $(greeter_log))"
    assert_eq $'1397\nwrong horse' "$(cat "$AUTHTOK_LOG")" "what the password modules received"
}

# auth_err=die must never leave the person stuck: once the PIN is locked
# the module asks nothing, says why, and the password question follows in
# the same conversation.
test_a_locked_pin_says_so_and_the_password_unlocks() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local pin
    for pin in 1397 2468 3579 1470 2581; do "$PINGATE" verify pgalice --stdin <<< "$pin" > /dev/null 2>&1 || true; done
    log_what_follows_pingate kde || fail "no logger after PinGate's line"
    start_greeter
    wake 1 "after 5 failed attempts — use your password"
    assert_not_contains "$(greeter_log)" "$ANNOUNCE_PIN" "what the greeter shows"
    answer_password 1 "after 5 failed attempts — use your password"
    wait_unlocked
    assert_eq 0 "$greeter_rc" "the greeter's exit status (log: $(greeter_log))"
}

run_tests
rc=$?
cleanup_cgroups
exit $rc
