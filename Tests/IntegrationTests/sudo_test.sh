#!/bin/bash
# sudo_test.sh — the real sudo (setuid root, Debian's build) with
#
#   auth sufficient $SANDBOX/pam_pingate.so
#   @include common-auth                      (pam_unix)
#
# in the sandbox's /etc/pam.d/sudo. A test user runs `sudo -S -k true` with
# the answers on stdin; sudo writes the prompts to stderr. Under sudo the
# module runs with euid 0 and the user's real uid, and runs the helper as root.
# Debian's sudo passes PAM_SILENT, so the module's info lines never show:
# what it says of the PIN (wrong, locked) comes above a password question of
# its own, whose answer pam_unix takes. Those tests type on a real terminal
# (pty_drive.py) and compare what the person saw, line by line.
#
# usage: bash Tests/IntegrationTests/sudo_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
sandbox_enter "$@"

private_sudo_rundir
sudo_stack

fresh() {
    command -v sudo >/dev/null || skip "sudo is not installed"
    store_reset
}

# sudo_tty USER STEP...: `sudo -k true` as USER on a real terminal, the
# STEPs pty_drive.py's (expect:TEXT, send:TEXT); sets $seen, what the person
# saw (sudo's questions, its newline after each answer; nothing typed shows),
# and $rc.
sudo_tty() {
    local user=$1; shift
    seen=$(as_user "$user" python3 "$here/pty_drive.py" "$@" -- sudo -k true) && rc=0 || rc=$?
    seen=${seen//$'\r'/}
}

# lock_pin USER: five wrong PINs through the helper; the fifth locks it for a minute.
lock_pin() {
    local i out
    for i in 1 2 3 4 5; do
        out=$(helper_request op=verify user="$1" secret="139$i")
    done
    assert_contains "$out" "locked=" "5th wrong answer"
}

# The lockout's time as the person read it, "1 minute" or "59 seconds": TIME.
any_time() { sed -E 's/locked for (1 minute|[0-9]+ seconds?) after/locked for TIME after/' <<< "$1"; }

test_correct_pin_runs_the_command() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    sudo_as pgalice "$TEST_PIN"$'\n'
    assert_eq 0 "$rc" "sudo exit status (stderr: $err)"
    assert_contains "$err" "PIN: " "sudo's stderr"
    assert_not_contains "$err" "password" "sudo's stderr"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# A wrong PIN: the next question is the module's password question, and says
# so; the password typed there runs the command (pam_unix took it), and only
# the PIN was counted.
test_wrong_pin_is_told_in_the_password_question() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    sudo_tty pgalice "expect:PIN: " "send:1397\r" "expect:Password (not your PIN) for pgalice: " "send:$TEST_PASSWORD\r"
    assert_eq 0 "$rc" "sudo exit status (saw: $seen)"
    assert_eq "PIN: 
Wrong PIN — 4 attempts left
Password (not your PIN) for pgalice: " "$seen" "what the person saw"
    assert_eq 1 "$(record_failures pgalice)" "failures (the wrong PIN counts, the password not)"
}

# The fifth wrong PIN locks it, and the password question says so (the
# four before it, not yet told, come above the PIN question).
test_the_fifth_wrong_pin_says_the_lockout_in_the_password_question() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local i
    for i in 1 2 3 4; do
        helper_request op=verify user=pgalice secret="139$i" > /dev/null
    done
    sudo_tty pgalice "expect:PIN: " "send:1395\r" "expect:Password (not your PIN) for pgalice: " "send:$TEST_PASSWORD\r"
    assert_eq 0 "$rc" "sudo exit status (saw: $seen)"
    assert_eq "4 failed PIN attempts since your last PIN sign-in, the first at HH:MM
PIN: 
PIN locked for 1 minute after 5 failed attempts — use your password
Password (not your PIN) for pgalice: " "$(sed -E 's/the first at [0-9]{2}:[0-9]{2}$/the first at HH:MM/' <<< "$seen")" "what the person saw"
    assert_eq 5 "$(record_failures pgalice)" "failures"
}

test_wrong_pin_and_wrong_password_is_refused() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    sudo_as pgalice $'1397\nnot the password\n'
    [ "$rc" -ne 0 ] || fail "sudo succeeded with a wrong PIN and a wrong password"
}

test_user_without_pin_sees_only_the_password_prompt() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin     # pgbob has none
    sudo_as pgbob "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo exit status (stderr: $err)"
    assert_contains "$err" "password for pgbob" "sudo's stderr"
    assert_not_contains "$err" "PIN" "sudo's stderr"
}

test_empty_store_sees_only_the_password_prompt() {
    fresh
    sudo_as pgbob "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo exit status (stderr: $err)"
    assert_contains "$err" "password for pgbob" "sudo's stderr"
    assert_not_contains "$err" "PIN" "sudo's stderr"
}

# While locked no PIN is asked: the one question is the password's and says
# why. The PIN typed there is a wrong password (sudo asks again, the same
# question); the password runs the command. Nothing reaches the helper's count.
test_a_locked_pin_says_why_in_the_one_password_question() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    lock_pin pgalice
    sudo_tty pgalice "expect:Password (not your PIN) for pgalice: " "send:$TEST_PASSWORD\r"
    assert_eq 0 "$rc" "sudo exit status (saw: $seen)"
    assert_eq "PIN locked for TIME after 5 failed attempts — use your password
Password (not your PIN) for pgalice: " "$(any_time "$seen")" "what the person saw"
    sudo_tty pgalice "expect:Password (not your PIN) for pgalice: " "send:$TEST_PIN\r" \
        "expect:Sorry, try again." "expect:Password (not your PIN) for pgalice: " "send:$TEST_PASSWORD\r"
    assert_eq 0 "$rc" "sudo exit status, the PIN then the password (saw: $seen)"
    assert_eq "PIN locked for TIME after 5 failed attempts — use your password
Password (not your PIN) for pgalice: 
Sorry, try again.
PIN locked for TIME after 5 failed attempts — use your password
Password (not your PIN) for pgalice: " "$(any_time "$seen")" "what the person saw, the PIN then the password"
    assert_eq 5 "$(record_failures pgalice)" "failures"
}

test_pin_success_under_sudo_clears_failures() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    sudo_as pgalice $'1397\n'"$TEST_PASSWORD"$'\n'
    sudo_as pgalice $'1398\n'"$TEST_PASSWORD"$'\n'
    assert_eq 2 "$(record_failures pgalice)" "failures after two wrong PINs"
    sudo_as pgalice "$TEST_PIN"$'\n'
    assert_eq 0 "$rc" "sudo exit status (stderr: $err)"
    assert_eq 0 "$(record_failures pgalice)" "failures after the right PIN"
}

# The pam-auth-update profile (pam/pam-configs/pingate) in common-auth: one
# "PIN or password: " prompt, pam_unix with try_first_pass.
forward_pass_common_auth() {
    cp /etc/pam.d/common-auth "$SANDBOX/common-auth.orig"
    cat > /etc/pam.d/common-auth <<EOF
auth	[success=2 default=ignore]	$SANDBOX/pam_pingate.so forward_pass
auth	[success=1 default=ignore]	pam_unix.so nullok try_first_pass
auth	requisite			pam_deny.so
auth	required			pam_permit.so
EOF
    cat > /etc/pam.d/sudo <<EOF
#%PAM-1.0
session    required   pam_limits.so
@include common-auth
@include common-account
@include common-session-noninteractive
EOF
}

restore_stacks() {
    cp "$SANDBOX/common-auth.orig" /etc/pam.d/common-auth
    sudo_stack
}

test_forward_pass_profile_takes_pin_or_password_at_one_prompt() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    forward_pass_common_auth
    trap restore_stacks EXIT
    sudo_as pgalice "$TEST_PIN"$'\n'
    assert_eq 0 "$rc" "sudo with the PIN (stderr: $err)"
    assert_contains "$err" "PIN or password: " "sudo's stderr"
    assert_eq 1 "$(grep -o 'PIN or password: ' <<< "$err" | wc -l)" "prompts"
    sudo_as pgalice "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo with the password (stderr: $err)"
    assert_eq 1 "$(grep -o 'PIN or password: ' <<< "$err" | wc -l)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "failures (a password is not counted)"
    sudo_as pgbob "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo for pgbob (stderr: $err)"
    assert_not_contains "$err" "PIN" "pgbob's prompts"
}

# An account given a deleted account's uid (Debian's adduser takes the lowest
# free one) does not inherit its PIN: the record names the account it was
# made for, and pgdave, given pgcarol's uid 61003, is asked for the password
# only, nothing is counted, and doctor names the record with its fix.
delete_pgcarol_and_give_her_uid_to_pgdave() {
    local file
    for file in passwd group shadow sudoers; do
        if [ "$file" = sudoers ]; then cp "$SANDBOX/sudoers" "$SANDBOX/sudoers.saved"
        else cp "/etc/$file" "$SANDBOX/$file.saved"; fi
    done
    trap 'for f in passwd group shadow; do cat "$SANDBOX/$f.saved" > "/etc/$f"; done; cat "$SANDBOX/sudoers.saved" > "$SANDBOX/sudoers"' EXIT
    # userdel and useradd replace /etc/passwd by a rename, which the sandbox's
    # bind mounts refuse: the same edits, written in place.
    grep -v '^pgcarol:' "$SANDBOX/passwd.saved" > /etc/passwd
    grep -v '^pgcarol:' "$SANDBOX/group.saved" > /etc/group
    grep -v '^pgcarol:' "$SANDBOX/shadow.saved" > /etc/shadow
    echo "pgdave:x:61003:61003:PinGate test user:$SANDBOX/home/pgcarol:/bin/sh" >> /etc/passwd
    echo "pgdave:x:61003:" >> /etc/group
    grep '^pgcarol:' "$SANDBOX/shadow.saved" | sed 's/^pgcarol:/pgdave:/' >> /etc/shadow
    echo 'pgdave ALL=(ALL:ALL) ALL' >> "$SANDBOX/sudoers"
}

test_a_deleted_accounts_pin_does_not_sign_in_the_account_given_its_uid() {
    need_cli; fresh
    enroll pgcarol "$TEST_PIN" --pin
    delete_pgcarol_and_give_her_uid_to_pgdave
    cp /var/lib/pingate/61003.record "$SANDBOX/61003.before"
    sudo_as pgdave "$TEST_PIN"$'\n'"$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo for pgdave with the password (stderr: $err)"
    assert_not_contains "$err" "PIN" "pgdave is not asked for pgcarol's PIN"
    assert_contains "$err" "password for pgdave" "sudo's stderr"
    sudo_as pgdave "$TEST_PIN"$'\n'
    [ "$rc" -ne 0 ] || fail "pgcarol's PIN signed pgdave in through sudo (stderr: $err)"
    cmp -s "$SANDBOX/61003.before" /var/lib/pingate/61003.record || fail "the refused record was written (an attempt counted)"
    local status; status=$("$PINGATE" status pgdave 2>&1) && fail "pingate status pgdave succeeded: $status"
    assert_contains "$status" "was enrolled for pgcarol" "status pgdave"
    assert_contains "$status" "pingate remove pgdave" "status pgdave names the fix"
    local doctor; doctor=$("$PINGATE" doctor 2>&1) || true
    assert_contains "$doctor" "was enrolled for pgcarol" "doctor"
    assert_contains "$doctor" "fix: pingate remove pgdave" "doctor"
    "$PINGATE" remove pgdave > /dev/null || fail "pingate remove pgdave"
    [ ! -e /var/lib/pingate/61003.record ] || fail "the record is still there"
}

run_tests
