#!/bin/bash
# Tests/Fuzz/run.sh — builds PinGate's libFuzzer targets and runs each one.
#
#   Tests/Fuzz/run.sh                     every target, 20000 runs each
#   Tests/Fuzz/run.sh --runs 1000000      a long run (minutes per target)
#   Tests/Fuzz/run.sh --target record     one target (repeatable)
#   Tests/Fuzz/run.sh --build-only
#
# Targets (Tests/Fuzz/Targets/<name>.swift, seeds in Tests/Fuzz/corpus/<name>/):
#   request  HelperRequest.parsing(_:)    the setgid helper's request parser
#   pin      PIN(parsing:…) + weakness()  typed PINs, any length bounds
#   pattern  Pattern(parsing:…)           typed patterns on grids 3–6
#   config   ConfigParser.parse           pingate.conf
#   record   RecordCodec.decode/File      the two-slot record format
#
# PinGateCore is compiled once with -sanitize=fuzzer,address -enable-testing
# into .build/fuzz/lib (rebuilt when a source is newer), so the targets reach
# internal types with `@testable import`. Each run works on a scratch copy
# of the seed corpus: the repository is never modified. A crash, a sanitizer
# report or a broken invariant fails the run; the input is kept in
# .build/fuzz/crashes/<target>/ (replay: .build/fuzz/<target> FILE).
# Prints one line per target, "fuzz <target>: ok|FAIL ...", and exits non-zero
# if any target failed.
set -uo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT" || exit 1
export PATH="/opt/swift/usr/bin:$PATH"
ALL_TARGETS=(request pin pattern config record)
RUNS=20000
TARGETS=()
BUILD_ONLY=0

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage; RUNS="$2"; shift 2 ;;
        --target) [ $# -ge 2 ] && [[ " ${ALL_TARGETS[*]} " == *" $2 "* ]] || usage; TARGETS+=("$2"); shift 2 ;;
        --build-only) BUILD_ONLY=1; shift ;;
        *) usage ;;
    esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

OUT=.build/fuzz
LIB="$OUT/lib"
FLAGS=(-parse-as-library -sanitize=fuzzer,address -O -g -use-ld=lld -I Sources/CSodium -I Sources/CPinGateSystem -I Sources/CPinGateContract)

# Inputs larger than a target ever accepts, so the limits are exercised too.
max_len() {
    case "$1" in
        request) echo 4200 ;; record) echo 1100 ;; config) echo 4096 ;; *) echo 256 ;;
    esac
}

# newer_than OUTPUT INPUTS...: true if OUTPUT is missing or older than an input.
newer_than() {
    local output="$1"; shift
    [ -e "$output" ] || return 0
    [ -n "$(find "$@" -newer "$output" -print -quit)" ]
}

build_library() {
    command -v swiftc >/dev/null || { echo "fuzz: swiftc not found (expected /opt/swift/usr/bin)" >&2; return 1; }
    mkdir -p "$LIB"
    newer_than "$LIB/libPinGateCore.a" Sources/PinGateCore Sources/CSodium Sources/CPinGateSystem Sources/CPinGateContract pam/pingate_protocol.h pam/pingate_install.h || return 0
    echo "fuzz: building PinGateCore with -sanitize=fuzzer,address"
    # ld.gold/lld warn about ASan's local symbols; those lines are noise.
    swiftc "${FLAGS[@]}" -enable-testing -module-name PinGateCore -emit-library -static \
        -emit-module -emit-module-path "$LIB/PinGateCore.swiftmodule" \
        $(find Sources/PinGateCore -name '*.swift' | sort) -o "$LIB/libPinGateCore.a" 2>&1 |
        grep -v "Cannot export local symbol" >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || { rm -f "$LIB/libPinGateCore.a"; echo "fuzz: PinGateCore failed to build" >&2; return 1; }
}

build_target() {
    local target="$1" sources=(Tests/Fuzz/Targets/support.swift "Tests/Fuzz/Targets/$1.swift")
    newer_than "$OUT/$target" "${sources[@]}" "$LIB/libPinGateCore.a" || return 0
    echo "fuzz: building $target"
    swiftc "${FLAGS[@]}" -I "$LIB" "${sources[@]}" "$LIB/libPinGateCore.a" -lsodium -o "$OUT/$target" 2>&1 |
        grep -v "Cannot export local symbol" >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || { rm -f "$OUT/$target"; echo "fuzz: $target failed to build" >&2; return 1; }
}

run_target() {
    local target="$1" scratch log rc stats
    scratch="$(mktemp -d /tmp/pingate-fuzz.XXXXXX)"
    mkdir -p "$scratch/corpus" "$scratch/crashes"
    cp Tests/Fuzz/corpus/"$target"/* "$scratch/corpus/" 2>/dev/null
    log="$scratch/log"
    local dict=()
    [ -f "Tests/Fuzz/dict/$target.dict" ] && dict=(-dict="Tests/Fuzz/dict/$target.dict")
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" "$OUT/$target" -runs="$RUNS" -max_len="$(max_len "$target")" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}" \
        -artifact_prefix="$scratch/crashes/" "$scratch/corpus" >"$log" 2>&1
    rc=$?
    stats="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' )"
    if [ "$rc" -eq 0 ]; then
        echo "fuzz $target: ok ($RUNS runs, ${stats:-no stats})"
    else
        mkdir -p "$OUT/crashes/$target"
        cp "$scratch"/crashes/* "$OUT/crashes/$target/" 2>/dev/null
        echo "fuzz $target: FAIL (exit $rc); inputs kept in $OUT/crashes/$target/; log tail:"
        grep -E 'invariant broken|Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/    /'
    fi
    rm -rf "$scratch"
    return "$rc"
}

build_library || exit 1
failed=0
for target in "${TARGETS[@]}"; do build_target "$target" || failed=1; done
[ "$failed" -eq 0 ] || exit 1
[ "$BUILD_ONLY" -eq 1 ] && exit 0
for target in "${TARGETS[@]}"; do run_target "$target" || failed=1; done
exit "$failed"
