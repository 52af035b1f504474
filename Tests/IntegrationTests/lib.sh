# lib.sh — a tiny test harness for PinGate's integration tests (bash).
#
# Each test file defines functions named test_*; run_tests calls them in
# order of definition, each in a subshell so one failure cannot poison the
# next, and prints "N passed, N failed[, N skipped]" at the end.
# A test fails by calling `fail MESSAGE` (or any command failing under set -e),
# skips by calling `skip REASON`.

set -u

# Tests compare English text: pin the locale (UTF-8 for the PIN pad's ●).
# Tests of translations set their own.
unset LANGUAGE
export LANG=C.UTF-8 LC_ALL=C.UTF-8

_T_PASSED=0
_T_FAILED=0
_T_SKIPPED=0
_T_FAILED_NAMES=()

fail() { echo "    FAIL: $*" >&2; exit 1; }
skip() { echo "    SKIP: $*" >&2; exit 77; }

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
    [ "$1" = "$2" ] || fail "${3:-value}: expected [$1], got [$2]"
}
# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
    case "$1" in *"$2"*) ;; *) fail "${3:-output} does not contain [$2]: [$1]" ;; esac
}
# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
    case "$1" in *"$2"*) fail "${3:-output} contains [$2]: [$1]" ;; *) ;; esac
}

# wait_until_stopped PID: waits up to 5 s for process PID to be stopped
# (SIGSTOP, state T), as a debug helper's fault point stops it; status 1 if
# it never is.
wait_until_stopped() {
    local i
    for i in $(seq 100); do
        [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
        sleep 0.05
    done
    return 1
}

run_tests() {
    local filter="${TEST_FILTER:-}"
    local name
    for name in $(declare -F | awk '{print $3}' | grep '^test_'); do
        if [ -n "$filter" ] && [[ "$name" != *$filter* ]]; then continue; fi
        local start=$(date +%s%N)
        ( set -e; "$name" )
        local rc=$?
        local ms=$(( ($(date +%s%N) - start) / 1000000 ))
        case $rc in
            0)  _T_PASSED=$((_T_PASSED + 1)); echo "ok   $name (${ms} ms)" ;;
            77) _T_SKIPPED=$((_T_SKIPPED + 1)); echo "skip $name" ;;
            *)  _T_FAILED=$((_T_FAILED + 1)); _T_FAILED_NAMES+=("$name"); echo "FAIL $name (${ms} ms)" ;;
        esac
    done
    echo "${_T_PASSED} passed, ${_T_FAILED} failed, ${_T_SKIPPED} skipped"
    [ "${_T_FAILED}" -eq 0 ] && [ "${_T_PASSED}" -gt 0 ]
}
