# shellcheck shell=bash disable=SC2034 # shared variables
# owner.sh — whose PIN a process may spend, from where, where the typed PIN
# goes afterwards, and what a stopped helper costs: the module with the real
# helper through real libpam. Needs `make -C pam all harness`.

OWNER_PAM="$WORKDIR/owner-pam.d"
OWNER_HARNESS="$PAM_BUILD/pam_harness"

# owner_stack SERVICE ARGS...: SERVICE runs the module with ARGS, and on a
# success goes on to the probe that shows what PAM_AUTHTOK holds.
owner_stack() {
    local service="$1"; shift
    mkdir -p "$OWNER_PAM"; chmod 755 "$OWNER_PAM"
    {
        echo "auth [success=ok ignore=ignore default=die] $SANDBOX/pam_pingate.so $*"
        echo "auth required $PAM_BUILD/pam_test_authtok.so show"
    } > "$OWNER_PAM/$service"
    chmod 644 "$OWNER_PAM/$service"
}

# owner_try CALLER USER SERVICE INPUT [harness options]: one authentication
# through HARNESS_TO_USE as CALLER; sets OUT. Counts ATTEMPTS.
owner_try() {
    local caller="$1" user="$2" service="$3" input="$4"; shift 4
    local uid; uid="$(uid_of "$caller")"
    OUT="$(cd "$WORKDIR" && printf '%s\n' "$input" | ${IN_SESSION:+in_session "$IN_SESSION"} \
        setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- \
        "$HARNESS_TO_USE" --confdir "$OWNER_PAM" --service "$service" --user "$user" "$@" 2>/dev/null)"
    ATTEMPTS=$((ATTEMPTS + 1))
    case "$OUT" in *"PROMPT_ECHO_OFF PIN"*) VERIFIED=$((VERIFIED + 1)) ;; esac
    case "$OUT" in *"RESULT PAM_SUCCESS"*) SUCCEEDED=$((SUCCEEDED + 1)) ;; esac
}

# Another local user, through setuid-root PAM clients (su, sudo targetpw,
# polkit's agent helper all have this shape), tries to spend and disable
# pgalice's PIN: 12 guesses and her right PIN, for services su and sudo.
attack_other_user_spends_the_pin() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    policy "services = sudo su"
    enroll_pin pgalice 0427
    HARNESS_TO_USE="$WORKDIR/suid-harness"
    install -o root -g root -m 4755 "$OWNER_HARNESS" "$HARNESS_TO_USE"
    local service guess
    for service in su sudo; do
        owner_stack "$service"
        for guess in 1111 2222 3333 4444 5555 6666 0427; do owner_try pgbob pgalice "$service" "$guess"; done
    done
    [ "$(failures pgalice)" = 0 ] || breach "pgalice's failures went to $(failures pgalice)"
    [ "$VERIFIED" = 0 ] || breach "$VERIFIED PIN prompts shown to pgbob for pgalice"
    local attempts=$ATTEMPTS verified=$VERIFIED succeeded=$SUCCEEDED
    owner_try pgalice pgalice sudo 0427
    case "$OUT" in *"RESULT PAM_SUCCESS"*) ;; *) breach "pgalice's own PIN no longer works" ;; esac
    ATTEMPTS=$attempts VERIFIED=$verified SUCCEEDED=$succeeded
    row "another user spends the PIN (setuid)" "$ATTEMPTS" "$VERIFIED" "$SUCCEEDED" "$(verdict "never offered; her count stayed 0; her own PIN still works")"
}

# A PIN that unlocked must not reach the next module as the password.
attack_pin_passed_on_as_password() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    enroll_pin pgalice 0427
    HARNESS_TO_USE="$OWNER_HARNESS"
    local args leaks=0
    for args in forward_pass try_first_pass; do
        owner_stack i3lock "$args"
        if [ "$args" = try_first_pass ]; then
            # An earlier module put the PIN in PAM_AUTHTOK (as forward_pass would).
            sed -i "1i auth optional $PAM_BUILD/pam_test_authtok.so set" "$OWNER_PAM/i3lock"
            owner_try pgalice pgalice i3lock "" --authtok 0427
        else
            owner_try pgalice pgalice i3lock 0427
        fi
        case "$OUT" in *"NEXT authtok=(unset)"*) ;; *) leaks=$((leaks + 1)); breach "$args: the next module saw $(grep -o 'NEXT authtok=.*' <<<"$OUT")" ;; esac
    done
    row "PIN passed on as the password" "$ATTEMPTS" "$ATTEMPTS" "$leaks" "$(verdict "after $ATTEMPTS successes the next module found no PAM_AUTHTOK")"
}

# sudo inside an ssh session carries no PAM_RHOST; logind's REMOTE=1 must
# keep the PIN out of reach anyway.
attack_remote_session_without_rhost() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    enroll_pin pgalice 0427
    private_run_with_sessions
    find_cgroup_root || { row "remote session, no PAM_RHOST" - - - "ERROR: no writable cgroup hierarchy"; return; }
    session 42 1
    HARNESS_TO_USE="$OWNER_HARNESS"
    owner_stack sudo
    local guess
    IN_SESSION=42
    for guess in 1111 2222 3333 4444 5555 6666 0427; do owner_try pgalice pgalice sudo "$guess"; done
    IN_SESSION=""
    [ "$(failures pgalice)" = 0 ] || breach "failures went to $(failures pgalice)"
    [ "$VERIFIED" = 0 ] || breach "$VERIFIED PIN prompts in a remote session"
    umount /run
    cleanup_cgroups
    row "remote session, no PAM_RHOST" "$ATTEMPTS" "$VERIFIED" "$SUCCEEDED" "$(verdict "never offered while logind says REMOTE=1")"
}

# A user stops the helper their own locker started (kill -STOP) while it
# runs the KDF (made slow here so the stop lands there, after the count —
# stop_old_helpers.py leaves the quick status request alone): the locker must
# get an answer within the module's timeout, not hang, and each attempt
# stays counted exactly once (it was counted before the KDF).
attack_user_stops_the_lockers_helper() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    policy "kdf_operations = 3" "kdf_memory = 128M"
    enroll_pin pgalice 0427
    owner_stack i3lock timeout=5
    local uid; uid="$(uid_of pgalice)"
    local slowest=0 i start ms
    : > "$WORKDIR/stopped"; chmod 666 "$WORKDIR/stopped"
    for i in 1 2 3; do
        # pgalice's own stopper: SIGSTOP her verifying helper inside its KDF.
        setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- \
            python3 "$ATTACK_DIR/stop_old_helpers.py" "$uid" 8 "$WORKDIR/stopped" &
        local stopper=$!
        sleep 0.2
        start=$(date +%s%N)
        OUT="$(cd "$WORKDIR" && printf '0427\n' | timeout 20 setpriv --reuid="$uid" --regid="$uid" --clear-groups \
            --reset-env -- "$OWNER_HARNESS" --confdir "$OWNER_PAM" --service i3lock --user pgalice 2>/dev/null)"
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        ATTEMPTS=$((ATTEMPTS + 1))
        [ "$ms" -gt "$slowest" ] && slowest=$ms
        kill "$stopper" 2>/dev/null; wait "$stopper" 2>/dev/null
        case "$OUT" in
            *"RESULT PAM_AUTHINFO_UNAVAIL"*) ;;
            *"RESULT PAM_SUCCESS"*) SUCCEEDED=$((SUCCEEDED + 1)) ;;
            *) breach "try $i: $(grep RESULT <<<"$OUT" || echo "no result (hung)") after $ms ms" ;;
        esac
        [ "$ms" -lt 6500 ] || breach "try $i took $ms ms with timeout=5"
    done
    local pid stopped=0
    while read -r pid; do
        stopped=$((stopped + 1))
        kill -0 "$pid" 2>/dev/null && breach "stopped helper $pid was left behind"
    done < "$WORKDIR/stopped"
    [ "$stopped" -gt 0 ] || breach "no helper was ever stopped: the scenario tested nothing"
    local counted; counted="$(failures pgalice)"
    [ "$counted" = $((ATTEMPTS - SUCCEEDED)) ] || breach "failures=$counted after $ATTEMPTS stopped attempts"
    unlock pgalice
    row "user stops the locker's helper" "$ATTEMPTS" "$ATTEMPTS" 0 "$(verdict "$stopped stopped; each answered within $slowest ms (timeout=5), helper killed; failures=$counted")"
}
