# booted_screen_lib.sh — what the lock-screen tests on a booted Debian share
# (cinnamon13_test.sh, debian13_x11_test.sh, gnome13_test.sh, gnome_shell13_test.sh,
# kde6_test.sh, sway_test.sh, xfce_test.sh): the container's X screen as PNG; the unlock
# times each case records, with their medians once the tests have run; and
# loggers that show what went on to the password modules. Sourced after
# booted_lib.sh (REPORT_DIR, WORK, ct_root, ct_sh).

UNLOCK_TIMES="$REPORT_DIR/unlock-times.txt"

# The Wayland layer that sway_test.sh and wayland_lock_test.sh share (one
# cache entry): sway and swaylock and what they draw with; labwc, the second
# compositor; and the two libraries of pingate-lock's that sway does not
# bring (its X11 front end's), so its package installs without a network.
SWAY_LAYER_PACKAGES=(sway swaylock grim wtype swaybg fonts-dejavu-core labwc libx11-6 libxrandr2)

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
# docs/screenshots/ once the tests have all passed (REPORT_DIR is kept
# between runs: a failed run's would be stale).
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
    if [ "${PINGATE_UPDATE_DOCS:-}" = 1 ] && [ "$rc" = 0 ]; then
        local name
        for name in "${DOC_SCREENSHOTS[@]}"; do
            [ ! -f "$REPORT_DIR/$name.png" ] || cp "$REPORT_DIR/$name.png" "$REPO_ROOT/docs/screenshots/$name.png"
        done
    fi
    exit "$rc"
}

# add_loggers SERVICE: two loggers (the test module pam/build/pam_test_authtok.so,
# built with `make -C pam harness` when missing) around the password modules
# inside, with pingate installed and `pingate enable SERVICE` done: what
# PinGate's line in /etc/pam.d/SERVICE hands on to them (/tmp/handed-on.log),
# and what pam_unix refused, handed on or typed at its own question
# (/tmp/unix.log; pam_unix's success jumps over that logger). handed_on,
# refused_by_unix and never_followed read them. SERVICE common-auth: the
# Debian profile's line there instead, whose success then jumps over both
# loggers too.
add_loggers() {
    local logger="$REPO_ROOT/pam/build/pam_test_authtok.so" out
    [ -f "$logger" ] || make -s -C "$REPO_ROOT/pam" harness > "$WORK/harness.out" 2>&1 ||
        fail "make -C pam harness failed: $(cat "$WORK/harness.out")"
    install -m 0644 "$logger" "$(ct_root)/usr/local/lib/pam_test_authtok.so"
    out="$(CT_TIMEOUT=30 ct_sh "$1" 2>&1 <<'EOF'
logger=/usr/local/lib/pam_test_authtok.so
install -m 0666 /dev/null /tmp/handed-on.log
install -m 0666 /dev/null /tmp/unix.log
sed -i "/pam_pingate\.so/a auth optional $logger log=/tmp/handed-on.log" "/etc/pam.d/$1"
sed -i "s|^auth\s*\[success=1 default=ignore\]\s*pam_unix\.so\(.*\)\$|auth [success=2 default=ignore] pam_unix.so\1\nauth optional $logger log=/tmp/unix.log|" \
    /etc/pam.d/common-auth
[ "$1" != common-auth ] ||
    perl -pi -e 's/^auth\s+\[success=\K(\d+)(?= default=ignore\]\s+pam_pingate\.so)/$1 + 2/e' /etc/pam.d/common-auth
echo "loggers: $(grep -c "$logger" "/etc/pam.d/$1" /etc/pam.d/common-auth | tr '\n' ' ')"
EOF
)"
    if [ "$1" = common-auth ]; then
        assert_contains "$out" "loggers: /etc/pam.d/common-auth:2 /etc/pam.d/common-auth:2" "the loggers"
    else
        assert_contains "$out" "loggers: /etc/pam.d/$1:1 /etc/pam.d/common-auth:1" "the loggers"
    fi
}
# wait_log TEXT [COUNT] [SECONDS]: until TEXT is in the test's `log` (a
# function of its own: the greeter's debug log) COUNT times.
wait_log() {
    local i
    for i in $(seq "$(awk -v s="${3:-10}" 'BEGIN { print int(s * 20) }')"); do
        [ "$(log | grep -cF -- "$1")" -ge "${2:-1}" ] && return 0
        sleep 0.05
    done
    return 1
}

# handed_on, refused_by_unix: what went on to the password modules, and what
# pam_unix refused, one a line.
handed_on() { cat "$(ct_root)/tmp/handed-on.log"; }
refused_by_unix() { cat "$(ct_root)/tmp/unix.log"; }
# never_followed SECRET...: none of them reached the password modules.
never_followed() {
    local secret
    for secret in "$@"; do
        if handed_on | grep -qxF -- "$secret"; then fail "[$secret] went on to the password modules: $(handed_on | tr '\n' ' ')"; fi
        if refused_by_unix | grep -qxF -- "$secret"; then fail "[$secret] reached pam_unix: $(refused_by_unix | tr '\n' ' ')"; fi
    done
    return 0
}

# --- a screensaver's dialog (MATE's, Xfce's, Cinnamon's), driven through the
# test's own steps inside (its `x`): STEP (lock) locks, clicks, and prints
# the dialog trace's line count from before, once the dialog asks; `asked
# MARK N` prints "yes" once the dialog has asked N questions since MARK;
# `unlock TEXT` types TEXT and Return and prints "unlocked in MS ms" once
# the screensaver says so; `query` prints its own answer ("… is active").
# DIALOG_LOG is the trace inside the container; the test's `questions`
# lists the questions in it.

DIALOG_LOG=""
MARK=0
# trace: the dialog's trace since the screen was last locked.
trace() { tail -n +$((MARK + 1)) "$(ct_root)$DIALOG_LOG"; }
# dialog_lock [STEP]: locked, and the dialog asks; MARK is where this try's trace starts.
dialog_lock() {
    local out log
    log="$(ct_root)$DIALOG_LOG"
    out="$(x "${1:-lock}")" ||
        fail "locking: $out; $(cat "$(dirname "$log")/ended" 2>/dev/null || echo "the screensaver still runs"); its trace ends: $(tail -5 "$log" | tr '\n' ' ')"
    [[ "$out" =~ ^[0-9]+$ ]] || fail "locking: $out"
    MARK="$out"
}
# asked N: the dialog has asked N questions since the lock.
asked() { [ "$(x asked "$MARK" "$1")" = yes ] || fail "no question $1: $(questions | tr '\n' '|')"; }
# dialog_unlock ANSWER WHAT KIND: typed, Return, and the screen unlocked;
# the time from Return is recorded as KIND, and left in UNLOCK_MS.
dialog_unlock() {
    local out
    out="$(x unlock "$1")"
    assert_contains "$out" "unlocked in " "the screensaver after $2 (questions: $(questions | tr '\n' '|'))"
    UNLOCK_MS="$(sed -nE 's/^unlocked in ([0-9]+) ms.*/\1/p' <<< "$out")"
    echo "      $2 -> unlocked $UNLOCK_MS ms after Return" >&2
    record "$3" "$UNLOCK_MS"
}
still_locked() { assert_contains "$(x query)" "is active" "the screen ($1)"; }

# write_wayland_session_lib: /usr/local/lib/pingate-wayland-session.sh inside,
# which the in-container programs of sway_test.sh and wayland_lock_test.sh
# source: alice's runtime directory ($run), her compositor's socket
# (display), a command as her on it (as_alice), a pixel read back with grim
# (pixel X Y, corner), `start_compositor sway|labwc` — her seat session, as
# a display manager makes it, running the compositor headless with its
# configuration under /etc/pingate-test (the test writes it) — with
# `stop_compositor`, and `session_facts`, what logind says of that session.
write_wayland_session_lib() {
    mkdir -p "$(ct_root)/usr/local/lib"
    cat > "$(ct_root)/usr/local/lib/pingate-wayland-session.sh" <<'EOF'
run="/run/user/$(id -u alice)"
display() { ls "$run" 2>/dev/null | grep -x 'wayland-[0-9]' | head -1; }
as_alice() { runuser -u alice -- env XDG_RUNTIME_DIR="$run" WAYLAND_DISPLAY="$(display)" "$@"; }
pixel() { as_alice grim -g "$1,$2 1x1" -t ppm - | tail -c 3 | od -An -tx1 | tr -d ' \n'; }
corner() { pixel 10 10; }
start_compositor() {
    env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=wayland XDG_SESSION_CLASS=user"
    env="$env WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1"
    case "$1" in
        sway)  set -- sway -c /etc/pingate-test/sway.conf ;;
        labwc) set -- labwc -C /etc/pingate-test/labwc ;;
    esac
    systemd-run --quiet --unit=pingate-wayland -p PAMName=login -p User=alice -p "$env" "$@" < /dev/null
    for i in $(seq 100); do [ -n "$(display)" ] && break; sleep 0.1; done
    [ -n "$(display)" ] || { echo "no Wayland socket: $(systemctl status pingate-wayland --no-pager -n 20 | tr '\n' ' ')"; exit 1; }
}
# stop_compositor: ends the session, and alice's user manager, before the
# poweroff: after a Wayland session her manager sometimes took 10-15 s to
# exit once it had reached exit.target (not understood), and the poweroff
# waited for it past its 20 s deadline.
stop_compositor() {
    systemctl stop pingate-wayland.service
    systemctl kill --signal=KILL "user@$(id -u alice).service" 2> /dev/null
}
session_facts() {
    session="$(loginctl show-user alice -p Display --value)"
    echo "$(display), session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
         "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value),"
}
EOF
}
