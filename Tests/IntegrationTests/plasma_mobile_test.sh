#!/bin/bash
# plasma_mobile_test.sh — Plasma Mobile 6.3's lock screen with a PIN on a
# booted Debian 13 (trixie): the same greeter as Plasma 6.3's desktop
# (kscreenlocker_greet, kde6_test.sh), with the phone's lock screen, on the
# same `kde` PAM service and the line `pingate enable kde` writes; the PIN
# tapped on its keypad, the password typed, the screen read back.
#
# How (kde6_test.sh is the same test for the desktop's Breeze lock screen):
#   * Layer: kde6_test.sh's packages and plasma-mobile 6.3.6 (with what it
#     depends on), a layer of its own, so that kde6_test.sh's stays as it is.
#   * The phone's lock screen: kscreenlocker_greet loads the lock screen of
#     the Plasma shell package (plasmashellrc [Shell] ShellPackage, else
#     $PLASMA_DEFAULT_SHELL, else org.kde.plasma.desktop), not of the
#     look-and-feel (plasma-mobile's org.kde.breeze.mobile has none). Debian's
#     startplasmamobile exports PLASMA_DEFAULT_SHELL=org.kde.plasma.mobileshell
#     (and QT_QUICK_CONTROLS_MOBILE, PLASMA_PLATFORM=phone:handset) before
#     it starts Plasma, whose greeter inherits them: the session below does
#     the same, on a phone-shaped Xvfb screen (540x960).
#   * Session: as kde6_test.sh, a process of alice's started by systemd-run
#     with PAMName=login and XDG_SEAT=seat0 (logind makes it her active seat
#     session) running Xvfb and, each time the test asks,
#     `kscreenlocker_greet --testing` on her session bus.
#   * The phone's lock screen: a clock; a swipe up brings the keypad (digits,
#     a clear key, an enter key) above a bar of dots. It shows no PAM message
#     (LockScreenState.qml only logs them), only "Enter PIN" and, after any
#     failure, "Wrong PIN". A key typed on a keyboard opens the keypad in
#     keyboard mode and goes to the same bar.
#   * Tapping: xdotool moves the mouse and clicks: a drag up is the swipe, a
#     click on a key of the keypad the tap.
#   * What the greeter shows: its debug log (QT_LOGGING_RULES) has each
#     message of the `kde` conversation and its result.
#
# Run as root: bash Tests/IntegrationTests/plasma_mobile_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of building one.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" plasma-mobile
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

LAYER_PACKAGES=(libkscreenlocker6 plasma-workspace plasma-desktop-data qt6-svg-plugins
                xvfb xdotool x11-apps x11-utils fonts-dejavu-core plasma-mobile)
DOC_SCREENSHOTS=(plasma-mobile-pin plasma-mobile-wrong-pin)

# The keypad on the 540x960 screen once swiped up (seen in the screenshots):
# three columns, four rows: 1 2 3 / 4 5 6 / 7 8 9 / clear 0 enter.
KEY_X=(180 270 360)
KEY_Y=(432 522 612 702)

# write_x_programs: the session a user's seat runs, and pingate-x, the steps
# the test takes inside as root. No #! line: they are the container's
# programs, run by its sh.
write_x_programs() {
    local root
    root="$(ct_root)"
    cat > "$root/usr/local/bin/pingate-xsession" <<'EOF'
d="$XDG_RUNTIME_DIR/pingate-mobile"
mkdir -p "$d"
Xvfb :1 -screen 0 540x960x24 -nolisten tcp > "$d/xvfb.log" 2>&1 &
for i in $(seq 100); do xdpyinfo -display :1 > /dev/null 2>&1 && break; sleep 0.1; done
touch "$d/display"
# What Debian's startplasmamobile exports for Plasma, and so for its greeter.
export DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus" \
    QT_LOGGING_RULES="kscreenlocker_greet.debug=true" QT_QPA_PLATFORM=xcb \
    PLASMA_DEFAULT_SHELL=org.kde.plasma.mobileshell QT_QUICK_CONTROLS_MOBILE=true \
    QT_QUICK_CONTROLS_STYLE=org.kde.breeze PLASMA_PLATFORM=phone:handset
while :; do
    while [ ! -e "$d/go" ]; do sleep 0.05; done
    rm -f "$d/go"
    /usr/lib/x86_64-linux-gnu/libexec/kscreenlocker_greet --testing > "$d/out" 2> "$d/log"
    echo "$? $(date +%s%N)" > "$d/exit"
done
EOF
    cat > "$root/usr/local/bin/pingate-x" <<'EOF'
set -u
user="$1"; step="$2"; shift 2
run="/run/user/$(id -u "$user")"
d="$run/pingate-mobile"
as_user() { runuser -u "$user" -- env XDG_RUNTIME_DIR="$run" DISPLAY=:1 "$@"; }
now() { date +%s%N; }
running() { [ ! -e "$d/exit" ]; }
# waited WHAT: waits for the greeter's exit: "exit N after MS ms" from WHAT.
waited() {
    local at0; at0=$(now)
    for i in $(seq 500); do running || break; sleep 0.02; done
    if running; then echo "still locked 10 s after $1"
    else read -r status at < "$d/exit"; echo "exit $status after $(( (at - at0) / 1000000 )) ms"; fi
}
case "$step" in
    start)  # the user's seat session running Xvfb
        env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user"
        systemd-run --quiet --unit="pingate-xsession-$user" -p PAMName=login -p User="$user" -p "$env" \
            sh /usr/local/bin/pingate-xsession < /dev/null
        for i in $(seq 150); do [ -e "$d/display" ] && break; sleep 0.1; done
        [ -e "$d/display" ] || { echo "Xvfb did not start: $(cat "$d/xvfb.log" 2>/dev/null)"; exit 1; }
        session="$(loginctl show-user "$user" -p Display --value)"
        echo "session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
             "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value)," \
             "$(dpkg-query -W -f='${Package} ${Version}, ' libkscreenlocker6 plasma-mobile)" ;;
    greet)  # the greeter started; returns once its scene is up
        rm -f "$d/exit" "$d/log"
        touch "$d/go"
        for i in $(seq 600); do grep -q "Greeter is running" "$d/log" 2>/dev/null && break; sleep 0.05; done
        grep -q "Greeter is running" "$d/log" 2>/dev/null ||
            { echo "the greeter did not start: $(tail -5 "$d/log" 2>/dev/null | tr '\n' ' ')"; exit 1; }
        echo started ;;
    swipe)  # a finger's drag up from the bottom of the screen
        as_user xdotool mousemove 270 900 mousedown 1
        for y in 860 800 720 620 520 420 320 260; do as_user xdotool mousemove 270 "$y"; sleep 0.03; done
        as_user xdotool mouseup 1 ;;
    tap)    # tap X Y...: taps, 0.15 s apart
        while [ $# -ge 2 ]; do as_user xdotool mousemove "$1" "$2" click 1; shift 2; sleep 0.15; done ;;
    tap-unlock) # tap-unlock X Y: the last tap (the enter key); waits for the greeter's exit
        as_user xdotool mousemove "$1" "$2" click 1
        waited "the last tap" ;;
    type)   # type TEXT: typed on a keyboard, then Return
        as_user xdotool type --delay 40 -- "$1"
        as_user xdotool key Return ;;
    type-unlock) # type-unlock TEXT: typed, Return; waits for the greeter's exit
        as_user xdotool type --delay 40 -- "$1"
        as_user xdotool key Return
        waited Return ;;
    xstate) echo "Xvfb: $(pgrep -u "$user" -x Xvfb || echo gone); greeter: $(pgrep -u "$user" -x kscreenlocker_g || echo gone); unit: $(systemctl is-active "pingate-xsession-$user"); log: $(tail -8 "$d/log" | tr '\n' '|')" ;;
    running) running && echo yes || echo "no: $(cat "$d/exit")" ;;
    shot)   # shot FILE: the screen as xwd
        as_user xwd -root -silent -display :1 > "$1" ;;
    stop)
        pkill -KILL -u "$user" -x kscreenlocker_g
        systemctl stop "pingate-xsession-$user.service"
        timeout 5 systemctl stop "user@$(id -u "$user").service" ;;
esac
EOF
}

# x STEP ARGS...: one of pingate-x's steps, as alice.
x() {
    CT_TIMEOUT=40 ct_sh alice "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-x "$@"
EOF
}

log() { cat "$(ct_root)/run/user/4601/pingate-mobile/log" 2>/dev/null; }
kde_lines() { log | grep -F "[PAM worker kde]"; }

# setup: the package; alice with her password and PIN; `pingate enable kde`;
# the loggers around the password modules (booted_screen_lib.sh).
setup() {
    install_deb trixie "$DEB"
    write_x_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh -u 4601 alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
pingate enable kde > /dev/null
echo "kde: $(grep -E '^auth' /etc/pam.d/kde | tr -s ' \t' ' ' | tr '\n' ';')"
EOF
)" || fail "setting up alice and the stack failed: $out"
    assert_contains "$out" "kde: auth requisite pam_nologin.so;auth required pam_succeed_if.so user != root quiet_success;auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password announce;" \
        "the stack after pingate enable kde (the desktop's line)"
    add_loggers kde
}

ANNOUNCE_PIN="Type your PIN, or your password"

# lock [TEXT]: the greeter started, its lock screen loaded (the mobile shell's,
# not Breeze's), and the kde conversation's first line is TEXT.
lock() {
    local out text="${1:-$ANNOUNCE_PIN}"
    out="$(x greet)" || fail "starting the greeter: $out"
    wait_log "$text" 1 15 || fail "no [$text] from the greeter: $(log | tail -8)"
    sleep 1
}

# keypad_shown: the screen shows the keypad: inside the "5" key (off its
# digit) the screen is brighter than between the keys; the same wallpaper
# at both points otherwise.
keypad_shown() {
    local key gap
    x shot /tmp/shot.xwd > /dev/null || return 1
    read -r key gap < <(convert "xwd:$(ct_root)/tmp/shot.xwd" \
        -format "%[fx:int(255*p{292,544}.intensity)] %[fx:int(255*p{225,567}.intensity)]\n" info:)
    [ $(( key - gap )) -ge 20 ]
}

# keypad: swiped up until the keypad shows. The lock screen's clock, swipe
# area and keypad are loaded asynchronously after its scene is up (8-12 s
# on the loaded build machine), and a swipe or a key before that does
# nothing.
keypad() {
    local out i
    for i in $(seq 30); do
        out="$(x swipe)" || fail "swiping: $out; $(x xstate)"
        sleep 1
        keypad_shown && return 0
    done
    fail "no keypad after 30 swipes: $(x xstate)"
}

# key_xy KEY: the keypad key's X Y (0-9, clear, enter).
key_xy() {
    local row col
    case "$1" in
        0) row=3 col=1 ;; clear) row=3 col=0 ;; enter) row=3 col=2 ;;
        *) row=$(( ($1 - 1) / 3 )) col=$(( ($1 - 1) % 3 )) ;;
    esac
    echo "${KEY_X[$col]} ${KEY_Y[$row]}"
}

# tap_digits DIGITS: each digit tapped on the keypad.
tap_digits() {
    local xy=() digit out
    for digit in $(printf '%s' "$1" | sed 's/./& /g'); do
        # shellcheck disable=SC2207  # "X Y": two words
        xy+=($(key_xy "$digit"))
    done
    out="$(x tap "${xy[@]}")" || fail "tapping $1: $out; $(x xstate)"
}

# tap_enter: the enter key, not waiting.
tap_enter() {
    local out
    # shellcheck disable=SC2046
    out="$(x tap $(key_xy enter))" || fail "tapping enter: $out"
}

# tap_unlock DIGITS WHAT KIND: the digits tapped, then enter; the greeter
# exits 0; the time from the enter key's tap to its exit is recorded as KIND.
tap_unlock() {
    local out ms
    tap_digits "$1"
    # shellcheck disable=SC2046
    out="$(x tap-unlock $(key_xy enter))"
    assert_contains "$out" "exit 0 after " "the greeter after $2 (log: $(kde_lines | tail -5))"
    ms="$(sed -nE 's/^exit 0 after ([0-9]+) ms.*/\1/p' <<< "$out")"
    echo "      $2 -> the greeter exited 0, $ms ms after the last tap" >&2
    record "$3" "$ms"
}

# type_unlock TEXT WHAT KIND: typed on a keyboard, Return; as tap_unlock.
type_unlock() {
    local out ms
    out="$(x type-unlock "$1")"
    assert_contains "$out" "exit 0 after " "the greeter after $2 (log: $(kde_lines | tail -5))"
    ms="$(sed -nE 's/^exit 0 after ([0-9]+) ms.*/\1/p' <<< "$out")"
    echo "      $2 -> the greeter exited 0, $ms ms after Return" >&2
    record "$3" "$ms"
}
still_locked() { assert_eq yes "$(x running)" "the greeter still running ($1)"; }

# shot NAME: the screen as REPORT_DIR/NAME.png, at half size.
shot() {
    x shot /tmp/shot.xwd > /dev/null || fail "no screenshot: $(x xstate)"
    xwd_png "$1"
}

test_debian_13_plasma_mobile_lock_screen_with_pingate_enable_kde() {
    local out start case_start
    start=$(date +%s%N)
    need_deb
    layer trixie plasmamobile "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    end_with 'cp "$(ct_root)/run/user/4601/pingate-mobile/log" "$REPORT_DIR/greeter.log" 2>/dev/null; x xstate > "$REPORT_DIR/xstate.txt"; x stop > /dev/null'
    out="$(x start)" || fail "alice's seat session did not start: $out"
    echo "    $out"
    assert_contains "$out" "seat seat0, type x11, active yes" "alice's seat session"
    assert_contains "$out" "plasma-mobile 6.3" "plasma-mobile's version"

    # 1. The PIN, tapped on the keypad.
    case_start=$(date +%s%N)
    lock
    assert_contains "$(log)" "shells/org.kde.plasma.mobileshell/contents/lockscreen/" "the lock screen the greeter loaded"
    assert_not_contains "$(log)" "falling back" "the lock screen the greeter loaded"
    keypad
    tap_digits "$PIN"
    sleep 0.8   # the last digit shown for 0.5 s, then a dot
    shot plasma-mobile-pin
    # shellcheck disable=SC2046
    out="$(x tap-unlock $(key_xy enter))"
    assert_contains "$out" "exit 0 after " "the greeter after the PIN (log: $(kde_lines | tail -5))"
    ms="$(sed -nE 's/^exit 0 after ([0-9]+) ms.*/\1/p' <<< "$out")"
    echo "      the PIN -> the greeter exited 0, $ms ms after the last tap" >&2
    record pin "$ms"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    assert_contains "$(kde_lines)" "Echo-off prompt: PIN or password" "the kde conversation's question"
    echo "      case 1 took $(( ($(date +%s%N) - case_start) / 1000000 )) ms" >&2

    # 2. A wrong PIN, then the PIN.
    case_start=$(date +%s%N)
    lock
    keypad
    tap_digits "${WRONG_PINS[0]}"
    tap_enter
    wait_log "result code: 7" 1 || fail "no result after a wrong PIN: $(kde_lines | tail -5)"
    sleep 1.5   # the screen waits 1 s, clears the dots, starts the next conversation
    shot plasma-mobile-wrong-pin
    assert_contains "$(kde_lines)" "Info message: Wrong PIN — 4 attempts left" "what the greeter was told after a wrong PIN"
    still_locked "after a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    wait_log "$ANNOUNCE_PIN" 2 10 || fail "no second conversation: $(kde_lines | tail -5)"
    sleep 0.5
    tap_unlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    never_followed "$PIN" "${WRONG_PINS[0]}"
    assert_eq "" "$(handed_on)$(refused_by_unix)" "what reached the password modules in cases 1-2"
    echo "      case 2 took $(( ($(date +%s%N) - case_start) / 1000000 )) ms" >&2

    # 3. The password, typed on a keyboard: handed on by PinGate, taken by pam_unix.
    case_start=$(date +%s%N)
    lock
    keypad
    type_unlock "$ALICE_PASSWORD" "the password" password
    assert_eq 0 "$(count alice)" "alice's failures after the password"
    assert_eq "$ALICE_PASSWORD" "$(handed_on)" "what PinGate handed on"
    assert_eq "" "$(refused_by_unix)" "what pam_unix refused"
    echo "      case 3 took $(( ($(date +%s%N) - case_start) / 1000000 )) ms" >&2

    # 4. The PIN locked (five different wrong PINs): the password unlocks.
    case_start=$(date +%s%N)
    lock_the_pin alice
    lock "after 5 failed attempts — use your password"
    assert_contains "$(kde_lines)" "Info message: PIN locked for " "the greeter's line while the PIN is locked"
    assert_not_contains "$(kde_lines)" "$ANNOUNCE_PIN" "the greeter's lines while the PIN is locked"
    keypad
    shot plasma-mobile-pin-locked
    type_unlock "$ALICE_PASSWORD" "the password while the PIN is locked" password
    never_followed "$PIN" "${WRONG_PINS[@]}"
    echo "      case 4 took $(( ($(date +%s%N) - case_start) / 1000000 )) ms" >&2
    cp "$(ct_root)/run/user/4601/pingate-mobile/log" "$REPORT_DIR/greeter.log"

    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

run_screen_tests "the last tap or Return to the greeter's exit" pin password
