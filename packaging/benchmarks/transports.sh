#!/bin/bash
# packaging/benchmarks/transports.sh — a sign-in over each of the module's two
# ways to the verifier, in one run: the spawned setgid helper, and
# pingate-verify.socket (pingate_protocol.h, SOCKET), which the module takes
# under no_new_privs. Sign-ins through real libpam at the minimal KDF
# (pam_bench), in alternating rounds (ABBA), with pam_permit, pam_unix (the
# password, as root: no unix_chkpwd) and the floor (fork+exec of /bin/true,
# then two synced slot writes) measured in the same rounds.
#
# The socket here is systemd-socket-activate's (fork and exec per
# connection, as socket_test.sh uses it), not systemd's unit start: what
# the transport itself costs. What systemd adds per instance (its sandbox,
# the unit's bookkeeping) is measured in a booted container
# (booted_test.sh's socket runs log it; the closing notes have the numbers).
# Root only; inside the tests' sandbox, with this tree's release build.
#
#   packaging/benchmarks/transports.sh [ROUNDS]
set -u
BENCH_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../Tests/IntegrationTests/sandbox.sh
source "$BENCH_SRC/../../Tests/IntegrationTests/sandbox.sh"
if [ "${PINGATE_IN_SANDBOX:-}" != 1 ]; then
    mkdir -p "$REPO_ROOT/.build/benchmarks"
    cc -O2 -Wall -Wextra -Werror "$BENCH_SRC/pam_bench.c" -o "$REPO_ROOT/.build/benchmarks/pam_bench" -lpam || exit 1
    set -- "${1:-6}"
fi
sandbox_enter "$@"
ROUNDS=$1 N=40 C=150
BENCH="$REPO_ROOT/.build/benchmarks/pam_bench" STATS="$BENCH_SRC/stats.py"
W="$SANDBOX/transports"; mkdir -p "$W"
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/pingate-verify
printf 'kdf_operations = 1\nkdf_memory = 8K\n' > /etc/pingate/pingate.conf
printf '4821\n4821\n' | "$PINGATE" enroll pgalice --stdin --force >/dev/null || { echo "enroll failed" >&2; exit 1; }
systemd-socket-activate --seqpacket --accept --inetd -l /run/pingate-verify/socket "$HELPER" --socket > "$W/activator.log" 2>&1 &
ACTIVATOR=$!
trap 'kill $ACTIVATOR 2>/dev/null' EXIT
for i in $(seq 50); do [ -S /run/pingate-verify/socket ] && break; sleep 0.1; done
for s in pin permit unix; do mkdir -p "$W/pam-$s"; done
echo "auth required $SANDBOX/pam_pingate.so" > "$W/pam-pin/sudo"
echo "auth required pam_permit.so" > "$W/pam-permit/sudo"
echo "auth required pam_unix.so" > "$W/pam-unix/sudo"
printf 'pingate-verify/1\nop=status\nuser=pgalice\n' > "$W/status.req"
kv() { sed -n "s/.*[ ^]$1=\([^ ]*\).*/\1/p" <<< " $2"; }
sign_ins() {   # NAME [setpriv option]: one round of N sign-ins into pam.NAME.ROUND
    local name=$1; shift
    setpriv "$@" -- "$BENCH" --confdir "$W/pam-pin" --service sudo --user pgalice --secret 4821 --iterations "$N" \
        --raw "$W/pam.$name.$r" >/dev/null || { echo "the $name sign-ins failed" >&2; exit 1; }
}
for r in $(seq "$ROUNDS"); do
    order="spawned socket"; [ $((r % 2)) = 0 ] && order="socket spawned"
    for v in $order; do
        # no_new_privs sends the module to the socket; the spawned run gets a
        # setpriv too (one that changes nothing here), so both pay its exec.
        if [ "$v" = socket ]; then sign_ins socket --no-new-privs; else sign_ins spawned --inh-caps=-all; fi
    done
    "$BENCH" --confdir "$W/pam-permit" --service sudo --user pgalice --secret x --iterations "$N" --raw "$W/pam.permit.$r" >/dev/null
    "$BENCH" --confdir "$W/pam-unix" --service sudo --user pgalice --secret "$TEST_PASSWORD" --iterations "$N" --raw "$W/pam.unix.$r" >/dev/null ||
        { echo "the pam_unix sign-ins failed" >&2; exit 1; }
    l=$("$BENCH" --exec /bin/true --stdin "$W/status.req" --fdatasync /var/lib/pingate/bench.sync --iterations "$C" --warmup 5)
    echo "$(kv median "$l")" >> "$W/run.floor"
done
# The socket's sign-ins went over it: one verifier start per status and verify pair.
connections=$(grep -c 'Execing' "$W/activator.log" || true)
floor=$(python3 -c 'import statistics, sys; print("%.2f" % (statistics.median(float(l) for l in open(sys.argv[1])) / 1000))' "$W/run.floor")
spawned=$(python3 "$STATS" samples "$W"/pam.spawned.*) socket=$(python3 "$STATS" samples "$W"/pam.socket.*)
permit=$(python3 "$STATS" samples "$W"/pam.permit.*) unix=$(python3 "$STATS" samples "$W"/pam.unix.*)
echo "$ROUNDS alternating rounds, $(kv n "$spawned") sign-ins each way ($connections connections to the socket, warm-ups included); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-34s %10s %10s\n' "" spawned socket
printf '  %-34s %10s %10s\n' "sign-in, minimal KDF (median ms)" "$(kv median "$spawned")" "$(kv median "$socket")"
printf '  %-34s %10s %10s\n' "  p95 (ms)" "$(kv p95 "$spawned")" "$(kv p95 "$socket")"
for what in spawned socket; do
    m=$(kv median "${!what}")
    over[$([ $what = spawned ] && echo 0 || echo 1)]=$(awk -v a="$m" -v b="$(kv median "$permit")" 'BEGIN { printf "%.2f", a - b }')
done
printf '  %-34s %10s %10s   (pam_permit %s ms)\n' "overhead over pam_permit (ms)" "${over[0]}" "${over[1]}" "$(kv median "$permit")"
printf '  %-34s %10s %10s   (floor %s ms)\n' "  as a ratio to the floor" \
    "$(awk -v o="${over[0]}" -v f="$floor" 'BEGIN { printf "%.2fx", o / f }')" "$(awk -v o="${over[1]}" -v f="$floor" 'BEGIN { printf "%.2fx", o / f }')" "$floor"
printf '  %-34s %10s %10s   (pam_unix, the password: %s ms)\n' "  as a ratio to pam_unix" \
    "$(awk -v a="$(kv median "$spawned")" -v u="$(kv median "$unix")" 'BEGIN { printf "%.2fx", a / u }')" \
    "$(awk -v a="$(kv median "$socket")" -v u="$(kv median "$unix")" 'BEGIN { printf "%.2fx", a / u }')" "$(kv median "$unix")"
