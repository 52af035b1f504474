#!/bin/bash
# packaging/benchmarks/compare.sh — two builds' sign-in overhead in one run:
# a sign-in through libpam at the minimal KDF (pam_bench, as run.sh section 5)
# and the helper's one run (status, then verify on descriptor 3), BEFORE and
# AFTER in alternating rounds (ABBA), so that a busy host skews both alike; with
# pam_permit and the floor (fork+exec of /bin/true, then two synced slot
# writes, timed as one sample: pam_bench.c) measured in the same rounds; and
# the helper's start alone (an argument it refuses: exec, the runtime's
# start, one log line and exit; no request, config or store read) next to
# /bin/true's: the part of the target's 1 ms that the helper's work cannot
# give back.
# Root only; inside the tests' sandbox.
#
#   packaging/benchmarks/compare.sh BEFORE_DIR AFTER_DIR [ROUNDS]
#
# Each directory holds a pingate-verify and a pam_pingate.so (e.g. an older
# tree's .build/release/pingate-verify and pam/build/pam_pingate.so, copied).
# Run it at real-time priority on a shared host: chrt -f 50 compare.sh ...
# BALLAST_MB=500 times the sign-ins from a host holding that much memory, as
# a lock screen inside a desktop shell does (pam_bench --ballast).
set -u
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../Tests/IntegrationTests/sandbox.sh
source "$BENCH_SRC/../../Tests/IntegrationTests/sandbox.sh"
if [ "${PINGATE_IN_SANDBOX:-}" != 1 ]; then
    [ $# -ge 2 ] && [ -f "$1/pingate-verify" ] && [ -f "$2/pingate-verify" ] && [ -f "$1/pam_pingate.so" ] && [ -f "$2/pam_pingate.so" ] ||
        { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
    mkdir -p "$REPO_ROOT/.build/benchmarks"
    cc -O2 -Wall -Wextra -Werror "$BENCH_SRC/pam_bench.c" -o "$REPO_ROOT/.build/benchmarks/pam_bench" -lpam || exit 1
    set -- "$(realpath "$1")" "$(realpath "$2")" "${3:-8}"
fi
sandbox_enter "$@"
BEFORE=$1 AFTER=$2 ROUNDS=$3 N=40 C=150 BALLAST=(--ballast "${BALLAST_MB:-0}")
BENCH="$REPO_ROOT/.build/benchmarks/pam_bench" STATS="$BENCH_SRC/stats.py"
W="$SANDBOX/compare"; mkdir -p "$W"
printf 'kdf_operations = 1\nkdf_memory = 8K\n' > /etc/pingate/pingate.conf
printf '4821\n4821\n' | "$PINGATE" enroll pgalice --stdin --force >/dev/null || { echo "enroll failed" >&2; exit 1; }
install -m 644 "$BEFORE/pam_pingate.so" "$SANDBOX/pam_before.so"
install -m 644 "$AFTER/pam_pingate.so" "$SANDBOX/pam_after.so"
for s in before after permit; do mkdir -p "$W/pam-$s"; done
echo "auth required $SANDBOX/pam_before.so" > "$W/pam-before/sudo"
echo "auth required $SANDBOX/pam_after.so" > "$W/pam-after/sudo"
echo "auth required pam_permit.so" > "$W/pam-permit/sudo"
printf 'pingate-verify/1\nop=status\nuser=pgalice\nthen=verify\n' > "$W/status.req"
printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=4821\n' > "$W/verify.req"
kv() { sed -n "s/.*[ ^]$1=\([^ ]*\).*/\1/p" <<< " $2"; }
helper() { install -o root -g pingate -m 2755 "$1/pingate-verify" /usr/libexec/pingate/pingate-verify; }
for r in $(seq "$ROUNDS"); do
    # ABBA: the order flips every round, so whatever the second of a pair
    # pays for following the first falls on both alike.
    order="before after"; [ $((r % 2)) = 0 ] && order="after before"
    for v in $order; do
        if [ "$v" = before ]; then helper "$BEFORE"; else helper "$AFTER"; fi
        "$BENCH" --confdir "$W/pam-$v" --service sudo --user pgalice --secret 4821 --iterations "$N" "${BALLAST[@]}" --raw "$W/pam.$v.$r" >/dev/null ||
            { echo "the $v sign-in failed" >&2; exit 1; }
        l=$("$BENCH" --exec "$HELPER" --stdin "$W/status.req" --follow-up "$W/verify.req" --iterations "$C" --warmup 5)
        [ "$(kv fail "$l")" = 0 ] || { echo "the $v helper's runs failed: $l" >&2; exit 1; }
        echo "$(kv median "$l") $(kv cpu "$l")" >> "$W/run.$v"
        # The start alone: refused at its first argument (root's --store and
        # --config take a path), every run a "failure" by its exit status.
        l=$("$BENCH" --exec "$HELPER" --arg --start --stdin "$W/status.req" --iterations "$C" --warmup 5)
        [ "$(kv ok "$l")" = 0 ] || { echo "the $v helper took --start: $l" >&2; exit 1; }
        echo "$(kv median "$l") $(kv cpu "$l")" >> "$W/start.$v"
    done
    l=$("$BENCH" --exec /bin/true --stdin "$W/status.req" --iterations "$C" --warmup 5)
    echo "$(kv median "$l") $(kv cpu "$l")" >> "$W/run.true"
    "$BENCH" --confdir "$W/pam-permit" --service sudo --user pgalice --secret x --iterations "$N" "${BALLAST[@]}" --raw "$W/pam.permit.$r" >/dev/null
    # The floor: /bin/true, then two synced slot writes (pam_bench.c says why).
    l=$("$BENCH" --exec /bin/true --stdin "$W/status.req" --fdatasync /var/lib/pingate/bench.sync --iterations "$C" --warmup 5)
    [ "$(kv fail "$l")" = 0 ] || { echo "the floor's runs failed: $l" >&2; exit 1; }
    echo "$(kv median "$l") $(kv cpu "$l")" >> "$W/run.floor"
done
column() { python3 -c 'import statistics, sys; print("%.2f" % (statistics.median(float(l.split()[int(sys.argv[2])]) for l in open(sys.argv[1])) / 1000))' "$1" "$2"; }
b=$(python3 "$STATS" samples "$W"/pam.before.*) a=$(python3 "$STATS" samples "$W"/pam.after.*) p=$(python3 "$STATS" samples "$W"/pam.permit.*)
floor=$(column "$W/run.floor" 0)
over_b=$(awk -v a="$(kv median "$b")" -v b="$(kv median "$p")" 'BEGIN { printf "%.2f", a - b }')
over_a=$(awk -v a="$(kv median "$a")" -v b="$(kv median "$p")" 'BEGIN { printf "%.2f", a - b }')
echo "$ROUNDS alternating rounds, $(kv n "$b") sign-ins (from a host holding ${BALLAST_MB:-0} MB) and $((ROUNDS * C)) helper runs each; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-40s %10s %10s\n' "" before after
printf '  %-40s %10s %10s\n' "sign-in, minimal KDF (median ms)" "$(kv median "$b")" "$(kv median "$a")"
printf '  %-40s %10s %10s   (pam_permit %s)\n' "overhead over pam_permit (ms)" "$over_b" "$over_a" "$(kv median "$p")"
printf '  %-40s %10s %10s\n' "  as a ratio to the floor" \
    "$(awk -v o="$over_b" -v f="$floor" 'BEGIN { printf "%.2fx", o / f }')" "$(awk -v o="$over_a" -v f="$floor" 'BEGIN { printf "%.2fx", o / f }')"
printf '  %-40s %10s %10s\n' "helper, one run (median ms)" "$(column "$W/run.before" 0)" "$(column "$W/run.after" 0)"
printf '  %-40s %10s %10s\n' "helper, one run (cpu ms)" "$(column "$W/run.before" 1)" "$(column "$W/run.after" 1)"
printf '  %-40s %10s %10s\n' "helper, its start alone (median ms)" "$(column "$W/start.before" 0)" "$(column "$W/start.after" 0)"
true_ms=$(column "$W/run.true" 0)
printf '  %-40s %10s %10s   (/bin/true %s)\n' "  the start over /bin/true (ms)" \
    "$(awk -v a="$(column "$W/start.before" 0)" -v t="$true_ms" 'BEGIN { printf "%.2f", a - t }')" \
    "$(awk -v a="$(column "$W/start.after" 0)" -v t="$true_ms" 'BEGIN { printf "%.2f", a - t }')" "$true_ms"
echo "  floor: /bin/true, then two synced slot writes = $floor ms; target: overhead ≤ floor + 1 = $(awk -v f="$floor" 'BEGIN { printf "%.2f", f + 1 }') ms"
echo "  (the start over /bin/true is paid before any request is read: it is the part of the 1 ms no work can give back)"
