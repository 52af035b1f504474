# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# process.sh — what a local user controls about the helper's process: the
# environment, descriptors 0–2 and resource limits. None may change an answer
# (a limit may turn it into an error), crash the helper or leave a core file.

EVIL_DIR="$WORKDIR/evil"
MARKERS="$WORKDIR/markers"

build_evil_library() {
    mkdir -p "$EVIL_DIR" "$MARKERS"; chmod 1777 "$MARKERS"; chmod 755 "$EVIL_DIR"
    cc -shared -fPIC -DMARKER="\"$MARKERS/injected\"" "$ATTACK_DIR/evil_preload.c" -o "$EVIL_DIR/evil.so" || return 1
    local library
    # The same library under every name the helper needs, for LD_LIBRARY_PATH.
    for library in $(ldd "$HELPER" | awk '/=>/ {print $1}'); do cp "$EVIL_DIR/evil.so" "$EVIL_DIR/$library"; done
    mkdir -p "$EVIL_DIR/gconv"; cp "$EVIL_DIR/evil.so" "$EVIL_DIR/gconv/EVIL.so"
    printf 'module  INTERNAL  EVIL//  EVIL  1\nmodule  EVIL//  INTERNAL  EVIL  1\n' > "$EVIL_DIR/gconv/gconv-modules"
    chmod -R a+rX "$EVIL_DIR"
}

# triple PREFIX [VAR=value...]: status, a wrong PIN, the right PIN as pgalice
# after an unlock. Each runs as pgalice through a shell that applies PREFIX
# (limits, closed descriptors), then execs the helper — through `env -i
# VARS…` when VARS are given (env, not the shell, sees them). Prints
# "exit:answer|" three times.
triple() {
    local prefix="$1"; shift
    local uid; uid="$(uid_of pgalice)"
    unlock pgalice
    local launch='exec "$@"'
    [ $# -gt 0 ] && launch='exec env -i "$@"'
    local request output rc
    for request in "$(request_file status op=status user=pgalice)" "$(request_file wrong op=verify user=pgalice secret=1111)" \
                   "$(request_file right op=verify user=pgalice secret=0427)"; do
        output="$(cd "$MARKERS" && setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- \
            bash -c 'exec < "$0"; ulimit -c unlimited; '"$prefix $launch" "$request" "$@" "$HELPER" 2>/dev/null)"
        rc=$?
        # Each triple's wrong PIN adds to the notice a status reports (no
        # notice is shown here, so none is spent): not part of the answer compared.
        local line="${output%%$'\n'*}"
        printf '%s:%s|' "$rc" "${line%% unseen=*}"
        # Tallied in a file: triple runs in a command substitution.
        echo attempt >> "$WORKDIR/tally"
        case "${output%%$'\n'*}" in ok*|wrong*) echo verified >> "$WORKDIR/tally" ;; esac
        [ "$request" = "$WORKDIR/wrong" ] && case "$output" in ok*) echo succeeded >> "$WORKDIR/tally" ;; esac
    done
}

# tally: "attempts verifications successes" from triple's tally file.
tally() {
    local word
    for word in attempt verified succeeded; do grep -c "^$word\$" "$WORKDIR/tally" 2>/dev/null || true; done | paste -sd ' ' -
}

attack_hostile_environment() {
    rm -f "$WORKDIR/tally"
    build_evil_library || { row "hostile environment" - - - "ERROR: cannot build evil.so"; return; }
    enroll_pin pgalice 0427
    local baseline; baseline="$(triple "")"
    [[ "$baseline" == "0:enrolled kind=pin length=4 failures=0|1:wrong failures=1 left="*"|0:ok|" ]] ||
        { row "hostile environment" - - - "ERROR: unexpected baseline [$baseline]"; return; }
    local cases=(
        "LD_PRELOAD=$EVIL_DIR/evil.so" "LD_AUDIT=$EVIL_DIR/evil.so" "LD_LIBRARY_PATH=$EVIL_DIR"
        "LD_DEBUG=all LD_DEBUG_OUTPUT=$MARKERS/ld-debug" "LD_PROFILE=libsodium.so.23 LD_PROFILE_OUTPUT=$MARKERS"
        "SWIFT_BACKTRACE=enable=yes,interactive=yes,output-to=$MARKERS/backtrace"
        "MALLOC_CHECK_=3 MALLOC_PERTURB_=165" "GLIBC_TUNABLES=glibc.malloc.check=3:glibc.malloc.perturb=165"
        "TMPDIR=$MARKERS" "PINGATE_TEST_FAULT=counted:kill PINGATE_STORE=$MARKERS PINGATE_CONFIG=$MARKERS/conf"
        "GCONV_PATH=$EVIL_DIR/gconv CHARSET=EVIL LANG=C.EVIL" "LOCPATH=$EVIL_DIR LC_ALL=tr_TR.UTF-8 NLSPATH=$EVIL_DIR/%N"
        "HOSTALIASES=$EVIL_DIR/x RES_OPTIONS=debug LOCALDOMAIN=evil" "PATH=$EVIL_DIR IFS=/ HOME=$MARKERS"
    )
    local env_case answers changed=()
    for env_case in "${cases[@]}"; do
        # shellcheck disable=SC2086 # each case is a list of VAR=value words
        answers="$(triple "" $env_case)"
        [ "$answers" = "$baseline" ] || { changed+=("${env_case%%=*}"); breach "${env_case%% *}: answers changed: $answers"; }
    done
    # Descriptors 0–2 closed: the answer goes nowhere, the record stays sound.
    answers="$(triple 'exec 1>&- 2>&-;')"
    [ "$answers" = "0:|1:|0:|" ] || breach "stdout+stderr closed: $answers"
    answers="$(triple 'exec 2>&-;')"
    [ "$answers" = "$baseline" ] || breach "stderr closed: $answers"
    [ "$(failures pgalice)" = 0 ] || breach "failures after closed-descriptor runs: $(failures pgalice)"
    [ -z "$(ls -A "$MARKERS")" ] || breach "files appeared: $(ls -A "$MARKERS" | head -3 | paste -sd ' ' -)"
    no_core_files "$MARKERS" "$WORKDIR" /var/lib/pingate
    strings "$HELPER" | grep -q PINGATE_TEST_FAULT && breach "the release helper contains the PINGATE_TEST_FAULT seam"
    row "hostile environment (${#cases[@]}+2 cases)" $(tally) "$(verdict "same answers, nothing injected, no core")"
}

attack_hostile_limits() {
    rm -f "$WORKDIR/tally"
    enroll_pin pgalice 0427
    local baseline; baseline="$(triple "")"
    local limits=("ulimit -v 65536" "ulimit -v 16384" "ulimit -n 3" "ulimit -n 5" "ulimit -f 0" "ulimit -t 1"
                  "ulimit -s 64" "ulimit -l 0; ulimit -q 0" "ulimit -u 1")
    local limit answers part notes=()
    for limit in "${limits[@]}"; do
        mkdir -p "$MARKERS"; chmod 1777 "$MARKERS"
        answers="$(triple "$limit;")"
        notes+=("${limit#ulimit } → $( [ "$answers" = "$baseline" ] && echo same || echo "$answers")")
        IFS='|' read -ra parts <<<"$answers"
        for part in "${parts[@]}"; do
            local rc="${part%%:*}" answer="${part#*:}"
            if [ "$rc" -ge 128 ]; then breach "$limit: helper died by signal $((rc - 128)) [$answers]"; fi
            # 127 with no answer: the loader could not map libsodium (ulimit -n 3)
            # — no answer, which the module treats as an error.
            case "$rc:$answer" in
                0:enrolled*|1:wrong*|0:ok|6:error*|127:) ;;
                *) breach "$limit: unexpected [$part]" ;;
            esac
        done
        no_core_files "$MARKERS"
    done
    printf '    limit %s\n' "${notes[@]}" >> "$WORKDIR/notes"
    row "hostile rlimits (${#limits[@]} cases)" $(tally) "$(verdict "same answer, error exit 6 or no answer (127); no signal, no core")"
}
