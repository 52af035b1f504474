# shellcheck shell=bash
# x_lib.sh — an X server for the tests that drive a screen locker as a person
# would (lock_test.sh, mate_test.sh): Xvfb on a display no one else uses.
# Source it inside the sandbox; needs Xvfb and xdpyinfo (apt: xvfb x11-utils).

# free_display: the first display number from 70 with no lock file or socket.
free_display() {
    local n
    for n in $(seq "${1:-70}" 99); do
        [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] || { echo "$n"; return; }
    done
    echo 0
}

# start_xvfb WIDTHxHEIGHT [XVFB ARGS...]: Xvfb with 24-bit colour, waited for;
# sets and exports DISPLAY, sets DISPLAY_NUMBER and XVFB_PID (the caller's
# EXIT trap stops it). Several test files run at once on a shared machine, so
# a display another Xvfb took in the meantime is skipped, not failed on.
start_xvfb() {
    local size=$1 from=70 tries; shift
    for tries in 1 2 3 4 5; do
        DISPLAY_NUMBER=$(free_display "$from")
        export DISPLAY=":$DISPLAY_NUMBER"
        Xvfb "$DISPLAY" -screen 0 "${size}x24" -ac -noreset -nolisten tcp "$@" >"$SANDBOX/xvfb.log" 2>&1 &
        XVFB_PID=$!
        local _
        for _ in $(seq 100); do
            if xdpyinfo >/dev/null 2>&1 && kill -0 "$XVFB_PID" 2>/dev/null; then
                # On a loaded machine xdotool's key release can come late
                # enough for the server's autorepeat to type the key again.
                xset r off
                return 0
            fi
            kill -0 "$XVFB_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill "$XVFB_PID" 2>/dev/null; wait "$XVFB_PID" 2>/dev/null
        from=$((DISPLAY_NUMBER + 1))
    done
    echo "Xvfb did not start: $(cat "$SANDBOX/xvfb.log")" >&2
    return 1
}
