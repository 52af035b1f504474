#!/bin/bash
# cinnamon_test.sh — Cinnamon's own lock screen with a PIN, used as a person
# would (issue 20), run like MATE's in mate_test.sh (screensaver_lib.sh): the
# real cinnamon-screensaver as pgalice in her local seat session, locked with
# `cinnamon-screensaver-command --lock`, xdotool clicking and typing. It runs
# PAM in its helper, cinnamon-screensaver-pam-helper, as pgalice (service
# cinnamon-screensaver), with the stack the real `install.sh --enable locker
# cinnamon-screensaver` writes over Debian 12's, and a logger after
# PinGate's line of what goes on to pam_unix.
#
# What the person sees: the entry's placeholder is the PAM question with its
# colons removed, except that any question containing "password:" becomes
# "Please enter your password..." (unlock.py, on_authentication_prompt_changed):
# the module's question has no colon, so the placeholder says "PIN or
# password". An info line ("Wrong PIN — 4 attempts left") is cleared as soon
# as the entry is usable again (set_busy(False)), so it is in the trace,
# never on the screen for long; a wrong PIN therefore ends the try, and
# Cinnamon's own failure line, "Incorrect password", stays until the next
# answer.
#
# Outside a Cinnamon desktop, Debian 12's cinnamon-screensaver 5.6 needs
# what the desktop brings and its package does not: the typelibs Cvc
# (gir1.2-cvc-1.0) and Caribou (gir1.2-caribou-1.0), and the schema
# org.cinnamon.keyboard (cinnamon-common, the whole desktop), which is
# written here with the three keys it reads.
#
# usage: bash Tests/IntegrationTests/cinnamon_test.sh   (TEST_FILTER=word to pick; root)

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
    for tool in cinnamon-screensaver cinnamon-screensaver-command glib-compile-schemas dbus-daemon Xvfb xdotool xdpyinfo convert; do
        command -v "$tool" >/dev/null || missing+=" $tool"
    done
    if [ -n "$missing" ]; then
        echo "skip: missing$missing (apt: cinnamon-screensaver gir1.2-cvc-1.0 gir1.2-caribou-1.0 libglib2.0-bin; Tests/run-all.sh installs them)"
        echo "0 passed, 0 failed, 1 skipped"; exit 0
    fi
fi
sandbox_enter "$@"

# org.cinnamon.keyboard, as cinnamon-common ships it, for util/settings.py.
SCHEMAS="$SANDBOX/schemas"
mkdir -p "$SCHEMAS"
cat > "$SCHEMAS/org.cinnamon.keyboard.gschema.xml" <<'EOF'
<schemalist>
  <schema id="org.cinnamon.keyboard" path="/org/cinnamon/keyboard/">
    <key name="keyboard-type" type="s"><default>'tablet'</default></key>
    <key name="keyboard-size" type="i"><default>3</default></key>
    <key name="activation-mode" type="s"><default>'accessible'</default></key>
  </schema>
</schemalist>
EOF
glib-compile-schemas "$SCHEMAS" || { echo "0 passed, 1 failed"; exit 1; }
chmod -R a+rX "$SCHEMAS"

SAVER=cinnamon-screensaver
SAVER_COMMAND=cinnamon-screensaver-command
SAVER_ARGS="--debug"
SAVER_ENV="GSETTINGS_SCHEMA_DIR=$SCHEMAS"
# The helper's line for a question: CS_PAM_AUTH_SET_PROMPT_<question>_
PROMPT_TRACE="CS_PAM_AUTH_SET_PROMPT_"
PROMPT_END="_'"
# ... and once the entry takes keys again.
READY_TRACE="CS_PAM_AUTH_BUSY_FALSE"
screensaver_setup || { echo "0 passed, 1 failed"; exit 1; }

# infos: the info lines the helper handed to the lock screen in this test.
infos() { trace | grep -F "CS_PAM_AUTH_SET_INFO_" | sed "s/.*CS_PAM_AUTH_SET_INFO_//; s/_'\$//"; }

# --- tests ---------------------------------------------------------------------------

test_cinnamon_asks_for_the_pin_and_the_right_pin_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    assert_eq "PIN or password" "$(questions)" "the question (the placeholder)"
    unlock_with "$TEST_PIN"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

# A wrong PIN ends the try (auth_err=die): Cinnamon clears every info line
# as soon as its entry takes keys again, so its own failure line, "Incorrect
# password", is what says the PIN was wrong; it asks afresh, and the right
# PIN unlocks.
test_cinnamon_after_a_wrong_pin_the_right_pin_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    shot cinnamon-before
    type_and_enter 1397
    wait_question "PIN or password" 2 || fail "no second question: $(questions | tr '\n' '|')"
    assert_eq "Wrong PIN — 4 attempts left" "$(infos | head -n 1)" "the info line"
    assert_eq 1 "$(seen CS_PAM_AUTH_FAILURE)" "failures the helper reported"
    shot cinnamon-wrong-pin
    assert_eq 1 "$(record_failures pgalice)" "failures after the wrong PIN"
    unlock_with "$TEST_PIN" "the right PIN at the next \"PIN or password\""
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
    assert_never_followed 1397
    assert_never_followed "$TEST_PIN"
    # Cinnamon puts its own "Incorrect password" where an info line would be,
    # and closes at success: nothing would be read, so the notice waits
    # (nonotice), unspent, for a sign-in that shows it.
    assert_not_contains "$(infos)" "failed PIN attempt" "what the dialog showed"
    assert_eq 1 "$(unseen_failures pgalice)" "failed attempts not yet told"
}

# The issue's case (issue 20 §3): two different wrong PINs, then the right
# one. Each ends its try, and no PIN ever reaches the password modules:
# pam_unix never asks while a PIN is offered.
test_cinnamon_after_two_wrong_pins_the_right_pin_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    type_and_enter 1397
    wait_question "" 2 || fail "no second question: $(questions | tr '\n' '|')"
    type_and_enter 1398
    wait_question "" 3 || fail "no third question: $(questions | tr '\n' '|')"
    type_and_enter "$TEST_PIN"
    wait_for "CS_PAM_AUTH_SUCCESS" || wait_question "" 4
    assert_never_followed 1397
    assert_never_followed 1398
    assert_never_followed "$TEST_PIN"
    wait_unlocked "$(date +%s%N)" > /dev/null
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the questions (the placeholder)"
    assert_eq 2 "$(seen CS_PAM_AUTH_FAILURE)" "failures the helper reported"
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
    assert_eq 2 "$(unseen_failures pgalice)" "failed attempts not yet told (nonotice: they wait)"
}

# auth_err=die never leaves the person stuck: the fifth wrong PIN locks the
# PIN and ends the try; the next asks nothing of PinGate, and pam_unix's
# question (Cinnamon's "Please enter your password...") takes the password.
# Cinnamon's helper gives up after five failed tries and the dialog closes;
# a click brings a new one, as after any other five failures.
test_cinnamon_when_the_pin_locks_the_password_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    lock_with_wrong_pins
    wait_for "CS_PAM_AUTH_CANCELLED" || wait_question "Password:" || fail "neither a new question nor the end of the dialog: $(questions | tr '\n' '|')"
    if [ "$(seen "${PROMPT_TRACE}Password:")" = 0 ]; then
        echo "    the dialog closed after five failed tries; a click brings the password question"
        sleep 1; xdotool mousemove 120 120 click 1
        wait_question "Password:" || fail "no password question after a click: $(questions | tr '\n' '|')"
    fi
    assert_eq 5 "$(record_failures pgalice)" "failures"
    assert_contains "$(infos)" "PIN locked for 1 minute after 5 failed attempts — use your password" "the info lines"
    type_and_enter "$TEST_PASSWORD"
    wait_unlocked "$(date +%s%N)" > /dev/null
    local pin
    for pin in "${WRONG_PINS[@]}"; do assert_never_followed "$pin"; done
}

test_cinnamon_the_password_unlocks_and_is_not_counted() { check_the_password_unlocks_uncounted; }

test_cinnamon_wrong_pin_then_the_password_unlocks() {
    need_cli; fresh_screensaver
    lock_and_wake
    type_and_enter 1397
    wait_question "" 2 || fail "no second question: $(questions | tr '\n' '|')"
    type_and_enter "$TEST_PASSWORD"
    wait_unlocked "$(date +%s%N)" > /dev/null
    assert_eq 1 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

run_tests
