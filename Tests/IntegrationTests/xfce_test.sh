#!/bin/bash
# xfce_test.sh — Xfce's own lock screen, xfce4-screensaver 4.18, with a PIN on
# a booted Debian 13 (trixie), as a person meets it: the real program from
# Debian's archive, alice's seat session made by logind, her PIN and
# password typed on a (virtual) keyboard, the screen read back.
# Debian 12 has no xfce4-screensaver (its Xfce locks with light-locker).
#
# How (container_lib.sh, booted_lib.sh; booted_test.sh says how the trees
# are made and booted, sway_test.sh is the same kind of test for swaylock):
#   * Layer: xfce4-screensaver, Xvfb, xdotool, xwd (x11-apps), xdpyinfo
#     (x11-utils) and a font installed once over the cached Debian 13 tree
#     (`container_layer trixie xfce …`, kept in $PINGATE_TEST_CACHE/layers).
#   * Session: what a display manager starts, a process of alice's started
#     by systemd-run with PAMName=login and XDG_SEAT=seat0,
#     XDG_SESSION_TYPE=x11, XDG_SESSION_CLASS=user (logind makes it her
#     active seat session): it runs Xvfb (1024x768) and, once the display
#     answers, `xfce4-screensaver --debug` on her session bus (the user
#     manager's, which also starts xfconfd, the settings daemon it reads).
#     Its dialog, /usr/libexec/xfce4-screensaver-dialog, runs PAM as alice
#     (service xfce4-screensaver) inside that session, so pam_pingate sees
#     her seat session.
#   * Locking: `xfce4-screensaver-command --lock`; a click brings the
#     dialog, as for someone coming back. Unlocked is
#     `xfce4-screensaver-command --query` saying "inactive".
#   * What the dialog shows: its --debug trace (the daemon passes --verbose
#     on to the dialog): "Setting prompt to: " is the label under the field,
#     "Got message style 2|3" (PAM's error and info lines) the line under
#     the label (styles 0 and 1 are the questions).
#   * Typing: xdotool inside the container, as alice, on her display.
#   * Seeing: xwd reads the screen back; the host crops the dialog to PNG.
#     The dialog before and after a wrong PIN is kept in $PINGATE_XFCE_REPORT
#     (/tmp/pingate-xfce); docs/screenshots/xfce-*.png are from there.
#   * Stack: Debian's /etc/pam.d/xfce4-screensaver (`auth include
#     common-auth`, pam_gnome_keyring) with the line `pingate enable
#     xfce4-screensaver` writes before it.
#
# Run as root: bash Tests/IntegrationTests/xfce_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of building one.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" xfce
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

LAYER_PACKAGES=(xfce4-screensaver xvfb xdotool x11-apps x11-utils fonts-dejavu-core)

# write_x_programs: the session alice's seat runs, and pingate-x, the steps
# the test takes inside as root (each prints what it saw). No #! line: they
# are the container's programs, run by its sh.
write_x_programs() {
    local root
    root="$(ct_root)"
    # The session: Xvfb, then the screensaver, as alice in her seat session.
    cat > "$root/usr/local/bin/pingate-xsession" <<'EOF'
d="$XDG_RUNTIME_DIR/pingate-xfce"
mkdir -p "$d"
Xvfb :1 -screen 0 1024x768x24 -nolisten tcp > "$d/xvfb.log" 2>&1 &
for i in $(seq 100); do xdpyinfo -display :1 > /dev/null 2>&1 && break; sleep 0.1; done
export DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
exec xfce4-screensaver --debug > "$d/log" 2>&1
EOF
    cat > "$root/usr/local/bin/pingate-x" <<'EOF'
set -u
run="/run/user/$(id -u alice)"
d="$run/pingate-xfce"
as_alice() { runuser -u alice -- env XDG_RUNTIME_DIR="$run" DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" "$@"; }
query() { as_alice xfce4-screensaver-command --query 2>&1; }
locked() { query | grep -q "is active"; }
now() { date +%s%N; }
case "$1" in
    start)  # alice's seat session running Xvfb and xfce4-screensaver
        env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user"
        systemd-run --quiet --unit=pingate-xsession -p PAMName=login -p User=alice -p "$env" \
            sh /usr/local/bin/pingate-xsession < /dev/null
        for i in $(seq 150); do query | grep -q "is inactive" && break; sleep 0.1; done
        query | grep -q "is inactive" ||
            { echo "xfce4-screensaver did not start: $(query) $(tail -5 "$d/log" 2>/dev/null | tr '\n' ' ')"; exit 1; }
        session="$(loginctl show-user alice -p Display --value)"
        t=$(now); query > /dev/null; t=$(( ($(now) - t) / 1000000 ))
        echo "a --query takes $t ms; session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
             "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value)," \
             "$(dpkg-query -W -f='${Package} ${Version}' xfce4-screensaver)" ;;
    lock)   # --lock, then a click: prints the trace's line count before, once the dialog asks
        mark=$(wc -l < "$d/log")
        as_alice xfce4-screensaver-command --lock
        for i in $(seq 100); do locked && break; sleep 0.1; done
        locked || { echo "not locked: $(query)"; exit 1; }
        as_alice xdotool mousemove 100 100 click 1
        for i in $(seq 200); do tail -n +$((mark + 1)) "$d/log" | grep -q "Setting prompt to:" && break; sleep 0.05; done
        tail -n +$((mark + 1)) "$d/log" | grep -q "Setting prompt to:" ||
            { echo "no question after a click: $(tail -5 "$d/log" | tr '\n' ' ')"; exit 1; }
        sleep 0.3   # GTK draws the entry and gives it the focus
        echo "$mark" ;;
    type)   # type TEXT: typed into the dialog, then Return
        as_alice xdotool type --delay 40 -- "$2"
        as_alice xdotool key Return
        now > "$d/typed" ;;
    unlock) # unlock TEXT: typed, Return; waits for "inactive": "unlocked in MS ms"
        as_alice xdotool type --delay 40 -- "$2"
        as_alice xdotool key Return
        typed=$(now)
        for i in $(seq 400); do locked || break; sleep 0.02; done
        if locked; then echo "still locked 8 s after Return"
        else echo "unlocked in $(( ($(now) - typed) / 1000000 )) ms"; fi ;;
    asked)  # asked MARK N: waits until the dialog asked its Nth question since MARK (10 s)
        for i in $(seq 200); do
            [ "$(tail -n +$(($2 + 1)) "$d/log" | grep -c "Setting prompt to:")" -ge "$3" ] && break; sleep 0.05
        done
        [ "$(tail -n +$(($2 + 1)) "$d/log" | grep -c "Setting prompt to:")" -ge "$3" ] && sleep 0.3 && echo yes ;;
    query)  query ;;
    shot)   # shot FILE: the screen as xwd
        as_alice xwd -root -silent -display :1 > "$2" ;;
    stop)   # ends her session and her user manager before the poweroff: Xvfb,
            # in the session's scope, kept the poweroff waiting past its deadline
        systemctl stop pingate-xsession.service
        loginctl kill-user alice --signal=KILL
        systemctl kill --signal=KILL "user@$(id -u alice).service" 2> /dev/null ;;
esac
EOF
}

# x STEP ARGS...: one of pingate-x's steps.
x() {
    CT_TIMEOUT=30 ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-x "$@"
EOF
}

# The dialog's trace inside (trace, in booted_screen_lib.sh, reads it since the lock).
# shellcheck disable=SC2034  # read by booted_screen_lib.sh (trace)
DIALOG_LOG=/run/user/1000/pingate-xfce/log
# questions: the labels the dialog gave its field since MARK, one a line.
questions() { trace | grep -F "Setting prompt to: " | sed "s/.*Setting prompt to: //"; }
# messages: the lines it showed under the label (PAM's error and info lines).
messages() { trace | grep -F "Got message style" | grep -v "style [01]:" | sed "s/.*Got message style [0-9]: //"; }

# setup: the package, alice with her password and PIN, and PinGate turned
# on with `pingate enable xfce4-screensaver`. Then two loggers (add_loggers
# in booted_screen_lib.sh: the test module pam/build/pam_test_authtok.so, placed as
# desktop_lib.sh places it for the X tests on the build machine): what
# PinGate's line hands on to the password modules, and what pam_unix
# refused (handed on, or typed at its own question; pam_unix's success
# jumps over the second logger), so that the test sees no PIN ever reached
# them.
setup() {
    install_deb trixie "$DEB"
    write_x_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
pingate enable xfce4-screensaver > /dev/null
echo "xfce4-screensaver: $(grep -v -e '^#' -e '^$' /etc/pam.d/xfce4-screensaver | tr -s ' \t' ' ' | tr '\n' ';')"
echo "doctor: $(pingate doctor 2>&1 | grep -F "Xfce lock screen")"
EOF
)" || fail "setting up alice and the stack failed: $out"
    echo "    $(tr '\n' ' ' <<< "$out")"
    assert_contains "$out" "xfce4-screensaver: auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password;auth include common-auth;auth optional pam_gnome_keyring.so;" \
        "the stack after pingate enable xfce4-screensaver"
    assert_contains "$out" "doctor: ok      Xfce lock screen (xfce4-screensaver): a PIN is offered (service xfce4-screensaver)" \
        "pingate doctor after pingate enable xfce4-screensaver"
    add_loggers xfce4-screensaver
}

# unlock ANSWER WHAT KIND: typed, Return, and the screen is unlocked (the
# --query says inactive). The times are recorded, in ms, as KIND: from
# Return (xdotool done) to the first --query that says inactive (a --query
# takes about 10 ms); KIND-dialog: from the dialog's "Got response" (its
# Unlock button clicked) to the daemon's ActiveChanged(FALSE) (the lock
# gone); and KIND-pam: PAM's part of that, to the dialog's "Verify user
# returned: TRUE" (the last two from the trace).
# Return in the field activates the Unlock button, and GTK shows a button
# activated from the keyboard pressed until the key's release or for 250 ms
# (ACTIVATE_TIMEOUT) before it counts as clicked: most of the time from
# Return (about 240 ms here).
unlock() {
    local pam dialog
    dialog_unlock "$@"
    dialog=$(( $(trace_ms "ActiveChanged(FALSE)") - $(trace_ms "Got response") ))
    pam=$(( $(trace_ms "Verify user returned: TRUE") - $(trace_ms "Got response") ))
    echo "        $dialog ms after the click, PAM $pam ms" >&2
    record "$3-dialog" "$dialog"
    record "$3-pam" "$pam"
}
# trace_ms TEXT: the time of the trace's last line with TEXT, in ms of the day.
trace_ms() {
    trace | grep -F "$1" | tail -1 | sed -nE 's/.*\(([0-9]+):([0-9]+):([0-9]+)\.([0-9]+)\).*/\1 \2 \3 \4/p' |
        { read -r h m sec milli && echo $(( ((10#$h * 60 + 10#$m) * 60 + 10#$sec) * 1000 + 10#$milli )); }
}
# shot NAME: the dialog (the middle of the screen) as REPORT_DIR/NAME.png.
shot() {
    x shot /tmp/shot.xwd > /dev/null || fail "no screenshot"
    xwd_png "$1" 480x300+272+235
}

# Every case, in one session:
#   1. the PIN unlocks;
#   2. a wrong PIN: "Wrong PIN — 4 attempts left" and the question again,
#      counted; the PIN unlocks there (and clears the count);
#   3. two wrong PINs: the second ends the try ("Authentication failed."),
#      the next try's question takes the PIN, which unlocks;
#   4. the password unlocks, and is not counted;
#   5. the PIN locked by five wrong PINs (pingate verify, as any sign-in
#      counts them): the dialog asks only for the password, which unlocks.
test_debian_13_xfce4_screensaver_with_pingate_enable() {
    local out start
    start=$(date +%s%N)
    need_deb
    layer trixie xfce "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    out="$(x start)" || fail "xfce4-screensaver did not start in alice's seat session: $out"
    echo "    $out"
    assert_contains "$out" "seat seat0, type x11, active yes" "alice's session running xfce4-screensaver"
    # The session ends before the poweroff, which would wait for it.
    end_with 'cp "$(ct_root)/run/user/1000/pingate-xfce/log" "$REPORT_DIR/xfce4-screensaver.log"; x stop > /dev/null'

    # 1. The PIN.
    dialog_lock
    assert_eq "PIN or password" "$(questions)" "the dialog's label"
    shot xfce-before
    unlock "$PIN" "the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 2. A wrong PIN, then the PIN.
    dialog_lock
    x type "${WRONG_PINS[0]}" > /dev/null
    asked 2
    assert_eq "'Wrong PIN — 4 attempts left'" "$(messages)" "the dialog's message after a wrong PIN"
    assert_eq "PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the dialog's labels"
    shot xfce-wrong-pin
    still_locked "after a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    unlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 3. Two wrong PINs, then the PIN. The wrong PIN of case 2 was in the
    # try the PIN ended (the dialog closed at once), and whoever typed the
    # PIN may not have typed it, so this try tells of it first.
    dialog_lock
    assert_contains "$(messages)" "'1 failed PIN attempt since your last PIN sign-in, at " \
        "the dialog's first line after case 2"
    x type "${WRONG_PINS[1]}" > /dev/null
    asked 2
    x type "${WRONG_PINS[2]}" > /dev/null
    asked 3
    assert_contains "$(trace)" "Verify user returned error: Authentication failed." "the trace after two wrong PINs"
    # The dialog's line: each wrong PIN said; after the second, the try
    # failed (the trace's NOTICE=AUTH FAILED), and the next try's first
    # line is the notice of the three failed attempts not yet told (it
    # replaces "Authentication failed." at once; 3 s later the dialog
    # clears it: the screenshot after).
    assert_contains "$(messages)" "'Wrong PIN — 4 attempts left'
'Wrong PIN — 3 attempts left'
'3 failed PIN attempts since your last PIN sign-in, the first at " "the dialog's messages after two wrong PINs"
    still_locked "after two wrong PINs"
    assert_eq 2 "$(count alice)" "alice's failures after two wrong PINs"
    shot xfce-two-wrong-pins
    sleep 3.5
    shot xfce-two-wrong-pins-later
    unlock "$PIN" "two wrong PINs, then the PIN" pin
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the dialog's labels"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    never_followed "$PIN" "${WRONG_PINS[@]:0:3}"
    assert_eq "" "$(handed_on)$(refused_by_unix)" "what reached the password modules in cases 1-3"

    # 4. The password: handed on by PinGate's question, taken by pam_unix.
    dialog_lock
    unlock "$ALICE_PASSWORD" "the password" password
    assert_eq 0 "$(count alice)" "alice's failures after the password"
    assert_eq "$ALICE_PASSWORD" "$(handed_on)" "what PinGate handed on"
    assert_eq "" "$(refused_by_unix)" "what pam_unix refused"

    # 5. The PIN locked: five different wrong PINs.
    lock_the_pin alice
    dialog_lock
    shot xfce-pin-locked
    assert_contains "$(messages)" "'PIN locked for " "the dialog's message while the PIN is locked"
    assert_contains "$(messages)" " after 5 failed attempts — use your password'" \
        "the dialog's message while the PIN is locked"
    # pam_unix's "Password: ", which the dialog shows as no label at all.
    assert_eq "" "$(questions)" "the dialog's label while the PIN is locked"
    unlock "$ALICE_PASSWORD" "the password while the PIN is locked" password
    never_followed "$PIN" "${WRONG_PINS[@]}"

    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

run_screen_tests "Return to inactive (-dialog: the Unlock button's click to the lock gone; -pam: PAM's part)" \
    pin password pin-dialog password-dialog pin-pam password-pam
