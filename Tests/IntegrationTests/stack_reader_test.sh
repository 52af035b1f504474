#!/bin/bash
# stack_reader_test.sh — the stack reader against libpam itself.
#
# Each test writes a tricky stack into the overlay's /etc/pam.d (overlay.sh):
# comments, continuations, [value=action] controls, include, substack and
# @include, -auth, jumps, missing modules and stacks, long lines. Its modules
# are copies of pam/build/pam_test_probe.so, which log their path and
# arguments and return what ret= names. Then two runs must agree:
#
#   libpam     pam/build/pam_harness on the service (no --confdir: Debian's
#              libpam resolves includes in /etc/pam.d anyway): the probes it
#              called, in order, and its result;
#   the reader `pingate stack SERVICE --json` (the release CLI), walked the
#              way libpam's _pam_dispatch_aux walks its rules (stack_walk.py).
#
# Each test also states what libpam ran (the first argument of each probe)
# and its result, so the corpus documents libpam as well as testing the reader.
# Run as root: bash Tests/IntegrationTests/stack_reader_test.sh (TEST_FILTER=word)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/overlay.sh"
if [ "${PINGATE_IN_OVERLAY:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
    make -s -C "$REPO_ROOT/pam" all harness >&2 || { echo "make -C pam all harness failed"; exit 1; }
fi
overlay_enter "$@"

HARNESS="$REPO_ROOT/pam/build/pam_harness"
PROBE_BUILD="$REPO_ROOT/pam/build/pam_test_probe.so"
PINGATE="$PINGATE_RELEASE_BIN/pingate"
WALK="$REPO_ROOT/Tests/IntegrationTests/stack_walk.py"
SECURITY="/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/security"
P=/usr/local/lib/pingate-probes/pam_test_probe.so      # a probe given by its absolute path
LOG="$OVERLAY/probe.log"

# install_probes: copies of the probe (each its own file, so libpam and the
# dynamic loader keep them apart) under the names the stacks use; none of
# these modules exists on Debian 12.
install_probes() {
    local name
    mkdir -p "${P%/*}" "$SECURITY/sub"
    cp "$PROBE_BUILD" "$P"
    for name in pam_probe pam_u2f pam_google_authenticator pam_oath sub/pam_probe_sub; do
        cp "$PROBE_BUILD" "$SECURITY/$name.so"
    done
}

# stack NAME LINE...: /etc/pam.d/NAME (or the absolute NAME), one line each.
stack() {
    local name=$1 file; shift
    case "$name" in /*) file="$name" ;; *) file="/etc/pam.d/$name" ;; esac
    mkdir -p "${file%/*}"
    printf '%s\n' "$@" > "$file"
}

# agrees_with_libpam SERVICE NAMES RESULT: libpam ran the probes whose first
# arguments are NAMES (space-separated, in order) and returned RESULT; and
# the reader's rules, walked, predict exactly the same calls (path and every
# argument) and result.
agrees_with_libpam() {
    local service=$1 names=$2 result=$3 actual expected json
    rm -f "$LOG"
    actual="$("$HARNESS" --service "$service" --user nobody --env "PINGATE_PROBE_LOG=$LOG" < /dev/null 2>/dev/null)" || true  # exits with the PAM code
    actual="$(cat "$LOG" 2>/dev/null; sed -n '/^RESULT /p' <<< "$actual")"
    assert_eq "$names" "$(grep -v '^RESULT ' <<< "$actual" | cut -f2 | tr '\n' ' ' | sed 's/ $//')" "the probes libpam ran for $service"
    assert_eq "RESULT $result" "$(tail -n 1 <<< "$actual")" "libpam's result for $service"
    json="$("$PINGATE" stack "$service" --json)" || fail "pingate stack $service failed"
    expected="$(python3 "$WALK" <<< "$json")" || fail "stack_walk.py failed on: $json"
    assert_eq "$actual" "$expected" "what the reader predicts for $service (its stack: $("$PINGATE" stack "$service"))"
}

# --- lines: comments, continuations, words ------------------------------------------

test_rules_run_in_the_order_written() {
    stack st-order "auth required $P a" "auth optional $P b" "auth required $P c ret=success"
    agrees_with_libpam st-order "a b c" PAM_SUCCESS
}

# The awk reader joined the comment and the next line and never saw the second factor.
test_a_comment_ending_in_a_backslash_hides_no_rule() {
    stack st-comment "auth required $P a ret=success" '# a second factor for admins \' "auth required pam_google_authenticator.so ga"
    agrees_with_libpam st-comment "a ga" PAM_SUCCESS
}

# The awk reader dropped the rule: its [...] control never closed.
test_a_control_written_against_its_path_is_a_rule() {
    stack st-bracket "auth [success=ok default=die]pam_u2f.so u2f" "auth required $P after ret=success"
    agrees_with_libpam st-bracket "u2f" PAM_PERM_DENIED
    stack st-bracket2 "auth [success=ok default=die]pam_u2f.so u2f ret=success" "auth required $P after ret=success"
    agrees_with_libpam st-bracket2 "u2f after" PAM_SUCCESS
}

test_a_backslash_joins_the_next_line_into_the_arguments() {
    stack st-join "auth required $P a \\" "   two  three" "auth required $P b ret=success"
    agrees_with_libpam st-join "a b" PAM_SUCCESS
}

test_blanks_after_the_backslash_and_comment_lines_inside_a_continuation() {
    stack st-join2 'auth required \   ' '# still the same rule' '' "  $P a ret=success"
    agrees_with_libpam st-join2 "a" PAM_SUCCESS
}

test_a_hash_after_text_ends_the_line_and_its_backslash() {
    stack st-hash "auth required $P a ret=success # b \\" "auth required $P c"
    agrees_with_libpam st-hash "a c" PAM_SUCCESS
}

test_a_line_of_only_a_backslash_joins_the_next() {
    stack st-lone "auth required $P a \\" '\' "b ret=success"
    agrees_with_libpam st-lone "a" PAM_SUCCESS
}

test_types_and_control_words_in_any_case() {
    stack st-case "AUTH Required $P a" "Auth SUFFICIENT $P b ret=success" "auth required $P c"
    agrees_with_libpam st-case "a b" PAM_SUCCESS
}

test_brackets_around_any_word_and_an_escaped_bracket() {
    stack st-words "[auth] [required] $P a [x y\\]z] ret=success"
    agrees_with_libpam st-words "a" PAM_SUCCESS
}

test_an_unclosed_bracket_takes_the_rest_of_the_line() {
    stack st-unclosed "auth required $P a ret=success" "auth [success=ok $P b"
    agrees_with_libpam st-unclosed "a" PAM_PERM_DENIED
}

test_carriage_returns_are_part_of_the_words() {
    stack st-crlf "auth required $P a ret=success"$'\r' "auth required $P b \\"$'\r' "auth required $P c"
    agrees_with_libpam st-crlf "a b c" PAM_PERM_DENIED
}

test_a_nul_byte_ends_the_line() {
    printf 'auth required %s a ret=success\0 ignored words\nauth required %s b\n' "$P" "$P" > /etc/pam.d/st-nul
    agrees_with_libpam st-nul "a b" PAM_SUCCESS
}

test_a_line_longer_than_libpams_buffer_is_cut_and_its_rest_fails() {
    stack st-long "auth required $P a ret=success $(printf 'x%.0s' $(seq 1100))"
    agrees_with_libpam st-long "a" PAM_PERM_DENIED
}

# --- rules libpam cannot use -------------------------------------------------------

test_a_missing_module_fails_with_its_control_dash_or_not() {
    stack st-missing "auth required $P a" "-auth required pam_gone.so" "-auth optional /nonexistent/pam_gone.so" \
        "auth sufficient pam_gone.so" "auth required $P b ret=success"
    agrees_with_libpam st-missing "a b" PAM_MODULE_UNKNOWN
}

test_an_unknown_type_is_a_rule_that_always_fails() {
    stack st-type "auth required $P a ret=success" "auht required $P typo ret=success" "auth required $P b ret=success"
    agrees_with_libpam st-type "a b" PAM_PERM_DENIED
}

test_a_rule_without_control_or_module_always_fails() {
    stack st-short "auth required $P a ret=success" "auth required" "auth"
    agrees_with_libpam st-short "a" PAM_PERM_DENIED
}

test_a_misspelt_control_makes_every_result_bad() {
    stack st-misspelt "auth sufficent $P a ret=success" "auth required $P b ret=success"
    agrees_with_libpam st-misspelt "a b" PAM_PERM_DENIED
}

# --- include, substack, @include -------------------------------------------------------

test_include_and_substack_are_read_where_they_stand() {
    stack st-inc "auth required $P b" "account required $P acct"
    stack st-sub "auth required $P c"
    stack st-includes "auth required $P a" "auth include st-inc" "auth substack st-sub" "auth required $P d ret=success"
    agrees_with_libpam st-includes "a b c d" PAM_SUCCESS
}

test_at_include_reads_the_auth_rules_of_a_stack_of_every_type() {
    stack st-common "account required $P acct" "auth required $P x" "session optional $P sess" "auth required $P y ret=success"
    stack st-at "@include st-common"
    agrees_with_libpam st-at "x y" PAM_SUCCESS
}

test_at_include_in_any_case_with_a_dash_ignores_words_after_the_name() {
    stack st-common "auth required $P x ret=success"
    stack st-at2 "-@INCLUDE st-common extra words" "auth required $P z"
    agrees_with_libpam st-at2 "x z" PAM_SUCCESS
}

test_a_missing_include_is_a_rule_that_always_fails() {
    stack st-noinc "auth required $P a ret=success" "auth include st-missing" "auth required $P b ret=success"
    agrees_with_libpam st-noinc "a b" PAM_PERM_DENIED
}

test_a_missing_at_include_in_the_service_makes_libpam_give_up() {
    stack st-noat "auth required $P a ret=success" "@include st-missing"
    agrees_with_libpam st-noat "" PAM_ABORT
}

test_a_missing_at_include_inside_an_auth_include_fails_only_there() {
    stack st-inner "auth required $P a ret=success" "@include st-missing" "auth required $P b"
    stack st-outer "auth include st-inner" "auth required $P c ret=success"
    agrees_with_libpam st-outer "a b c" PAM_PERM_DENIED
}

test_includes_are_read_from_etc_pam_d_only() {
    stack /usr/lib/pam.d/st-vendor "auth required $P v ret=success"
    stack st-vendor-user "auth required $P a ret=success" "auth include st-vendor"
    agrees_with_libpam st-vendor-user "a" PAM_PERM_DENIED
}

test_a_service_only_in_usr_lib_pam_d_is_read_from_there() {
    stack /usr/lib/pam.d/st-usr "auth required $P u ret=success"
    agrees_with_libpam st-usr "u" PAM_SUCCESS
}

test_a_service_without_auth_rules_runs_others() {
    stack other "auth required $P other ret=success"
    stack st-account "account required $P acct"
    agrees_with_libpam st-account "other" PAM_SUCCESS
    agrees_with_libpam st-no-such-service "other" PAM_SUCCESS
}

test_a_service_named_other_runs_its_rules_twice() {
    stack other "auth required $P o ret=success"
    agrees_with_libpam other "o o" PAM_SUCCESS
}

test_an_include_that_ends_in_a_continuation_keeps_its_first_rules_and_fails() {
    printf 'auth required %s a ret=success\nauth required %s b \\\n' "$P" "$P" > /etc/pam.d/st-partial
    stack st-partial-user "auth include st-partial" "auth required $P c ret=success"
    agrees_with_libpam st-partial-user "a c" PAM_PERM_DENIED
}

test_an_include_of_a_directory_is_empty() {
    mkdir -p /etc/pam.d/st-dir
    stack st-dir-user "auth include st-dir" "auth required $P a ret=success"
    agrees_with_libpam st-dir-user "a" PAM_SUCCESS
}

test_substacks_nest_15_deep_and_the_16th_fails() {
    local level
    for level in $(seq 1 20); do stack "st-deep$level" "auth required $P s$level ret=success" "auth substack st-deep$((level + 1))"; done
    stack st-deep "auth substack st-deep1"
    agrees_with_libpam st-deep "$(seq -f 's%.0f' -s ' ' 1 15)" PAM_PERM_DENIED
}

test_includes_nest_20_deep() {
    local level
    for level in $(seq 1 20); do stack "st-chain$level" "auth required $P i$level" "auth include st-chain$((level + 1))"; done
    stack st-chain21 "auth required $P end ret=success"
    stack st-chain "auth include st-chain1"
    agrees_with_libpam st-chain "$(seq -f 'i%.0f' -s ' ' 1 20) end" PAM_SUCCESS
}

test_module_paths_relative_to_the_security_directory_or_absolute() {
    stack st-paths "auth required pam_probe.so rel" "auth required sub/pam_probe_sub.so sub" "auth required $P abs" \
        "auth required $SECURITY/pam_probe.so again ret=success"
    agrees_with_libpam st-paths "rel sub abs again" PAM_SUCCESS
}

# --- jumps and actions -------------------------------------------------------------------

test_common_auths_jump_over_pam_deny() {
    stack st-skeleton "auth [success=1 default=ignore] $P unix ret=success" "auth requisite $P deny ret=auth_err" \
        "auth required $P permit ret=success"
    agrees_with_libpam st-skeleton "unix permit" PAM_SUCCESS
    stack st-skeleton2 "auth [success=1 default=ignore] $P unix ret=auth_err" "auth requisite $P deny ret=auth_err" \
        "auth required $P permit ret=success"
    agrees_with_libpam st-skeleton2 "unix deny" PAM_AUTH_ERR
}

test_a_jump_counts_a_substack_as_one_rule() {
    stack st-two "auth required $P b" "auth required $P c"
    stack st-jump-sub "auth [success=1 default=ignore] $P a ret=success" "auth substack st-two" "auth required $P d ret=success"
    agrees_with_libpam st-jump-sub "a d" PAM_SUCCESS
}

test_a_jump_counts_included_rules_one_by_one() {
    stack st-two "auth required $P b" "auth required $P c"
    stack st-jump-inc "auth [success=1 default=ignore] $P a ret=success" "auth include st-two" "auth required $P d ret=success"
    agrees_with_libpam st-jump-inc "a c d" PAM_SUCCESS
}

test_a_jump_past_the_end_fails() {
    stack st-far "auth [success=5 default=ignore] $P a ret=success" "auth required $P b ret=success"
    agrees_with_libpam st-far "a" PAM_PERM_DENIED
}

test_sufficient_in_a_substack_ends_only_the_substack() {
    stack st-pin "auth sufficient $P pin ret=success" "auth required $P password"
    stack st-pin-user "auth substack st-pin" "auth required pam_u2f.so u2f ret=success"
    agrees_with_libpam st-pin-user "pin u2f" PAM_SUCCESS
}

test_default_die_ends_the_stack() {
    stack st-die "auth [success=ok default=die] $P a ret=auth_err" "auth required $P b"
    agrees_with_libpam st-die "a" PAM_AUTH_ERR
}

test_requisite_ends_the_stack_and_the_first_failure_is_the_result() {
    stack st-requisite "auth required $P a ret=auth_err" "auth required $P b" "auth requisite $P c ret=user_unknown" \
        "auth required $P d"
    agrees_with_libpam st-requisite "a b c" PAM_AUTH_ERR
}

test_reset_forgets_the_failures_before() {
    stack st-reset "auth required $P a ret=auth_err" "auth [default=reset] $P b" "auth required $P c ret=success"
    agrees_with_libpam st-reset "a b c" PAM_SUCCESS
}

# Every test starts from the original system, with the probes in place.
for name in $(declare -F | awk '{print $3}' | grep '^test_'); do
    eval "_body_$name() $(declare -f "$name" | tail -n +2)"
    eval "$name() { fresh_system; install_probes; _body_$name; }"
done
run_tests
