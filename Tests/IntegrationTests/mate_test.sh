#!/bin/bash
# mate_test.sh — MATE's own lock screen with a PIN, used as a person would
# (issue 20): the real mate-screensaver runs as pgalice under Xvfb on a
# private session bus, inside a simulated local seat session (session_lib.sh,
# so the helper's "only at the machine" rule lets the PIN through), and
# `mate-screensaver-command --lock` locks it (screensaver_lib.sh). xdotool
# clicks and types. Its dialog, mate-screensaver-dialog, runs PAM itself as pgalice
# (service mate-screensaver) with the stack the real `install.sh --enable
# locker mate-screensaver` writes over Debian 12's, and a logger after
# PinGate's line of what goes on to pam_unix as the password.
#
# What the dialog shows comes from mate-screensaver's --debug trace ("Got
# message style", "Setting prompt to"); unlocked is `mate-screensaver-command
# --query` saying inactive. With PINGATE_SCREENSHOTS=DIR the dialog before
# and after a wrong PIN is saved there (docs/screenshots/mate-*.png).
#
# usage: bash Tests/IntegrationTests/mate_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
. "$here/session_lib.sh"
. "$here/x_lib.sh"
. "$here/desktop_lib.sh"
. "$here/screensaver_lib.sh"

if [ "${PINGATE_IN_SANDBOX:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
    missing=""
    for tool in mate-screensaver mate-screensaver-command dbus-daemon Xvfb xdotool xdpyinfo convert; do
        command -v "$tool" >/dev/null || missing+=" $tool"
    done
    if [ -n "$missing" ]; then
        echo "skip: missing$missing (apt: mate-screensaver dbus-daemon xvfb xdotool x11-utils imagemagick; Tests/run-all.sh installs them)"
        echo "0 passed, 0 failed, 1 skipped"; exit 0
    fi
fi
sandbox_enter "$@"
[ -n "${MATE_TEST_TRACE:-}" ] && set -x

SAVER=mate-screensaver
SAVER_COMMAND=mate-screensaver-command
SAVER_ARGS="--no-daemon --debug"
# The dialog's trace of the label it gives its entry.
PROMPT_TRACE="Setting prompt to: "
screensaver_setup || { echo "0 passed, 1 failed"; exit 1; }

# messages: what the dialog showed under its entry in this test (PAM info and error lines).
messages() { trace | grep -F "Got message style" | grep -v "style [12]:" | sed "s/.*Got message style [0-9]: //"; }

# --- tests ---------------------------------------------------------------------------

test_mate_asks_for_the_pin_and_the_right_pin_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    assert_eq "PIN or password" "$(questions)" "the dialog's label"
    unlock_with "$TEST_PIN"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

# The issue's case: after a wrong PIN MATE keeps one entry; the label must
# now take the PIN as well, and the right PIN typed there must unlock.
test_mate_after_a_wrong_pin_the_right_pin_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    shot mate-before
    type_and_enter 1397
    wait_question "PIN or password" 2 || fail "no second question: $(questions | tr '\n' '|')"
    assert_eq "'Wrong PIN — 4 attempts left'" "$(messages)" "the dialog's message"
    shot mate-wrong-pin
    assert_eq 1 "$(record_failures pgalice)" "failures after the wrong PIN"
    unlock_with "$TEST_PIN" "the right PIN at the second \"PIN or password\""
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
    assert_never_followed "$TEST_PIN"
    # The wrong PIN and the right one were in one try (retries=2): whoever
    # answered the second question may not have typed the first, so the
    # success does not spend it; the notice is told before the next try's
    # question (the dialog closes at success, so a notice then would never
    # be read); until then it waits.
    assert_not_contains "$(messages)" "failed PIN attempt" "what the dialog showed"
    assert_eq 1 "$(unseen_failures pgalice)" "failed attempts not yet told"
}

# A password typed at the first question goes on to pam_unix without a second one,
# and is no PIN attempt.
test_mate_the_password_unlocks_and_is_not_counted() { check_the_password_unlocks_uncounted; }

# Someone who mistyped the PIN and gives up on it: the password still unlocks,
# and only the wrong PIN is counted.
test_mate_wrong_pin_then_the_password_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    type_and_enter 1397
    wait_question "PIN or password" 2 || fail "no second question: $(questions | tr '\n' '|')"
    type_and_enter "$TEST_PASSWORD"
    wait_unlocked "$(date +%s%N)" > /dev/null
    assert_eq 1 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

# The issue's case (issue 20 §3): two different wrong PINs, then the right
# one. Both count; the second ends the try (retries=2, auth_err=die), MATE
# says "Authentication failed." and asks afresh, where the PIN unlocks. No
# PIN ever reaches the password modules: pam_unix never asks while a PIN is
# offered.
test_mate_after_two_wrong_pins_the_right_pin_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    type_and_enter 1397
    wait_question "PIN or password" 2 || fail "no second question: $(questions | tr '\n' '|')"
    type_and_enter 1398
    wait_question "" 3 || fail "no third question: $(questions | tr '\n' '|')"
    local verdicts; verdicts=$(seen "Verify user returned:")
    type_and_enter "$TEST_PIN"
    wait_for "Verify user returned:" $((verdicts + 1)) || fail "no verdict on the right PIN: $(questions | tr '\n' '|')"
    assert_never_followed 1397
    assert_never_followed 1398
    assert_never_followed "$TEST_PIN"
    wait_unlocked "$(date +%s%N)" > /dev/null
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the dialog's labels"
    assert_eq "'Wrong PIN — 4 attempts left'|'Wrong PIN — 3 attempts left'|" "$(messages | head -n 2 | tr '\n' '|')" "the dialog's messages"
    # The next try tells the owner of both before its question.
    assert_contains "$(messages | sed -n 3p)" "'2 failed PIN attempts since your last PIN sign-in, the first at " "the dialog's message before the right PIN"
    assert_contains "$(trace)" "Verify user returned error: Authentication failed." "the trace"
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
    assert_eq 0 "$(unseen_failures pgalice)" "failed attempts not yet told (the right PIN spent what was shown)"
}

# After two wrong PINs the password typed at the next question unlocks, and
# only the two PINs count.
test_mate_after_two_wrong_pins_the_password_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    type_and_enter 1397
    wait_question "PIN or password" 2 || fail "no second question: $(questions | tr '\n' '|')"
    type_and_enter 1398
    wait_question "" 3 || fail "no third question: $(questions | tr '\n' '|')"
    type_and_enter "$TEST_PASSWORD"
    wait_unlocked "$(date +%s%N)" > /dev/null
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the dialog's labels"
    assert_eq 2 "$(record_failures pgalice)" "failures after the password"
    assert_never_followed 1397
    assert_never_followed 1398
}

# auth_err=die never leaves the person stuck: the fifth wrong PIN (the
# first of the third try) locks the PIN and ends the try; the next asks
# nothing of PinGate, says why, and pam_unix's "Password:" takes the password.
test_mate_when_the_pin_locks_the_password_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    lock_with_wrong_pins
    wait_question "Password:" || fail "no password question: $(questions | tr '\n' '|')"
    assert_eq "PIN or password|PIN or password|PIN or password|PIN or password|PIN or password|Password:|" \
        "$(questions | tr '\n' '|')" "the dialog's labels"
    assert_contains "$(messages)" "'PIN locked for 1 minute after 5 failed attempts — use your password'" "the dialog's messages"
    assert_eq 5 "$(record_failures pgalice)" "failures"
    type_and_enter "$TEST_PASSWORD"
    wait_unlocked "$(date +%s%N)" > /dev/null
    local pin
    for pin in "${WRONG_PINS[@]}"; do assert_never_followed "$pin"; done
}

run_tests
