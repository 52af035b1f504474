#!/bin/bash
# cli_test.sh — the admin CLI `pingate`, end to end, as root and as test users,
# in the sandbox of sandbox.sh (private mount namespace, real setgid helper).
# Terminal entry is driven through a real pseudo-terminal by pty_drive.py.
#
# usage: swift build -c release --static-swift-stdlib && bash Tests/IntegrationTests/cli_test.sh
#        (TEST_FILTER=word to pick tests)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
sandbox_enter "$@"

PTY="python3 $here/pty_drive.py"
PIN=3958          # not weak, and no digit of it appears in any prompt
NEW_PIN=6047

# run CMD...: sets $out (stdout), $err (stderr) and $rc.
run() {
    local files; files=$(mktemp -d)
    "$@" >"$files/out" 2>"$files/err" && rc=0 || rc=$?
    out=$(cat "$files/out"); err=$(cat "$files/err")
    rm -rf "$files"
}
enroll_pin() { printf '%s\n%s\n' "$2" "$2" | "$PINGATE" enroll "$1" --stdin "${@:3}" >/dev/null; }
verify() { printf '%s\n' "$2" | "$PINGATE" verify "$1" --stdin >/dev/null 2>&1; }
json_field() { python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("null" if v is None else str(v).lower() if isinstance(v,bool) else v)' "$1"; }
no_digits() { ! grep -q '[0-9]' <<< "$1"; }

# --- help, version, usage -----------------------------------------------------

test_version_prints_0_1_0() {
    run "$PINGATE" --version
    assert_eq 0 "$rc" "exit"; assert_eq "pingate 0.3.0" "$out"
}

test_help_goes_to_stdout_for_every_command() {
    run "$PINGATE" --help
    assert_eq 0 "$rc"; assert_contains "$out" "enroll"; assert_eq "" "$err" "stderr"
    for command in enroll change remove status unlock list verify policy doctor stack init help; do
        run "$PINGATE" "$command" --help
        assert_eq 0 "$rc" "$command --help exit"; assert_contains "$out" "usage: pingate $command"
        run "$PINGATE" help "$command"
        assert_eq 0 "$rc" "help $command exit"; assert_contains "$out" "usage: pingate $command"
    done
}

test_unknown_flag_is_a_usage_error_with_the_usage_line() {
    run "$PINGATE" enroll pgalice --bogus
    assert_eq 2 "$rc"; assert_contains "$err" "unknown option '--bogus'"
    assert_contains "$err" "usage: pingate enroll USER"; assert_eq "" "$out" "stdout"
}

test_missing_argument_and_unknown_command_are_usage_errors() {
    run "$PINGATE" enroll;     assert_eq 2 "$rc"; assert_contains "$err" "missing USER"
    run "$PINGATE" remove;     assert_eq 2 "$rc"; assert_contains "$err" "usage: pingate remove USER"
    run "$PINGATE" frobnicate; assert_eq 2 "$rc"; assert_contains "$err" "unknown command"
    run "$PINGATE";            assert_eq 2 "$rc"
    run "$PINGATE" enroll pgalice --grid 4; assert_eq 2 "$rc"; assert_contains "$err" "--grid needs --pattern"
    run "$PINGATE" enroll pgalice --pattern --grid 9; assert_eq 2 "$rc"
}

test_secrets_need_a_terminal_or_stdin() {
    store_reset
    run "$PINGATE" enroll pgalice </dev/null
    assert_eq 2 "$rc"; assert_contains "$err" "--stdin"
}

# --- the synopses people read ------------------------------------------------------

# The README's synopsis ("The admin command") and pingate(8)'s SYNOPSIS name
# each command and subcommand with exactly the options its --help's usage
# line has: one that drifts (a new option, a renamed one) fails here.
test_the_synopses_in_readme_and_pingate_8_match_each_commands_help() {
    local usage command
    usage=$(mktemp)
    for command in enroll change remove status unlock list verify policy doctor stack enable disable key init help; do
        "$PINGATE" "$command" --help | sed -n 's/^usage: //p' | head -1 >> "$usage"
    done
    run python3 - "$REPO_ROOT/README.md" "$REPO_ROOT/packaging/man/pingate.8" "$usage" <<'EOF'
import re, sys

def forms(lines):
    """{"pingate key seal": {"--pcr"}, ...}: each form's options."""
    found = {}
    for line in lines:
        for form in re.split(r" \| (?=pingate )", line.strip()):
            words = form.split()
            name = []
            for word in words:
                if not re.fullmatch(r"[a-z][a-z-]*", word):
                    break
                name.append(word)
            if len(name) > 1:
                found[" ".join(name)] = set(re.findall(r"--[a-z][a-z-]*", form))
    return found

usage = forms(open(sys.argv[3], encoding="utf-8").read().splitlines())
readme = open(sys.argv[1], encoding="utf-8").read()
block = readme.split("## The admin command", 1)[1].split("```", 2)[1]
man = open(sys.argv[2], encoding="utf-8").read()
synopsis = man.split(".SH SYNOPSIS", 1)[1].split(".nf", 1)[1].split(".fi", 1)[0]
synopsis = re.sub(r"\\f[BIR]", "", synopsis).replace("\\-", "-")
problems = []
for where, text in (("README.md", block), ("pingate.8", synopsis)):
    written = forms(text.splitlines())
    for name, options in sorted(usage.items()):
        if name not in written:
            problems.append(f"{where}: no '{name}'")
        elif written[name] != options:
            problems.append(f"{where}: '{name}' has {sorted(written[name])}, its --help {sorted(options)}")
    for name in sorted(set(written) - set(usage)):
        problems.append(f"{where}: '{name}' is no command")
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
    rm -f "$usage"
    assert_eq 0 "$rc" "the synopses against --help: $out $err"
}

# --- enroll -------------------------------------------------------------------

test_enroll_stdin_pin_then_verify() {
    store_reset
    run bash -c "printf '$PIN\n$PIN\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 0 "$rc" "enroll"; assert_contains "$out" "enrolled a PIN for pgalice"
    verify pgalice "$PIN" || fail "the enrolled PIN does not verify"
    [ "$(stat -c '%U:%G %a' /var/lib/pingate/61001.record)" = "root:pingate 660" ] || fail "record owner/mode"
}

test_enroll_refuses_a_weak_pin_with_the_reason() {
    store_reset
    run bash -c "printf '1234\n1234\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "too easy to guess"; assert_contains "$err" "constant step"
    run bash -c "printf '7777\n7777\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "repeats one digit"
    run "$PINGATE" status pgalice; assert_eq 4 "$rc" "still not enrolled"
    enroll_pin pgalice 1234 --allow-weak || fail "--allow-weak refused"
    verify pgalice 1234 || fail "weak PIN did not verify"
}

test_enroll_refuses_a_mismatch() {
    store_reset
    run bash -c "printf '$PIN\n$NEW_PIN\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "do not match"
    run "$PINGATE" status pgalice; assert_eq 4 "$rc"
}

test_enroll_refuses_malformed_input_and_unknown_users() {
    store_reset
    run bash -c "printf '12a4\n12a4\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "digits"
    run bash -c "printf '$PIN\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 2 "$rc"; assert_contains "$err" "standard input ended"
    run bash -c "printf '$PIN\n$PIN\n' | '$PINGATE' enroll nosuchuser --stdin"
    assert_eq 4 "$rc"; assert_contains "$err" "no such user"
}

test_enroll_over_an_existing_credential_needs_force() {
    store_reset
    enroll_pin pgalice "$PIN"
    run bash -c "printf '$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' enroll pgalice --stdin"
    assert_eq 2 "$rc"; assert_contains "$err" "already has a PIN"; assert_contains "$err" "--force"
    verify pgalice "$PIN" || fail "the old PIN was touched"
    enroll_pin pgalice "$NEW_PIN" --force || fail "--force refused"
    verify pgalice "$NEW_PIN" || fail "new PIN"
    ! verify pgalice "$PIN" || fail "old PIN still works"
}

test_enroll_force_repairs_a_record_the_store_rules_refuse() {
    # Each refusal names `pingate enroll --force USER` as its fix: it must
    # work on the record it refuses, and replace a symbolic link itself,
    # never what it points to.
    local record=/var/lib/pingate/61001.record out rc
    store_reset
    enroll_pin pgalice 0427 || fail "enroll"
    truncate -s 700 "$record"
    verify pgalice 0427 && fail "a 700-byte record verified"
    out=$(printf '0427\n' | "$PINGATE" verify pgalice --stdin 2>&1) || true
    assert_contains "$out" "pingate enroll --force pgalice" "the fix the refusal names"
    enroll_pin pgalice 5820 --force || fail "enroll --force over a 700-byte record"
    verify pgalice 5820 || fail "the new PIN after repairing the size"
    ln "$record" /var/lib/pingate/second-link
    verify pgalice 5820 && fail "a record with two links verified"
    enroll_pin pgalice 0427 --force || fail "enroll --force over a record with two links"
    verify pgalice 0427 || fail "the new PIN after repairing the links"
    assert_eq 1 "$(stat -c %h "$record")" "links of the new record"
    rm /var/lib/pingate/second-link
    cp /etc/shadow "$SANDBOX/shadow-before"
    rm "$record"; ln -s /etc/shadow "$record"
    verify pgalice 0427 && fail "a symlinked record verified"
    enroll_pin pgalice 5820 --force || fail "enroll --force over a symbolic link"
    [ -f "$record" ] && [ ! -L "$record" ] || fail "the record is still a symbolic link"
    cmp -s /etc/shadow "$SANDBOX/shadow-before" || fail "/etc/shadow changed"
    verify pgalice 5820 || fail "the new PIN after replacing the link"
    # A directory: its fix moves it away first, and then works as said.
    rm "$record"; mkdir "$record"
    out=$(printf '5820\n' | "$PINGATE" verify pgalice --stdin 2>&1) || true
    local fix; fix="$(sed -n 's/.*(fix: \(mv [^)]*\)).*/\1/p' <<< "$out" | head -n 1)"
    [ -n "$fix" ] || fail "no mv in the directory's fix: $out"
    assert_eq "pingate enroll --force pgalice" "${fix#* && }" "the fix's second step"
    bash -c "${fix%% && *}" || fail "the fix's mv: $fix"
    printf '0427\n0427\n' | "$PINGATE" enroll pgalice --stdin --force >/dev/null || fail "enroll --force after the mv"
    verify pgalice 0427 || fail "the new PIN after moving the directory away"
    out=$(printf '1111\n1111\n' | "$PINGATE" enroll pgalice --stdin 2>&1) && rc=0 || rc=$?
    [ "$rc" != 0 ] || fail "enroll without --force over an existing record succeeded"
}

test_enroll_pattern_stdin_is_normalised_by_the_gap_rule() {
    store_reset
    run bash -c "printf '1-3-9\n1 2 3 6 9\n' | '$PINGATE' enroll pgalice --pattern --stdin"
    assert_eq 0 "$rc" "enroll: $err"; assert_contains "$out" "3×3 pattern"
    verify pgalice "3:1-2-3-6-9" || fail "canonical pattern"
    verify pgalice "1-3-9" || fail "typed with gaps"
    run "$PINGATE" status pgalice --json
    assert_eq pattern "$(json_field kind <<< "$out")"; assert_eq 3 "$(json_field grid <<< "$out")"
    run bash -c "printf '1-6-11-16\n1-6-11-16\n' | '$PINGATE' enroll pgbob --pattern --grid 4 --stdin"
    assert_eq 0 "$rc" "4x4: $err"
    verify pgbob "4:1-6-11-16" || fail "4x4 pattern"
}

test_admin_commands_must_be_run_as_root() {
    store_reset
    enroll_pin pgalice "$PIN"
    for command in "enroll pgalice" "remove pgalice" "unlock pgalice" "list" "doctor"; do
        run as_user pgalice "$PINGATE" $command
        assert_eq 3 "$rc" "$command exit"; assert_contains "$err" "must be run as root"
        [ "$(wc -l <<< "$err")" = 1 ] || fail "$command: more than one line: $err"
    done
    run as_user pgalice "$PINGATE" verify pgbob --stdin </dev/null
    assert_eq 3 "$rc"; assert_contains "$err" "must be run as root"
}

# --- status, list -------------------------------------------------------------

test_status_json_has_the_stable_fields_and_never_the_hash() {
    store_reset
    enroll_pin pgalice "$PIN"
    run "$PINGATE" status pgalice --json
    assert_eq 0 "$rc"
    assert_not_contains "$out" '$argon2id'
    python3 - "$out" <<'PY' || fail "schema"
import json, sys
d = json.loads(sys.argv[1])
keys = ["user","uid","enrolled","kind","grid","failures","locked_seconds","disabled",
        "created","changed","last_failure","last_success","locked_until","attempts_left","error"]
missing = [k for k in keys if k not in d]
assert not missing, missing
assert d["user"] == "pgalice" and d["uid"] == 61001 and d["enrolled"] is True
assert d["kind"] == "pin" and d["grid"] is None and d["failures"] == 0
assert d["locked_seconds"] == 0 and d["disabled"] is False and d["attempts_left"] == 5
assert isinstance(d["created"], int) and isinstance(d["changed"], int)
assert d["last_failure"] is None and d["last_success"] is None
PY
    run "$PINGATE" status pgalice
    assert_contains "$out" "pgalice (uid 61001): PIN, active"
}

# A success is counted first, like every attempt; once cleared it leaves
# no failure behind: not "failures: 0" with a "last failure" at its time.
test_status_after_one_correct_verify_shows_no_failure() {
    store_reset
    enroll_pin pgalice "$PIN"
    verify pgalice "$PIN" || fail "the right PIN"
    run "$PINGATE" status pgalice
    assert_eq 0 "$rc" "exit: $err"
    assert_contains "$out" "failures:"
    grep -Eq '^ *last failure: +never$' <<< "$out" || fail "status after one success: [$out]"
    run "$PINGATE" status pgalice --json
    assert_eq null "$(json_field last_failure <<< "$out")" "last_failure"
    [ "$(json_field last_success <<< "$out")" != null ] || fail "last_success"
}

test_status_of_a_user_without_credential_exits_4() {
    store_reset
    run "$PINGATE" status pgbob --json
    assert_eq 4 "$rc"; assert_eq false "$(json_field enrolled <<< "$out")"
    assert_eq null "$(json_field kind <<< "$out")"
    run "$PINGATE" status nosuchuser; assert_eq 4 "$rc"
}

test_non_root_status_of_oneself_goes_through_the_helper() {
    store_reset
    enroll_pin pgalice "$PIN"
    verify pgalice 0000 || true
    run as_user pgalice "$PINGATE" status --json
    assert_eq 0 "$rc" "exit: $err"
    assert_eq pgalice "$(json_field user <<< "$out")"; assert_eq pin "$(json_field kind <<< "$out")"
    assert_eq 1 "$(json_field failures <<< "$out")"; assert_eq null "$(json_field created <<< "$out")"
    run as_user pgbob "$PINGATE" status
    assert_eq 4 "$rc"; assert_contains "$out" "no PIN or pattern"
    assert_contains "$out" "sudo pingate enroll pgbob" "what a user without a PIN is told"
    run as_user pgalice "$PINGATE" status pgbob
    assert_eq 3 "$rc"; assert_contains "$err" "only root"
    run as_user pgalice "$PINGATE" status --store /tmp
    assert_eq 3 "$rc"
}

test_lockout_shows_in_status_and_unlock_clears_it() {
    store_reset
    enroll_pin pgalice "$PIN"
    for i in 1 2 3 4 5; do ! verify pgalice 100$i || fail "wrong PIN accepted"; done
    run bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 1 "$rc" "locked verify"; assert_contains "$err" "locked for"
    run "$PINGATE" status pgalice --json
    assert_eq 5 "$(json_field failures <<< "$out")"
    local seconds; seconds=$(json_field locked_seconds <<< "$out")
    [ "$seconds" -gt 0 ] && [ "$seconds" -le 60 ] || fail "locked_seconds $seconds"
    [ "$(json_field locked_until <<< "$out")" -gt "$(date +%s)" ] || fail "locked_until"
    [ "$(json_field last_failure <<< "$out")" != null ] || fail "last_failure"
    run as_user pgalice "$PINGATE" status --json
    local via_helper; via_helper=$(json_field locked_seconds <<< "$out")
    [ "$via_helper" -gt 0 ] && [ "$via_helper" -le "$seconds" ] || fail "locked seconds via the helper: $via_helper"
    run "$PINGATE" unlock pgalice
    assert_eq 0 "$rc"; assert_contains "$out" "unlocked pgalice"
    verify pgalice "$PIN" || fail "unlocked PIN"
    [ "$(json_field last_success < <("$PINGATE" status pgalice --json))" != null ] || fail "last_success"
}

test_max_failures_disables_until_unlock() {
    store_reset
    printf 'kdf_operations = 1\nkdf_memory = 8K\nfree_failures = 1\nmax_failures = 2\n' > /etc/pingate/pingate.conf
    enroll_pin pgalice "$PIN"
    ! verify pgalice 0000 || fail "wrong accepted"
    "$PINGATE" unlock pgalice >/dev/null   # skip the timeout after the free failure
    ! verify pgalice 0001 || fail "wrong accepted"
    ! verify pgalice 0002 || fail "wrong accepted"
    run bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "disabled"
    run "$PINGATE" status pgalice --json
    assert_eq true "$(json_field disabled <<< "$out")"
    "$PINGATE" unlock pgalice >/dev/null
    verify pgalice "$PIN" || fail "after unlock"
}

test_list_shows_every_enrolled_user() {
    store_reset
    run "$PINGATE" list --json; assert_eq 0 "$rc"; assert_eq "[]" "$out"
    enroll_pin pgalice "$PIN"
    printf '1-5-9-6\n1-5-9-6\n' | "$PINGATE" enroll pgbob --pattern --stdin >/dev/null
    run "$PINGATE" list --json
    assert_eq 0 "$rc"
    python3 - "$out" <<'PY' || fail "list schema: $out"
import json, sys
d = json.loads(sys.argv[1])
assert [e["user"] for e in d] == ["pgalice", "pgbob"], d
assert [e["kind"] for e in d] == ["pin", "pattern"] and d[1]["grid"] == 3
assert all(e["enrolled"] and e["error"] is None for e in d)
PY
    run "$PINGATE" list
    assert_contains "$out" "USER"; assert_contains "$out" "pgbob"; assert_contains "$out" "pattern 3×3"
}

test_list_reports_an_unreadable_record_and_exits_5() {
    store_reset
    enroll_pin pgalice "$PIN"
    head -c 1024 /dev/zero > /var/lib/pingate/61001.record
    run "$PINGATE" list --json
    assert_eq 5 "$rc"; assert_contains "$out" '"error":"record'
    run "$PINGATE" status pgalice
    assert_eq 5 "$rc"; assert_contains "$err" "enroll --force"
    # status --json keeps its promise of one object, as list --json does.
    run "$PINGATE" status pgalice --json
    assert_eq 5 "$rc"; assert_contains "$err" "enroll --force"
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["user"] == "pgalice" and d["error"].startswith("record"), d' "$out" \
        || fail "status --json of an unreadable record: [$out]"
}

# --- remove, unlock, verify ---------------------------------------------------

test_remove_deletes_the_credential() {
    store_reset
    enroll_pin pgalice "$PIN"
    run "$PINGATE" remove pgalice; assert_eq 0 "$rc"
    [ ! -e /var/lib/pingate/61001.record ] || fail "record still there"
    run "$PINGATE" remove pgalice; assert_eq 4 "$rc"; assert_contains "$err" "nothing to remove"
    run "$PINGATE" unlock pgalice; assert_eq 4 "$rc"
    run "$PINGATE" remove nosuchuser; assert_eq 4 "$rc"
}

test_verify_counts_wrong_attempts_but_not_malformed_ones() {
    store_reset
    enroll_pin pgalice "$PIN"
    run bash -c "printf '0000\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "wrong PIN for pgalice (4 attempts left"
    assert_eq 1 "$(record_failures pgalice)"
    run bash -c "printf '12\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "nothing was counted"
    assert_eq 1 "$(record_failures pgalice)"
    run bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 0 "$rc"; assert_contains "$out" "correct PIN"
    assert_eq 0 "$(record_failures pgalice)"
    run bash -c "printf '$PIN\n' | '$PINGATE' verify pgbob --stdin"
    assert_eq 4 "$rc"
}

test_non_root_verify_of_oneself_goes_through_the_helper() {
    store_reset
    enroll_pin pgalice "$PIN"
    run as_user pgalice bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 0 "$rc" "exit: $err"
    run as_user pgalice bash -c "printf '0000\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 1 "$rc"; assert_eq 1 "$(record_failures pgalice)"
}

# The notice of failed attempts reaches the owner in the CLI too, before the
# PIN is asked: root's status and the owner's own status (text or JSON) show
# it and never spend it (a job of the user's could run them); the owner's
# verify tells it before asking, and its success spends what it told.
test_status_and_verify_tell_the_owner_of_failed_attempts_before_the_pin() {
    store_reset
    enroll_pin pgalice "$PIN"
    verify pgalice 0000 || true
    verify pgalice 0001 || true
    verify pgalice "$PIN"
    run "$PINGATE" status pgalice
    assert_contains "$out" "2 failed PIN attempts since your last PIN sign-in" "root's status"
    # LP fills the count itself: a second count in its arguments took the time's place.
    grep -Eq "since your last PIN sign-in, the first at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} " <<< "$out" ||
        fail "no time of the first failure in root's status: $out"
    run "$PINGATE" status pgalice --json
    assert_eq 2 "$(json_field unseen_failures <<< "$out")" "root's JSON"
    run as_user pgalice "$PINGATE" status
    assert_contains "$out" "2 failed PIN attempts since your last PIN sign-in" "the owner's status"
    run as_user pgalice "$PINGATE" status --json
    assert_eq 2 "$(json_field unseen_failures <<< "$out")" "the owner's JSON: a status never spends the notice"

    verify pgalice 0002 || true
    run as_user pgalice bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 0 "$rc" "exit: $err"
    grep -Eq "3 failed PIN attempts since your last PIN sign-in, the first at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} " <<< "$err" ||
        fail "the owner's verify did not tell the failed attempts and the first's time before the PIN: $err"
    run "$PINGATE" status pgalice --json
    assert_eq 0 "$(json_field unseen_failures <<< "$out")" "root's JSON after the owner was told and signed in"
    run as_user pgalice bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_not_contains "$out$err" "failed PIN attempt" "the next verify"
}

# stopped_at WHEN COMMAND...: COMMAND under strace, stopped (SIGSTOP) at
# WHEN: "exit", just before it exits (the exit is turned into the stop), or
# a system call's name, the first time it makes that call (CALL@N: the Nth). The binaries that ship, no test seam; stdin is
# $SANDBOX/memscan-in. Prints the pid once it is stopped; the caller kills it.
stopped_at() {
    local when=$1 tracer pid="" i; shift
    # The call is not made (EINTR): a stopped write sends nothing, so a
    # stopped attempt is never answered or counted.
    local call=${when%@*} nth=1
    [ "$call" != "$when" ] && nth=${when#*@}
    local inject="$call:error=EINTR:signal=SIGSTOP:when=$nth"
    [ "$when" = exit ] && inject="exit_group,exit:error=EINTR:signal=SIGSTOP"
    strace -o /dev/null -e trace="${inject%%:*}" -e inject="$inject" "$@" \
        < "$SANDBOX/memscan-in" > /dev/null 2>&1 &
    tracer=$!
    for i in $(seq 100); do
        pid=$(pgrep -P "$tracer" | head -1)
        [ -n "$pid" ] && grep -q '^State:[[:space:]]*t' "/proc/$pid/status" 2>/dev/null && break
        sleep 0.05
    done
    echo "$pid"
}

# scan_stopped WHAT HOLDS COMMAND...: runs COMMAND twice with the typed
# $wrong in $SANDBOX/memscan-in. Stopped at HOLDS (a call it makes while it
# holds the secret), the scan must find $wrong: the control, which shows
# that the scan reads where the secret lives; that run is never answered.
# Stopped at its exit, after its answer, no piece of $wrong may be left.
# With memlock=some or memlock=0, VmLck must be above 0 kB, or 0, while it
# holds the secret.
scan_stopped() {
    local what=$1 holds=$2 pid scan locked; shift 2
    pid=$(stopped_at "$holds" "$@")
    [ -n "$pid" ] || fail "$what did not stop at $holds"
    scan=$(python3 "$here/memscan.py" --present "$wrong" "$pid") || { kill -9 "$pid"; fail "$what, stopped at $holds: $scan"; }
    locked=$(awk '/^VmLck:/ { print $2 }' "/proc/$pid/status")
    kill -9 "$pid"; wait 2>/dev/null || true
    case "${memlock:-}" in
        0) [ "$locked" = 0 ] || fail "$what locked $locked kB with RLIMIT_MEMLOCK 0" ;;
        some) [ "${locked:-0}" -gt 0 ] || fail "$what locked nothing while it held the secret" ;;
    esac
    pid=$(stopped_at exit "$@")
    [ -n "$pid" ] || fail "$what did not stop at its exit"
    scan=$(python3 "$here/memscan.py" --secret "$wrong" "$pid") || { kill -9 "$pid"; fail "$what: $scan"; }
    kill -9 "$pid"; wait 2>/dev/null || true
    echo "    $what: $scan (${locked:-?} kB locked while it held it)"
}

# Secrets wipe themselves: the release CLI (root's verify, in process; a
# user's, which hands the PIN to the helper, with and without RLIMIT_MEMLOCK)
# and the setgid helper each hold no copy of the PIN typed into them, nor any
# 8-byte piece of it, just before they exit (read from /proc/PID/mem as root).
# They run with keep_freed.so, under which malloc never reuses a freed block,
# so a copy freed unwiped is still there to be found; the setgid helper
# ignores LD_PRELOAD, so it runs both as shipped and, as root, as a copy
# without the setgid bit under keep_freed.so.
test_no_copy_of_a_typed_pin_is_left_in_the_cli_or_the_helper() {
    store_reset
    printf 'pin_max_length = 12\n' >> /etc/pingate/pingate.conf
    enroll_pin pgalice 482915736047
    cc -O2 -Wall -Werror -fPIC -shared "$here/keep_freed.c" -o "$SANDBOX/keep_freed.so" -ldl || fail "cc keep_freed.c"
    local keep="LD_PRELOAD=$SANDBOX/keep_freed.so" wrong
    local alice=(setpriv --reuid="$(id -u pgalice)" --regid="$(id -g pgalice)" --clear-groups --reset-env --)
    # Each a new wrong PIN: the same one again is answered without the KDF.
    wrong=739146285013
    printf '%s\n' "$wrong" > "$SANDBOX/memscan-in"
    memlock=some scan_stopped "root's CLI" flock env "$keep" "$PINGATE" verify pgalice --stdin
    wrong=739146285014
    printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=%s\n' "$wrong" > "$SANDBOX/memscan-in"
    memlock=some scan_stopped "the setgid helper" flock "${alice[@]}" "$HELPER"
    wrong=739146285015
    printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=%s\n' "$wrong" > "$SANDBOX/memscan-in"
    install -m 755 "$HELPER" "$SANDBOX/pingate-verify-unprivileged"
    scan_stopped "the helper's code under keep_freed.so" flock env "$keep" "$SANDBOX/pingate-verify-unprivileged"
    wrong=739146285016
    printf '%s\n' "$wrong" > "$SANDBOX/memscan-in"
    # A user's CLI asks the helper for the status first, tells the owner of
    # the failed attempts above (on stderr), then verifies: the third write
    # is the request that holds the PIN.
    memlock=some scan_stopped "a user's CLI" write@3 "${alice[@]}" env "$keep" "$PINGATE" verify pgalice --stdin
    # A user may set the CLI's RLIMIT_MEMLOCK to 0: nothing of its own is
    # locked, all is still wiped. (The helper it runs raises its soft limit
    # to the hard one for the machine key's page; under a hard limit of 0 it
    # reads no key: verifier_process_test.sh.)
    wrong=739146285017
    printf '%s\n' "$wrong" > "$SANDBOX/memscan-in"
    memlock=0 scan_stopped "a user's CLI with RLIMIT_MEMLOCK 0" write@3 \
        "${alice[@]}" prlimit --memlock=0:65536 env "$keep" "$PINGATE" verify pgalice --stdin
    assert_eq 5 "$(record_failures pgalice)" "each answered attempt counted once, the stopped ones never"
}

# pad_keys SIZE START CELL...: the arrow keys (as a terminal sends them) and
# spaces that take CELL... on the terminal pattern pad of a SIZE×SIZE grid,
# whose cursor starts on cell START, then Enter.
pad_keys() {
    local size=$1 at=$2 cell keys=""; shift 2
    for cell in "$@"; do
        local row=$(( (at - 1) / size )) column=$(( (at - 1) % size ))
        local to_row=$(( (cell - 1) / size )) to_column=$(( (cell - 1) % size ))
        while [ "$row" -lt "$to_row" ]; do keys+='\x1b[B'; row=$((row + 1)); done
        while [ "$row" -gt "$to_row" ]; do keys+='\x1b[A'; row=$((row - 1)); done
        while [ "$column" -lt "$to_column" ]; do keys+='\x1b[C'; column=$((column + 1)); done
        while [ "$column" -gt "$to_column" ]; do keys+='\x1b[D'; column=$((column - 1)); done
        keys+=' '; at=$cell
    done
    echo "$keys"'\r'
}

# pad_stopped_at WHEN CELLS COMMAND...: COMMAND in a pseudo-terminal, under
# strace as stopped_at does, with the pattern CELLS drawn on its pad by
# the keyboard; prints the pid once it is stopped.
pad_stopped_at() {
    local when=$1 cells=$2 driver tracer pid="" i; shift 2
    local call=${when%@*} inject="${when}:error=EINTR:signal=SIGSTOP:when=1"
    [ "$when" = exit ] && { call=exit_group,exit; inject="exit_group,exit:error=EINTR:signal=SIGSTOP"; }
    # shellcheck disable=SC2046
    $PTY expect:"Enter finishes" send:"$(pad_keys 4 11 ${cells//-/ })" -- \
        strace -o /dev/null -e trace="$call" -e inject="$inject" "$@" > /dev/null 2>&1 &
    driver=$!
    for i in $(seq 200); do
        tracer=$(pgrep -P "$driver" | head -1)
        pid=${tracer:+$(pgrep -P "$tracer" | head -1)}
        [ -n "$pid" ] && grep -q '^State:[[:space:]]*t' "/proc/$pid/status" 2>/dev/null && break
        pid=""
        sleep 0.05
    done
    echo "$pid"
}

# The terminal's pattern pad, and the core's parsing of a typed pattern:
# root's CLI, under keep_freed.so, holds no piece of a wrong pattern — as
# text, one byte per cell or one integer per cell — once it has answered.
# The controls: the same pattern found while the CLI verifies it.
test_no_copy_of_a_drawn_or_typed_pattern_is_left_in_the_cli() {
    store_reset
    printf '1-6-11-16-12\n1-6-11-16-12\n' | "$PINGATE" enroll pgbob --pattern --grid 4 --stdin --allow-weak >/dev/null ||
        fail "enrol pgbob"
    cc -O2 -Wall -Werror -fPIC -shared "$here/keep_freed.c" -o "$SANDBOX/keep_freed.so" -ldl || fail "cc keep_freed.c"
    local keep="LD_PRELOAD=$SANDBOX/keep_freed.so" wrong pid scan
    # Drawn on the pad; its steps cross no dot, so the gap rule adds none.
    for wrong in 7-1-12-14-4-9-15-2-8 8-2-15-9-4-14-12-1-7; do
        pid=$(pad_stopped_at flock "$wrong" env "$keep" "$PINGATE" verify pgbob)
        [ -n "$pid" ] || fail "the CLI did not stop while it verified the drawn pattern"
        scan=$(python3 "$here/memscan.py" --present-cells "$wrong" "$pid") || { kill -9 "$pid"; fail "drawn, verifying: $scan"; }
        kill -9 "$pid"; wait 2>/dev/null || true
        pid=$(pad_stopped_at exit "$wrong" env "$keep" "$PINGATE" verify pgbob)
        [ -n "$pid" ] || fail "the CLI did not stop at its exit"
        scan=$(python3 "$here/memscan.py" --cells "$wrong" "$pid") || { kill -9 "$pid"; fail "drawn: $scan"; }
        kill -9 "$pid"; wait 2>/dev/null || true
        echo "    drawn $wrong: $scan"
    done
    wrong=12-14-4-9-15-2-8-3-10
    printf '%s\n' "$wrong" > "$SANDBOX/memscan-in"
    pid=$(stopped_at flock env "$keep" "$PINGATE" verify pgbob --stdin)
    scan=$(python3 "$here/memscan.py" --present-cells "$wrong" "$pid") || { kill -9 "$pid"; fail "typed, verifying: $scan"; }
    kill -9 "$pid"; wait 2>/dev/null || true
    pid=$(stopped_at exit env "$keep" "$PINGATE" verify pgbob --stdin)
    scan=$(python3 "$here/memscan.py" --cells "$wrong" "$pid") || { kill -9 "$pid"; fail "typed: $scan"; }
    kill -9 "$pid"; wait 2>/dev/null || true
    echo "    typed $wrong: $scan"
    assert_eq 3 "$(record_failures pgbob)" "each answered attempt counted once, the stopped ones never"
}

# --- change -------------------------------------------------------------------

test_root_changes_anyones_credential_without_the_current_one() {
    store_reset
    enroll_pin pgalice "$PIN"
    verify pgalice 0000 || true
    run bash -c "printf '$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' change pgalice --stdin"
    assert_eq 0 "$rc" "change: $err"
    assert_eq 0 "$(record_failures pgalice)" "failures cleared"
    verify pgalice "$NEW_PIN" || fail "new PIN"
    ! verify pgalice "$PIN" || fail "old PIN"
    run bash -c "printf '2-5-8-9\n2-5-8-9\n' | '$PINGATE' change pgalice --pattern --stdin"
    assert_eq 0 "$rc"; verify pgalice 2-5-8-9 || fail "switched to a pattern"
    run bash -c "printf '$PIN\n$PIN\n' | '$PINGATE' change pgbob --stdin"
    assert_eq 4 "$rc"
}

test_user_changes_own_pin_proving_the_current_one() {
    store_reset
    enroll_pin pgalice "$PIN"
    run as_user pgalice bash -c "printf '$PIN\n$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' change --stdin"
    assert_eq 0 "$rc" "change: $err"; assert_contains "$out" "changed the PIN of pgalice"
    verify pgalice "$NEW_PIN" || fail "new PIN"
    ! verify pgalice "$PIN" || fail "old PIN still works"
}

test_user_change_with_a_wrong_current_pin_is_counted_and_changes_nothing() {
    store_reset
    enroll_pin pgalice "$PIN"
    run as_user pgalice bash -c "printf '0000\n$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' change --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "wrong PIN"
    assert_eq 1 "$(record_failures pgalice)"
    verify pgalice "$PIN" || fail "PIN changed"
    run as_user pgalice bash -c "printf '$PIN\n1111\n1111\n' | '$PINGATE' change --stdin"
    assert_eq 1 "$rc"; assert_contains "$err" "too easy"
    run as_user pgalice "$PINGATE" change pgbob --stdin </dev/null
    assert_eq 3 "$rc"; assert_contains "$err" "only root"
    run as_user pgalice "$PINGATE" change --allow-weak --stdin </dev/null
    assert_eq 3 "$rc"
    run as_user pgbob bash -c "printf '$PIN\n$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' change --stdin"
    assert_eq 4 "$rc"
}

# --grid shapes a pattern: for a user whose PIN stays a PIN it is refused, as
# enroll refuses it without --pattern, before any secret is asked or counted.
test_change_refuses_a_grid_for_a_pin_before_asking_anything() {
    store_reset
    enroll_pin pgbob "$PIN"
    run bash -c "printf '$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' change pgbob --grid 5 --stdin"
    assert_eq 2 "$rc" "root's change --grid for a PIN: $out $err"
    assert_contains "$err" "--grid is for patterns, and pgbob has a PIN; add --pattern to switch to a pattern"
    verify pgbob "$PIN" || fail "the PIN changed"
    run as_user pgbob bash -c "printf '$PIN\n$NEW_PIN\n$NEW_PIN\n' | '$PINGATE' change --grid 5 --stdin"
    assert_eq 2 "$rc" "pgbob's change --grid: $out $err"
    assert_eq 0 "$(record_failures pgbob)" "attempts counted"
    verify pgbob "$PIN" || fail "the PIN changed"
    run bash -c "printf '2-5-8-9\n2-5-8-9\n' | '$PINGATE' change pgbob --pattern --grid 4 --stdin"
    assert_eq 0 "$rc" "change --pattern --grid 4: $err"
    verify pgbob 2-5-8-9 || fail "the pattern on a 4x4 grid"
}

# --- policy -------------------------------------------------------------------

test_policy_prints_the_effective_settings() {
    store_reset
    printf 'pin_max_length = 6\nlockout_timeouts = 30s 2m\n' > /etc/pingate/pingate.conf
    run "$PINGATE" policy
    assert_eq 0 "$rc"; assert_contains "$out" "pin_max_length = 6"; assert_contains "$out" "lockout_timeouts = 30s 2m"
    run "$PINGATE" policy --json
    python3 - "$out" <<'PY' || fail "policy json: $out"
import json, sys
d = json.loads(sys.argv[1])
assert d["pin_max_length"] == 6 and d["lockout_timeouts"] == [30, 120] and d["kdf_memory"] == 16 << 20
assert d["config_exists"] is True and "sudo" in d["services"]
PY
}

test_policy_check_names_the_bad_line() {
    store_reset
    printf '# ok\npin_min_length = 4\npin_maxlength = 6\n' > /etc/pingate/pingate.conf
    run "$PINGATE" policy check
    assert_eq 5 "$rc"; assert_contains "$err" "/etc/pingate/pingate.conf:3:"; assert_contains "$err" "pin_max_length"
    run "$PINGATE" status pgalice
    assert_eq 5 "$rc" "a command that needs the config"
    store_reset
    run "$PINGATE" policy check; assert_eq 0 "$rc"; assert_contains "$out" "ok"
    run "$PINGATE" policy check --json; assert_eq 2 "$rc"
    run "$PINGATE" policy frob; assert_eq 2 "$rc"
}

test_policy_calibrate_prints_config_lines_for_the_target() {
    run "$PINGATE" policy calibrate --target-ms 5
    assert_eq 0 "$rc"
    grep -q '^kdf_operations = [0-9]*$' <<< "$out" || fail "kdf_operations line: $out"
    grep -q '^kdf_memory = [0-9]*[KM]$' <<< "$out" || fail "kdf_memory line: $out"
    printf '%s\n' "$out" > "$SANDBOX/calibrated.conf"
    run "$PINGATE" policy check --config "$SANDBOX/calibrated.conf"
    assert_eq 0 "$rc" "calibrated lines parse: $err"
    run "$PINGATE" policy calibrate --target-ms x; assert_eq 2 "$rc"
}

# --- store override, doctor ---------------------------------------------------

test_store_and_config_overrides() {
    store_reset
    local alt="$SANDBOX/alt-store"
    install -d -o root -g pingate -m 0750 "$alt"
    cp -p /var/lib/pingate/machine.key "$alt/"
    cp /etc/pingate/pingate.conf "$SANDBOX/alt.conf"
    printf '%s\n%s\n' "$PIN" "$PIN" | "$PINGATE" --store "$alt" enroll pgbob --stdin --config "$SANDBOX/alt.conf" >/dev/null \
        || fail "enroll in the other store"
    [ -e "$alt/61002.record" ] || fail "record not in the other store"
    [ ! -e /var/lib/pingate/61002.record ] || fail "default store touched"
    run "$PINGATE" status pgbob --store "$alt" --json; assert_eq 0 "$rc"
    chmod 0770 "$alt"
    run "$PINGATE" status pgbob --store "$alt"
    assert_eq 5 "$rc"; assert_contains "$err" "writable by group"
}

# The key loaded into memory has one place (/run/pingate), whatever --store
# says: seal, load or unseal of another store would replace or remove the
# key the installed store's sign-ins read, so they refuse before anything.
test_key_commands_refuse_another_store() {
    store_reset
    local alt="$SANDBOX/alt-store" action
    install -d -o root -g pingate -m 0750 "$alt"
    cp -p /var/lib/pingate/machine.key "$alt/"
    for action in seal load unseal; do
        run "$PINGATE" key "$action" --store "$alt"
        assert_eq 2 "$rc" "key $action --store: $out $err"
        assert_contains "$err" "'key $action' works on the installed store /var/lib/pingate only"
    done
    [ -f "$alt/machine.key" ] && [ ! -e "$alt/machine.key.sealed" ] || fail "the other store changed: $(ls -la "$alt")"
    run "$PINGATE" key status --store "$alt"
    assert_eq 0 "$rc" "key status --store: $err"
}

# Mounts a module directory holding a pam_pingate.so (private to this namespace).
install_fake_module() {
    local dir=/usr/lib/x86_64-linux-gnu/security
    [ -d "$dir" ] || skip "no $dir"
    mountpoint -q "$dir" && return 0
    mkdir -p "$SANDBOX/security"; cp -a "$dir/." "$SANDBOX/security/"
    if [ -f "$SANDBOX/pam_pingate.so" ]; then cp "$SANDBOX/pam_pingate.so" "$SANDBOX/security/"; else : > "$SANDBOX/security/pam_pingate.so"; fi
    chown root:root "$SANDBOX/security/pam_pingate.so"; chmod 0644 "$SANDBOX/security/pam_pingate.so"
    mount --bind "$SANDBOX/security" "$dir"
}

test_doctor_passes_on_a_good_installation() {
    store_reset
    enroll_pin pgalice "$PIN"
    install_fake_module
    echo "auth sufficient pam_pingate.so" > /etc/pam.d/pingate-test
    run "$PINGATE" doctor
    assert_eq 0 "$rc" "doctor: $out"; assert_contains "$out" "no problems found"
    assert_contains "$out" "1 of 1 record readable"; assert_contains "$out" "pingate-test"
}

test_doctor_prints_each_problem_with_its_fix() {
    store_reset
    enroll_pin pgalice "$PIN"
    install_fake_module
    trap 'chmod 0750 /var/lib/pingate; chmod 2755 /usr/libexec/pingate/pingate-verify' EXIT
    chmod 0770 /var/lib/pingate
    chmod 0644 /var/lib/pingate/machine.key
    chmod 0755 /usr/libexec/pingate/pingate-verify
    printf 'bogus line\n' > /etc/pingate/pingate.conf
    run "$PINGATE" doctor
    assert_eq 5 "$rc"
    assert_contains "$out" "fix: chmod 0750 /var/lib/pingate"
    assert_contains "$out" "fix: chmod 0640 /var/lib/pingate/machine.key"
    assert_contains "$out" "fix: chmod 2755 /usr/libexec/pingate/pingate-verify"
    assert_contains "$out" "pingate.conf:1:"
}

# sudoers' passprompt_override makes sudo ask its own "[sudo] password for
# USER:" in place of PinGate's "PIN:", and of the notice of failed attempts
# put into that question under PAM_SILENT (review 6, item 1). The module
# cannot see it; doctor reads it from root's `sudo -l -U USER` for each
# enrolled user whose sudo reaches pam_pingate.so, a later
# `!passprompt_override` turning it off again.
test_doctor_names_sudoers_passprompt_override() {
    [ -e /etc/sudoers ] && [ -x /usr/bin/sudo ] || skip "no sudo here"
    store_reset
    enroll_pin pgalice "$PIN"
    install_fake_module
    local sudoers; sudoers=$(cat /etc/sudoers)
    cp /etc/sudoers "$SANDBOX/sudoers.saved"; cp /etc/pam.d/sudo "$SANDBOX/pam-sudo.saved"
    trap 'cat "$SANDBOX/sudoers.saved" > /etc/sudoers; cat "$SANDBOX/pam-sudo.saved" > /etc/pam.d/sudo' EXIT
    printf 'auth sufficient pam_pingate.so\n@include common-auth\n' > /etc/pam.d/sudo
    run "$PINGATE" doctor
    assert_not_contains "$out" "passprompt_override" "doctor with sudo's own prompt untouched"
    printf '%s\nDefaults:pgalice passprompt_override\nDefaults:pgbob passprompt_override\n' "$sudoers" > /etc/sudoers
    run "$PINGATE" doctor
    assert_eq 5 "$rc" "doctor with passprompt_override: $out"
    grep -A1 'passprompt_override for' <<< "$out" | sed 's/^/      /' >&2
    assert_contains "$out" "PROBLEM sudoers sets passprompt_override for pgalice: sudo asks its own \"password\" question where PinGate asks for the PIN"
    assert_contains "$out" "fix: visudo: remove passprompt_override, or add \"Defaults:pgalice !passprompt_override\""
    assert_not_contains "$out" "for pgbob" "a user without a PIN"
    printf '%s\nDefaults passprompt_override\nDefaults:pgalice !passprompt_override\n' "$sudoers" > /etc/sudoers
    run "$PINGATE" doctor
    assert_not_contains "$out" "passprompt_override for" "doctor after pgalice's !passprompt_override"
    printf '%s\nDefaults!/usr/bin/id passprompt_override\n' "$sudoers" > /etc/sudoers
    run "$PINGATE" doctor
    assert_contains "$out" "sudoers sets passprompt_override for pgalice" "a command's Defaults"
    printf 'auth sufficient pam_unix.so\n' > /etc/pam.d/sudo
    run "$PINGATE" doctor
    assert_not_contains "$out" "passprompt_override" "doctor when sudo does not reach PinGate"
}

# The Debian profile (pam-auth-update --enable pingate) puts its line in
# common-auth, which sudo and sudo -i include: the recommended way to turn
# PinGate on, so doctor takes it for sudo (which asks PAM's questions as they
# come) as it takes the line `pingate enable sudo` writes. Before, doctor
# called it "not the one this screen needs" and exited 5. (The one-field lock
# screens installed here do need lines of their own: `pingate enable`.)
test_doctor_takes_the_debian_profiles_line_for_sudo_and_sudo_i() {
    [ -x /usr/bin/sudo ] || skip "no sudo here"
    store_reset
    enroll_pin pgalice "$PIN"
    install_fake_module
    local name
    for name in common-auth sudo sudo-i; do
        [ ! -e "/etc/pam.d/$name" ] || cp "/etc/pam.d/$name" "$SANDBOX/pam-$name.saved"
    done
    trap 'for name in common-auth sudo sudo-i; do
              if [ -e "$SANDBOX/pam-$name.saved" ]; then cat "$SANDBOX/pam-$name.saved" > "/etc/pam.d/$name"; else rm -f "/etc/pam.d/$name"; fi
          done' EXIT
    # What pam-auth-update writes from pam/pam-configs/pingate.
    printf 'auth\t[success=2 default=ignore]\tpam_pingate.so forward_pass\nauth\t[success=1 default=ignore]\tpam_unix.so nullok\nauth\trequisite\tpam_deny.so\nauth\trequired\tpam_permit.so\n' \
        > /etc/pam.d/common-auth
    printf '#%%PAM-1.0\n@include common-auth\n' | tee /etc/pam.d/sudo > /etc/pam.d/sudo-i
    run "$PINGATE" doctor
    grep -E '^(ok|PROBLEM) +sudo' <<< "$out" | sed 's/^/      /' >&2
    assert_contains "$out" "ok      sudo: a PIN is offered (service sudo)" "doctor on the profile's line"
    assert_contains "$out" "ok      sudo -i: a PIN is offered (service sudo-i)" "doctor on the profile's line"
    assert_not_contains "$(grep '^PROBLEM sudo' <<< "$out")" "not the one this screen needs" "doctor on the profile's line"
}

# A member of the pingate group reads the key and every record and may
# rewrite them: as good as root. Listed in /etc/group, or by primary group.
test_doctor_and_init_refuse_a_pingate_group_with_members() {
    store_reset
    install_fake_module
    cp /etc/group "$SANDBOX/group.saved"; cp /etc/passwd "$SANDBOX/passwd.saved"
    trap 'cat "$SANDBOX/group.saved" > /etc/group; cat "$SANDBOX/passwd.saved" > /etc/passwd' EXIT
    sed 's/^pingate:x:61000:$/pingate:x:61000:pgbob/' "$SANDBOX/group.saved" > /etc/group
    run "$PINGATE" doctor
    assert_eq 5 "$rc" "doctor with a member: $out"
    assert_contains "$out" "group pingate has members (pgbob)"
    assert_contains "$out" "fix: gpasswd -d pgbob pingate"
    run "$PINGATE" init
    assert_eq 5 "$rc" "init with a member"
    assert_contains "$err" "group pingate has members (pgbob)"
    run "$PINGATE" init --upgrade
    assert_eq 0 "$rc" "init --upgrade with a member: $err"
    assert_contains "$err" "WARNING: group pingate has members (pgbob)"
    cat "$SANDBOX/group.saved" > /etc/group
    sed 's/^\(pgcarol:x:61003:\)61003:/\161000:/' "$SANDBOX/passwd.saved" > /etc/passwd
    run "$PINGATE" doctor
    assert_eq 5 "$rc" "doctor with a primary member: $out"
    assert_contains "$out" "group pingate has members (pgcarol)"
    cat "$SANDBOX/passwd.saved" > /etc/passwd
    run "$PINGATE" doctor
    assert_not_contains "$out" "has members" "doctor without members"
}

# A deleted account's record stays in the store, and is refused, since it
# names an account the uid no longer has: doctor names it, unlock refuses it
# with the fix, and root removes it by the uid alone (remove takes a uid no
# account has).
test_a_deleted_accounts_record_is_named_by_doctor_and_removed_by_uid() {
    store_reset
    install_fake_module
    enroll_pin pgcarol "$PIN"
    cp /etc/passwd "$SANDBOX/passwd.saved"
    trap 'cat "$SANDBOX/passwd.saved" > /etc/passwd' EXIT
    grep -v '^pgcarol:' "$SANDBOX/passwd.saved" > /etc/passwd
    run "$PINGATE" doctor
    assert_eq 5 "$rc" "doctor with a deleted account's record: $out"
    assert_contains "$out" "was enrolled for pgcarol, and no account has uid 61003 now"
    assert_contains "$out" "fix: pingate remove 61003"
    run "$PINGATE" unlock 61003
    assert_eq 5 "$rc" "unlock 61003: $out"; assert_contains "$err" "fix: pingate remove 61003"
    run "$PINGATE" remove 61003
    assert_eq 0 "$rc" "remove 61003: $err"; assert_contains "$out" "removed the credential of 61003"
    [ ! -e /var/lib/pingate/61003.record ] || fail "the record is still there"
    run "$PINGATE" remove 61003
    assert_eq 4 "$rc" "remove 61003 again"
    run "$PINGATE" remove nosuchuser
    assert_eq 4 "$rc" "remove of an unknown name"; assert_contains "$err" "no such user 'nosuchuser'"
    cat "$SANDBOX/passwd.saved" > /etc/passwd
    run "$PINGATE" doctor
    assert_not_contains "$out" "no account has uid" "doctor after the remove"
}

# Records of format 1 (before they named their account) are migrated by root:
# `pingate init --upgrade`, which the package's postinst runs on an upgrade,
# binds each to the name its uid has now, so its PIN works as before. Until
# then the verifier fails closed and says what to run.
test_init_upgrade_binds_an_old_record_to_its_account_and_its_pin_still_works() {
    store_reset
    enroll_pin pgalice "$PIN"
    python3 "$REPO_ROOT/Tests/Attack/record_tool.py" old /var/lib/pingate/61001.record || fail "record_tool old"
    run bash -c "printf '$PIN\n' | '$PINGATE' verify pgalice --stdin"
    assert_eq 5 "$rc" "verify of a record not migrated: $out $err"
    assert_contains "$err" "pingate init --upgrade"
    run "$PINGATE" init --upgrade
    assert_eq 0 "$rc" "init --upgrade: $err"
    assert_contains "$out" "bound the record of uid 61001 to pgalice"
    verify pgalice "$PIN" || fail "the PIN of a migrated record does not verify"
    local shown; shown=$(python3 "$REPO_ROOT/Tests/Attack/record_tool.py" show /var/lib/pingate/61001.record)
    assert_contains "$shown" "user_name=pgalice"
    assert_contains "$shown" "format_version=2"
    run "$PINGATE" init --upgrade
    assert_not_contains "$out" "bound the record" "a second init --upgrade"
}

# An orphan at upgrade time stays an orphan: a format-1 record whose uid has
# no account when it is migrated is bound to no account, so an account given
# that uid later does not take it, and no later upgrade binds it.
test_init_upgrade_leaves_an_orphaned_old_record_an_orphan() {
    store_reset
    install_fake_module
    enroll_pin pgcarol "$PIN"
    python3 "$REPO_ROOT/Tests/Attack/record_tool.py" old /var/lib/pingate/61003.record || fail "record_tool old"
    cp /etc/passwd "$SANDBOX/passwd.saved"
    trap 'cat "$SANDBOX/passwd.saved" > /etc/passwd' EXIT
    grep -v '^pgcarol:' "$SANDBOX/passwd.saved" > /etc/passwd
    run "$PINGATE" init --upgrade
    assert_eq 0 "$rc" "init --upgrade: $err"
    assert_contains "$err" "uid 61003 has no account"
    echo "pgdave:x:61003:61003::/:/bin/sh" >> /etc/passwd
    run "$PINGATE" init --upgrade
    assert_not_contains "$out" "bound the record of uid 61003" "init --upgrade once pgdave has the uid"
    run bash -c "printf '$PIN\n' | '$PINGATE' verify pgdave --stdin"
    assert_eq 5 "$rc" "verify for pgdave: $out $err"
    run "$PINGATE" doctor
    assert_contains "$out" "fix: pingate remove pgdave"
}

# A group entry larger than any fixed buffer (8,000 members, about 72 KB)
# is still found: the lookup grows its buffer on ERANGE instead of saying the
# group does not exist.
test_doctor_finds_a_pingate_group_too_large_for_a_fixed_buffer() {
    store_reset
    install_fake_module
    cp /etc/group "$SANDBOX/group.saved"
    trap 'cat "$SANDBOX/group.saved" > /etc/group' EXIT
    local members
    members=$(seq -f 'member%04g' 1 8000 | paste -sd,)
    sed "s/^pingate:x:61000:\$/pingate:x:61000:$members/" "$SANDBOX/group.saved" > /etc/group
    run "$PINGATE" doctor
    assert_not_contains "$out" "does not exist" "doctor with a 72 KB group entry"
    assert_contains "$out" "group pingate has members (member0001" "doctor with a 72 KB group entry"
}

test_doctor_finds_a_damaged_record_and_a_missing_module() {
    store_reset
    enroll_pin pgalice "$PIN"
    chown root:root /var/lib/pingate/61001.record; chmod 0640 /var/lib/pingate/61001.record
    mountpoint -q /usr/lib/x86_64-linux-gnu/security && umount /usr/lib/x86_64-linux-gnu/security
    run "$PINGATE" doctor
    assert_eq 5 "$rc"
    assert_contains "$out" "fix: chown root:pingate /var/lib/pingate/61001.record && chmod 0660"
    [ -e /usr/lib/x86_64-linux-gnu/security/pam_pingate.so ] || assert_contains "$out" "PAM module /usr/lib/x86_64-linux-gnu/security/pam_pingate.so is missing"
}

test_doctor_names_a_0600_key_as_the_core_refuses_it() {
    store_reset
    enroll_pin pgalice "$PIN"
    chmod 0600 /var/lib/pingate/machine.key
    run "$PINGATE" doctor
    assert_eq 5 "$rc"; assert_contains "$out" "fix: chmod 0640 /var/lib/pingate/machine.key"
    run "$PINGATE" verify pgalice --stdin <<< "$PIN"
    assert_eq 5 "$rc" "the core refuses the key doctor names: $err"; assert_contains "$err" "has mode 0600, expected 0640"
}

test_doctor_prints_pingate_init_for_a_missing_key() {
    store_reset
    rm /var/lib/pingate/machine.key
    run "$PINGATE" doctor
    assert_eq 5 "$rc"; assert_contains "$out" "fix: pingate init"
}

# --- enable, disable: exits and sudo -i -------------------------------------------

# stage_pam DIR NAME...: DIR/etc/pam.d with NAME files, each Debian's shape of
# a sudo stack (its auth rules from common-auth).
stage_pam() {
    local dir=$1 name; shift
    mkdir -p "$dir/etc/pam.d"
    printf 'auth [success=1 default=ignore] pam_unix.so nullok\nauth requisite pam_deny.so\nauth required pam_permit.so\n' \
        > "$dir/etc/pam.d/common-auth"
    for name in "$@"; do printf '#%%PAM-1.0\n@include common-auth\n@include common-account\n' > "$dir/etc/pam.d/$name"; done
    : > "$dir/etc/pam.d/common-account"
}

test_enable_and_disable_of_a_service_with_no_stack_both_exit_4() {
    local dir; dir=$(mktemp -d); stage_pam "$dir"
    run "$PINGATE" enable nosuchservice --root "$dir"
    assert_eq 4 "$rc" "enable nosuchservice: $err"
    run "$PINGATE" disable nosuchservice --root "$dir"
    assert_eq 4 "$rc" "disable nosuchservice: $out $err"
    assert_contains "$err" "nosuchservice does not exist"
    stage_pam "$dir" sudo
    run "$PINGATE" disable sudo --root "$dir"
    assert_eq 0 "$rc" "disable of a service never enabled: $err"
    rm -rf "$dir"
}

test_enable_sudo_brings_sudo_i_along_and_says_so_and_disable_takes_both_out() {
    local dir; dir=$(mktemp -d); stage_pam "$dir" sudo sudo-i
    run "$PINGATE" enable sudo --root "$dir"
    assert_eq 0 "$rc" "enable sudo: $err"
    assert_contains "$out" "sudo-i is the service of sudo -i: enabled with sudo"
    grep -q pam_pingate.so "$dir/etc/pam.d/sudo" || fail "sudo has no pam_pingate.so line"
    grep -q pam_pingate.so "$dir/etc/pam.d/sudo-i" || fail "sudo-i has no pam_pingate.so line"
    run "$PINGATE" disable sudo --root "$dir"
    assert_eq 0 "$rc" "disable sudo: $err"
    ! grep -q pam_pingate.so "$dir/etc/pam.d/sudo" "$dir/etc/pam.d/sudo-i" || fail "a line was left: $out"
    # Without a sudo-i stack (sudo-rs), sudo alone, and no refusal.
    rm "$dir/etc/pam.d/sudo-i"
    run "$PINGATE" enable sudo --root "$dir"
    assert_eq 0 "$rc" "enable sudo without sudo-i: $err"
    assert_not_contains "$out" "sudo-i" "enable sudo without sudo-i"
    rm -rf "$dir"
}

# A machine upgraded from 0.2.0 has sudo enabled and not sudo-i: doctor
# says how to add it (where sudo is installed).
test_doctor_names_sudo_i_with_the_command_that_enables_it() {
    [ -x /usr/bin/sudo ] && [ -f /etc/pam.d/sudo-i ] || skip "no sudo with a sudo-i stack here"
    store_reset
    run "$PINGATE" doctor
    assert_contains "$out" "sudo -i: no PIN is offered (no pam_pingate.so in the auth stack of sudo-i, /etc/pam.d/sudo-i)"
    assert_contains "$out" "fix: pingate enable sudo-i"
}

test_enrol_is_enroll() {
    store_reset
    run bash -c "printf '$PIN\n$PIN\n' | '$PINGATE' enrol pgalice --stdin"
    assert_eq 0 "$rc" "enrol: $err"; assert_contains "$out" "enrolled a PIN for pgalice"
    run "$PINGATE" help enrol
    assert_eq 0 "$rc"; assert_contains "$out" "usage: pingate enroll"
}

# --- pingate init -------------------------------------------------------------

test_init_creates_a_missing_store_and_key_and_is_idempotent() {
    local dir="$SANDBOX/init-store"
    rm -rf "$dir"
    run "$PINGATE" init --store "$dir"
    assert_eq 0 "$rc" "init: $err"
    assert_contains "$out" "created the store $dir"; assert_contains "$out" "created the machine key $dir/machine.key"
    assert_eq "root:pingate 750" "$(stat -c '%U:%G %a' "$dir")" "store"
    assert_eq "root:pingate 640 32" "$(stat -c '%U:%G %a %s' "$dir/machine.key")" "key"
    local key; key="$(sha256sum < "$dir/machine.key")"
    run "$PINGATE" init --store "$dir"
    assert_eq 0 "$rc"; assert_contains "$out" "is in place"; assert_not_contains "$out" "created"
    assert_eq "$key" "$(sha256sum < "$dir/machine.key")" "the key after a second init"
}

test_init_never_replaces_a_key_but_sets_its_mode_right() {
    store_reset
    enroll_pin pgalice "$PIN"
    local key; key="$(sha256sum < /var/lib/pingate/machine.key)"
    chmod 0600 /var/lib/pingate/machine.key; chgrp root /var/lib/pingate/machine.key
    run "$PINGATE" init
    assert_eq 0 "$rc" "init: $err"; assert_contains "$out" "repaired /var/lib/pingate/machine.key"
    assert_eq "$key" "$(sha256sum < /var/lib/pingate/machine.key)" "key"
    assert_eq "root:pingate 640" "$(stat -c '%U:%G %a' /var/lib/pingate/machine.key)"
    verify pgalice "$PIN" || fail "the PIN still works with the kept key"
    truncate -s 16 /var/lib/pingate/machine.key
    run "$PINGATE" init
    assert_eq 5 "$rc"; assert_contains "$err" "is 16 bytes, expected 32"
    assert_eq 16 "$(stat -c %s /var/lib/pingate/machine.key)" "a key of the wrong size is left for root to move away"
}

test_init_refuses_non_root() {
    run as_user pgalice "$PINGATE" init --store "$SANDBOX/user-store"
    assert_eq 3 "$rc"; assert_contains "$err" "must be run as root"
    [ ! -e "$SANDBOX/user-store" ] || fail "a non-root init created a store"
}

test_init_takes_the_group_id_for_a_staged_root() {
    local dir="$SANDBOX/staged-store"
    rm -rf "$dir"
    run "$PINGATE" init --store "$dir" --group-id 4242
    assert_eq 0 "$rc" "init: $err"
    assert_eq "0:4242 640" "$(stat -c '%u:%g %a' "$dir/machine.key")"
    run "$PINGATE" init --group-id x; assert_eq 2 "$rc"
}

test_doctor_reports_a_missing_group() {
    store_reset
    trap 'grep -q "^pingate:" /etc/group || echo "pingate:x:61000:" >> /etc/group' EXIT
    grep -v '^pingate:' /etc/group > "$SANDBOX/group.new"; cat "$SANDBOX/group.new" > /etc/group
    run "$PINGATE" doctor
    assert_eq 5 "$rc"; assert_contains "$out" "fix: groupadd --system pingate"
    run "$PINGATE" status pgalice
    assert_eq 5 "$rc"; assert_contains "$err" "groupadd"
}

# --- terminal entry through a pseudo-terminal ---------------------------------

# pty ARGS...: runs pty_drive.py; sets $out (the transcript) and $rc.
pty() { out=$($PTY "$@") && rc=0 || rc=$?; }

test_pty_pin_pad_never_shows_a_digit() {
    store_reset
    pty expect:"New PIN for pgalice: " send:"$PIN" expect:"Repeat the new PIN: " send:"$PIN" -- "$PINGATE" enroll pgalice
    assert_eq 0 "$rc" "enroll on the pad: $out"
    assert_contains "$out" "●●●●"; assert_contains "$out" "enrolled a PIN for pgalice"
    no_digits "$out" || fail "a digit appeared on the terminal: $out"
    verify pgalice "$PIN" || fail "the PIN typed on the pad does not verify"
}

test_pty_backspace_removes_one_digit() {
    store_reset
    # 3-9-5, Backspace, 5-8 → 3958; the 4-digit policy completes without Enter.
    pty expect:"New PIN" send:'395\x7f58' expect:"Repeat" send:'39\x7f\x7f3958' -- "$PINGATE" enroll pgalice
    assert_eq 0 "$rc" "$out"
    no_digits "$out" || fail "digit echoed: $out"
    verify pgalice "$PIN" || fail "backspace did not remove the digit"
}

test_pty_mismatch_clears_and_asks_again() {
    store_reset
    pty expect:"New PIN" send:"$PIN" expect:"Repeat" send:"$NEW_PIN" expect:"do not match — try again" \
        expect:"New PIN" send:"$PIN" expect:"Repeat" send:"$PIN" -- "$PINGATE" enroll pgalice
    assert_eq 0 "$rc" "$out"
    no_digits "$out" || fail "digit echoed: $out"
    verify pgalice "$PIN" || fail "PIN after a mismatch"
}

test_pty_weak_pin_is_refused_with_the_reason_then_retried() {
    store_reset
    pty expect:"New PIN" send:1111 expect:"repeats one digit" expect:"New PIN" send:"$PIN" \
        expect:"Repeat" send:"$PIN" -- "$PINGATE" enroll pgalice
    assert_eq 0 "$rc" "$out"
    verify pgalice "$PIN" || fail "PIN after a weak one"
}

test_pty_three_mismatches_give_up() {
    store_reset
    pty expect:"New PIN" send:"$PIN" expect:"Repeat" send:"$NEW_PIN" expect:"New PIN" send:"$PIN" expect:"Repeat" \
        send:"$NEW_PIN" expect:"New PIN" send:"$PIN" expect:"Repeat" send:"$NEW_PIN" -- "$PINGATE" enroll pgalice
    assert_eq 1 "$rc" "$out"
    run "$PINGATE" status pgalice; assert_eq 4 "$rc"
}

# Runs `pingate enroll pgalice` inside a shell that records `stty -g` before and after.
STTY_WRAPPER='stty -g > "$1/before"; bash -c "echo \$\$ > $1/pid; exec $0 enroll pgalice"; echo "rc=$?"; stty -g > "$1/after"'

test_pty_ctrl_c_cancels_and_restores_the_terminal() {
    store_reset
    local dir; dir=$(mktemp -d)
    pty expect:"New PIN" send:'39\x03' -- bash -c "$STTY_WRAPPER" "$PINGATE" "$dir"
    assert_contains "$out" "rc=130"; assert_contains "$out" "cancelled"
    assert_eq "$(cat "$dir/before")" "$(cat "$dir/after")" "stty -g before/after"
    run "$PINGATE" status pgalice; assert_eq 4 "$rc" "nothing enrolled"
}

test_pty_sigterm_restores_the_terminal() {
    store_reset
    local dir; dir=$(mktemp -d)
    pty expect:"New PIN" send:'3' sleep:0.2 signal:"$dir/pid":TERM -- bash -c "$STTY_WRAPPER" "$PINGATE" "$dir"
    assert_contains "$out" "rc=143"
    assert_eq "$(cat "$dir/before")" "$(cat "$dir/after")" "stty -g before/after"
}

test_pty_escape_and_empty_entry_cancel() {
    store_reset
    pty expect:"New PIN" send:'3\x1b' -- "$PINGATE" enroll pgalice
    assert_eq 130 "$rc" "Esc: $out"
    pty expect:"New PIN" send:'\r' -- "$PINGATE" enroll pgalice
    assert_eq 130 "$rc" "empty entry: $out"
    run "$PINGATE" status pgalice; assert_eq 4 "$rc"
}

test_pty_drawn_pattern_yields_the_canonical_pattern() {
    store_reset
    # The cursor starts on 5. k h → 1, take; l l → 3, take (adds 2); j j → 9,
    # take (adds 6); Enter. The repeat is typed as 1-3-9 (same after the gap rule).
    pty expect:"New pattern for pgalice:" send:'kh ll jj ' expect:"●" send:'\r' \
        expect:"Repeat the new pattern:" send:'1-3-9\r' expect:"Save it? [y/n]" send:y -- \
        "$PINGATE" enroll pgalice --pattern
    assert_eq 0 "$rc" "$out"
    assert_contains "$out" "enrolled a 3×3 pattern for pgalice"
    verify pgalice "3:1-2-3-6-9" || fail "the drawn pattern is not 1-2-3-6-9"
    ! verify pgalice "3:1-2-3-6" || fail "a shorter pattern verified"
}

test_pty_arrow_keys_draw_and_backspace_undoes() {
    store_reset
    # Arrows: up → 2 take; left → 1 take; down down → 7 take (adds 4); right → 8;
    # Backspace undoes 8; right right → 9 take (adds 8 back? no: 8 is free, so 7→9 adds 8).
    pty expect:"New pattern" send:'\x1b[A ' send:'\x1b[D ' send:'\x1b[B\x1b[B ' send:'\x1b[C ' send:'\x7f' \
        send:'\x1b[C ' send:'\r' expect:"Repeat" send:'2-1-7-9\r' expect:"Save it?" send:y -- \
        "$PINGATE" enroll pgalice --pattern
    assert_eq 0 "$rc" "$out"
    verify pgalice "3:2-1-4-7-8-9" || fail "arrow-drawn pattern"
}

test_pty_user_retries_a_wrong_current_pin_when_changing() {
    store_reset
    enroll_pin pgalice "$PIN"
    pty expect:"Current PIN for pgalice: " send:0000 expect:"wrong PIN for pgalice" expect:"Current PIN" send:"$PIN" \
        expect:"New PIN" send:"$NEW_PIN" expect:"Repeat" send:"$NEW_PIN" -- \
        setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$PINGATE" change
    assert_eq 0 "$rc" "$out"
    no_digits "$(grep -v 'attempts left' <<< "$out")" || fail "digit echoed: $out"
    verify pgalice "$NEW_PIN" || fail "new PIN"
}

test_pty_dumb_terminal_gets_plain_prompts_with_echo_off() {
    store_reset
    pty expect:"New PIN for pgalice: " send:"$PIN\r" expect:"Repeat the new PIN: " send:"$PIN\r" -- \
        env TERM=dumb "$PINGATE" enroll pgalice
    assert_eq 0 "$rc" "$out"
    assert_not_contains "$out" "●" "plain prompts"
    no_digits "$out" || fail "echo was on: $out"
    verify pgalice "$PIN" || fail "PIN typed at a plain prompt"
}

run_tests
