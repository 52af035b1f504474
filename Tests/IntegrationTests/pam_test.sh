#!/bin/bash
# pam_test.sh — pam_pingate.so through real libpam with the real setgid
# helper at its default path (/usr/libexec/pingate/pingate-verify) and the
# sandbox's /etc/pingate/pingate.conf: no helper= or conf= on the module line.
#
# pam/tests/pam_harness runs pam_authenticate on a private config directory
# (pam_start_confdir), as root here; every stack reads
#
#   auth [success=done ignore=ignore default=die] pam_pingate.so ARGS
#   auth required pam_test_authtok.so show        ("INFO NEXT authtok=...")
#
# so the module's code is the RESULT, except PAM_IGNORE, which falls through
# to NEXT and ends in PAM_PERM_DENIED.
#
# usage: bash Tests/IntegrationTests/pam_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
sandbox_enter "$@"

CONF="$SANDBOX/pam-conf"

# fresh [MODULE ARGS...]: empty store, cheap KDF, service "sudo" with ARGS.
fresh() {
    store_reset
    write_service "$CONF" sudo "$(module_line "$@")" "$(next_line)"
}

run() { pam_run "$CONF" "${SERVICE:-sudo}" "$@"; }

# --- the main path -----------------------------------------------------------

test_correct_pin_succeeds() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
    assert_eq 1 "$(prompts)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_wrong_pin_is_auth_err_and_counted_once() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice $'1397\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_contains "$out" "INFO Wrong PIN — "
    assert_eq 1 "$(record_failures pgalice)" "failures"
}

# The owner sees every guess, before typing the PIN (review 5, item 1): a
# job the user left running may have guessed, and the owner must know
# before spending the PIN. The notice comes before the question — an info
# line, or under PAM_SILENT (Debian's sudo) the question itself — and a
# success spends exactly what was shown. A status, which any job of the
# user's may ask (op=status, pingate status), never spends it.
test_the_owner_is_told_of_failed_attempts_before_typing_the_pin() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local first; first=$(date +%H:%M)
    run pgalice $'1397\n'
    run pgalice $'1398\n'
    assert_contains "$out" "INFO 1 failed PIN attempt since your last PIN sign-in, at " "before the second wrong PIN"
    # A job of pgalice's asks, the way the review's job did: nothing is spent.
    helper_request as pgalice op=status user=pgalice > "$SANDBOX/job-status"
    assert_contains "$(cat "$SANDBOX/job-status")" "unseen=2" "the job's status answer"
    as_user pgalice "$PINGATE" status > /dev/null 2>&1 || true
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "INFO 2 failed PIN attempts since your last PIN sign-in, the first at " "the notice"
    assert_contains "$(grep -A1 'failed PIN attempts' <<< "$out")" "PROMPT_ECHO_OFF PIN: " "the question right after the notice"
    local told; told=$(sed -n 's/.*the first at \([0-9:]*\)$/\1/p' <<< "$out")
    [ "$told" = "$first" ] || [ "$told" = "$(date +%H:%M)" ] || fail "told the first failure was at $told, expected $first"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result of the next success"
    assert_not_contains "$out" "failed PIN attempt" "the next success"

    run pgalice $'1399\n'
    run pgalice "$TEST_PIN"$'\n' --silent
    assert_eq PAM_SUCCESS "$(result)" "result of the silent success"
    assert_contains "$out" 'PROMPT_ECHO_OFF 1 failed PIN attempt since your last PIN sign-in, at ' "the notice in sudo's silent question"
    run pgalice "$TEST_PIN"$'\n'
    assert_not_contains "$out" "failed PIN attempt" "after it was shown"
}

# The notice is spent only where its application shows it (review 6, item
# 1). Debian's swaylock file is `auth include login`; login reaches the
# pam-auth-update profile's line (forward_pass, in common-auth), or a plain
# line an older `pingate enable login` wrote, neither with nonotice. The
# lockers drop info lines, so the owner's PIN at swaylock or i3lock leaves
# both failures unseen; sudo, through the same line, shows the notice in its
# silent question and spends it. (The included files by full path: libpam
# looks for them in /etc/pam.d, not in the harness's confdir.)
test_a_locker_reached_through_include_leaves_the_notice_unspent() {
    need_cli
    local line service
    for line in forward_pass ""; do
        fresh
        enroll pgalice "$TEST_PIN" --pin
        run pgalice $'1397\n'
        run pgalice $'1398\n'
        write_service "$CONF" common-auth "$(module_line $line)" "$(next_line)"
        write_service "$CONF" login "@include $CONF/common-auth"
        write_service "$CONF" swaylock "auth include $CONF/login"
        write_service "$CONF" i3lock "auth include $CONF/login"
        for service in swaylock i3lock; do
            SERVICE=$service run pgalice "$TEST_PIN"$'\n'
            assert_eq PAM_SUCCESS "$(result)" "$service through include ($line)"
            assert_contains "$(helper_status pgalice)" " unseen=2 " "unseen after the PIN at $service ($line)"
            assert_not_contains "$out" "failed PIN attempt" "what $service was told ($line)"
        done
        write_service "$CONF" sudo "@include $CONF/common-auth"
        run pgalice "$TEST_PIN"$'\n' --silent
        assert_eq PAM_SUCCESS "$(result)" "sudo through the same line ($line)"
        assert_contains "$out" "PROMPT_ECHO_OFF 2 failed PIN attempts since your last PIN sign-in" "sudo's question ($line)"
        assert_not_contains "$(helper_status pgalice)" "unseen=" "after sudo showed it ($line)"
    done
}

# Only attempts a person made count: a client that runs PAM again and again
# with the same typed buffer (a lock screen retrying on its own) spends one
# attempt, not the owner's whole allowance; the right PIN still works.
test_a_client_retrying_one_wrong_pin_spends_one_attempt() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    # The client: one process running PAM 1,000 times with the same typed
    # buffer (pam_harness --repeat, each run from pam_start to pam_end).
    printf '1397\n' > "$SANDBOX/typed"
    local start; start=$(date +%s%N)
    "$HARNESS" --confdir "$CONF" --service sudo --user pgalice --repeat 1000 < "$SANDBOX/typed" > "$SANDBOX/retries" 2>&1 || true
    echo "    1,000 identical wrong PINs in $(( ($(date +%s%N) - start) / 1000000 )) ms"
    assert_eq 1000 "$(grep -c '^RESULT PAM_AUTH_ERR$' "$SANDBOX/retries")" "answers that were PAM_AUTH_ERR"
    assert_eq 1000 "$(grep -c '^INFO Wrong PIN — 4 attempts left$' "$SANDBOX/retries")" "answers that were \"Wrong PIN — 4 attempts left\""
    assert_eq 1 "$(record_failures pgalice)" "failures after 1,000 identical wrong PINs"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the right PIN after them"
    assert_contains "$out" "INFO 1 failed PIN attempt since your last PIN sign-in" "the notice, before the question"
}

# Failures 1-4 are free and the 5th starts a timeout: after the first wrong
# PIN four attempts remain before a timeout, after the fourth one does.
test_wrong_answers_count_down_to_the_lockout() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local i expected=("" "4 attempts left" "3 attempts left" "2 attempts left" "1 attempt left")
    for i in 1 2 3 4; do
        run pgalice "139$i"$'\n'
        assert_contains "$out" "INFO Wrong PIN — ${expected[$i]}"$'\n' "answer to wrong PIN $i"
    done
    run pgalice $'1395\n'
    assert_contains "$out" "INFO PIN locked for 1 minute after 5 failed attempts" "answer to wrong PIN 5"
}

test_success_clears_the_failure_count() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice $'1397\n'
    run pgalice $'1398\n'
    assert_eq 2 "$(record_failures pgalice)" "failures after two wrong"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 0 "$(record_failures pgalice)" "failures after success"
}

test_not_enrolled_is_ignored_without_prompt() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin     # someone is enrolled, just not pgbob
    run pgbob ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 1 "$(grep -c '^INFO' <<< "$out")" "info lines (only NEXT)"
    assert_eq "not-enrolled" "$(helper_status pgbob)" "pgbob's status"
}

test_not_enrolled_needs_no_cli() {
    fresh
    run pgbob ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
}

test_pattern_accepts_each_typed_form() {
    need_cli; fresh
    enroll pgcarol "$TEST_PATTERN" --pattern
    local form
    for form in "1-5-9-6" "1 5 9 6" "1,5,9,6" "1596"; do
        run pgcarol "$form"$'\n'
        assert_eq PAM_SUCCESS "$(result)" "result for [$form]"
        assert_contains "$out" "PROMPT_ECHO_OFF Pattern: " "transcript for [$form]"
        assert_contains "$out" 'INFO Pattern grid — enter the cells in order, e.g. 1-5-9-6:\n  1  2  3\n  4  5  6\n  7  8  9'
    done
    assert_eq 0 "$(record_failures pgcarol)" "failures"
}

test_wrong_pattern_is_counted() {
    need_cli; fresh
    enroll pgcarol "$TEST_PATTERN" --pattern
    run pgcarol $'1-2-3-6\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_contains "$out" "INFO Wrong pattern — "
    assert_eq 1 "$(record_failures pgcarol)" "failures"
}

test_malformed_pin_is_not_counted() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice $'12\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_contains "$out" "INFO That is not a PIN"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# --- gates ---------------------------------------------------------------------

test_remote_host_is_ignored_without_prompt() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice "$TEST_PIN"$'\n' --rhost 192.0.2.7
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_allow_remote_prompts_a_remote_host() {
    need_cli; fresh allow_remote
    enroll pgalice "$TEST_PIN" --pin
    run pgalice "$TEST_PIN"$'\n' --rhost 192.0.2.7
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 1 "$(prompts)" "prompts"
}

# PAM items the helper would refuse as no UTF-8: a tty (only for the log)
# is left out, and a remote host is sent as "(unprintable)", which is as
# remote as any (not-local), instead of the whole request being refused.
test_a_tty_that_is_no_utf8_still_offers_the_pin() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice "$TEST_PIN"$'\n' --tty $'pts/\xe9'
    assert_eq PAM_SUCCESS "$(result)" "result"
}

test_a_remote_host_that_is_no_utf8_is_remote() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    run pgalice "$TEST_PIN"$'\n' --rhost $'h\xe9st'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$out" "offered only at the machine" "the line"
}

# Tunnels (ssh -R, a forwarded port) end at the loopback address.
test_localhost_is_remote() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local host
    for host in localhost 127.0.0.1 ::1; do
        run pgalice "$TEST_PIN"$'\n' --rhost "$host"
        assert_ignored
        assert_eq 0 "$(prompts)" "prompts (rhost $host)"
    done
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_five_wrong_lock_then_no_prompt() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local i
    for i in 1 2 3 4 5; do
        run pgalice "139$i"$'\n'
        assert_eq PAM_AUTH_ERR "$(result)" "result of wrong attempt $i"
    done
    assert_contains "$out" "INFO PIN locked for 1 minute after 5 failed attempts — use your password" "5th answer"
    # Now the right PIN is not even asked for; a second may have passed.
    run pgalice "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts while locked"
    grep -Eq '^INFO PIN locked for (1 minute|[0-9]+ seconds) after 5 failed attempts — use your password$' <<< "$out" \
        || fail "no lockout line: [$out]"
    assert_eq 5 "$(record_failures pgalice)" "failures (the locked attempt is not counted)"
}

test_a_timeout_restarted_by_a_reboot_runs_out_and_the_pin_is_offered_again() {
    # After a reboot the timeout restarts in full, and no client attempts
    # while the status says locked: the status itself writes the restart
    # (Verifier.restartTimeout), or the PIN would stay locked for good.
    need_cli; fresh
    printf 'lockout_timeouts = 2s\n' >> /etc/pingate/pingate.conf
    enroll pgalice "$TEST_PIN" --pin
    local i
    for i in 1 2 3 4 5; do run pgalice "139$i"$'\n'; done
    assert_contains "$out" "INFO PIN locked for 2 seconds after 5 failed attempts" "5th answer"
    # Another boot: the last failure's boot id is not this one's.
    python3 "$REPO_ROOT/Tests/Attack/record_tool.py" set "/var/lib/pingate/61001.record" \
        last_failure_boot_id=random last_failure_boot_clock=1 >/dev/null || fail "record_tool set"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq 0 "$(prompts)" "prompts right after the reboot"
    assert_contains "$out" "INFO PIN locked for 2 seconds after 5 failed attempts" "the full timeout, from now"
    sleep 3
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "the right PIN once the restarted timeout ran out"
    assert_eq 0 "$(record_failures pgalice)" "failures after the success"
}

test_locked_pattern_is_called_a_pattern() {
    need_cli; fresh
    enroll pgcarol "$TEST_PATTERN" --pattern
    local i
    local wrong=(1-2-3-6 1-2-3-5 1-4-7-8 3-2-1-4 9-8-7-4)
    for i in 0 1 2 3 4; do run pgcarol "${wrong[$i]}"$'\n'; done
    assert_contains "$out" "INFO Pattern locked for 1 minute after 5 failed attempts" "5th answer"
    run pgcarol "$TEST_PATTERN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts while locked"
    assert_contains "$out" "INFO Pattern locked for " "the status-time lockout line"
}

test_disabled_at_max_failures_until_unlocked() {
    need_cli; fresh
    printf 'free_failures = 2\nmax_failures = 3\n' >> /etc/pingate/pingate.conf
    enroll pgalice "$TEST_PIN" --pin
    local i
    for i in 1 2 3; do run pgalice "139$i"$'\n'; done
    assert_eq PAM_AUTH_ERR "$(result)" "3rd wrong result"
    local line="INFO PIN disabled after 3 failed attempts — use your password; an administrator can run: pingate unlock pgalice"
    assert_contains "$out" "$line" "3rd wrong answer"
    run pgalice "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts while disabled"
    assert_contains "$out" "$line" "message while disabled"
    "$PINGATE" unlock pgalice >/dev/null || fail "pingate unlock failed"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result after unlock"
}

test_retries_reprompt_with_the_real_helper() {
    need_cli; fresh retries=3
    enroll pgalice "$TEST_PIN" --pin
    run pgalice $'1397\n1398\n'"$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 3 "$(prompts)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_unknown_option_is_service_error() {
    need_cli; fresh frobnicate
    enroll pgalice "$TEST_PIN" --pin
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SERVICE_ERR "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
}

test_unknown_option_is_service_error_without_enrolment() {
    fresh frobnicate
    run pgbob ''
    assert_eq PAM_SERVICE_ERR "$(result)" "result"
}

# A service outside the list (sshd reaches the module through common-auth)
# is answered before anything about the user: an existing user and a name
# nobody has get the same silent PAM_IGNORE, with no message to the client.
test_a_service_outside_the_list_learns_nothing_about_the_user() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    write_service "$CONF" sshd "$(module_line)" "$(next_line)"
    local user
    for user in pgalice nosuchuser; do
        SERVICE=sshd run "$user" "$TEST_PIN"$'\n' --rhost 192.0.2.7
        assert_ignored
        assert_eq 0 "$(prompts)" "prompts for $user"
        assert_eq "" "$(grep "^INFO" <<< "$out" | grep -v "^INFO NEXT")" "what $user's client is told"
    done
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# A remote caller (sshd, through common-auth, with sudo's service name in
# the list) is refused by the locality rule before the user is looked up:
# an enrolled user, a user without a PIN and a name nobody has get the same
# answer, from the module and from the helper itself, so that a remote
# client cannot probe which accounts exist.
test_a_remote_caller_learns_nothing_about_the_user() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local user seen first="" answer first_answer=""
    for user in pgalice pgbob nosuchuser; do
        run "$user" "$TEST_PIN"$'\n' --rhost 192.0.2.7
        seen="$(result) prompts=$(prompts) $(grep "^INFO" <<< "$out" | grep -v "^INFO NEXT" || true)"
        [ -n "$first" ] || first=$seen
        assert_eq "$first" "$seen" "what the remote client of $user is told"
        answer=$(helper_request op=status "user=$user" service=sudo rhost=192.0.2.7 caller_uid=0)
        [ -n "$first_answer" ] || first_answer=$answer
        assert_eq "$first_answer" "$answer" "the helper's answer for $user"
    done
    assert_contains "$first" "offered only at the machine" "the answer"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_service_missing_from_the_config_list_is_ignored() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    echo "services = sudo" >> /etc/pingate/pingate.conf
    write_service "$CONF" i3lock "$(module_line)" "$(next_line)"   # in the default list
    SERVICE=i3lock run pgalice "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts for i3lock"
    SERVICE=sudo run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result for sudo, which is listed"
}

# --- forward_pass --------------------------------------------------------------

forward_stack() {
    write_service "$CONF" sudo \
        "auth [success=done default=ignore] $SANDBOX/pam_pingate.so forward_pass" \
        "$@"
}

test_forward_pass_pin_verifies() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    forward_stack "$(next_line)"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN or password: "
    assert_eq 1 "$(prompts)" "prompts"
}

test_forward_pass_password_becomes_authtok_uncounted() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    forward_stack "$(next_line)"
    run pgalice "$TEST_PASSWORD"$'\n'
    assert_contains "$out" "INFO NEXT authtok=$TEST_PASSWORD"
    assert_eq 0 "$(record_failures pgalice)" "failures"
    run pgalice $'12345678\n'        # all digits, but not a 4-digit PIN
    assert_contains "$out" "INFO NEXT authtok=12345678"
    assert_eq 0 "$(record_failures pgalice)" "failures after a digit password"
}

test_forward_pass_password_reaches_pam_unix() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    forward_stack "auth required pam_unix.so try_first_pass"
    run pgalice "$TEST_PASSWORD"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 1 "$(prompts)" "prompts (one for both)"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_forward_pass_wrong_pin_is_counted_and_passed_on() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    forward_stack "$(next_line)"
    run pgalice $'1397\n'
    assert_contains "$out" "INFO NEXT authtok=1397"
    assert_eq 1 "$(record_failures pgalice)" "failures"
}

run_tests
