# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# concurrency.sh — many guesses at once, and guesses killed at random moments.

# launch_as USER REQUEST OUTPUT: the setgid helper as USER in the background,
# with $! its pid (setpriv execs the helper in place).
launch_as() {
    local uid; uid="$(uid_of "$1")"
    (cd "$WORKDIR" && exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- "$HELPER" < "$2" > "$3" 2>/dev/null) &
}

# parallel_guesses N: N wrong guesses by pgalice released at the same instant
# (they wait on a shared flock the runner holds, then exec the helper).
parallel_guesses() {
    local n="$1" i out="$WORKDIR/parallel-$1" gate="$WORKDIR/gate" uid
    uid="$(uid_of pgalice)"
    rm -rf "$out"; mkdir -p "$out"
    # Distinct guesses, as many people would make them: the same wrong PIN
    # again after it was verified wrong is not counted (issue "retries").
    for i in $(seq "$n"); do request_file "wrong-$i" op=verify user=pgalice service=sudo secret="$((1000 + i))" > /dev/null; done
    : > "$gate"; chmod 644 "$gate"
    exec 9> "$gate"; flock -x 9
    for i in $(seq "$n"); do
        (flock -s "$gate" true; cd "$WORKDIR" && exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- \
            "$HELPER" < "$WORKDIR/wrong-$i" > "$out/$i" 2>/dev/null) &
    done
    sleep 0.5
    flock -u 9; exec 9>&-
    wait
    local wrong ok locked total counted
    wrong="$(count_word wrong "$out"/*)"; ok="$(count_word ok "$out"/*)"; locked="$(count_word locked "$out"/*)"
    total="$(cat "$out"/* | grep -c .)"
    counted="$(failures pgalice)"
    [ "$wrong" -le 5 ] || breach "$wrong wrong answers (KDF runs) for $n parallel guesses, policy allows 5"
    [ "$ok" -eq 0 ] || breach "$ok successes with a wrong PIN"
    [ "$counted" = 5 ] || breach "record counts $counted failures, expected 5"
    [ "$total" -eq "$n" ] || breach "only $total of $n helpers answered: $(first_words "$out"/*)"
    row "parallel wrong guesses, N=$n" "$n" "$((wrong + ok))" "$ok" "$(verdict "$wrong wrong, $locked locked, failures=$counted")"
}

attack_parallel_wrong_guesses() {
    # A realistic KDF cost, so that verifications really overlap.
    printf 'kdf_operations = 2\nkdf_memory = 16M\n' > /etc/pingate/pingate.conf
    local n sizes=(64 256)
    [ "$SCALE" = full ] && sizes+=(1024)
    for n in "${sizes[@]}"; do
        enroll_pin pgalice 0427
        parallel_guesses "$n"
    done
}

# One verification, timed, to spread the kills over its whole life.
helper_duration_us() {
    local request="$1" start end
    start=$(date +%s%N)
    for _ in 1 2 3 4 5; do ask pgalice "$request"; done
    end=$(date +%s%N)
    echo $(( (end - start) / 5000 ))
}

attack_sigkill_at_random_moments() {
    local runs=200
    [ "$SCALE" = full ] && runs=1000
    enroll_pin pgalice 0427
    policy 'kdf_memory = 16M' 'free_failures = 20' 'max_failures = 100'
    local request; request="$(request_file wrong op=verify user=pgalice secret=1111)"
    local duration; duration="$(helper_duration_us "$request")"
    unlock pgalice
    local i pid before after delay answer killed=0 answered=0 counted_silently=0 ok=0
    before="$(failures pgalice)"
    for i in $(seq "$runs"); do
        # A kill before the launcher's redirect would leave the last run's answer.
        rm -f "$WORKDIR/answer"
        # A new wrong PIN each run: the last one again would not be counted.
        request="$(request_file wrong op=verify user=pgalice secret="$((1000 + i % 9000))")"
        launch_as pgalice "$request" "$WORKDIR/answer"
        pid=$!
        delay=$(( ((RANDOM << 15) | RANDOM) % (duration + 1) ))
        sleep "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))"
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        answer="$(head -1 "$WORKDIR/answer" 2>/dev/null)"
        after="$(failures pgalice)"
        case "$after" in unreadable*) breach "run $i: record does not parse after a kill ($after)"; break ;; esac
        if [ -n "$answer" ]; then
            answered=$((answered + 1))
            case "$answer" in
                wrong*) [ "$after" -eq $((before + 1)) ] || breach "run $i: answer [$answer] but failures $before -> $after" ;;
                ok*) ok=$((ok + 1)); breach "run $i: a wrong PIN answered ok" ;;
                *) breach "run $i: unexpected answer [$answer]" ;;
            esac
        else
            killed=$((killed + 1))
            [ "$after" -ge "$before" ] && [ "$after" -le $((before + 1)) ] || breach "run $i: killed, failures $before -> $after"
            [ "$after" -eq $((before + 1)) ] && counted_silently=$((counted_silently + 1))
        fi
        before="$after"
        if [ "$before" -ge 15 ]; then unlock pgalice; before="$(failures pgalice)"; fi
    done
    row "SIGKILL at random moments" "$runs" "$answered" "$ok" \
        "$(verdict "$killed killed before answering ($counted_silently of them already counted), $answered answered, all counted")"
}
