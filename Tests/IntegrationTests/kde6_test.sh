#!/bin/bash
# kde6_test.sh — KDE Plasma 6.3's own lock screen (kscreenlocker 6.3.5) with
# a PIN on a booted Debian 13 (trixie), as a person meets it: the real
# greeter from Debian's archive, alice's seat session made by logind, her
# PIN and password typed on a (virtual) keyboard, the screen read back.
# kde_test.sh is Plasma 5.27's greeter on Debian 12.
#
# How (container_lib.sh, booted_lib.sh; xfce_test.sh is the same kind of test):
#   * Layer: libkscreenlocker6 (the greeter), plasma-workspace (the Breeze
#     look-and-feel, whose lock screen the greeter loads, and its QML
#     modules), plasma-desktop-data (the Plasma shell package the greeter
#     reads first), qt6-svg-plugins (its icons), Xvfb, xdotool, xwd
#     (x11-apps), xdpyinfo (x11-utils) and a font, installed once over the
#     cached Debian 13 tree (`container_layer trixie kde6 …`).
#   * Session: what a display manager starts, a process of alice's started
#     by systemd-run with PAMName=login and XDG_SEAT=seat0,
#     XDG_SESSION_TYPE=x11, XDG_SESSION_CLASS=user (logind makes it her
#     active seat session): it runs Xvfb (1024x768) and, each time the test
#     asks, `kscreenlocker_greet --testing` (the same greeter, PAM
#     conversations and Breeze lock screen as a real lock, without the
#     screen grabs) on her session bus (her user manager's), so pam_pingate
#     sees her seat session. --testing: success makes the greeter exit 0.
#   * PAM: since Plasma 6 the greeter runs three conversations at once, `kde`
#     (the field), `kde-fingerprint` and `kde-smartcard` (no field: their
#     questions are never shown), from Debian's files in /usr/lib/pam.d.
#     `pingate enable kde` copies /usr/lib/pam.d/kde to /etc/pam.d/kde with
#     the PIN line before `@include common-auth`; the other two stay
#     Debian's (pam_fprintd and pam_sss are not installed: they fail).
#   * What the greeter shows: its debug log (QT_LOGGING_RULES) has each
#     message of the `kde` conversation and its result.
#   * Typing: xdotool inside the container, as alice, on her display.
#   * Seeing: xwd reads the screen back; the host crops it to PNG. The lock
#     screen before and after a wrong PIN is kept in $PINGATE_KDE6_REPORT
#     (/tmp/pingate-kde6); docs/screenshots/kde6-*.png are from there.
#
#   * uids 4601 (alice) and 4602 (bob), not 1000. Before each container got
#     cgroups of its own (container_boot), every container's systemd put
#     user.slice/user-UID.slice at the root of the host's unified hierarchy,
#     so another test's `loginctl kill-user alice --signal=KILL` killed this
#     test's uid-1000 session too. That cannot happen now; the uids stayed.
#
# Run as root: bash Tests/IntegrationTests/kde6_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of building one.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" kde6
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

BOB_PATTERN=1-5-9-6-3
LAYER_PACKAGES=(libkscreenlocker6 plasma-workspace plasma-desktop-data qt6-svg-plugins
                xvfb xdotool x11-apps x11-utils fonts-dejavu-core)

# write_x_programs: the session a user's seat runs, and pingate-x, the steps
# the test takes inside as root (each prints what it saw). No #! line: they
# are the container's programs, run by its sh.
write_x_programs() {
    local root
    root="$(ct_root)"
    # The session: Xvfb, then the greeter each time "go" appears; its exit
    # status and time (ns) go to "exit".
    cat > "$root/usr/local/bin/pingate-xsession" <<'EOF'
d="$XDG_RUNTIME_DIR/pingate-kde6"
mkdir -p "$d"
display=":$(( $(id -u) - 4600 ))"   # alice :1, bob :2 (a display's lock file stays the first user's)
Xvfb "$display" -screen 0 1024x768x24 -nolisten tcp > "$d/xvfb.log" 2>&1 &
for i in $(seq 100); do xdpyinfo -display "$display" > /dev/null 2>&1 && break; sleep 0.1; done
touch "$d/display"
export DISPLAY="$display" DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus" \
    QT_LOGGING_RULES="kscreenlocker_greet.debug=true" QT_QPA_PLATFORM=xcb
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
d="$run/pingate-kde6"
display=":$(( $(id -u "$user") - 4600 ))"
as_user() { runuser -u "$user" -- env XDG_RUNTIME_DIR="$run" DISPLAY="$display" DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" "$@"; }
now() { date +%s%N; }
running() { [ ! -e "$d/exit" ]; }
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
             "$(dpkg-query -W -f='${Package} ${Version}' libkscreenlocker6)" ;;
    greet)  # the greeter started; returns once the lock screen's scene is up
        rm -f "$d/exit" "$d/log"
        touch "$d/go"
        for i in $(seq 300); do grep -q "Greeter is running" "$d/log" 2>/dev/null && break; sleep 0.05; done
        grep -q "Greeter is running" "$d/log" 2>/dev/null ||
            { echo "the greeter did not start: $(tail -5 "$d/log" 2>/dev/null | tr '\n' ' ')"; exit 1; }
        echo started ;;
    mouse)  # mouse X Y: the person moves the mouse
        as_user xdotool mousemove "$1" "$2" ;;
    type)   # type TEXT: typed into the field, then Return
        as_user xdotool type --delay 40 -- "$1"
        as_user xdotool key Return ;;
    unlock) # unlock TEXT: typed, Return; waits for the greeter's exit: "exit N after MS ms"
        as_user xdotool type --delay 40 -- "$1"
        as_user xdotool key Return
        typed=$(now)
        for i in $(seq 500); do running || break; sleep 0.02; done
        if running; then echo "still locked 10 s after Return"
        else read -r status at < "$d/exit"; echo "exit $status after $(( (at - typed) / 1000000 )) ms"; fi ;;
    xstate) echo "Xvfb: $(pgrep -u "$user" -x Xvfb || echo gone); xdpyinfo: $(as_user xdpyinfo > /dev/null 2>&1 && echo ok || echo fails); greeter: $(pgrep -u "$user" -x kscreenlocker_g || echo gone); xvfb.log: $(tail -5 "$d/xvfb.log" | tr '\n' ' '); unit: $(systemctl is-active "pingate-xsession-$user"); journal: $(journalctl -b -q --no-pager -o cat -n 25 | tr '\n' '|')" ;;
    running) running && echo yes || echo "no: $(cat "$d/exit")" ;;
    kill)   pkill -KILL -u "$user" -x kscreenlocker_g
            for i in $(seq 100); do running || break; sleep 0.05; done ;;
    shot)   # shot FILE: the screen as xwd
        as_user xwd -root -silent -display "$display" > "$1" ;;
    stop)   # ends the session and the user manager, without SIGKILL to
            # their cgroups (see the note at the top)
        pkill -KILL -u "$user" -x kscreenlocker_g
        systemctl stop "pingate-xsession-$user.service"
        timeout 5 systemctl stop "user@$(id -u "$user").service"
        for i in $(seq 100); do [ -z "$(loginctl show-user "$user" -p Display --value 2>/dev/null)" ] && break; sleep 0.1; done ;;
esac
EOF
}

# x USER STEP ARGS...: one of pingate-x's steps.
x() {
    CT_TIMEOUT=30 ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-x "$@"
EOF
}

USER_NOW=alice
# log: the greeter's debug log, this run's.
log() { cat "$(ct_root)/run/user/$(uid "$USER_NOW")/pingate-kde6/log" 2>/dev/null; }
uid() { case "$1" in alice) echo 4601 ;; bob) echo 4602 ;; esac; }
# the kde conversation's lines, as the greeter logs them
kde_lines() { log | grep -F "[PAM worker kde]"; }

# setup: the package; alice with her password and PIN, bob with his password
# and a pattern; PinGate turned on with `pingate enable kde`. Then two
# loggers (add_loggers in booted_screen_lib.sh: the test module
# pam/build/pam_test_authtok.so): what PinGate's line hands on to the password modules, and what
# pam_unix refused, so that the test sees no PIN ever reached them.
setup() {
    install_deb trixie "$DEB"
    write_x_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" "$BOB_PATTERN" "$BOB_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh -u 4601 alice
useradd -m -s /bin/sh -u 4602 bob
printf 'alice:%s\nbob:%s\n' "$2" "$4" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
printf '%s\n%s\n' "$3" "$3" | pingate enroll bob --pattern --stdin > /dev/null
pingate enable kde > /dev/null
echo "kde: $(grep -E '^auth' /etc/pam.d/kde | tr -s ' \t' ' ' | tr '\n' ';')"
echo "doctor: $(pingate doctor 2>&1 | grep -F "KDE Plasma lock screen")"
EOF
)" || fail "setting up alice, bob and the stack failed: $out"
    echo "    $(tr '\n' ' ' <<< "$out")"
    assert_contains "$out" "kde: auth requisite pam_nologin.so;auth required pam_succeed_if.so user != root quiet_success;auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password announce;" \
        "the stack after pingate enable kde"
    assert_contains "$out" "doctor: ok      KDE Plasma lock screen: a PIN is offered (service kde)" \
        "pingate doctor after pingate enable kde"
    add_loggers kde
}

ANNOUNCE_PIN="Type your PIN, or your password"

# lock [TEXT]: the greeter started, the mouse moved (as someone coming back)
# until the kde conversation's first line is TEXT (the PIN's announcement).
lock() {
    local out text="${1:-$ANNOUNCE_PIN}" i
    out="$(x "$USER_NOW" greet)" || fail "starting the greeter: $out"
    for i in $(seq 40); do
        out="$(x "$USER_NOW" mouse $((500 + i % 2 * 40)) 400)" || fail "moving the mouse: $out; $(x "$USER_NOW" xstate)"
        wait_log "$text" 1 0.5 && { sleep 0.5; return 0; }
    done
    fail "no [$text] from the greeter: $(log | tail -8)"
}

# typed TEXT: typed into the field, then Return.
typed() {
    local out
    out="$(x "$USER_NOW" type "$1")" || fail "typing: $out; $(x "$USER_NOW" xstate)"
}

# next_conversation N: after a failure Breeze shows "Unlocking failed",
# keeps the field disabled 3 s (its graceLockTimer), clears it and starts
# the next conversation by itself, whose announcement is the Nth of this
# greeter's run.
next_conversation() {
    wait_log "$ANNOUNCE_PIN" "$1" 10 || fail "no conversation $1: $(log | tail -8); $(x "$USER_NOW" xstate)"
}

# unlock ANSWER WHAT KIND: typed, Return, and the greeter exits 0; the time
# from Return to its exit is recorded as KIND.
unlock() {
    local out ms
    out="$(x "$USER_NOW" unlock "$1")"
    assert_contains "$out" "exit 0 after " "the greeter after $2 (log: $(kde_lines | tail -5))"
    ms="$(sed -nE 's/^exit 0 after ([0-9]+) ms.*/\1/p' <<< "$out")"
    echo "      $2 -> the greeter exited 0, $ms ms after Return" >&2
    record "$3" "$ms"
}
still_locked() { assert_eq yes "$(x "$USER_NOW" running)" "the greeter still running ($1)"; }

# shot NAME: the lock screen's block (the middle of the screen) as REPORT_DIR/NAME.png.
shot() {
    x "$USER_NOW" shot /tmp/shot.xwd > /dev/null || fail "no screenshot: $(x "$USER_NOW" xstate)"
    xwd_png "$1" 440x300+292+240
}

test_debian_13_plasma_6_lock_screen_with_pingate_enable() {
    local out start
    start=$(date +%s%N)
    need_deb
    layer trixie kde6 "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    end_with 'cp "$(ct_root)/run/user/4601/pingate-kde6/log" "$REPORT_DIR/greeter.log" 2>/dev/null; x "$USER_NOW" xstate > "$REPORT_DIR/xstate.txt"; x alice stop > /dev/null; x bob stop > /dev/null'
    out="$(x alice start)" || fail "alice's seat session did not start: $out"
    echo "    $out"
    assert_contains "$out" "seat seat0, type x11, active yes" "alice's seat session"

    # 1. The PIN.
    lock
    sleep 2   # the clock, the avatar and the field fade in
    shot kde6-before
    unlock "$PIN" "the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    assert_contains "$(kde_lines)" "Echo-off prompt: PIN or password" "the kde conversation's question"

    # 2. A wrong PIN, then the PIN.
    lock
    typed "${WRONG_PINS[0]}"
    wait_log "result code: 7" 1 || fail "no result after a wrong PIN: $(kde_lines | tail -5)"
    sleep 1.5
    shot kde6-wrong-pin
    assert_contains "$(kde_lines)" "Info message: Wrong PIN — 4 attempts left" "what the greeter shows after a wrong PIN"
    still_locked "after a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    # The greeter starts the next conversation by itself: the notice of the
    # wrong PIN, then the announcement again.
    next_conversation 2
    sleep 0.5
    unlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_contains "$(kde_lines)" "1 failed PIN attempt since your last PIN sign-in, at " "the second conversation's notice"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 3. Two wrong PINs, then the PIN.
    lock
    typed "${WRONG_PINS[1]}"
    wait_log "result code: 7" 1 || fail "no result after a wrong PIN: $(kde_lines | tail -5)"
    next_conversation 2
    sleep 0.5
    typed "${WRONG_PINS[2]}"
    wait_log "result code: 7" 2 || fail "no result after a second wrong PIN: $(kde_lines | tail -5)"
    assert_contains "$(kde_lines)" "Info message: Wrong PIN — 3 attempts left" "what the greeter shows after a second wrong PIN"
    still_locked "after two wrong PINs"
    assert_eq 2 "$(count alice)" "alice's failures after two wrong PINs"
    next_conversation 3
    sleep 0.5
    unlock "$PIN" "two wrong PINs, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    never_followed "$PIN" "${WRONG_PINS[@]:0:3}"
    assert_eq "" "$(handed_on)$(refused_by_unix)" "what reached the password modules in cases 1-3"

    # 4. The password: handed on by PinGate's question, taken by pam_unix.
    lock
    unlock "$ALICE_PASSWORD" "the password" password
    assert_eq 0 "$(count alice)" "alice's failures after the password"
    assert_eq "$ALICE_PASSWORD" "$(handed_on)" "what PinGate handed on"
    assert_eq "" "$(refused_by_unix)" "what pam_unix refused"

    # 5. The PIN locked: five different wrong PINs.
    lock_the_pin alice
    lock "after 5 failed attempts — use your password"
    sleep 1
    shot kde6-pin-locked
    assert_contains "$(kde_lines)" "Info message: PIN locked for " "the greeter's line while the PIN is locked"
    assert_not_contains "$(kde_lines)" "$ANNOUNCE_PIN" "the greeter's lines while the PIN is locked"
    unlock "$ALICE_PASSWORD" "the password while the PIN is locked" password
    never_followed "$PIN" "${WRONG_PINS[@]}"
    cp "$(ct_root)/run/user/4601/pingate-kde6/log" "$REPORT_DIR/greeter.log"

    # 6. bob, who has a pattern: his password unlocks. Alice's session ends
    # first, so that his is the seat's active one.
    x alice stop > /dev/null
    out="$(x bob start)" || fail "bob's seat session did not start: $out"
    assert_contains "$out" "seat seat0, type x11, active yes" "bob's seat session"
    USER_NOW=bob
    lock "Type your pattern, or your password"
    sleep 1
    shot kde6-pattern
    unlock "$BOB_PASSWORD" "bob's password (he has a pattern)" password
    assert_eq 0 "$(count bob)" "bob's failures after his password"

    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

run_screen_tests "Return to the greeter's exit" pin password
