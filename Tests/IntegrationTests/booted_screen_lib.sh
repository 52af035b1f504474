# booted_screen_lib.sh — what the lock-screen tests on a booted Debian report
# (debian13_x11_test.sh, kde6_test.sh, sway_test.sh, xfce_test.sh, …): the
# container's X screen as PNG, and the unlock times each case records, with
# their medians once the tests have run. Sourced after booted_lib.sh
# (REPORT_DIR, ct_root).

UNLOCK_TIMES="$REPORT_DIR/unlock-times.txt"

# xwd_png NAME [CROP]: the screen the test's step wrote to the container's
# /tmp/shot.xwd (xwd -root) as REPORT_DIR/NAME-full.png, and as NAME.png:
# CROP (WxH+X+Y: the dialog), or the whole screen at half size.
xwd_png() {
    local xwd full="$REPORT_DIR/$1-full.png"
    xwd="xwd:$(ct_root)/tmp/shot.xwd"
    convert "$xwd" "$full" || fail "could not convert the screenshot"
    if [ -n "${2:-}" ]; then
        convert "$full" -crop "$2" +repage -strip +dither -colors 128 "$REPORT_DIR/$1.png"
    else
        convert "$full" -resize 50% -strip -colors 64 "$REPORT_DIR/$1.png"
    fi
}

# record KIND MS [NOTE...]: one unlock time, for the medians (none if MS is empty).
record() { [ -z "${2:-}" ] || echo "$*" >> "$UNLOCK_TIMES"; }

# median N...: the middle value (the lower of the two middle ones); "-" for none.
median() {
    [ $# -gt 0 ] || { echo "-"; return; }
    printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"
}

# DOC_SCREENSHOTS: the screenshots (NAME.png in REPORT_DIR) that the
# README shows: with PINGATE_UPDATE_DOCS=1, run_screen_tests copies them to
# docs/screenshots/ once the tests have run.
DOC_SCREENSHOTS=()

# run_screen_tests MEASURED KIND...: run_tests, then one line with the
# median time of each KIND recorded ("unlock, MEASURED (medians): pin 53 ms
# (of 4); …"); exits with run_tests' status.
run_screen_tests() {
    local measured="$1" kind summary="" rc
    shift
    rm -f "$UNLOCK_TIMES"
    run_tests
    rc=$?
    if [ -s "$UNLOCK_TIMES" ]; then
        for kind in "$@"; do
            local times
            mapfile -t times < <(awk -v kind="$kind" '$1 == kind {print $2}' "$UNLOCK_TIMES")
            [ ${#times[@]} -gt 0 ] || continue
            summary+=" $kind $(median "${times[@]}") ms (of ${#times[@]});"
        done
        echo "unlock, $measured (medians):$summary each in $UNLOCK_TIMES"
    fi
    if [ "${PINGATE_UPDATE_DOCS:-}" = 1 ]; then
        local name
        for name in "${DOC_SCREENSHOTS[@]}"; do
            [ ! -f "$REPORT_DIR/$name.png" ] || cp "$REPORT_DIR/$name.png" "$REPO_ROOT/docs/screenshots/$name.png"
        done
    fi
    exit "$rc"
}
