# shellcheck shell=bash
# x_lib.sh — a private X server for the tests that drive a real lock screen
# (lock_test.sh: pingate-lock; kde_test.sh: KDE's kscreenlocker_greet).
#
# Source after sandbox.sh; call start_xvfb once inside the sandbox (not in a
# test's subshell).

# start_xvfb: Xvfb at 1280x800 with RandR on a display it picks itself
# (-displayfd: Xvfb takes the display's lock file, so two test files started
# at once never share a server); exports DISPLAY, sets DISPLAY_NUMBER and
# XVFB_PID, and stops it (and removes $SANDBOX) when the test file exits.
start_xvfb() {
    local number_file="$SANDBOX/xvfb.display"
    : > "$number_file"
    Xvfb -displayfd 3 -screen 0 1280x800x24 -ac -noreset -nolisten tcp +extension RANDR \
        3>"$number_file" >"$SANDBOX/xvfb.log" 2>&1 &
    XVFB_PID=$!
    trap 'kill "$XVFB_PID" 2>/dev/null; wait "$XVFB_PID" 2>/dev/null; rm -rf "$SANDBOX"' EXIT
    for _ in $(seq 100); do [ -s "$number_file" ] && break; sleep 0.1; done
    DISPLAY_NUMBER=$(tr -dc 0-9 < "$number_file")
    export DISPLAY=":$DISPLAY_NUMBER"
    for _ in $(seq 100); do [ -n "$DISPLAY_NUMBER" ] && xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
    [ -n "$DISPLAY_NUMBER" ] && xdpyinfo >/dev/null 2>&1 ||
        { echo "Xvfb did not start: $(cat "$SANDBOX/xvfb.log")"; echo "0 passed, 1 failed"; exit 1; }
}
