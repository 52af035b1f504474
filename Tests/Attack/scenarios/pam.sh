# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# pam.sh — the C shim with the REAL helper, through real libpam, under
# AddressSanitizer+UBSan (pam_pingate-asan.so in pam_harness-asan) and under
# valgrind (pam_pingate.so in pam_harness). Run as the user, like a screen
# locker: success, wrong, locked and not-enrolled.

# pam_stack MODULE: a private PAM config dir with service "i3lock".
pam_stack() {
    local dir="$WORKDIR/pam.d"
    mkdir -p "$dir"; chmod 755 "$dir"
    {
        echo "auth [success=done ignore=ignore default=die] $1"
        echo "auth required $PAM_BUILD/pam_test_authtok.so show"
    } > "$dir/i3lock"
    chmod 644 "$dir/i3lock"
}

# pam_cases LABEL WRAPPER...: the four cases through HARNESS (set by caller);
# a sanitizer or valgrind report in any of them is a breach.
pam_cases() {
    local label="$1"; shift
    enroll_pin pgalice 0427
    local user input expected case_name out rc log="$WORKDIR/pam-$label.log"
    : > "$log"; chmod 666 "$log"
    TRIES=0 VERIFIED=0 SUCCEEDED=0
    for case_name in success wrong locked not-enrolled; do
        user=pgalice
        case "$case_name" in
            success) input=0427; expected=PAM_SUCCESS ;;
            wrong) input=1111; expected=PAM_AUTH_ERR ;;
            locked) wrong_guesses pgalice 1111 5; input=0427; expected=PAM_PERM_DENIED ;;
            not-enrolled) user=pgcarol; input=0427; expected=PAM_PERM_DENIED ;;
        esac
        out="$(cd "$WORKDIR" && printf '%s\n' "$input" | as_user "$user" env ASAN_OPTIONS="$ASAN" UBSAN_OPTIONS="$UBSAN" \
            "$@" "$HARNESS" --confdir "$WORKDIR/pam.d" --service i3lock --user "$user" 2>>"$log")"; rc=$?
        TRIES=$((TRIES + 1))
        local result; result="$(sed -n 's/^RESULT //p' <<<"$out")"
        [ "$result" = "$expected" ] || breach "$case_name: $result (exit $rc), expected $expected"
        case "$case_name" in success|wrong) VERIFIED=$((VERIFIED + 1)) ;; esac
        [ "$case_name" != success ] && [ "$result" = PAM_SUCCESS ] && SUCCEEDED=$((SUCCEEDED + 1))
        case "$case_name" in
            locked) [[ "$out" == *"INFO NEXT"* ]] || breach "locked: did not fall through" ;;
            not-enrolled) [[ "$out" != *PROMPT* ]] || breach "not-enrolled: prompted" ;;
        esac
        [[ " $ERROR_EXITS " != *" $rc "* ]] || breach "$case_name: exit $rc (a sanitizer/valgrind error)"
    done
    if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|==[0-9]+== [A-Z].*(Invalid|uninitialised|definitely lost|Conditional jump)' "$log"; then
        breach "$(grep -m2 -E 'ERROR:|runtime error:|==[0-9]+== (Invalid|Conditional|.*definitely)' "$log" | paste -sd ' ' -)"
    fi
    [ "$(failures pgalice)" = 5 ] || breach "pgalice's count is $(failures pgalice), expected 5"
}

attack_pam_module_asan() {
    local module="$PAM_BUILD/pam_pingate-asan.so"
    HARNESS="$PAM_BUILD/pam_harness-asan"
    [ -f "$module" ] && [ -x "$HARNESS" ] || { row "PAM module, ASan+UBSan" - - - "ERROR: run make -C pam asan"; return; }
    cp "$module" "$WORKDIR/"; chmod 644 "$WORKDIR/pam_pingate-asan.so"
    pam_stack "$WORKDIR/pam_pingate-asan.so"
    ASAN="detect_leaks=1:halt_on_error=1:exitcode=99" UBSAN="halt_on_error=1:print_stacktrace=1:exitcode=98" ERROR_EXITS="99 98"
    pam_cases asan
    local lsan="leak check on"
    grep -q "LeakSanitizer does not work under ptrace\|LeakSanitizer has encountered a fatal error" "$WORKDIR/pam-asan.log" &&
        lsan="LeakSanitizer could not run here"
    row "PAM module, ASan+UBSan, real helper" "$TRIES" "$VERIFIED" "$SUCCEEDED" "$(verdict "4 cases as expected, no report; $lsan")"
}

attack_pam_module_valgrind() {
    command -v valgrind >/dev/null || { row "PAM module, valgrind" - - - "ERROR: valgrind not installed"; return; }
    HARNESS="$PAM_BUILD/pam_harness"
    [ -f "$PAM_BUILD/pam_pingate.so" ] && [ -x "$HARNESS" ] || { row "PAM module, valgrind" - - - "ERROR: run make -C pam all harness"; return; }
    pam_stack "$SANDBOX/pam_pingate.so"
    # Exit 1 (PAM_OPEN_ERR) is never an expected result here, so it can be valgrind's.
    ASAN="" UBSAN="" ERROR_EXITS="1"
    pam_cases valgrind valgrind -q --leak-check=full --error-exitcode=1
    row "PAM module, valgrind, real helper" "$TRIES" "$VERIFIED" "$SUCCEEDED" "$(verdict "4 cases as expected, no valgrind error or leak")"
}
