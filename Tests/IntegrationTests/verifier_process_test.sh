#!/bin/bash
# The verifier's order, checked with real processes: parallel attempts,
# SIGKILL at every step and at random moments, and two users in parallel.
# Uses the installed setgid helper as a non-root caller, and the debug helper
# (as root) for its test-only fault points (PINGATE_TEST_FAULT).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sandbox.sh"
sandbox_enter "$@"

DEBUG_HELPER="$DEBUG_BIN/pingate-verify"

enroll_pin() { printf '%s\n%s\n' "$2" "$2" | "$PINGATE" enroll "$1" --stdin --allow-weak --force >/dev/null; }
failures() { record_failures "$1"; }

# verify_as_root USER SECRET [FAULT]: one verification through the debug helper.
verify_as_root() {
    printf 'pingate-verify/1\nop=verify\nuser=%s\nsecret=%s\n' "$1" "$2" |
        PINGATE_TEST_FAULT="${3:-}" "$DEBUG_HELPER"
}

# park_verification USER SECRET STEP OUT: a debug helper verifying SECRET
# for USER, stopped (SIGSTOP) by its fault point at STEP, its answer going to
# OUT; sets $parked to its pid (a child of this shell); status 1 if it never
# stops.
park_verification() {
    printf 'pingate-verify/1\nop=verify\nuser=%s\nsecret=%s\n' "$1" "$2" > "$SANDBOX/parked-request"
    ( PINGATE_TEST_FAULT="$3:stop" exec "$DEBUG_HELPER" < "$SANDBOX/parked-request" > "$4" ) &
    parked=$!
    wait_until_stopped "$parked"
}

# parallel_verify N USER SECRET: N concurrent verifications as USER through the
# setgid helper; prints the answers' first words, counted. SECRET "distinct"
# makes N different wrong PINs (the same wrong PIN again is not counted again).
parallel_verify() {
    local n="$1" user="$2" secret="$3" i
    local out="$SANDBOX/parallel"; rm -rf "$out"; mkdir -p "$out"
    for i in $(seq "$n"); do
        [ "$3" = distinct ] && secret=$((1000 + i))
        ( printf 'pingate-verify/1\nop=verify\nuser=%s\nsecret=%s\n' "$user" "$secret" |
            as_user "$user" "$HELPER" > "$out/$i" ) &
    done
    wait
    cat "$out"/* | awk '{print $1}' | sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' '
}

test_64_parallel_wrong_guesses_yield_5_verifications() {
    enroll_pin pgalice 0427
    local counts; counts="$(parallel_verify 64 pgalice distinct)"
    assert_contains "$counts" "wrong=5 " "answers"
    assert_contains "$counts" "locked=59 " "answers"
    assert_not_contains "$counts" "ok=" "answers"
    assert_eq 5 "$(failures pgalice)" "counted failures"
}

test_64_parallel_correct_pins_all_succeed() {
    enroll_pin pgalice 0427
    local counts; counts="$(parallel_verify 64 pgalice 0427)"
    assert_eq "ok=64 " "$counts" "answers"
    assert_eq 0 "$(failures pgalice)" "failures after"
}

test_kill_at_every_step_never_loses_a_count() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper at $DEBUG_HELPER (swift build)"
    local step secret expected_counted before after answer rc
    for secret in 1111 0427; do
        for step in opened lock-held counted released verified cleared; do
            enroll_pin pgalice 0427
            "$PINGATE" unlock pgalice >/dev/null
            before="$(failures pgalice)"
            rc=0; answer="$(verify_as_root pgalice "$secret" "$step:kill")" || rc=$?
            after="$(failures pgalice)" || fail "record does not parse after a kill at $step"
            if [ "$step" = cleared ] && [ "$secret" = 1111 ]; then
                # A wrong PIN never reaches "cleared": it answers normally.
                assert_eq 1 "$rc" "exit for wrong PIN past verified"; assert_eq 1 "$after" "count"; continue
            fi
            assert_eq 137 "$rc" "exit status when killed at $step"
            assert_eq "" "$answer" "no answer may leave before the kill at $step"
            case "$step" in
                opened|lock-held) expected_counted=0 ;;
                counted|released|verified) expected_counted=1 ;;
                cleared) expected_counted=0 ;;  # success already on disk
            esac
            assert_eq "$((before + expected_counted))" "$after" "failures after kill at $step (secret $secret)"
        done
    done
}

# sync_trace OP-LINES...: runs one request through the installed helper under
# strace and prints, in order, "slot" for a record slot written, "sync" for an
# fdatasync and "answer" for the answer line.
sync_trace() {
    local request="pingate-verify/1" line
    for line in "$@"; do request+=$'\n'"$line"; done
    printf '%s\n' "$request" > "$SANDBOX/request"
    strace -qq -e trace=pwrite64,fdatasync,write -e signal=none -o "$SANDBOX/trace" \
        "$HELPER" < "$SANDBOX/request" > /dev/null || true
    awk '/^pwrite64\(/ { print "slot" } /^fdatasync\(/ { print "sync" } /^write\(1,/ { print "answer" }' "$SANDBOX/trace" | tr '\n' ' '
}

test_only_a_count_or_a_new_credential_waits_for_the_disk() {
    # A count is on the disk before the KDF and the answer; a clear, which a
    # crash may undo only towards more counted failures, is not waited for
    # (RecordFile.Durability). A new credential is.
    enroll_pin pgalice 0427
    assert_eq "slot sync slot answer " "$(sync_trace op=verify user=pgalice secret=0427)" "right PIN: count synced, clear not"
    assert_eq "slot sync slot answer " "$(sync_trace op=verify user=pgalice secret=1111)" "wrong PIN: count synced, repeat tag not"
    assert_eq 1 "$(failures pgalice)" "the wrong PIN is counted"
    assert_eq "slot sync slot sync answer " \
        "$(sync_trace op=change user=pgalice secret=0427 new_kind=pin new=5820)" "change: the new PIN synced"
    assert_eq ok "$(verify_as_root pgalice 5820)" "the new PIN works"
}

# follow_up_requests USER PIN: $SANDBOX/status (a status asked with
# then=verify) and $SANDBOX/verify (its verify, for descriptor 3).
follow_up_requests() {
    printf 'pingate-verify/1\nop=status\nuser=%s\nthen=verify\n' "$1" > "$SANDBOX/status"
    printf 'pingate-verify/1\nop=verify\nuser=%s\nsecret=%s\n' "$1" "$2" > "$SANDBOX/verify"
}

# answer_words FILE: the first word of each answer line, on one line.
answer_words() { awk '{ print $1 }' "$1" | tr '\n' ' ' | sed 's/ $//'; }

test_a_verify_after_a_status_finds_its_pages_and_time_zone_ready() {
    # Made ready while the module prompts (FollowUp.swift): once the verify
    # request is read, no secret's pages are mapped and the time zone is not
    # read, so neither is paid between the last digit and the answer.
    enroll_pin pgalice 0427
    follow_up_requests pgalice 0427
    strace -qq -e trace=mlock,openat,read -e signal=none -o "$SANDBOX/trace" \
        "$HELPER" < "$SANDBOX/status" 3< "$SANDBOX/verify" > "$SANDBOX/answers" || true
    assert_eq "enrolled ok" "$(answer_words "$SANDBOX/answers")" "the status, then the verify"
    local before after
    before="$(awk '/^read\(3,/ { exit } { print }' "$SANDBOX/trace")"
    after="$(awk '/^read\(3,/ { seen = 1 } seen' "$SANDBOX/trace")"
    [ -n "$after" ] || fail "no read of the verify request in the trace"
    assert_eq 0 "$(grep -c '^mlock(' <<< "$after" || true)" "secret pages locked after the verify request came"
    assert_eq 0 "$(grep -c '/etc/localtime' <<< "$after" || true)" "the time zone read after the verify request came"
    assert_eq 1 "$(grep -c '/etc/localtime' <<< "$before" || true)" "the time zone read while waiting"
}

test_a_status_and_its_verify_under_a_small_memlock_limit() {
    # The pages filled in while waiting are best effort: under a few pages
    # of RLIMIT_MEMLOCK some are; the verify still answers, as a user's run
    # (root's CAP_IPC_LOCK ignores the limit). Two pages are the least that
    # leaves the machine key's page its lock (below).
    enroll_pin pgalice 0427
    follow_up_requests pgalice 0427
    local limit
    for limit in 8192 12288; do
        as_user pgalice prlimit --memlock="$limit" "$HELPER" < "$SANDBOX/status" 3< "$SANDBOX/verify" > "$SANDBOX/answers" ||
            fail "memlock $limit: exit $?"
        assert_eq "enrolled ok" "$(answer_words "$SANDBOX/answers")" "memlock $limit"
    done
}

test_the_machine_key_is_never_read_onto_a_page_the_callers_limit_leaves_unlocked() {
    # Issue 40, item 6: a user sets the helper's RLIMIT_MEMLOCK to 0, stops
    # it (its real uid is hers) and fills memory, and the machine key's page
    # goes to swap, on disk beside a sealed key. A limit the caller set
    # refuses the key (MachineKeyPage): no PIN is offered (an error, the
    # password works) and nothing is counted.
    enroll_pin pgalice 0427
    follow_up_requests pgalice 0427
    local rc=0
    as_user pgalice prlimit --memlock=0 "$HELPER" < "$SANDBOX/status" 3< "$SANDBOX/verify" > "$SANDBOX/answers" || rc=$?
    assert_eq "error" "$(answer_words "$SANDBOX/answers")" "the status under memlock 0"
    assert_contains "$(cat "$SANDBOX/answers")" "RLIMIT_MEMLOCK leaves no room to lock its page in RAM" "the status's answer"
    assert_eq 6 "$rc" "the exit status"
    printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=1397\n' > "$SANDBOX/wrong"
    local limit
    for limit in 0 4096; do       # one page: the request's own pages spend it (ENOMEM)
        rc=0
        as_user pgalice prlimit --memlock="$limit" "$HELPER" < "$SANDBOX/wrong" > "$SANDBOX/answers" || rc=$?
        assert_eq "error" "$(answer_words "$SANDBOX/answers")" "a wrong PIN under memlock $limit"
        assert_eq 6 "$rc" "the exit status under memlock $limit"
    done
    assert_eq 0 "$(record_failures pgalice)" "failures counted under a small memlock limit"
    # Only the hard limit counts: the helper raises the soft one to it.
    as_user pgalice prlimit --memlock=0:65536 "$HELPER" < "$SANDBOX/status" 3< "$SANDBOX/verify" > "$SANDBOX/answers" ||
        fail "memlock 0:65536: exit $?"
    assert_eq "enrolled ok" "$(answer_words "$SANDBOX/answers")" "a soft memlock limit of 0 under a hard one of 64 KiB"
}

test_the_machine_key_is_read_onto_a_page_locked_in_ram_and_left_out_of_core_dumps() {
    # Traced: the page the key file is read into (pread64's buffer) was
    # locked by mlock, not unlocked since, and marked MADV_DONTDUMP, before
    # the read. Root's run (CAP_IPC_LOCK: no limit applies).
    enroll_pin pgalice 0427
    printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=0427\n' > "$SANDBOX/request"
    # (raw=pread64: its buffer's address, not the key's bytes, in the trace)
    strace -qq -e trace=openat,pread64,mlock,munlock,madvise -e raw=pread64 -e signal=none -o "$SANDBOX/trace" \
        "$HELPER" < "$SANDBOX/request" > "$SANDBOX/answers" || true
    assert_eq ok "$(answer_words "$SANDBOX/answers")" "the verify"
    local verdict
    verdict="$(awk '
        /^openat\(.*machine\.key"/ { key_fd = $NF }
        /^(mlock|munlock)\(/ { split($0, a, /[(,]/); locked[a[2]] = ($1 ~ /^mlock/ && $NF == "0") }
        /^madvise\(.*MADV_DONTDUMP/ { split($0, a, /[(,]/); if ($NF == "0") dontdump[a[2]] = 1 }
        key_fd != "" && $0 ~ ("^pread64\\(" sprintf("0x%x", key_fd) ",") {
            split($0, a, /[(, ]+/); page = substr(a[3], 1, length(a[3]) - 3) "000"   # its 4 KiB page
            print "key read at " page ": locked " (locked[page] ? "yes" : "no") ", out of core dumps " (dontdump[page] ? "yes" : "no")
            exit
        }' "$SANDBOX/trace")"
    assert_contains "$verdict" "locked yes, out of core dumps yes" "the machine key's page (trace: $SANDBOX/trace)"
}

test_kept_pages_give_up_their_lock_to_a_secret() {
    # SecretPagePool.lockMakingRoom: under a limit of a few pages, the sets
    # the pool keeps idle (the status's two-page request buffer, the pages
    # filled while waiting) once held the allowance while the machine key
    # and the hashes of the verify went unlocked. Traced as the user's run
    # (root's strace -u honours the setgid bit and drops CAP_IPC_LOCK, so
    # the limit applies): after the verify request is read, each secret's
    # pages end up locked, a refused mlock followed by the same one granted.
    enroll_pin pgalice 0427
    follow_up_requests pgalice 0427
    local limit after
    for limit in 16384 20480; do
        prlimit --memlock="$limit" strace -qq -u pgalice -e trace=mlock,read -e signal=none -o "$SANDBOX/trace" \
            "$HELPER" < "$SANDBOX/status" 3< "$SANDBOX/verify" > "$SANDBOX/answers" || true
        assert_eq "enrolled ok" "$(answer_words "$SANDBOX/answers")" "memlock $limit"
        after="$(awk '/^read\(3,/ { seen = 1 } seen' "$SANDBOX/trace")"
        [ -n "$after" ] || fail "memlock $limit: no read of the verify request in the trace"
        assert_eq 0 "$(awk -F'[(,]' '/^mlock\(/ { if (/= -1/) refused[$2] = 1; else delete refused[$2] }
            END { n = 0; for (a in refused) n++; print n }' <<< "$after")" "memlock $limit: pages left unlocked after the verify request"
    done
}

test_a_closed_follow_up_descriptor_is_never_a_file_the_helper_opens() {
    # A caller that leaves descriptor 3 closed (the CLI, a user by hand):
    # the helper puts /dev/null there first, so no file it opens (a record,
    # the log's socket) can land on it and be read as the verify.
    enroll_pin pgalice 0427
    follow_up_requests pgalice 0427
    strace -qq -u pgalice -e trace=openat,socket -e signal=none -o "$SANDBOX/trace" \
        "$HELPER" < "$SANDBOX/status" 3<&- > "$SANDBOX/answers" || true
    assert_eq enrolled "$(answer_words "$SANDBOX/answers")" "the status alone"
    assert_eq 1 "$(grep -c '"/dev/null"' "$SANDBOX/trace" || true)" "opens of /dev/null"
    # (ld.so's opens before main land there and are closed again.)
    assert_eq 0 "$(awk '/"\/dev\/null"/ { seen = 1; next } seen && / = 3$/' "$SANDBOX/trace" | wc -l)" \
        "files opened onto descriptor 3 after it"
    grep -q '61001.record' "$SANDBOX/trace" || fail "the trace holds no run: $(head -3 "$SANDBOX/trace")"
}

test_the_store_group_is_the_helpers_own_and_needs_no_lookup() {
    # StoreLocation.setgidHelper: the installed helper's effective group is
    # its file's setgid group, the store's, so it reads no /etc/group (NSS
    # and two nscd probes, ~25 µs of every run). A copy without the setgid
    # bit looks the group up by name and still answers, run by root, even
    # with another effective group than its real one (as on a nosuid mount).
    enroll_pin pgalice 0427
    printf 'pingate-verify/1\nop=status\nuser=pgalice\n' > "$SANDBOX/status"
    # root's strace runs it as the user with its setgid bit honoured (-u).
    strace -qq -u pgalice -e trace=openat -e signal=none -o "$SANDBOX/trace" \
        "$HELPER" < "$SANDBOX/status" > "$SANDBOX/answer" || true
    assert_eq enrolled "$(awk '{ print $1 }' "$SANDBOX/answer")" "the setgid helper, run by the user"
    assert_eq 1 "$(grep -c '61001.record' "$SANDBOX/trace" || true)" "the trace holds the run"
    assert_eq 0 "$(grep -c '"/etc/group"' "$SANDBOX/trace" || true)" "opens of /etc/group"
    install -m 755 "$HELPER" "$SANDBOX/plain-helper"
    strace -qq -e trace=openat -e signal=none -o "$SANDBOX/trace" "$SANDBOX/plain-helper" < "$SANDBOX/status" > "$SANDBOX/answer" || true
    assert_eq enrolled "$(awk '{ print $1 }' "$SANDBOX/answer")" "a copy without the setgid bit, run by root"
    assert_eq 1 "$(grep -c '"/etc/group"' "$SANDBOX/trace" || true)" "the copy looks the group up"
    setpriv --egid=nogroup --keep-groups "$SANDBOX/plain-helper" < "$SANDBOX/status" > "$SANDBOX/answer" || true
    assert_eq enrolled "$(awk '{ print $1 }' "$SANDBOX/answer")" "the copy, its effective group another than its real one"
}

test_a_clear_lost_in_a_crash_leaves_the_attempt_counted() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper at $DEBUG_HELPER (swift build)"
    enroll_pin pgalice 0427
    verify_as_root pgalice 1111 >/dev/null || true
    local record=/var/lib/pingate/61001.record
    # Stopped after its count's fdatasync, before the clear: the disk holds at
    # least this much, whatever the page cache holds later.
    park_verification pgalice 0427 verified "$SANDBOX/answer" || fail "the helper did not stop after its count"
    cp "$record" "$SANDBOX/synced"
    kill -CONT "$parked"; wait "$parked"
    assert_eq ok "$(cat "$SANDBOX/answer")" "the right PIN"
    assert_eq 0 "$(failures pgalice)" "cleared in the page cache"
    cp "$record" "$SANDBOX/cleared"
    # The crash lost the clear: the record is what was synced.
    cat "$SANDBOX/synced" > "$record"
    assert_eq 2 "$(failures pgalice)" "the right PIN stays counted, with the wrong one before it"
    # The crash tore the clear: half its slot reached the disk.
    local slot; slot="$(cmp -l "$SANDBOX/synced" "$SANDBOX/cleared" | awk 'NR == 1 { print int(($1 - 1) / 512) }')"
    cp "$SANDBOX/cleared" "$SANDBOX/torn"
    dd if="$SANDBOX/synced" of="$SANDBOX/torn" bs=256 skip=$((slot * 2 + 1)) seek=$((slot * 2 + 1)) count=1 conv=notrunc status=none
    cat "$SANDBOX/torn" > "$record"
    assert_eq 2 "$(failures pgalice)" "a torn clear fails its checksum; the counted slot is read"
    assert_eq ok "$(verify_as_root pgalice 0427)" "the right PIN still works after either"
    assert_eq 0 "$(failures pgalice)" "and clears"
}

test_random_sigkill_never_shows_an_uncounted_answer() {
    enroll_pin pgalice 0427
    printf 'kdf_operations = 1\nkdf_memory = 4M\nfree_failures = 20\nmax_failures = 100\n' > /etc/pingate/pingate.conf
    local i before after answer seen=0 killed=0 pid
    for i in $(seq 150); do
        "$PINGATE" unlock pgalice >/dev/null
        before="$(failures pgalice)"
        rm -f "$SANDBOX/answer"
        printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=1111\n' > "$SANDBOX/request"
        # exec twice over: $! is then the helper itself, and only it is killed.
        ( exec setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- "$HELPER" \
            < "$SANDBOX/request" > "$SANDBOX/answer" ) &
        pid=$!
        sleep "0.00$((RANDOM % 10))"
        kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
        wait "$pid" 2>/dev/null || true
        after="$(failures pgalice)" || fail "record unreadable after kill $i"
        # No file when the kill came before the shell opened it: no answer.
        answer="$(cat "$SANDBOX/answer" 2>/dev/null || true)"
        if [ -n "$answer" ]; then
            seen=$((seen + 1))
            [ "$after" -gt "$before" ] || fail "iteration $i: answer [$answer] seen but failures $before -> $after"
        fi
    done
    echo "    150 runs: $killed kill signals sent, $seen answers seen, every one counted"
}

test_two_users_proceed_in_parallel() {
    [ -x "$DEBUG_HELPER" ] || fail "no debug helper"
    enroll_pin pgalice 0427
    enroll_pin pgbob 3859
    # Park alice's verification right after it released the lock (SIGSTOP).
    park_verification pgalice 0427 released "$SANDBOX/alice" || fail "alice's helper did not stop"
    local bob; bob="$(verify_as_root pgbob 3859)"
    assert_eq ok "$bob" "bob verified while alice's verification is in flight"
    local alice_status; alice_status="$(helper_request op=status user=pgalice | head -1)"
    assert_contains "$alice_status" "failures=1" "alice counted before her KDF"
    kill -CONT "$parked"
    wait "$parked"
    assert_eq ok "$(cat "$SANDBOX/alice")" "alice finishes after resuming"
    assert_eq 0 "$(failures pgalice)"
}

test_kdf_without_memory_is_an_error_not_a_counted_failure() {
    # A locker under a tight memory cap must not burn attempts it cannot check.
    printf 'kdf_operations = 1\nkdf_memory = 64M\n' > /etc/pingate/pingate.conf
    enroll_pin pgalice 0427
    local answer rc=0
    answer="$(printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=0427\n' |
        as_user pgalice bash -c "ulimit -v 65536; exec $HELPER")" || rc=$?
    assert_eq 6 "$rc" "exit status"
    assert_contains "$answer" "could not allocate 64 MiB" "answer"
    assert_eq 0 "$(failures pgalice)" "nothing counted"
    rc=0
    answer="$(printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=0427\n' | as_user pgalice "$HELPER")" || rc=$?
    assert_eq "ok" "$answer" "with enough memory"
}

run_tests
