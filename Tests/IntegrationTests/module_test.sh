#!/bin/bash
# module_test.sh — pam_pingate.so's own logic through real libpam.
#
# pam/tests/pam_harness runs pam_authenticate on a private config directory
# (pam_start_confdir), so no root is needed. The helper is
# pam/tests/fake-helper.sh, scripted per test; the real pingate-verify is
# tested elsewhere. Every stack reads:
#
#   auth optional  pam_test_authtok.so set     (PAM_AUTHTOK from --authtok)
#   auth $CONTROL  pam_pingate.so helper=FAKE conf=CONF ARGS
#   auth required  pam_test_authtok.so show    ("INFO NEXT authtok=...")
#
# With the default CONTROL, [success=done ignore=ignore default=die], the
# module's own code is the RESULT, except PAM_IGNORE: then the stack falls
# through to "NEXT", and libpam answers PAM_PERM_DENIED (no module decided).
#
# usage: bash Tests/IntegrationTests/module_test.sh   (TEST_FILTER=word to pick)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
pam_dir=$(cd "$here/../../pam" && pwd)
build="$pam_dir/build"
harness="$build/pam_harness"
module="$build/pam_pingate.so"
me=$(id -un)

make -s -C "$pam_dir" all harness >/dev/null || { echo "build failed"; exit 1; }

# A fresh directory with the fake helper, an enrolled PIN user and a stack.
setup() {
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    mkdir "$T/pam.d"
    cp "$pam_dir/tests/fake-helper.sh" "$T/fake-helper"
    echo "0 enrolled kind=pin failures=0" > "$T/status"
    echo "0 ok" > "$T/verify"
    CONTROL='[success=done ignore=ignore default=die]'
    stack
}

# stack [MODULE ARGS...]: (re)writes the service "sudo" with these arguments.
stack() {
    {
        echo "auth optional $build/pam_test_authtok.so set"
        echo "auth $CONTROL ${MODULE:-$module} helper=$T/fake-helper conf=$T/pingate.conf $*"
        echo "auth required $build/pam_test_authtok.so show"
    } > "$T/pam.d/sudo"
}

# pam_run INPUT [harness options]: sets $out (the transcript) and $rc.
pam_run() {
    local input=$1; shift
    out=$(printf '%s' "$input" | ${WRAPPER:-} "$harness" --confdir "$T/pam.d" \
        --service "${SERVICE:-sudo}" --user "$me" "$@") && rc=0 || rc=$?
}

result() { sed -n 's/^RESULT //p' <<< "$out"; }
prompts() { grep -c '^PROMPT_' <<< "$out" || true; }
requests() { ls "$T" | grep -c '^request\.' || true; }
request() { cat "$T/request.$1"; }

assert_ignored() {
    assert_contains "$out" "INFO NEXT authtok=" "transcript (fell through)"
    assert_eq PAM_PERM_DENIED "$(result)" "result"
}

# --- the main path --------------------------------------------------------

test_correct_pin_succeeds() {
    setup
    pam_run $'1234\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 0 "$rc" "exit status"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
    assert_not_contains "$out" "NEXT"
}

# The owner sees every guess, before typing the PIN: a status that reports
# failed attempts not yet told puts one line saying how many and when the
# first was before the question, and the verify says how many were told
# (notice=N), so that a success spends exactly those. Under PAM_SILENT
# (Debian's sudo) or quiet the line goes into the question itself.
test_the_owner_is_told_of_failed_attempts_before_the_question() {
    setup
    local first; first=$(date -d 'today 09:05' +%s)
    echo "0 enrolled kind=pin length=4 failures=0 unseen=2 since=$first" > "$T/status"
    echo "0 ok" > "$T/verify"
    pam_run $'1234\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "INFO 2 failed PIN attempts since your last PIN sign-in, the first at 09:05
PROMPT_ECHO_OFF PIN: " "the notice, then the question"
    assert_contains "$(cat "$T/request.2")" "notice=2
notice_since=$first" "the verify request (how many, and when the first was)"
    assert_not_contains "$(cat "$T/request.1")" "notice=" "the status request"
    echo "0 enrolled kind=pin length=4 failures=1 unseen=1 since=$(date -d '2026-01-02 10:30' +%s)" > "$T/status"
    rm -f "$T"/request.*
    pam_run $'1234\n' --silent
    assert_contains "$out" 'PROMPT_ECHO_OFF 1 failed PIN attempt since your last PIN sign-in, at 2026-01-02 10:30\nPIN: ' \
        "the notice in the silent question (the harness shows its newline as \\n)"
    assert_contains "$(cat "$T/request.2")" "notice=1" "the silent verify request"
}

# A client that shows nothing before its field (nonotice: i3lock, swaylock,
# hyprlock) is told nothing and says nothing was told: the notice waits,
# unspent, for a sign-in that shows it. A success answer never carries it.
test_a_nonotice_client_leaves_the_notice_unspent() {
    setup
    echo "0 enrolled kind=pin length=4 failures=0 unseen=2 since=$(date +%s)" > "$T/status"
    echo "0 ok" > "$T/verify"
    stack nonotice
    pam_run $'1234\n'
    assert_eq PAM_SUCCESS "$(result)" "result with nonotice"
    assert_not_contains "$out" "failed PIN attempt" "what the client was told"
    assert_not_contains "$(cat "$T/request.2")" "notice=" "the nonotice verify request"
}

# The application decides, not the line (review 6, item 1): swaylock,
# i3lock and hyprlock drop info lines, and Debian's swaylock file is `auth
# include login`, where login reaches the pam-auth-update profile's line
# (forward_pass, in common-auth) or a plain one an older `pingate enable
# login` wrote; neither has nonotice. PAM_SERVICE still names the locker
# (PINGATE_NO_INFO_SERVICES): it is told nothing and its verify says nothing
# was told, so the notice stays unspent (unseen stays 2 with the real
# helper: pam_test.sh). sudo and login, through the same lines, still tell it
# and spend it.
# include_stacks LINE_ARGS: common-auth holds the module with LINE_ARGS,
# login and sudo @include it, swaylock and i3lock `include` login (by full
# path: libpam looks for included files in /etc/pam.d, not in the confdir).
include_stacks() {
    {
        echo "auth optional $build/pam_test_authtok.so set"
        echo "auth $CONTROL ${MODULE:-$module} helper=$T/fake-helper conf=$T/pingate.conf $*"
        echo "auth required $build/pam_test_authtok.so show"
    } > "$T/pam.d/common-auth"
    echo "@include $T/pam.d/common-auth" > "$T/pam.d/login"
    echo "@include $T/pam.d/common-auth" > "$T/pam.d/sudo"
    echo "auth include $T/pam.d/login" > "$T/pam.d/swaylock"
    echo "auth include $T/pam.d/login" > "$T/pam.d/i3lock"
}

test_a_locker_without_info_lines_leaves_the_notice_unspent_through_include() {
    setup
    echo "0 enrolled kind=pin length=4 failures=0 unseen=2 since=$(date +%s)" > "$T/status"
    echo "0 ok" > "$T/verify"
    local line service
    for line in forward_pass ""; do
        include_stacks $line
        for service in swaylock i3lock; do
            rm -f "$T"/request.*
            SERVICE=$service pam_run $'1234\n'
            assert_eq PAM_SUCCESS "$(result)" "$service through include ($line)"
            assert_not_contains "$out" "failed PIN attempt" "what $service was told ($line)"
            assert_not_contains "$(cat "$T/request.2")" "notice=" "$service's verify ($line): nothing told, nothing spent"
        done
        rm -f "$T"/request.*
        SERVICE=login pam_run $'1234\n'
        assert_contains "$out" "INFO 2 failed PIN attempts since your last PIN sign-in" "login through the same line ($line)"
        assert_contains "$(cat "$T/request.2")" "notice=2" "login's verify ($line)"
        rm -f "$T"/request.*
        SERVICE=sudo pam_run $'1234\n' --silent
        assert_contains "$out" "PROMPT_ECHO_OFF 2 failed PIN attempts since your last PIN sign-in" "sudo's silent question ($line)"
        assert_contains "$(cat "$T/request.2")" "notice=2" "sudo's verify ($line)"
    done
}

# A wrong PIN in the conversation is not told by the success after it, even
# though its "Wrong PIN" line was shown: whoever answers the next question
# (a one-field lock screen waits at it) may not be the one who typed it, and
# the owner is to hear of it at the next sign-in. Only the notice told
# before the question is spent.
test_a_wrong_pin_in_the_conversation_is_left_for_the_next_notice() {
    setup
    local how
    for how in retries=3 again_or_password; do
        rm -f "$T"/request.*
        echo "0 enrolled kind=pin length=4 failures=0" > "$T/status"
        stack retries=3 ${how/retries=3/}
        printf '%s\n' "1 wrong failures=1 left=4" "0 ok" > "$T/verify"
        pam_run $'1111\n1234\n'
        assert_eq PAM_SUCCESS "$(result)" "result ($how)"
        assert_contains "$out" "INFO Wrong PIN — 4 attempts left" "the wrong PIN's line ($how)"
        assert_not_contains "$(cat "$T/request.3")" "notice=" "the verify after the wrong PIN ($how)"
    done
    rm -f "$T"/request.*
    echo "0 enrolled kind=pin length=4 failures=0 unseen=2 since=$(date +%s)" > "$T/status"
    stack retries=3
    pam_run $'1111\n1234\n'
    assert_contains "$(cat "$T/request.3")" "notice=2" "the verify after a notice of 2 and a wrong PIN"
}

test_wrong_pin_is_auth_err_with_attempts_left() {
    setup
    echo "1 wrong failures=2 left=3" > "$T/verify"
    pam_run $'1111\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_contains "$out" "INFO Wrong PIN — 3 attempts left"
}

test_one_attempt_left_is_singular() {
    setup
    echo "1 wrong failures=4 left=1" > "$T/verify"
    pam_run $'1111\n'
    assert_contains "$out" "INFO Wrong PIN — 1 attempt left"
}

test_not_enrolled_is_ignored_without_prompt_or_message() {
    setup
    echo "4 not-enrolled" > "$T/status"
    pam_run ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 1 "$(grep -c '^INFO' <<< "$out")" "info lines (only NEXT)"
}

test_requests_carry_the_protocol_fields() {
    setup
    pam_run $'4821\n' --tty pts/7
    assert_eq 2 "$(requests)" "requests"
    # caller_pid is the harness's own pid: the process the helper judges.
    local pid; pid=$(sed -n 's/^caller_pid=//p' "$T/request.1")
    assert_eq "$(printf 'pingate-verify/1\nop=status\nuser=%s\nservice=sudo\ntty=pts/7\ncaller_uid=%s\ncaller_pid=%s\nthen=verify' "$me" "$(id -u)" "$pid")" \
        "$(request 1)" "status request"
    assert_eq "$(printf 'pingate-verify/1\nop=verify\nuser=%s\nservice=sudo\ntty=pts/7\ncaller_uid=%s\ncaller_pid=%s\nsecret=4821' "$me" "$(id -u)" "$pid")" \
        "$(request 2)" "verify request"
    case "$pid" in ''|*[!0-9]*) fail "caller_pid [$pid] is not a process id" ;; esac
}

# --- one helper run per sign-in (pingate_protocol.h, FOLLOW-UP) ----------------

test_the_status_and_its_verify_share_one_helper_run() {
    setup
    pam_run $'4821\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 2 "$(requests)" "requests"
    assert_eq 1 "$(wc -l < "$T/runs")" "helper starts"
    assert_contains "$(cat "$T/fds.1")" "3" "the helper's descriptor 3 (the follow-up socket)"
}

test_a_wrong_pin_on_the_shared_run_counts_as_wrong() {
    setup
    echo "1 wrong failures=1 left=4" > "$T/verify"
    pam_run $'1111\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_eq 1 "$(wc -l < "$T/runs")" "helper starts"
}

# A PIN typed after the helper stopped waiting (it ends with exit 0 and no
# second line) is verified in a new run, not lost.
test_a_helper_that_stopped_waiting_gets_the_verify_in_a_new_run() {
    setup
    touch "$T/no-follow-up"
    pam_run $'4821\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 2 "$(wc -l < "$T/runs")" "helper starts"
}

# The same at a host whose SIGCHLD handler reaps any child (waitpid(-1)), as
# many daemons and lockers do: it reaps the helper that stopped waiting
# while the person types, so the module can neither reap it nor read its
# exit. The verify never reached it (the send fails: EPIPE): a new run.
test_a_helper_reaped_by_the_host_gets_the_verify_in_a_new_run() {
    setup
    touch "$T/no-follow-up"
    out=$(printf '4821\n' | "$harness" --confdir "$T/pam.d" --service sudo --user "$me" --reaping-host --typing-ms 300) && rc=0 || rc=$?
    assert_contains "$out" "HOST_REAPED 1" "the host reaped the first run (transcript: $out)"
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    assert_eq 2 "$(wc -l < "$T/runs")" "helper starts"
}

# No verify follows (the conversation failed, or a password was typed): the
# run ends before the module returns, and no helper is left behind.
test_a_run_no_verify_follows_ends_with_the_module() {
    setup
    pam_run ''
    assert_eq PAM_CONV_ERR "$(result)" "result"
    assert_eq 1 "$(requests)" "requests"
    assert_eq "" "$(pgrep -f "$T/fake-helper" || true)" "helpers still running"
}

# A host that ignores SIGCHLD would have the kernel reap a helper left
# running while it converses: then the status run ends, and the verify
# gets its own, as before.
test_a_host_that_ignores_sigchld_gets_two_runs() {
    setup
    out=$(printf '4821\n' | bash -c 'trap "" CHLD; exec "$@"' -- \
        "$harness" --confdir "$T/pam.d" --service sudo --user "$me") && rc=0 || rc=$?
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    assert_eq 2 "$(wc -l < "$T/runs")" "helper starts"
}

# The status said "enrolled" but the run ends with another exit: that
# answer did not fit, so the verify gets no answer and never succeeds.
# While a helper runs, SIGCHLD's SIG_IGN is set aside so the module can
# reap it; a child of the host's own that exits meanwhile became a zombie
# the host, which relies on SIG_IGN, never waits for. The module reaps what
# the kernel would have when it gives SIG_IGN back.
test_a_host_that_ignores_sigchld_is_left_no_zombie() {
    setup
    echo "sleep 0.4 0 enrolled kind=pin failures=0" > "$T/status"
    pam_run $'4821\n' --ignoring-host
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "HOST_CHILD gone" "the host's own child (transcript: $out)"
}

test_an_enrolled_status_with_another_exit_fails_the_shared_run() {
    setup
    echo "4 enrolled kind=pin failures=0" > "$T/status"
    pam_run $'4821\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
    # Typed once the helper has surely ended: the verify's send then fails
    # (EPIPE), and the exit the module reaps still contradicts the status.
    pam_run $'4821\n' --typing-ms 300
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result, typed after the helper ended"
}

test_conf_path_is_passed_to_the_helper() {
    setup
    pam_run $'1234\n'
    assert_eq "$(printf -- '--config\n%s' "$T/pingate.conf")" "$(cat "$T/argv.1")" "helper arguments"
}

test_pattern_shows_legend_then_pattern_prompt() {
    setup
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    pam_run $'1-5-9-6\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" 'INFO Pattern grid — enter the cells in order, e.g. 1-5-9-6:\n  1  2  3\n  4  5  6\n  7  8  9'
    assert_contains "$out" "PROMPT_ECHO_OFF Pattern: "
    [ "$(grep -n '^INFO Pattern grid' <<< "$out" | cut -d: -f1)" -lt \
      "$(grep -n '^PROMPT_ECHO_OFF Pattern' <<< "$out" | cut -d: -f1)" ] || fail "legend after prompt"
}

test_pattern_legend_numbers_a_4x4_grid() {
    setup
    echo "0 enrolled kind=pattern grid=4 failures=0" > "$T/status"
    pam_run $'1-2-3-4\n'
    assert_contains "$out" '\n 13 14 15 16'
}

test_each_typed_form_reaches_the_helper_unchanged() {
    setup
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    local form
    for form in "1-5-9-6" "1 5 9 6" "1,5,9,6" "1596"; do
        rm -f "$T"/request.* "$T"/argv.*
        pam_run "$form"$'\n'
        assert_contains "$(request 2)" $'\nsecret='"$form" "request for [$form]"
    done
}

test_prompt_option_replaces_the_prompt() {
    setup
    stack "prompt=Code:"
    pam_run $'1234\n'
    assert_contains "$out" "PROMPT_ECHO_OFF Code:"
}

test_conversation_eof_is_never_success() {
    setup
    pam_run ''
    assert_eq PAM_CONV_ERR "$(result)" "result"
    assert_eq 1 "$(requests)" "requests (status only)"
}

# --- gates -----------------------------------------------------------------

# Whether the caller is at the machine, the helper decides (LocalityRule);
# the module passes what it knows and obeys a not-local answer.
test_a_not_local_answer_is_ignored_without_prompt() {
    setup
    echo "8 not-local the request comes from 192.0.2.7" > "$T/status"
    pam_run '' --rhost 192.0.2.7
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 1 "$(requests)" "helper runs (status only)"
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine — use your password"
}

test_a_not_local_answer_with_quiet_shows_nothing() {
    setup
    stack quiet
    echo "8 not-local the request comes from 192.0.2.7" > "$T/status"
    pam_run '' --rhost 192.0.2.7
    assert_ignored
    assert_eq 1 "$(grep -c '^INFO' <<< "$out")" "info lines (only NEXT)"
}

test_a_not_local_answer_to_a_verification_is_ignored() {
    setup
    echo "8 not-local session 4 is remote" > "$T/verify"
    pam_run $'1234\n'
    assert_ignored
    assert_contains "$out" "INFO PIN sign-in is offered only at the machine"
}

test_a_not_local_word_with_another_exit_status_is_no_answer() {
    setup
    echo "0 not-local session 4 is remote" > "$T/status"
    pam_run ''
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
}

test_the_request_carries_the_callers_uid_pid_and_rhost() {
    setup
    pam_run $'1234\n' --rhost 192.0.2.7 --tty pts/4
    assert_contains "$(request 1)" "rhost=192.0.2.7" "status request"
    assert_contains "$(request 1)" "caller_uid=$(id -u)" "status request"
    assert_contains "$(request 1)" "caller_pid=" "status request"
    assert_contains "$(request 2)" "caller_uid=$(id -u)" "verify request"
    assert_not_contains "$(request 1)" "allow_remote" "status request"
}

# A remote host that cannot travel on a request line is still remote.
test_an_unprintable_rhost_is_sent_as_a_placeholder() {
    setup
    pam_run $'1234\n' --rhost $'evil\033[2Jhost'
    assert_contains "$(request 1)" "rhost=(unprintable)" "status request"
}

test_allow_remote_prompts_remote_hosts() {
    setup
    stack allow_remote
    pam_run $'1234\n' --rhost 192.0.2.7
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$(request 2)" "rhost=192.0.2.7"
    assert_contains "$(request 1)" "allow_remote=1"
}

# Where a PIN is offered is pingate.conf's `services`, which the helper
# applies (pingate_verify's not-offered): the module always names the
# service, and stays out silently when told.
test_a_service_the_helper_does_not_offer_is_ignored_silently() {
    setup
    SERVICE=sshd
    cp "$T/pam.d/sudo" "$T/pam.d/sshd"
    echo "9 not-offered sshd" > "$T/status"
    pam_run ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_not_contains "$out" "INFO PIN" "a message"
    assert_contains "$(cat "$T/request.1")" "service=sshd" "the request"
}

# The first sign-in of a boot takes the password at a login screen: the
# helper says so (password-first), the module passes it on and stays out.
test_password_first_is_said_and_ignored() {
    setup
    echo "10 password-first uid 1000 has no session yet" > "$T/status"
    pam_run ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$out" "INFO The first sign-in since the machine started takes your password; the PIN unlocks after that"
    pam_run '' --silent
    assert_not_contains "$out" "first sign-in" "under PAM_SILENT"
}

# A request without a service would be the admin CLI's, to which the list
# does not apply: the module never leaves it out.
test_the_service_is_sent_even_when_unprintable() {
    setup
    cp "$T/pam.d/sudo" "$T/pam.d/$(printf 'svc\033x')"
    SERVICE=$(printf 'svc\033x') pam_run $'1234\n'
    assert_contains "$(cat "$T/request.1")" "service=(unprintable)" "the request"
}

# The list has one reader, the helper: `services=` on the module's line is
# no option (it never was documented), and an unknown option is an error.
test_services_on_the_module_line_is_an_unknown_option() {
    setup
    stack "services=sudo,login"
    pam_run $'1234\n'
    assert_eq PAM_SERVICE_ERR "$(result)" "result"
    assert_eq 0 "$(requests)" "helper runs"
}

# --- locked and disabled ---------------------------------------------------

test_locked_shows_one_line_and_no_prompt() {
    setup
    echo "2 locked seconds=240 failures=5" > "$T/status"
    pam_run ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$out" "INFO PIN locked for 4 minutes after 5 failed attempts — use your password"
}

test_locked_durations_round_up_and_agree_in_number() {
    setup
    echo "2 locked seconds=61 failures=5" > "$T/status"
    pam_run ''
    assert_contains "$out" "locked for 2 minutes after 5"
    echo "2 locked seconds=1 failures=6" > "$T/status"
    pam_run ''
    assert_contains "$out" "locked for 1 second after 6"
    echo "2 locked seconds=60 failures=5" > "$T/status"
    pam_run ''
    assert_contains "$out" "locked for 1 minute after 5"
}

# quiet: no word of the lockout, no question (under PAM_SILENT too).
test_locked_message_respects_quiet() {
    setup
    echo "2 locked seconds=240 failures=5" > "$T/status"
    stack quiet
    pam_run ''
    assert_not_contains "$out" "locked"
    pam_run '' --silent
    assert_not_contains "$out" "locked" "quiet under PAM_SILENT"
    assert_eq 0 "$(prompts)" "prompts under quiet and PAM_SILENT"
}

# --- PAM_SILENT: only questions reach the person -----------------------------
#
# Debian's sudo and sudo-rs pass PAM_SILENT and show only questions. What is
# said of the PIN (wrong and counted, locked, disabled) goes above the
# module's next question; with no PIN question left the module asks the
# password itself: the answer is left as PAM_AUTHTOK for the next module,
# never sent to the helper, and the module steps aside (PAM_IGNORE).

# silent_question TEXT: the module's password question, TEXT on the line above it
# (the harness shows the newline as \\n).
silent_question() { printf 'PROMPT_ECHO_OFF %s\\nPassword (not your PIN) for %s: ' "$1" "$me"; }

test_under_pam_silent_a_locked_pin_says_why_in_the_password_question() {
    setup
    echo "2 locked seconds=59 failures=5" > "$T/status"
    pam_run $'hunter2\n' --silent
    assert_eq 1 "$(prompts)" "prompts"
    assert_contains "$out" "$(silent_question 'PIN locked for 59 seconds after 5 failed attempts — use your password')" "the question"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "the answer, left for the next module"
    assert_eq PAM_PERM_DENIED "$(result)" "result (the module stepped aside)"
    assert_eq 1 "$(requests)" "helper requests (the status only: the answer is not tried, not counted)"
    echo "3 disabled failures=10" > "$T/status"
    rm -f "$T"/request.*
    pam_run $'hunter2\n' --silent
    assert_contains "$out" "$(silent_question "PIN disabled after 10 failed attempts — use your password; an administrator can run: pingate unlock $me")" "disabled"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "disabled: the answer, left for the next module"
    assert_eq 1 "$(requests)" "helper requests while disabled"
    echo "2 locked seconds=3600 failures=6" > "$T/status"
    pam_run $'hunter2\n' --silent
    assert_contains "$out" "PIN locked for 60 minutes after 6 failed attempts" "a lockout in minutes"
}

# The same question on forward_pass's line (the pam-auth-update profile):
# while locked it asks nothing today, then pam_unix asks; now the question
# says why. Not on again_or_password's (one-field lock screens: their own
# flow), not under use_first_pass (never a question), not where an earlier
# module left a password, and an empty answer is handed on to nobody.
test_under_pam_silent_the_locked_question_comes_only_where_it_can() {
    setup
    echo "2 locked seconds=59 failures=5" > "$T/status"
    stack forward_pass
    pam_run $'hunter2\n' --silent
    assert_contains "$out" "$(silent_question 'PIN locked for 59 seconds after 5 failed attempts — use your password')" "forward_pass"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "forward_pass: the answer, left for the next module"
    local args what
    for args in "again_or_password" "use_first_pass" ""; do
        stack $args
        what=${args:-"a password an earlier module left"}
        if [ -z "$args" ]; then pam_run '' --silent --authtok 'set before'; else pam_run $'hunter2\n' --silent; fi
        assert_eq 0 "$(prompts)" "prompts ($what)"
        assert_not_contains "$out" "locked" "the transcript ($what)"
    done
    assert_contains "$out" "INFO NEXT authtok=set before" "the earlier module's password stays"
    stack
    pam_run $'\n' --silent
    assert_eq 1 "$(prompts)" "prompts, Enter"
    assert_contains "$out" "INFO NEXT authtok=(unset)" "an empty answer is handed on to nobody"
    assert_ignored
}

# A wrong PIN with no PIN question left: the next question is the password's,
# and says how many attempts are left; the wrong PIN that starts the lockout
# says the lockout. Only the PIN went to the helper.
test_under_pam_silent_a_wrong_pin_is_told_in_the_password_question() {
    setup
    echo "0 enrolled kind=pin length=4 failures=0" > "$T/status"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    pam_run $'1111\nhunter2\n' --silent
    assert_eq 2 "$(prompts)" "prompts"
    assert_eq "PROMPT_ECHO_OFF PIN: " "$(grep -m 1 '^PROMPT_' <<< "$out")" "the first question"
    assert_contains "$out" "$(silent_question 'Wrong PIN — 4 attempts left')" "the second question"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "the answer, left for the next module"
    assert_eq 2 "$(requests)" "helper requests (status, the PIN's verify)"
    assert_contains "$(request 2)" "secret=1111" "the verify is the PIN's"
    echo "1 wrong failures=5 left=0 locked=60" > "$T/verify"
    rm -f "$T"/request.*
    pam_run $'1111\nhunter2\n' --silent
    assert_contains "$out" "$(silent_question 'PIN locked for 1 minute after 5 failed attempts — use your password')" "the wrong PIN that locks"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "after the locking PIN: the answer, left for the next module"
    assert_eq 2 "$(requests)" "helper requests after the locking PIN"
}

# A pattern's owner is told "not your pattern" in the same place.
test_under_pam_silent_a_wrong_pattern_is_told_in_the_password_question() {
    setup
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    pam_run $'1-2-3-6\nhunter2\n' --silent
    assert_eq 2 "$(prompts)" "prompts (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF Wrong pattern — 4 attempts left\\nPassword (not your pattern) for $me: " "the second question"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "the answer, left for the next module"
}

# retries=2: the next PIN question carries the line; the password question
# comes after the last. forward_pass asks nothing more: its one answer is
# already left for the password module (it may be the password).
test_under_pam_silent_the_next_pin_question_carries_the_wrong_pin() {
    setup
    echo "0 enrolled kind=pin length=4 failures=0" > "$T/status"
    printf '%s\n' "1 wrong failures=1 left=4" "1 wrong failures=2 left=3" > "$T/verify"
    stack retries=2
    pam_run $'1111\n2222\nhunter2\n' --silent
    assert_eq 3 "$(prompts)" "prompts"
    assert_contains "$out" 'PROMPT_ECHO_OFF Wrong PIN — 4 attempts left\nPIN: ' "the second PIN question"
    assert_contains "$out" "$(silent_question 'Wrong PIN — 3 attempts left')" "the password question"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "the answer, left for the next module"
    stack forward_pass
    echo "1 wrong failures=1 left=4" > "$T/verify"
    pam_run $'1111\nhunter2\n' --silent
    assert_eq 1 "$(prompts)" "forward_pass: prompts"
    assert_eq PAM_AUTH_ERR "$(result)" "forward_pass: result"
}

# Without PAM_SILENT nothing changes: info lines, and the module's own result.
test_without_pam_silent_the_pin_is_told_in_info_lines_as_before() {
    setup
    echo "0 enrolled kind=pin length=4 failures=0" > "$T/status"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    pam_run $'1111\nhunter2\n'
    assert_eq 1 "$(prompts)" "prompts after a wrong PIN"
    assert_contains "$out" "INFO Wrong PIN — 4 attempts left" "the info line"
    assert_eq PAM_AUTH_ERR "$(result)" "result after a wrong PIN"
    echo "2 locked seconds=59 failures=5" > "$T/status"
    pam_run $'hunter2\n'
    assert_eq 0 "$(prompts)" "prompts while locked"
    assert_contains "$out" "INFO NEXT authtok=(unset)" "nothing handed on while locked"
}

test_disabled_shows_unlock_hint_and_no_prompt() {
    setup
    echo "3 disabled failures=10" > "$T/status"
    pam_run ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$out" "INFO PIN disabled after 10 failed attempts — use your password; an administrator can run: pingate unlock $me"
}

test_wrong_answer_that_starts_a_lockout_says_so() {
    setup
    echo "1 wrong failures=5 left=0 locked=60" > "$T/verify"
    stack retries=3
    pam_run $'1111\n2222\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_eq 1 "$(prompts)" "prompts (no retry while locked)"
    assert_contains "$out" "INFO PIN locked for 1 minute after 5 failed attempts"
}

# --- options and retries ---------------------------------------------------

test_unknown_option_is_service_error() {
    setup
    stack frobnicate
    pam_run $'1234\n'
    assert_eq PAM_SERVICE_ERR "$(result)" "result"
    assert_eq 0 "$(requests)" "helper runs"
}

test_bad_option_values_are_service_errors() {
    setup
    local arg
    for arg in retries=0 retries=11 retries=x retries quiet=1 helper=relative prompt=; do
        stack "$arg"
        pam_run $'1234\n'
        assert_eq PAM_SERVICE_ERR "$(result)" "result for [$arg]"
    done
}

test_forward_pass_with_again_or_password_is_a_service_error() {
    setup
    stack forward_pass again_or_password
    pam_run $'1234\n'
    assert_eq PAM_SERVICE_ERR "$(result)" "result"
    assert_eq 0 "$(requests)" "helper runs"
}

test_retries_reprompt_while_wrong() {
    setup
    printf '1 wrong failures=1 left=4\n1 wrong failures=2 left=3\n0 ok\n' > "$T/verify"
    stack retries=3
    pam_run $'1111\n2222\n4821\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 3 "$(prompts)" "prompts"
    assert_contains "$(request 4)" "secret=4821"
}

# again_or_password (the one-field lock screens: KDE, MATE, Cinnamon,
# GNOME): every question is "PIN or password", without a colon (Cinnamon
# shows a question with "password:" as its own "Please enter your
# password..."). The right PIN after a wrong one unlocks; a password goes
# on, uncounted and unverified, as PAM_AUTHTOK to the next module.
test_after_a_wrong_pin_again_or_password_takes_the_right_pin() {
    setup
    printf '1 wrong failures=1 left=4\n0 ok\n' > "$T/verify"
    stack retries=2 again_or_password
    pam_run $'1111\n4821\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq $'PROMPT_ECHO_OFF PIN or password\nINFO Wrong PIN — 4 attempts left\nPROMPT_ECHO_OFF PIN or password' \
        "$(grep -e '^PROMPT_' -e '^INFO' <<< "$out")" "the questions and lines"
    assert_contains "$(request 3)" "secret=4821"
}

# A pattern's questions name the pattern, and its legend comes before each.
test_again_or_password_asks_for_the_pattern_or_password() {
    setup
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    printf '1 wrong failures=1 left=4\n0 ok\n' > "$T/verify"
    stack retries=2 again_or_password
    pam_run $'1-2-3-6\n1-5-9-6\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq $'PROMPT_ECHO_OFF Pattern or password\nPROMPT_ECHO_OFF Pattern or password' "$(grep '^PROMPT_' <<< "$out")" "the questions"
    assert_eq 2 "$(grep -c '^INFO Pattern grid' <<< "$out")" "legends"
}

test_after_a_wrong_pin_again_or_password_hands_a_password_on() {
    setup
    echo "1 wrong failures=1 left=4" > "$T/verify"
    stack retries=2 again_or_password
    pam_run $'1111\nhunter2 horse\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=hunter2 horse" "what the next module gets"
    assert_eq 2 "$(requests)" "requests (status + the one PIN)"
}

test_again_or_password_hands_a_password_on_from_the_first_question() {
    setup
    stack retries=2 again_or_password
    pam_run $'hunter2 horse\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=hunter2 horse" "what the next module gets"
    assert_eq 1 "$(requests)" "requests (the status only: a password is not sent)"
}

# An all-digit password of another length than the PIN (the status says
# how many digits it has) is the password: handed on, not sent. The
# one-field screens' line ends the try on auth_err (PAMClient's
# wrongPINEndsTheTry), so asking the helper, which answers malformed, would
# keep such a password from ever reaching pam_unix.
test_again_or_password_hands_on_digits_that_cannot_be_the_pin() {
    setup
    echo "0 enrolled kind=pin length=4 failures=0" > "$T/status"
    stack retries=2 again_or_password
    pam_run $'12345678\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=12345678" "what the next module gets"
    assert_eq 1 "$(requests)" "requests (the status only)"
    pam_run $'4821\n'
    assert_eq PAM_SUCCESS "$(result)" "the PIN's own length is verified"
}

# Where the status gives the PIN's length, only that length decides, never
# a helper's malformed: that is judged by pingate.conf's rules, which may
# have changed since the PIN was enrolled (a 4-digit PIN under
# pin_min_length = 6), so a malformed answer of the PIN's length may be the
# PIN and is never handed on; nor is a pattern's answer, unless the helper
# rules it out (malformed never, below).
test_again_or_password_never_hands_on_what_may_be_the_pin() {
    setup
    echo "5 malformed a PIN has 6 digits" > "$T/verify"
    stack retries=1 again_or_password
    echo "0 enrolled kind=pin length=4 failures=0" > "$T/status"
    pam_run $'4821\n'
    assert_not_contains "$out" "NEXT authtok" "a malformed answer of the PIN's length"
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    pam_run $'1-5-9-5\n'
    assert_not_contains "$out" "NEXT authtok" "a pattern's malformed answer"
}

# Issue 40, item 5: a PIN enrolled before lengths were kept (the status
# gives no length=N) and an all-digit password of 4 to 12 digits at a field
# that takes both. The helper answers `malformed` without `never` (the
# digits break pingate.conf's PIN length, a rule older PINs may predate),
# and the password must still get through with every line `pingate
# enable` writes: again_or_password (the one-field lock screens, whose
# auth_err=die would otherwise end every try before pam_unix), forward_pass
# (swaylock, hyprlock and the Debian profile) and a plain `sufficient` line
# (sudo, i3lock: pam_unix asks on its own). Nothing is counted: malformed.
test_a_digit_password_gets_through_every_enable_line_for_a_pin_without_a_length() {
    setup
    echo "5 malformed a PIN has 4 to 4 digits, not 6" > "$T/verify"
    local line
    for line in "retries=2 again_or_password" "again_or_password announce" "again_or_password nonotice"; do
        stack $line
        pam_run $'902417\n'
        assert_ignored
        assert_contains "$out" "INFO NEXT authtok=902417" "what pam_unix gets after '$line'"
        assert_not_contains "$out" "That is not a PIN" "the transcript after '$line'"
    done
    stack forward_pass nonotice
    pam_run $'902417\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=902417" "what pam_unix gets after forward_pass"
    CONTROL=sufficient
    stack nonotice
    pam_run $'902417\n902417\n902417\n902417\n'
    assert_contains "$out" "INFO NEXT" "the stack after a plain sufficient line reaches pam_unix, which asks on its own"
}

# What the helper says is the password after all (issue 32): the wrong
# answer of last time again ("repeated": not counted twice), and an answer
# no credential of the user's can be ("malformed never": a pattern user's
# all-digit password) are handed on, at any question, with nothing said;
# auth_err=die would otherwise keep them from pam_unix for ever.
test_again_or_password_hands_on_the_last_wrong_answer_typed_again() {
    setup
    printf '1 wrong failures=1 left=4\n1 wrong failures=1 left=4 repeated\n' > "$T/verify"
    stack retries=2 again_or_password
    pam_run $'7391\n7391\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=7391" "what the next module gets"
    assert_eq 1 "$(grep -c '^INFO Wrong PIN' <<< "$out")" "wrong-PIN lines (the first answer only)"
    assert_eq 3 "$(requests)" "requests (status + both answers)"
    printf '1 wrong failures=1 left=4 repeated\n' > "$T/verify"
    pam_run $'7391\n'
    assert_contains "$out" "INFO NEXT authtok=7391" "at the first question"
    assert_not_contains "$out" "Wrong PIN" "the transcript"
}

test_again_or_password_hands_on_what_is_never_a_credential() {
    setup
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    echo "5 malformed never cell 0 is outside a 3×3 grid (cells 1-9)" > "$T/verify"
    stack retries=2 again_or_password
    pam_run $'20240101\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=20240101" "what the next module gets"
    assert_not_contains "$out" "That is not a pattern" "the transcript"
}

# A first wrong answer is still counted by the helper and ends the try:
# nothing handed on, whatever comes after the word.
test_again_or_password_never_hands_on_a_first_wrong_pin() {
    setup
    echo "1 wrong failures=1 left=4 repeated=1 never" > "$T/verify"
    stack again_or_password
    pam_run $'1397\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_not_contains "$out" "NEXT authtok" "the transcript"
}

# announce (KDE's lock screen, which shows info lines but labels its field
# "Password" whatever the prompt says): one line before the first question
# says that a PIN or the password is taken. Not before the second (the
# wrong-PIN line is there), and not without the option: clients that show
# the prompt would say it twice.
test_announce_says_a_pin_is_taken_once_before_the_first_question() {
    setup
    printf '1 wrong failures=1 left=4\n0 ok\n' > "$T/verify"
    stack retries=2 again_or_password announce
    pam_run $'1111\n4821\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq "INFO Type your PIN, or your password" "$(grep -m 1 -B 1 '^PROMPT_' <<< "$out" | head -n 1)" "the line before the first prompt"
    assert_eq 1 "$(grep -c '^INFO Type your PIN, or your password$' <<< "$out")" "announcements"
    stack retries=2 again_or_password
    pam_run $'1111\n4821\n'
    assert_not_contains "$out" "Type your PIN" "the transcript without announce"
}

# A pattern's announcement comes before the legend; forward_pass's single
# question is announced too.
test_announce_names_the_pattern_and_precedes_forward_pass_too() {
    setup
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    stack again_or_password announce
    pam_run $'1-5-9-6\n'
    assert_eq "INFO Type your pattern, or your password" "$(grep -m 1 '^INFO' <<< "$out")" "the first line"
    assert_contains "$out" "INFO Pattern grid" "the legend after it"
    echo "0 enrolled kind=pin failures=0" > "$T/status"
    stack forward_pass announce
    pam_run $'4821\n'
    assert_eq "INFO Type your PIN, or your password" "$(grep -m 1 -B 1 '^PROMPT_' <<< "$out" | head -n 1)" "the line before forward_pass's prompt"
}

# Like every info line: an application that asks for silence (PAM_SILENT)
# or an admin's quiet drops it; the question itself stays.
test_announce_respects_quiet_and_pam_silent() {
    setup
    stack again_or_password announce
    pam_run $'4821\n' --silent
    assert_not_contains "$out" "Type your PIN" "the transcript under PAM_SILENT"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN or password"
    stack again_or_password announce quiet
    pam_run $'4821\n'
    assert_not_contains "$out" "Type your PIN" "the transcript with quiet"
    assert_eq PAM_SUCCESS "$(result)" "result"
}

test_retries_stop_at_the_limit() {
    setup
    echo "1 wrong failures=1 left=4" > "$T/verify"
    stack retries=3
    pam_run $'1\n2\n3\n4\n5\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_eq 3 "$(prompts)" "prompts"
    assert_eq 4 "$(requests)" "requests (status + 3 verify)"
}

test_malformed_answer_explains_and_counts_against_retries() {
    setup
    printf '5 malformed a PIN has 4 digits\n0 ok\n' > "$T/verify"
    stack retries=2
    pam_run $'12\n1234\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "INFO That is not a PIN"
    setup
    echo "5 malformed a PIN has 4 digits" > "$T/verify"
    pam_run $'12\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result with retries=1"
}

test_secret_with_control_characters_is_never_sent() {
    setup
    pam_run $'12\t34\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_eq 1 "$(requests)" "requests (status only)"
}

test_use_first_pass_takes_authtok_without_prompt() {
    setup
    stack use_first_pass
    pam_run '' --authtok 4821
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$(request 2)" "secret=4821"
}

test_use_first_pass_without_authtok_never_prompts() {
    setup
    stack use_first_pass
    pam_run $'1234\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
}

# The mistyped PIN in PAM_AUTHTOK was spent as a PIN: after the re-prompted
# PIN succeeds, the next module (pam_gnome_keyring, ...) must not get it.
test_try_first_pass_prompts_after_a_wrong_authtok() {
    setup
    printf '1 wrong failures=1 left=4\n0 ok\n' > "$T/verify"
    CONTROL='[success=ok default=ignore]'   # success goes on to the probe
    stack try_first_pass retries=2
    pam_run $'4821\n' --authtok 1111
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 1 "$(prompts)" "prompts"
    assert_contains "$(request 2)" "secret=1111"
    assert_contains "$out" "INFO NEXT authtok=(unset)" "what the next module sees"
}

# --- forward_pass ------------------------------------------------------------

test_forward_pass_one_prompt_success() {
    setup
    stack forward_pass
    pam_run $'4821\n'
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN or password: "
    assert_eq 1 "$(prompts)" "prompts"
}

test_forward_pass_password_goes_to_next_module_uncounted() {
    setup
    stack forward_pass
    pam_run $'correct horse!\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=correct horse!"
    assert_eq 1 "$(requests)" "requests (status only: a password never reaches the helper)"
}

test_forward_pass_malformed_pin_is_ignored() {
    setup
    echo "5 malformed a PIN has 4 digits" > "$T/verify"
    stack forward_pass
    pam_run $'12\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=12"
}

test_forward_pass_wrong_pin_is_counted_then_forwarded() {
    setup
    echo "1 wrong failures=1 left=4" > "$T/verify"
    stack forward_pass
    pam_run $'1111\n'
    assert_eq PAM_AUTH_ERR "$(result)" "module result"
    assert_eq 2 "$(requests)" "requests (verified)"
    CONTROL='[success=done default=ignore]'   # as in pam-configs/pingate
    stack forward_pass
    pam_run $'1111\n'
    assert_contains "$out" "INFO NEXT authtok=1111"
}

# forward_pass does the same with the last wrong answer again: not counted,
# so left to the next module without a second "Wrong PIN" (the same as for
# a malformed answer).
test_forward_pass_leaves_the_last_wrong_answer_again_to_the_next_module() {
    setup
    echo "1 wrong failures=1 left=4 repeated" > "$T/verify"
    stack forward_pass
    pam_run $'7391\n'
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=7391"
    assert_not_contains "$out" "Wrong PIN" "the transcript"
}

test_forward_pass_uses_an_existing_authtok() {
    setup
    stack forward_pass
    pam_run '' --authtok 4821
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
}

# use_first_pass means never prompt, under forward_pass too.
test_forward_pass_with_use_first_pass_and_no_authtok_never_prompts() {
    setup
    stack forward_pass use_first_pass
    pam_run $'hunter2 horse\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
}

test_forward_pass_not_enrolled_leaves_the_prompt_to_the_password() {
    setup
    echo "4 not-enrolled" > "$T/status"
    stack forward_pass
    pam_run ''
    assert_ignored
    assert_contains "$out" "INFO NEXT authtok=(unset)"
}

# --- a helper that misbehaves is never success ------------------------------

test_helper_error_is_authinfo_unavail_without_prompt() {
    setup
    echo "6 error cannot read /var/lib/pingate" > "$T/status"
    pam_run $'1234\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
}

test_exit_status_and_answer_must_agree() {
    setup
    local line
    for line in "1 ok" "6 ok" "0 wrong failures=1 left=4" "0 (none)" "0 okay" "0 ok trailing" "0 enrolled kind=pin"; do
        echo "$line" > "$T/verify"
        pam_run $'1234\n'
        [ "$line" = "0 ok trailing" ] && { assert_eq PAM_SUCCESS "$(result)" "unknown words are ignored"; continue; }
        assert_not_contains "$(result)" PAM_SUCCESS "result for [$line]"
        assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result for [$line]"
    done
}

test_status_answers_that_do_not_fit_are_errors() {
    setup
    local line
    for line in "0 ok" "0 enrolled" "0 enrolled kind=pattern" "0 enrolled kind=pattern grid=9" "4 enrolled kind=pin"; do
        echo "$line" > "$T/status"
        pam_run $'1234\n'
        assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result for [$line]"
        # A whole "enrolled" line keeps the run open for the verify, so its
        # exit is known only when the run ends: the PIN may have been asked
        # for, but the verify then fails closed (and see
        # test_an_enrolled_status_with_another_exit_fails_the_shared_run).
        [ "$line" = "4 enrolled kind=pin" ] || assert_eq 0 "$(prompts)" "prompts for [$line]"
    done
}

test_helper_killed_by_a_signal_is_never_success() {
    setup
    echo kill > "$T/verify"
    pam_run $'1234\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
    echo kill > "$T/status"
    pam_run $'1234\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result (status)"
}

test_missing_helper_is_authinfo_unavail() {
    setup
    sed -i "s|helper=$T/fake-helper|helper=$T/absent|" "$T/pam.d/sudo"
    pam_run $'1234\n'
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
}

# --- the shared object itself -----------------------------------------------

test_exports_only_pam_sm_entry_points() {
    local symbols
    symbols=$(nm -D --defined-only "$module" | awk '{print $3}' | sort | tr '\n' ' ')
    assert_eq "pam_sm_acct_mgmt pam_sm_authenticate pam_sm_chauthtok pam_sm_close_session pam_sm_open_session pam_sm_setcred " \
        "$symbols" "exported symbols"
}

# --- where the typed text goes after a success ------------------------------
# A module placed after pam_pingate.so (pam_gnome_keyring, pam_mount, ...)
# must not find a PIN in PAM_AUTHTOK: it would take it for the password.

test_forward_pass_success_leaves_no_authtok_for_the_next_module() {
    setup
    CONTROL='[success=ok default=ignore]'   # success goes on to the probe
    stack forward_pass
    pam_run $'4821\n'
    assert_contains "$out" "INFO NEXT authtok=(unset)" "what the next module sees"
}

test_try_first_pass_success_drops_the_spent_authtok() {
    setup
    CONTROL='[success=ok default=ignore]'
    stack try_first_pass
    pam_run '' --authtok 4821
    assert_eq 0 "$(prompts)" "prompts"
    assert_contains "$out" "INFO NEXT authtok=(unset)" "what the next module sees"
}

test_forwarded_password_and_wrong_pin_stay_for_the_next_module() {
    setup
    CONTROL='[success=ok default=ignore]'
    stack forward_pass
    pam_run $'correct horse!\n'
    assert_contains "$out" "INFO NEXT authtok=correct horse!" "a password"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    pam_run $'20240101\n'
    assert_contains "$out" "INFO NEXT authtok=20240101" "an all-digit password that is a wrong PIN"
}

# --- the application asks for the password only ----------------------------------
# The lock screen's password mode sets PINGATE_PASSWORD_ONLY=1 in the PAM
# environment: the module stays out at once, no helper call, no prompt, no line.

test_password_only_from_the_application_skips_the_module() {
    setup
    stack
    pam_run $'4821\n' --env PINGATE_PASSWORD_ONLY=1
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(requests)" "helper requests"
    assert_eq "INFO NEXT authtok=(unset)" "$(grep '^INFO' <<< "$out")" "messages"
}

test_other_values_of_password_only_change_nothing() {
    setup
    stack
    local value
    for value in 0 yes "" " 1" 1x; do
        rm -f "$T"/request.*
        pam_run $'4821\n' --env "PINGATE_PASSWORD_ONLY=$value"
        assert_eq PAM_SUCCESS "$(result)" "result with PINGATE_PASSWORD_ONLY=[$value]"
        assert_eq 1 "$(prompts)" "prompts with PINGATE_PASSWORD_ONLY=[$value]"
    done
}

# --- who asks ------------------------------------------------------------------

test_ruser_naming_another_user_is_not_offered() {
    setup
    stack
    pam_run $'4821\n' --ruser somebody-else
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(requests)" "helper requests (nothing about the target is asked)"
    pam_run $'4821\n' --ruser "$me"
    assert_eq PAM_SUCCESS "$(result)" "result with PAM_RUSER = the user"
}

# --- nothing waits forever -------------------------------------------------------

# stopped_helper_run OP: the fake helper stops itself (SIGSTOP, as a user's
# kill -STOP or Ctrl-Z would) when asked OP; the module must kill it at the
# deadline (timeout=5, the least allowed) and go on. Sets $ms.
stopped_helper_run() {
    echo "stop" > "$T/$1"
    stack timeout=5
    local start; start=$(date +%s%N)
    WRAPPER="timeout 30" pam_run $'4821\n'
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result (the stack goes on to the password)"
    [ "$ms" -lt 7000 ] || fail "took $ms ms with timeout=5"
    [ "$ms" -ge 4900 ] || fail "answered after $ms ms: did it wait at all?"
    pgrep -f "$T/fake-helper" >/dev/null && fail "the stopped helper was left behind"
    true
}

test_a_helper_stopped_at_status_costs_the_timeout_and_no_prompt() {
    setup
    stopped_helper_run status
    assert_eq 0 "$(prompts)" "prompts"
}

test_a_helper_stopped_mid_verify_is_killed_at_the_timeout() {
    setup
    stopped_helper_run verify
}

test_timeout_option_is_validated() {
    setup
    # Below 5 s an honest request behind a busy record could be killed after
    # it was counted (the helper waits up to 2 s for a lock, twice).
    stack timeout=4
    pam_run $'4821\n'
    assert_eq PAM_SERVICE_ERR "$(result)" "timeout=4"
    stack timeout=301
    pam_run $'4821\n'
    assert_eq PAM_SERVICE_ERR "$(result)" "timeout=301"
}

# --- the host's SIGCHLD ------------------------------------------------------------

test_a_host_child_that_exits_meanwhile_is_not_lost() {
    setup
    echo "sleep 0.5 0 ok" > "$T/verify"
    stack
    pam_run $'4821\n' --host-child
    assert_eq PAM_SUCCESS "$(result)" "result"
    assert_contains "$out" "HOST_CHILD reaped" "the application's own SIGCHLD handler"
}

# The host may hold descriptors above a soft limit it lowered after opening
# them: posix_spawn's closefrom closes everything from 4 up, not up to a limit.
test_the_helper_inherits_no_descriptor_above_a_lowered_soft_limit() {
    setup
    stack
    out=$(printf '4821\n' | bash -c 'exec 100</dev/null; ulimit -Sn 64; exec "$@"' -- \
        "$harness" --confdir "$T/pam.d" --service sudo --user "$me") && rc=0 || rc=$?
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    # (the shell script's own are below 64: dash keeps the script on 10)
    assert_eq "" "$(awk '$1 >= 64' "$T/fds.1" | tr '\n' ' ')" "the helper's descriptors at or above the soft limit"
}

test_links_only_libpam_and_libc() {
    local needed
    needed=$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
    assert_eq "libc.so.6 libpam.so.0 " "$needed" "NEEDED"
    ldd "$module" | grep -qi swift && fail "Swift runtime linked" || true
    readelf -d "$module" | grep -q BIND_NOW || fail "not linked with -z now"
}

# --- memory -------------------------------------------------------------------

test_valgrind_finds_no_errors_or_leaks() {
    command -v valgrind >/dev/null || skip "valgrind not installed"
    setup
    WRAPPER="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99"
    pam_run $'1234\n'
    assert_eq 0 "$rc" "success under valgrind"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    stack retries=2 debug
    pam_run $'1111\n2222\n'
    assert_eq 7 "$rc" "PAM_AUTH_ERR under valgrind (99 = valgrind error)"
    pam_run $'1111\n2222\nhunter2\n' --silent
    assert_eq 6 "$rc" "the password question under PAM_SILENT, handed on (PAM_PERM_DENIED), under valgrind"
}

test_asan_build_runs_clean() {
    make -s -C "$pam_dir" asan >/dev/null 2>&1 || skip "cannot build with -fsanitize=address,undefined"
    setup
    MODULE="$build/pam_pingate-asan.so"
    harness="$build/pam_harness-asan"
    export ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:exitcode=99
    stack
    pam_run $'1234\n'
    assert_eq 0 "$rc" "success under ASan"
    echo "0 enrolled kind=pattern grid=6 failures=0" > "$T/status"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    stack retries=2 forward_pass
    pam_run $'1-2-3\n'
    assert_eq 7 "$rc" "PAM_AUTH_ERR under ASan"
    echo "0 enrolled kind=pin failures=0" > "$T/status"
    stack retries=2
    pam_run $'1111\n2222\nhunter2\n' --silent
    assert_eq 6 "$rc" "the password question under PAM_SILENT, handed on (PAM_PERM_DENIED), under ASan"
    echo "2 locked seconds=59 failures=5" > "$T/status"
    pam_run $'hunter2\n' --silent
    assert_eq 6 "$rc" "the locked question under PAM_SILENT, under ASan"
}

run_tests
