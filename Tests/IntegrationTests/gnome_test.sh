#!/bin/bash
# gnome_test.sh — GNOME's lock screen and login, and LightDM's login, with a
# PIN (issue 20). GNOME Shell cannot run on these machines, so
# pam/tests/gnome_unlock does what GNOME 48 (gdm 48.0, gnome-shell 48) does
# when a person unlocks or signs in (gdm's worker runs PAM as root for service
# gdm-password, PAM_RHOST for a remote display; the shell shows each question
# as the entry's hint without its trailing colon, shows info and error lines,
# retries after a failure, answers the next question with text typed before
# it arrived, runs gdm-fingerprint beside gdm-password and never shows its
# questions, and makes gdm-smartcard the only service when a smartcard is
# inserted; the source files and functions are named in it). The stacks are
# Debian 12's gdm-password and lightdm, enabled by the real `install.sh
# --enable`, with a logger after PinGate's line of what goes on to pam_unix;
# and gdm3 43.0-3's gdm-fingerprint and gdm-smartcard-sssd-or-password
# (debian-pam.d/), with stand-ins for pam_fprintd and pam_sss.
#
# A display manager's first sign-in of a boot takes the password (the
# FirstSignInRule): the PIN is asked only while pgalice already has a session
# at the seat (session_lib.sh's logind), i.e. when unlocking or switching back.
#
# usage: bash Tests/IntegrationTests/gnome_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
. "$here/session_lib.sh"
. "$here/desktop_lib.sh"
sandbox_enter "$@"

GNOME="$PAM_BUILD/gnome_unlock"

# Debian 12's /etc/pam.d/gdm-password (gdm3 43): pam/pam.d/gdm-password
# without PinGate's line and comments.
grep -v -e pam_pingate -e '^#' -e '^$' "$REPO_ROOT/pam/pam.d/gdm-password" > /etc/pam.d/gdm-password
# Debian 12's /etc/pam.d/lightdm (lightdm 1.26, debian/lightdm.pam).
cp "$here/debian-pam.d/lightdm" /etc/pam.d/lightdm
enable_like_install_sh gdm-password --enable lightdm || { echo "0 passed, 1 failed"; exit 1; }
log_what_follows_pingate gdm-password && log_what_follows_pingate lightdm || { echo "0 passed, 1 failed"; exit 1; }

# The conversations GNOME runs without a field of their own. gdm3's
# gdm-fingerprint, its pam_fprintd a stand-in (pam_test_probe) that says what
# pam_fprintd says and ends as it does when no finger comes
# (authinfo_unavail), with PinGate's gdm-password line copied in above it by
# hand (`pingate enable gdm-fingerprint` refuses): the module must ask nothing
# there. And gdm3's gdm-smartcard-sssd-or-password (the alternative of
# /etc/pam.d/gdm-smartcard that includes common-auth), its pam_sss a stand-in
# that finds no sssd (authinfo_unavail), over common-auth with the Debian
# profile's line (`pam-auth-update --enable pingate`).
cp "$PAM_BUILD/pam_test_probe.so" "$SANDBOX/pam_fprintd.so"
cp "$PAM_BUILD/pam_test_probe.so" "$SANDBOX/pam_sss.so"
pingate_line=$(grep pam_pingate /etc/pam.d/gdm-password)
sed -e "s|^auth\s*required\s*pam_fprintd\.so.*|$(sed 's/[|&]/\\&/g' <<< "$pingate_line")\nauth required $SANDBOX/pam_fprintd.so [info=Place your finger on the fingerprint reader] ret=authinfo_unavail|" \
    "$here/debian-pam.d/gdm-fingerprint" > /etc/pam.d/gdm-fingerprint
sed -e "s|pam_sss\.so\(.*\)|$SANDBOX/pam_sss.so\1 ret=authinfo_unavail|" -e "s|substack\(\s*\)common-auth|substack\1common-auth-profile|" \
    "$here/debian-pam.d/gdm-smartcard-sssd-or-password" > /etc/pam.d/gdm-smartcard
# pam-auth-update writes the profile's success=end as the jump over the rest
# of the primary block (pam_unix's own jump, plus pam_unix).
unix_jump=$(sed -n 's/^auth\s*\[success=\([0-9]*\) default=ignore\]\s*pam_unix\.so.*/\1/p' /etc/pam.d/common-auth)
sed "s|^\(auth\s*\[success=[0-9]* default=ignore\]\s*pam_unix\.so.*\)|auth [success=$((unix_jump + 1)) default=ignore] $SANDBOX/pam_pingate.so forward_pass\n\1|" \
    /etc/pam.d/common-auth > /etc/pam.d/common-auth-profile
grep -q "pam_pingate.so.*again_or_password" /etc/pam.d/gdm-fingerprint && grep -q "pam_fprintd.so" /etc/pam.d/gdm-fingerprint &&
    grep -q "pam_sss.so.*ret=authinfo_unavail" /etc/pam.d/gdm-smartcard &&
    grep -q "pam_pingate.so forward_pass" /etc/pam.d/common-auth-profile || {
    echo "could not write gdm-fingerprint, gdm-smartcard or common-auth-profile:"; cat /etc/pam.d/gdm-fingerprint /etc/pam.d/gdm-smartcard /etc/pam.d/common-auth-profile
    echo "0 passed, 1 failed"; exit 1; }

private_run_with_sessions
session 40 0 61001

fresh() {
    store_reset
    enroll pgalice "$TEST_PIN" --pin
    forget_what_followed
}
signed_in() { user_sessions 61001 40; }       # her session at seat0 runs: unlocking
first_sign_in() { user_sessions 61001; }      # logind knows no session of hers yet

# unlock INPUT [gnome_unlock options]: GNOME 43 unlocking pgalice's screen,
# INPUT typed line by line; sets $out (the transcript) and $rc.
# gnome_unlock's options: --fingerprint (a reader: gdm-fingerprint beside),
# --smartcard (a card inserted: gdm-smartcard instead of gdm-password),
# --remote HOST (a remote display), --login (the login screen).
unlock() {
    local input=$1; shift
    out=$(printf '%s' "$input" | "$GNOME" --user pgalice "$@") && rc=0 || rc=$?
}
hints() { sed -n 's/^HINT //p' <<< "$out" | tr '\n' '|'; }

# --- unlocking: pgalice's session runs ----------------------------------------------

test_gnome_unlock_asks_for_the_pin_and_the_right_pin_unlocks() {
    need_cli; fresh; signed_in
    local start; start=$(date +%s%N)
    unlock "$TEST_PIN"$'\n'
    echo "    unlocked in $(ms_since "$start") ms"
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "PIN or password|" "$(hints)" "the entry's hints"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

test_gnome_unlock_after_a_wrong_pin_the_right_pin_unlocks() {
    need_cli; fresh; signed_in
    unlock $'1397\n'"$TEST_PIN"$'\n'
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "PIN or password|PIN or password|" "$(hints)" "the entry's hints"
    assert_contains "$out" $'HINT PIN or password\nINFO Wrong PIN — 4 attempts left\nHINT PIN or password' "the transcript"
    assert_not_contains "$out" "ERROR" "the transcript"
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
    assert_never_followed "$TEST_PIN"
}

# The issue's case (issue 20 §3): two different wrong PINs, then the right
# one. Both wrong PINs count; the second ends the conversation (retries=2,
# auth_err=die), gdm says its failure and GNOME asks afresh, where the PIN
# unlocks. No PIN is ever asked for by pam_unix or handed on as a password.
test_gnome_unlock_after_two_wrong_pins_the_right_pin_unlocks() {
    need_cli; fresh; signed_in
    unlock $'1397\n1398\n'"$TEST_PIN"$'\n'
    assert_never_followed 1397
    assert_never_followed 1398
    assert_never_followed "$TEST_PIN"
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(hints)" "the entry's hints"
    assert_contains "$out" $'HINT PIN or password\nINFO Wrong PIN — 3 attempts left\nERROR Sorry, password authentication didn’t work. Please try again.\nINFO 2 failed PIN attempts since your last PIN sign-in, the first at ' "the transcript"
    # The owner hears of both wrong PINs below the entry before typing again.
    assert_contains "$out" $'\nHINT PIN or password\nRESULT unlocked' "the transcript's end"
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
}

# After two wrong PINs the password typed at GNOME's next question unlocks,
# and only the two PINs count.
test_gnome_unlock_after_two_wrong_pins_the_password_unlocks() {
    need_cli; fresh; signed_in
    unlock $'1397\n1398\n'"$TEST_PASSWORD"$'\n'
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(hints)" "the entry's hints"
    assert_eq 2 "$(record_failures pgalice)" "failures"
    assert_never_followed 1397
    assert_never_followed 1398
}

# auth_err=die never leaves the person stuck. The wrong PIN that locks the
# PIN ends the try; in the next, the module asks nothing (PAM_IGNORE), says
# why, and pam_unix asks for the password.
test_gnome_unlock_when_the_pin_locks_the_password_unlocks() {
    need_cli; fresh; signed_in
    local pin
    for pin in 2468 3579 1470; do "$PINGATE" verify pgalice --stdin <<< "$pin" > /dev/null 2>&1 || true; done
    unlock $'1397\n1398\n'"$TEST_PASSWORD"$'\n'
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "PIN or password|PIN or password|Password|" "$(hints)" "the entry's hints"
    assert_contains "$out" $'INFO PIN locked for 1 minute after 5 failed attempts — use your password\nHINT Password' "the transcript"
    assert_eq 5 "$(record_failures pgalice)" "failures"
    assert_never_followed 1397
    assert_never_followed 1398
}

# ... and a helper that cannot run (here: not executable) is no PIN: the
# password question follows at once.
test_gnome_unlock_with_a_broken_helper_the_password_unlocks() {
    need_cli; fresh; signed_in
    chmod 0 "$HELPER"
    unlock "$TEST_PASSWORD"$'\n'
    chmod 2755 "$HELPER"
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "Password|" "$(hints)" "the entry's hints"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_gnome_unlock_the_password_unlocks_and_is_not_counted() {
    need_cli; fresh; signed_in
    unlock "$TEST_PASSWORD"$'\n'
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "PIN or password|" "$(hints)" "the entry's hints"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    grep -qxF "$TEST_PASSWORD" "$AUTHTOK_LOG" || fail "the password did not reach pam_unix: [$(cat "$AUTHTOK_LOG")]"
}

# Typed and entered before GNOME showed the question: the shell answers the
# first question with it, no hint shown.
test_gnome_unlock_takes_a_pin_typed_before_the_question() {
    need_cli; fresh; signed_in
    unlock "" --preemptive "$TEST_PIN"
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "" "$(hints)" "the entry's hints"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

# --- the first sign-in of the boot: no session of hers yet ------------------------

test_gnome_first_sign_in_asks_for_the_password_not_the_pin() {
    need_cli; fresh; first_sign_in
    unlock "$TEST_PIN"$'\n'"$TEST_PASSWORD"$'\n' --login
    assert_eq "RESULT signed in" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_contains "$out" "INFO The first sign-in since the machine started takes your password" "the transcript"
    assert_eq "Password|Password|" "$(hints)" "the entry's hints (the PIN typed at the first is a wrong password)"
    assert_contains "$out" "ERROR Sorry, password authentication didn’t work. Please try again." "the transcript"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# --- GNOME 48's conversations without a field, and remote displays ------------------

# A fingerprint reader: gnome-shell runs gdm-fingerprint beside gdm-password
# (util.js _maybeStartFingerprintVerification). Its info becomes "(or place
# finger on reader)" under the entry; a question there would never be shown
# nor answered. PinGate's line in its stack asks nothing (gdm-fingerprint is
# not among pingate.conf's services), so nothing waits unseen and nothing is
# counted; in gdm-password the PIN is asked and unlocks as ever.
test_gnome_48_fingerprint_beside_gdm_password_asks_no_pin_and_the_pin_unlocks() {
    need_cli; fresh; signed_in
    unlock $'1397\n'"$TEST_PIN"$'\n' --fingerprint
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_not_contains "$out" "UNSEEN" "the transcript (a question in gdm-fingerprint)"
    assert_contains "$out" "NOTE (or place finger on reader)" "the transcript"
    assert_contains "$out" "BESIDE gdm-fingerprint PAM_AUTHINFO_UNAVAIL" "the transcript"
    assert_eq "PIN or password|PIN or password|" "$(hints)" "the entry's hints"
    assert_contains "$out" "INFO Wrong PIN — 4 attempts left" "the transcript"
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
    assert_never_followed "$TEST_PIN"
}

# One wrong PIN typed in gdm-password, then the person walks away: one
# failure, not one more for the fingerprint conversation running beside it.
test_gnome_48_fingerprint_beside_gdm_password_counts_only_the_pin_typed() {
    need_cli; fresh; signed_in
    unlock $'1397\n' --fingerprint
    assert_eq "RESULT cancelled" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_not_contains "$out" "UNSEEN" "the transcript (a question in gdm-fingerprint)"
    assert_eq 1 "$(record_failures pgalice)" "failures"
}

# `pingate enable` refuses the conversations nobody answers.
test_gnome_48_pingate_enable_refuses_gdm_fingerprint_and_gdm_smartcard() {
    need_cli
    local service out status
    for service in gdm-fingerprint gdm-smartcard; do
        out=$("$PINGATE" enable --dry-run "$service" 2>&1) && status=0 || status=$?
        assert_eq 2 "$status" "pingate enable $service: its exit status (output: $out)"
    done
}

# A smartcard with a login token inserted: gdm-smartcard is then the only
# service (util.js _checkForSmartcard preempts gdm-password) and its
# questions are shown. With pam_sss finding no sssd, Debian's
# sssd-or-password stack goes on to common-auth, where the Debian profile's
# PinGate line asks nothing (gdm-smartcard is not among the services): the
# entry says "Password" and only the password unlocks. The PIN typed there is
# a wrong password for pam_unix, and no PIN failure; with the card out,
# gdm-password asks for the PIN again and it unlocks.
test_gnome_48_smartcard_inserted_asks_no_pin_and_the_password_unlocks() {
    need_cli; fresh; signed_in
    unlock "$TEST_PIN"$'\n'"$TEST_PASSWORD"$'\n' --smartcard
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result (transcript: $out)"
    assert_eq "Password|Password|" "$(hints)" "the entry's hints"
    assert_contains "$out" "ERROR Sorry, smart card authentication didn’t work. Please try again." "the transcript"
    assert_not_contains "$out" "PIN or password" "the transcript"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    unlock "$TEST_PIN"$'\n'
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "with the card out, the PIN (transcript: $out)"
    assert_eq "PIN or password|" "$(hints)" "the entry's hints with the card out"
}

# Even where pingate.conf's services name them, the module offers no PIN in
# a conversation nobody sees (PINGATE_UNSEEN_SERVICES): neither beside
# gdm-password nor for an inserted card, whose own PIN the field then asks.
test_gnome_48_listed_in_services_the_unseen_conversations_still_ask_no_pin() {
    need_cli; fresh; signed_in
    echo "services = gdm-password gdm-fingerprint gdm-smartcard" >> /etc/pingate/pingate.conf
    unlock $'1397\n'"$TEST_PIN"$'\n' --fingerprint
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result beside the fingerprint conversation (transcript: $out)"
    assert_not_contains "$out" "UNSEEN" "the transcript (a question in gdm-fingerprint)"
    unlock "$TEST_PIN"$'\n'"$TEST_PASSWORD"$'\n' --smartcard
    assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result with a card in (transcript: $out)"
    assert_not_contains "$out" "PIN or password" "the transcript with a card in"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# A remote display (XDMCP, gnome-remote-desktop): gdm sets PAM_RHOST, to
# 0.0.0.0 when the display has no host name. Nobody there is at the machine:
# no PIN is offered, the password unlocks, and a PIN typed at "Password" is a
# wrong password, not a counted PIN.
test_gnome_48_remote_display_offers_no_pin_and_the_password_unlocks() {
    need_cli; fresh; signed_in
    local host
    for host in 192.0.2.7 ""; do
        unlock "$TEST_PIN"$'\n'"$TEST_PASSWORD"$'\n' --remote "$host"
        assert_eq "RESULT unlocked" "$(tail -n 1 <<< "$out")" "result, PAM_RHOST [${host:-0.0.0.0}] (transcript: $out)"
        assert_eq "Password|Password|" "$(hints)" "the entry's hints, PAM_RHOST [${host:-0.0.0.0}]"
        assert_not_contains "$out" "PIN or password" "the transcript, PAM_RHOST [${host:-0.0.0.0}]"
        assert_eq 0 "$(record_failures pgalice)" "failures, PAM_RHOST [${host:-0.0.0.0}]"
    done
    unlock "$TEST_PASSWORD"$'\n' --remote 192.0.2.7 --login
    assert_eq "RESULT signed in" "$(tail -n 1 <<< "$out")" "a remote login with the password (transcript: $out)"
}

test_lightdm_first_sign_in_takes_the_password_and_later_the_pin() {
    need_cli; fresh; first_sign_in
    pam_run /etc/pam.d lightdm pgalice "$TEST_PASSWORD"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the first sign-in (transcript: $out)"
    assert_contains "$out" "INFO The first sign-in since the machine started takes your password" "the transcript"
    assert_not_contains "$out" "PROMPT_ECHO_OFF PIN" "the first sign-in's prompts"
    signed_in
    pam_run /etc/pam.d lightdm pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "switching back with the PIN (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: " "the transcript"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    assert_never_followed "$TEST_PIN"
}

run_tests
