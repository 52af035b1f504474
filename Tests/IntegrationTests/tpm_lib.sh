# shellcheck shell=bash
# tpm_lib.sh — a software TPM (swtpm) for the tests of `pingate key`, shared
# by tpm_test.sh, install_test.sh, deb_test.sh and booted_test.sh. Source after lib.sh and
# inside the test's private mount namespace; call tpm_setup once (after
# tpm_available, which says whether swtpm is installed).
#
# tpm_setup: a private /run (`key load` mounts its ramfs on /run/pingate, and
# a boot is simulated by unmounting it), two free loopback ports, and
# $TCTI / TPM2TOOLS_TCTI pointing at them. Needs $TPM_DIR (a scratch directory).

tpm_available() { command -v swtpm >/dev/null && command -v tpm2_getrandom >/dev/null; }

tpm_setup() {
    mount -t tmpfs -o mode=755 tmpfs /run || fail "cannot mount a private /run"
    tpm_ports
}

# tpm_ports: a free pair of loopback ports for swtpm (TPM_PORT, the TCTI's
# command port, and TPM_PORT+1, its control port), $TCTI and TPM2TOOLS_TCTI
# naming them, and swtpm's state and pid file under $TPM_DIR. Mounts
# nothing: booted_test.sh's containers reach this TPM through the host's loopback.
tpm_ports() {
    TPM_PORT=$(python3 - <<'PY'
import random, socket
for _ in range(200):
    port = random.randrange(20000, 60000, 2)
    try:
        for p in (port, port + 1):
            s = socket.socket(); s.bind(("127.0.0.1", p)); s.close()
    except OSError:
        continue
    print(port); break
PY
)
    [ -n "$TPM_PORT" ] || fail "no free port pair for swtpm"
    TCTI="swtpm:host=127.0.0.1,port=$TPM_PORT"
    export TPM2TOOLS_TCTI="$TCTI"
    TPM_STATE="$TPM_DIR/tpm-state"
    TPM_PID="$TPM_DIR/swtpm.pid"
}

# tpm_start [fresh]: swtpm on $TPM_PORT; `fresh` wipes its state first (a
# new TPM: another machine, or this one's TPM cleared).
tpm_start() {
    tpm_stop
    if [ "${1:-}" = fresh ]; then rm -rf "$TPM_STATE"; fi
    mkdir -p "$TPM_STATE"
    swtpm socket --tpm2 --tpmstate dir="$TPM_STATE" \
        --server type=tcp,port="$TPM_PORT",bindaddr=127.0.0.1 --ctrl type=tcp,port=$((TPM_PORT + 1)),bindaddr=127.0.0.1 \
        --flags not-need-init,startup-clear --pid file="$TPM_PID" --daemon \
        || fail "swtpm did not start"
    for _ in $(seq 100); do
        tpm2_getrandom 4 >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    fail "swtpm does not answer on $TCTI"
}

tpm_stop() {
    local pid
    pid=$(cat "$TPM_PID" 2>/dev/null) || return 0
    rm -f "$TPM_PID"
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.02; done
    kill -KILL "$pid" 2>/dev/null
}

# A reboot, as the key sees it: the ramfs and what was loaded are gone.
reboot_memory() { if mountpoint -q /run/pingate; then umount /run/pingate; fi; rm -rf /run/pingate; }
