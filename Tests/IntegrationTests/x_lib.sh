# shellcheck shell=bash
# x_lib.sh — a private X server for the tests that drive a real lock screen as
# a person would (lock_test.sh: pingate-lock; kde_test.sh: KDE's greeter;
# mate_test.sh and cinnamon_test.sh through screensaver_lib.sh).
# Source it after sandbox.sh; needs Xvfb, xdpyinfo and xset (apt: xvfb x11-utils
# x11-xserver-utils).

# start_xvfb WIDTHxHEIGHT [XVFB ARGS...]: Xvfb with 24-bit colour on a display
# it picks itself (-displayfd: Xvfb takes the display's lock file, so test files
# started at once never share or race for a server), waited for. Exports
# DISPLAY, sets DISPLAY_NUMBER and XVFB_PID; the caller's EXIT trap stops it.
# Returns 1, saying why, if it does not start.
start_xvfb() {
    local size=$1; shift
    local number_file="$SANDBOX/xvfb.display" _
    : > "$number_file"
    Xvfb -displayfd 3 -screen 0 "${size}x24" -ac -noreset -nolisten tcp "$@" \
        3>"$number_file" >"$SANDBOX/xvfb.log" 2>&1 &
    XVFB_PID=$!
    for _ in $(seq 100); do [ -s "$number_file" ] && break; sleep 0.1; done
    DISPLAY_NUMBER=$(tr -dc 0-9 < "$number_file")
    export DISPLAY=":$DISPLAY_NUMBER"
    for _ in $(seq 100); do [ -n "$DISPLAY_NUMBER" ] && xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
    if [ -z "$DISPLAY_NUMBER" ] || ! xdpyinfo >/dev/null 2>&1; then
        echo "Xvfb did not start: $(cat "$SANDBOX/xvfb.log")" >&2
        return 1
    fi
    # On a loaded machine xdotool's key release can come late enough for the
    # server's autorepeat to type the key again.
    xset r off
}
