#!/bin/bash
# fuzz_test.sh — the libFuzzer targets of Tests/Fuzz/, each for a bounded
# number of runs (Tests/Fuzz/run.sh's default, 20000; FUZZ_RUNS=N to change).
# A crash, an AddressSanitizer report or a broken invariant fails the target's
# test; the input is kept in .build/fuzz/crashes/<target>/. For a long run:
#
#   Tests/Fuzz/run.sh --runs 1000000
#
# Needs no root: the targets call the parsers in-process.
source "$(dirname "$0")/lib.sh"
FUZZ="$(cd "$(dirname "$0")/../Fuzz" && pwd)/run.sh"
RUNS="${FUZZ_RUNS:-20000}"

if ! "$FUZZ" --build-only >/tmp/pingate-fuzz-build.$$ 2>&1; then
    cat /tmp/pingate-fuzz-build.$$ >&2; rm -f /tmp/pingate-fuzz-build.$$
    echo "FAIL: the fuzz targets do not build (swiftc -sanitize=fuzzer,address; see above)" >&2
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
rm -f /tmp/pingate-fuzz-build.$$

fuzz_one() {
    local output
    output="$("$FUZZ" --target "$1" --runs "$RUNS" 2>&1)" || fail "$(printf '%s' "$output" | grep -A8 FAIL)"
    echo "    $(grep "^fuzz $1:" <<<"$output")"
}

test_fuzz_request_parser() { fuzz_one request; }
test_fuzz_pin_parser() { fuzz_one pin; }
test_fuzz_pattern_parser_grids_3_to_6() { fuzz_one pattern; }
test_fuzz_config_parser() { fuzz_one config; }
test_fuzz_record_codec() { fuzz_one record; }

run_tests
