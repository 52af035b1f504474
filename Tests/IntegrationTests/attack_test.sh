#!/bin/bash
# attack_test.sh — Tests/Attack/run-attacks.sh as part of the suite: one test
# per row of its table (scenario | attempts | verifications | successes |
# result); a row whose result is not "held" fails. CI sizes by default
# (about 2 minutes); ATTACK_SCALE=full for the bigger numbers.
source "$(dirname "$0")/lib.sh"
RUNNER="$(cd "$(dirname "$0")/../Attack" && pwd)/run-attacks.sh"

if [ "$(id -u)" != 0 ]; then
    echo "skip: the attack scenarios need root (a private mount namespace, a setgid helper, test users)" >&2
    echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
OUTPUT="$(mktemp /tmp/pingate-attacks.XXXXXX)"
trap 'rm -f "$OUTPUT"' EXIT
bash "$RUNNER" > "$OUTPUT" 2>&1
RUNNER_RC=$?
sed -n '/^scenario /,$p' "$OUTPUT"
if ! grep -q '^scenario ' "$OUTPUT"; then
    cat "$OUTPUT" >&2
    echo "0 passed, 1 failed, 0 skipped"; exit 1
fi

# One test per table row, numbered to keep the table's order.
RESULTS=()
check_row() { case "${RESULTS[$1]}" in held*) ;; *) fail "${RESULTS[$1]}" ;; esac; }
index=0
while IFS='|' read -r name _ _ _ result; do
    index=$((index + 1))
    name="$(sed -E 's/[^A-Za-z0-9]+/_/g; s/^_+|_+$//g' <<<"$name")"
    RESULTS[$index]="$(sed -E 's/^ +//' <<<"$result")"
    eval "test_attack_$(printf '%02d' "$index")_${name}() { check_row $index; }"
done < <(sed -n '/^scenario /,/^$/p' "$OUTPUT" | tail -n +3 | grep '|')
test_attack_99_runner_exit_status() { assert_eq 0 "$RUNNER_RC" "run-attacks.sh exit status"; }

run_tests
