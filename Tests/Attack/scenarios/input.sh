# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# input.sh — hostile requests, and requests about another user's record.

# bad_request USER EXPECTED_EXIT LABEL: sends $WORKDIR/bad as USER; the answer
# must carry EXPECTED_EXIT, the helper must not die by a signal, and USER's
# failure count must not move.
bad_request() {
    local user="$1" expected="$2" label="$3" before after
    before="$(failures "$user")"
    ask "$user" "$WORKDIR/bad"
    after="$(failures "$user")"
    TRIES=$((TRIES + 1))
    case "$ANSWER" in ok*|wrong*) VERIFIED=$((VERIFIED + 1)) ;; esac
    case "$ANSWER" in ok*) SUCCEEDED=$((SUCCEEDED + 1)) ;; esac
    [ "$RC" = "$expected" ] || breach "$label: exit $RC [$ANSWER], expected $expected"
    [ "$before" = "$after" ] || breach "$label: failures $before -> $after"
}

# send USER EXPECTED LABEL PRINTF_FORMAT [ARGS...]: a raw request via printf.
send() {
    local user="$1" expected="$2" label="$3"; shift 3
    # shellcheck disable=SC2059 # the format is the request
    printf "$@" > "$WORKDIR/bad"; chmod 644 "$WORKDIR/bad"
    bad_request "$user" "$expected" "$label"
}

attack_bad_input() {
    TRIES=0 VERIFIED=0 SUCCEEDED=0
    enroll_pin pgalice 0427
    enroll_pattern pgcarol 4 1-6-11-16
    local head='pingate-verify/1\nop=verify\nuser=pgalice\n' phead='pingate-verify/1\nop=verify\nuser=pgcarol\n'
    # A terminal on stdin (script gives the helper a pty).
    local before; before="$(failures pgalice)"
    local output; output="$(cd "$WORKDIR" && as_user pgalice script -qec "$HELPER" /dev/null < /dev/null 2>&1)"; local rc=$?
    TRIES=$((TRIES + 1))
    [ "$rc" = 7 ] && [[ "$output" == *"refused stdin is a terminal"* ]] || breach "tty stdin: exit $rc [$output]"
    # Size: 1 MiB, one byte over the limit, and exactly at it (a 4000-digit PIN).
    { printf "${head}secret="; head -c 1048576 /dev/zero | tr '\0' 1; } > "$WORKDIR/bad"; bad_request pgalice 7 "1 MiB"
    { printf "${head}secret="; head -c $((4097 - 47)) /dev/zero | tr '\0' 1; } > "$WORKDIR/bad"; bad_request pgalice 7 "4097 B"
    { printf "${head}secret="; head -c $((4096 - 47)) /dev/zero | tr '\0' 1; } > "$WORKDIR/bad"; bad_request pgalice 5 "4096 B"
    # NUL bytes, CR, invalid UTF-8, structure.
    send pgalice 7 "NUL in secret" "${head}secret=04\0000427\n"
    send pgalice 7 "NUL in user" 'pingate-verify/1\nop=verify\nuser=pgalice\000x\nsecret=0427\n'
    send pgalice 7 "NUL in version" 'pingate-verify/1\000\nop=status\nuser=pgalice\n'
    send pgalice 7 "CR in secret" "${head}secret=0427\r\n"
    send pgalice 7 "invalid UTF-8 user" 'pingate-verify/1\nop=verify\nuser=pg\xc3\x28alice\nsecret=0427\n'
    send pgalice 5 "invalid UTF-8 secret" "${head}secret=04\xff\xfe27\n"
    send pgalice 7 "duplicate secret" "${head}secret=1111\nsecret=0427\n"
    send pgalice 7 "unknown key" "${head}secret=0427\nuid=0\n"
    send pgalice 7 "protocol 2" 'pingate-verify/2\nop=verify\nuser=pgalice\nsecret=0427\n'
    send pgalice 7 "no version line" 'op=verify\nuser=pgalice\nsecret=0427\n'
    send pgalice 7 "op VERIFY" 'pingate-verify/1\nop=VERIFY\nuser=pgalice\nsecret=0427\n'
    send pgalice 7 "empty request" ''
    send pgalice 7 "user with space" 'pingate-verify/1\nop=verify\nuser=pgalice \nsecret=0427\n'
    # Not a well-formed PIN: refused without counting.
    send pgalice 5 "letters" "${head}secret=12a4\n"
    send pgalice 5 "Arabic-Indic digits" "${head}secret=\xd9\xa0\xd9\xa4\xd9\xa2\xd9\xa7\n"
    send pgalice 5 "fullwidth digits" "${head}secret=\xef\xbc\x90\xef\xbc\x94\xef\xbc\x92\xef\xbc\x97\n"
    send pgalice 5 "sign" "${head}secret=+427\n"
    send pgalice 5 "3 digits" "${head}secret=042\n"
    send pgalice 5 "13 digits" "${head}secret=0427042704270\n"
    send pgalice 5 "empty secret" "${head}secret=\n"
    # Patterns: 10^4 cells (20 KB, over the limit), 2000 cells and a 4000-digit run within it.
    { printf "${phead}secret="; for _ in $(seq 5000); do printf '1-2-'; done; printf '\n'; } > "$WORKDIR/bad"; bad_request pgcarol 7 "10^4-cell pattern"
    { printf "${phead}secret="; for _ in $(seq 1000); do printf '1-2-'; done | head -c 4000; printf '\n'; } > "$WORKDIR/bad"; bad_request pgcarol 5 "2000-cell pattern"
    { printf "${phead}secret="; head -c 4000 /dev/zero | tr '\0' 5; printf '\n'; } > "$WORKDIR/bad"; bad_request pgcarol 5 "4000-digit run"
    send pgcarol 5 "cell 17 on 4x4" "${phead}secret=1-6-11-17\n"
    send pgcarol 5 "cell 0" "${phead}secret=0-1-6-11\n"
    send pgcarol 5 "repeated cell" "${phead}secret=1-6-11-6\n"
    send pgcarol 5 "grid mismatch" "${phead}secret=3:1-2-3-6\n"
    send pgcarol 5 "too short" "${phead}secret=1-2\n"
    send pgcarol 5 "negative" "${phead}secret=-1-6-11-16\n"
    send pgcarol 5 "huge cell" "${phead}secret=99999999999999999999-1-2-3\n"
    # Arguments from a non-root caller.
    local argument
    for argument in "--store /tmp" "--config /tmp/x" "-h" "--version"; do
        before="$(failures pgalice)"
        # shellcheck disable=SC2086
        output="$(cd "$WORKDIR" && as_user pgalice "$HELPER" $argument < "$(request_file right op=verify user=pgalice secret=0427)")"; rc=$?
        TRIES=$((TRIES + 1))
        [ "$rc" = 7 ] || breach "argument $argument: exit $rc [$output]"
    done
    [ "$(failures pgalice)" = 0 ] && [ "$(failures pgcarol)" = 0 ] || breach "something was counted"
    row "bad input ($TRIES requests)" "$TRIES" "$VERIFIED" "$SUCCEEDED" "$(verdict "refused 7 / malformed 5 as due, nothing counted, no signal")"
}

attack_other_users_record() {
    TRIES=0 VERIFIED=0 SUCCEEDED=0
    enroll_pin pgalice 0427; enroll_pin pgbob 3859
    local bob_record before; bob_record="$(record_of pgbob)"; before="$(sha256sum "$bob_record")"
    local target op answers=() files=()
    for op in status verify; do
        for target in pgbob pgcarol pgnobody root; do
            local lines=("op=$op" "user=$target")
            [ "$op" = verify ] && lines+=("secret=3859")
            files+=("$(request_file "other-$op-$target" "${lines[@]}")")
        done
    done
    # Same answer and exit, and timing in the same class: median of RUNS each.
    local runs=30
    [ "$SCALE" = full ] && runs=100
    local results; results="$(RUNS=$runs python3 "$ATTACK_DIR/timing.py" pgalice "$HELPER" "${files[@]}")"
    TRIES=$((runs * ${#files[@]}))
    local distinct; distinct="$(cut -d' ' -f2- <<<"$results" | sort -u)"
    [ "$(wc -l <<<"$distinct")" = 1 ] || breach "answers differ by target: $(paste -sd ';' <<<"$distinct")"
    [[ "$distinct" == refused*"|7" ]] || breach "not refused with exit 7: $distinct"
    local medians fastest slowest
    medians="$(cut -d' ' -f1 <<<"$results")"
    fastest="$(sort -n <<<"$medians" | head -1)"; slowest="$(sort -n <<<"$medians" | tail -1)"
    python3 -c "import sys; f,s=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if s-f <= 2.0 or s <= 1.5*f else 1)" "$fastest" "$slowest" ||
        breach "timing differs by target: medians $(paste -sd ' ' <<<"$medians") ms"
    [ "$before" = "$(sha256sum "$bob_record")" ] && [ "$(failures pgbob)" = 0 ] || breach "pgbob's record changed"
    row "another user's record" "$TRIES" 0 0 \
        "$(verdict "one answer for enrolled/not-enrolled/nonexistent/root; medians $fastest–$slowest ms")"
}
