# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# deadlines.sh — helpers stopped mid-request: nothing waits forever.
#
# A user may SIGSTOP their own helper at any moment, with the record's writer
# lock held or its verification in flight. Here the debug helper's fault
# points (PINGATE_TEST_FAULT=STEP:stop, root only) park helpers at each step
# of the verifier's order; then the user's later requests (through the setgid
# release helper, in parallel) and root's unlock must each be answered within
# the lock wait (2 s, plus slack for process start and KDF), and the record's
# failure count must be exactly what the answers say.

STOPPED_ANSWER_LIMIT_MS=3500

# park_helpers STEP SECRET N: N debug helpers verifying SECRET for pgalice at
# once, each stopped at STEP if it gets there (only one at a time can hold the
# writer lock; the others answer busy). Waits until each is stopped or has
# answered; the stopped ones' pids go to $WORKDIR/parked-pids, all N in
# PARKED_ALL.
park_helpers() {
    local step="$1" secret="$2" n="$3" i pid state pids=()
    PARKED_ALL=()
    local request; request="$(request_file parked-request op=verify user=pgalice secret="$secret")"
    for i in $(seq "$n"); do
        (cd "$WORKDIR" && PINGATE_TEST_FAULT="$step:stop" exec "$DEBUG_BIN/pingate-verify" < "$request" > "$WORKDIR/parked-$i" 2>/dev/null) &
        pids+=($!)
    done
    PARKED_ALL=("${pids[@]}")
    : > "$WORKDIR/parked-pids"
    for pid in "${pids[@]}"; do
        for i in $(seq 100); do
            state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)"
            [ "$state" = T ] && { echo "$pid" >> "$WORKDIR/parked-pids"; break; }
            [ -z "$state" ] || [ "$state" = Z ] && break
            sleep 0.05
        done
    done
}

# later_requests M: M wrong guesses as pgalice in parallel, each timed;
# "MS ANSWER" lines in $WORKDIR/later-answers/*.
later_requests() {
    local m="$1" i uid pids=(); uid="$(uid_of pgalice)"
    rm -rf "$WORKDIR/later-answers"; mkdir -p "$WORKDIR/later-answers"
    for i in $(seq "$m"); do
        # Distinct guesses: the same wrong PIN again is not counted again.
        request_file "later-request-$i" op=verify user=pgalice secret="$((2000 + i))" > /dev/null
    done
    for i in $(seq "$m"); do
        (
            start=$(date +%s%N)
            answer="$(cd "$WORKDIR" && timeout 10 setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- \
                "$HELPER" < "$WORKDIR/later-request-$i" 2>/dev/null | head -1)"
            echo "$(( ($(date +%s%N) - start) / 1000000 )) ${answer:-(no answer)}" > "$WORKDIR/later-answers/$i"
        ) &
        pids+=($!)
    done
    # These only: a bare `wait` would also wait for the stopped helpers.
    wait "${pids[@]}"
}

attack_stopped_helper() {
    if [ ! -x "$DEBUG_BIN/pingate-verify" ]; then
        row "stopped helpers at every step" - - - "ERROR: needs the debug helper's fault points (swift build)"
        return
    fi
    local parked_count=3 later=4
    [ "$SCALE" = full ] && { parked_count=8; later=16; }
    local step secret parked before after wrong ok answers slowest=0 ms answer rc start attempts=0 verified=0 succeeded=0
    local summary=""
    for step in opened lock-held counted released verified cleared; do
        secret=1111; [ "$step" = cleared ] && secret=0427   # only a success reaches "cleared"
        policy
        enroll_pin pgalice 0427
        park_helpers "$step" "$secret" "$parked_count"
        parked="$(wc -l < "$WORKDIR/parked-pids")"
        [ "$parked" -ge 1 ] || breach "$step: no helper stopped there"
        before="$(failures pgalice)"
        later_requests "$later"
        wrong=0 ok=0
        while read -r ms answer; do
            [ "$ms" -gt "$slowest" ] && slowest="$ms"
            [ "$ms" -lt "$STOPPED_ANSWER_LIMIT_MS" ] || breach "$step: a later request took $ms ms ($answer)"
            case "$answer" in
                wrong*) wrong=$((wrong + 1)) ;;
                ok*) ok=$((ok + 1)); breach "$step: a wrong PIN answered ok" ;;
                # Busy names the holder when /proc/locks shows its pid (OFD
                # locks often show -1): "held by process N (…)" or "held by
                # another process". Either way nothing was counted (checked below).
                locked*|"error record "*" is busy: held by process "*|"error record "*" is busy: held by another process"*) ;;
                *) breach "$step: unexpected answer [$answer]" ;;
            esac
        done < <(cat "$WORKDIR/later-answers"/*)
        answers="$(awk '{print $2}' "$WORKDIR/later-answers"/* | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')"
        attempts=$((attempts + later)); verified=$((verified + wrong + ok)); succeeded=$((succeeded + ok))
        after="$(failures pgalice)"
        [ "$after" = $((before + wrong)) ] || breach "$step: failures $before -> $after with $wrong wrong answers"
        [ $((before + wrong)) -le 5 ] || breach "$step: $wrong verifications on top of $before failures, policy allows 5"
        # Root's unlock: done, or a busy error within the lock wait.
        start=$(date +%s%N); rc=0
        timeout 10 "$PINGATE" unlock pgalice > /dev/null 2>&1 || rc=$?
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        [ "$ms" -lt "$STOPPED_ANSWER_LIMIT_MS" ] || breach "$step: unlock took $ms ms (exit $rc)"
        [ "$rc" = 0 ] || [ "$rc" = 5 ] || breach "$step: unlock exit $rc"
        local pid; for pid in $(cat "$WORKDIR/parked-pids"); do kill -KILL "$pid" 2>/dev/null; done
        wait "${PARKED_ALL[@]}" 2>/dev/null
        summary+="$step: ${parked} stopped, ${answers}unlock=$rc; "
    done
    echo "stopped helpers: $summary" >> "$WORKDIR/notes"
    row "stopped helpers at every step, N=$parked_count" "$attempts" "$verified" "$succeeded" \
        "$(verdict "slowest later answer $slowest ms (lock wait 2000 ms), counts exact")"
}
