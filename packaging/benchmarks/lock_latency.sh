#!/bin/bash
# packaging/benchmarks/lock_latency.sh — the lock screen's last digit →
# unlocked, split where the time goes, for one build or several in one run.
# pingate-lock runs as pgalice under a private Xvfb in the tests' sandbox
# (Tests/IntegrationTests/sandbox.sh, x_lib.sh) with the minimal KDF; the PIN's
# first digits are typed and taken in, then the last one is timed. The clock
# starts when the locker reads the key press, not before xdotool starts: the
# times are the monotonic stamps (t=... ms) of pingate-lock's own trace
# (PINGATE_LOCK_DEBUG=1):
#
#   key → PAM start     "key press" (locker) → "PAM started" (UI)
#   PAM                 "PAM started" → "PAM answered" (UI)
#   PAM end → unlocked  "PAM answered" → "unlocked by the UI" (locker, after
#                       it closed its display, just before it exits)
#   total               "key press" → "unlocked by the UI"
#   with xdotool        the shell's clock from before xdotool to the locker's
#                       reaped exit (what lock_test.sh prints)
#
#   packaging/benchmarks/lock_latency.sh DIR [DIR...] [ROUNDS]    (ROUNDS: 20)
#
# Each DIR holds a pingate-lock and may hold pingate-lock.pam, its PAM service
# file (default: this tree's pam/pam.d/pingate-lock). With more than one,
# they alternate, one unlock each per round and the order reversed every
# other round (ABBA), so a busy host skews them alike. The helper and module
# are this tree's release build and pam/build. Root only. On a shared host
# run it at real-time priority: chrt -f 50 lock_latency.sh ...
set -u
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../Tests/IntegrationTests/sandbox.sh
source "$BENCH_SRC/../../Tests/IntegrationTests/sandbox.sh"
# shellcheck source=../../Tests/IntegrationTests/x_lib.sh
source "$BENCH_SRC/../../Tests/IntegrationTests/x_lib.sh"
if [ "${PINGATE_IN_SANDBOX:-}" != 1 ]; then
    usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
    [ $# -ge 1 ] && [ -x "$1/pingate-lock" ] || usage
    dirs=()
    while [ $# -ge 1 ] && [ -d "$1" ]; do
        [ -x "$1/pingate-lock" ] || usage
        dirs+=("$(realpath "$1")"); shift
    done
    for tool in Xvfb xdotool xdpyinfo xset; do
        command -v "$tool" >/dev/null || { echo "missing $tool (apt: xvfb xdotool x11-utils x11-xserver-utils)" >&2; exit 1; }
    done
    [ -x "$RELEASE_BIN/pingate-verify" ] && [ -x "$RELEASE_BIN/pingate" ] && [ -f "$PAM_BUILD/pam_pingate.so" ] ||
        { echo "build first: swift build -c release --static-swift-stdlib && make -C pam" >&2; exit 1; }
    set -- "${1:-20}" "${dirs[@]}"
fi
sandbox_enter "$@"
ROUNDS=$1; shift
BUILDS=("$@")
W="$SANDBOX/lock-latency"; mkdir -p "$W"
printf '4821\n4821\n' | "$PINGATE" enroll pgalice --stdin --pin >/dev/null || { echo "enroll failed" >&2; exit 1; }
start_xvfb 1280x800 +extension RANDR || exit 1
trap 'kill "$XVFB_PID" 2>/dev/null; wait "$XVFB_PID" 2>/dev/null; rm -rf "$SANDBOX"' EXIT

for b in "${!BUILDS[@]}"; do
    install -m 755 "${BUILDS[$b]}/pingate-lock" "$W/lock$b"
    service="${BUILDS[$b]}/pingate-lock.pam"
    [ -f "$service" ] || service="$REPO_ROOT/pam/pam.d/pingate-lock"
    sed "s|pam_pingate.so|$SANDBOX/pam_pingate.so|" "$service" > "$W/service$b"
done

# stamp TEXT LOG: the t= of the last trace line holding TEXT.
stamp() { grep -F -- "$1" "$2" | tail -n 1 | grep -oE 't=[0-9.]+' | cut -d= -f2; }

# unlock B: one lock and unlock with build B; appends a line of times (ms) to
# $W/times.B: key→PAM start, PAM, PAM end→unlocked, total, with xdotool.
unlock() {
    local b=$1 log="$W/log" pid i
    install -m 644 "$W/service$b" /etc/pam.d/pingate-lock
    : > "$log"
    setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        env DISPLAY="$DISPLAY" HOME="$SANDBOX/home/pgalice" LANG=C.UTF-8 PATH=/usr/bin:/bin \
        PINGATE_LOCK_DEBUG=1 "$W/lock$b" 2>>"$log" &
    pid=$!
    for i in $(seq 200); do grep -q "ready:" "$log" && break; sleep 0.05; done
    xdotool key 4 8 2
    # The three digits taken in and drawn before the timed one.
    for i in $(seq 200); do [ "$(grep -c "key press" "$log")" -ge 3 ] && break; sleep 0.05; done
    sleep 0.3
    local before after
    before=$EPOCHREALTIME
    xdotool key 1
    wait "$pid" || { echo "build $b: the locker exited with $?: $(tail -n 5 "$log")" >&2; exit 1; }
    after=$EPOCHREALTIME
    local key pam_start pam_end unlocked
    key=$(stamp "key press" "$log") pam_start=$(stamp "PAM started" "$log")
    pam_end=$(stamp "PAM answered" "$log") unlocked=$(stamp "unlocked by the UI" "$log")
    grep -q "PAM answered.*success" "$log" && [ -n "$unlocked" ] ||
        { echo "build $b: no unlock in the trace: $(tail -n 5 "$log")" >&2; exit 1; }
    echo "$key $pam_start $pam_end $unlocked $before $after" |
        awk '{ printf "%.3f %.3f %.3f %.3f %.3f\n", $2 - $1, $3 - $2, $4 - $3, $4 - $1, ($6 - $5) * 1000 }' >> "$W/times.$b"
}

# One unlock each first, not counted: page cache, fontconfig's cache.
for b in "${!BUILDS[@]}"; do unlock "$b"; : > "$W/times.$b"; done
for r in $(seq "$ROUNDS"); do
    order=("${!BUILDS[@]}")
    [ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${!BUILDS[@]}" | tac))
    for b in "${order[@]}"; do unlock "$b"; done
done

echo "$ROUNDS unlocks per build$([ ${#BUILDS[@]} -gt 1 ] && echo ", alternating (ABBA)"); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ms: median (min–max)"
for b in "${!BUILDS[@]}"; do
    echo "  ${BUILDS[$b]}"
    python3 - "$W/times.$b" <<'EOF'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
names = ["key → PAM start", "PAM", "PAM end → unlocked", "total: key → unlocked", "with xdotool and the reap"]
for column, name in enumerate(names):
    values = [row[column] for row in rows]
    print(f"    {name:28s} {statistics.median(values):7.2f}  ({min(values):.2f}–{max(values):.2f})")
EOF
done
