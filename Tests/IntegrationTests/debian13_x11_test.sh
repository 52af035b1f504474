#!/bin/bash
# debian13_x11_test.sh — two X11 lock screens with a PIN on a booted Debian 13
# (trixie), as a person meets them (issue 31): PinGate's own pingate-lock
# (the pingate-lock package, PIN pad and drawn pattern) and MATE's
# mate-screensaver 1.26.2 from Debian's archive. The same way as
# xfce_test.sh (Xfce's xfce4-screensaver on Debian 13), which says more.
#
# How (container_lib.sh, booted_lib.sh):
#   * Layer: mate-screensaver, Xvfb, xdotool, xwd (x11-apps), xdpyinfo
#     (x11-utils) and a font, installed once over the cached Debian 13 tree
#     (`container_layer trixie x11mate …`); pingate-lock's libraries (cairo,
#     pango, libX11, libXrandr) come with mate-screensaver's GTK.
#   * Packages: pingate and pingate-lock, both built from the tree by
#     packaging/build-deb.sh --no-build, put in with `apt-get install
#     ./pingate_….deb ./pingate-lock_….deb` (no network inside).
#   * Session: alice's seat session, made by logind from systemd-run with
#     PAMName=login and XDG_SEAT=seat0 (what a display manager starts). It
#     runs Xvfb (1024x768) and then either
#       - mate-screensaver --no-daemon --debug on her session bus, whose
#         dialog runs PAM (service mate-screensaver) in her session, or
#       - pingate-lock, each time the test asks for it (a file "go"), with
#         PINGATE_LOCK_DEBUG=1: its trace says when the lock is up, what it
#         shows and where the pad's keys and the pattern's dots are. Its exit
#         status and the time it exited are written down when it ends.
#   * Typing and dragging: xdotool inside, as alice, on her display.
#   * Seeing: xwd reads the screen back; the host turns it into PNG, kept in
#     $PINGATE_DEBIAN13_X11_REPORT (/tmp/pingate-debian13-x11); with
#     PINGATE_UPDATE_DOCS=1 docs/screenshots/debian13-pin-pad.png is made from them.
#   * Logs: in /var/tmp/pingate-x inside (not her runtime dir, which logind
#     removes if the session ends: once, in about fifteen runs, MATE's bus
#     was gone after an unlock and its log went with it). Xvfb runs with
#     -noreset (pingate-lock is often its only client).
#   * Times: from just before xdotool sends the last key (the last digit,
#     the pattern's button release or Return) to the moment the lock was gone
#     (pingate-lock: its exit; MATE: the first --query saying "inactive",
#     asked every 20 ms); medians at the end.
#
# Run as root: bash Tests/IntegrationTests/debian13_x11_test.sh
# (TEST_FILTER=word to pick one; PINGATE_BOOTED_DEB=path: test that pingate
# package instead of building one, with PINGATE_BOOTED_LOCK_DEB for pingate-lock.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" debian13-x11
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

# alice's pattern (re-enrolled) on the 3×3 grid, dots numbered 1-9 by rows.
PATTERN=1-5-9-6-3
LAYER_PACKAGES=(mate-screensaver xvfb xdotool x11-apps x11-utils fonts-dejavu-core)

if [ -n "${PINGATE_BOOTED_LOCK_DEB:-}" ]; then cp "$PINGATE_BOOTED_LOCK_DEB" "$WORK/dist/"; fi
LOCK_DEB="$(ls "$WORK"/dist/pingate-lock_*.deb 2>/dev/null | head -1)"

# write_x_programs: the session alice's seat runs, and pingate-x, the steps
# the test takes inside as root. No #! line: they are the container's
# programs, run by its sh.
write_x_programs() {
    local root
    root="$(ct_root)"
    cat > "$root/usr/local/bin/pingate-xsession" <<'EOF'
# (in /var/tmp, not her runtime dir: logind removes that when her session ends,
# and a screensaver that dies ends the session; its log should stay)
d=/var/tmp/pingate-x
# -noreset: pingate-lock is often its only client, and a server reset between two locks is no screen a person has
Xvfb :1 -screen 0 1024x768x24 -nolisten tcp -noreset +extension RANDR > "$d/xvfb.log" 2>&1 &
for i in $(seq 100); do xdpyinfo -display :1 > /dev/null 2>&1 && break; sleep 0.1; done
export DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
case "$1" in
    mate) mate-screensaver --no-daemon --debug > "$d/log" 2>&1
          echo "mate-screensaver exited with status $? at $(date +%T.%N)" > "$d/ended" ;;
    lock) # pingate-lock, in this session, each time the test asks
        touch "$d/up"
        while :; do
            while [ ! -e "$d/go" ]; do sleep 0.02; done
            rm -f "$d/go"
            PINGATE_LOCK_DEBUG=1 pingate-lock 2> "$d/lock.log"
            echo "$? $(date +%s%N)" > "$d/rc.tmp"
            mv "$d/rc.tmp" "$d/rc"
        done ;;
esac
EOF
    cat > "$root/usr/local/bin/pingate-x" <<'EOF'
set -u
run="/run/user/$(id -u alice)"
d=/var/tmp/pingate-x
as_alice() { runuser -u alice -- env XDG_RUNTIME_DIR="$run" DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" "$@"; }
query() { as_alice mate-screensaver-command --query 2>&1; }
locked() { query | grep -q "is active"; }
# unlocked: the daemon says so (a --query that fails says neither)
unlocked() { query | grep -q "is inactive"; }
now() { date +%s%N; }
# where NAME: "X Y" of a pad key or pattern dot, from pingate-lock's last geometry trace.
where() { grep -oE "(ready|mode|relayout):.*" "$d/lock.log" | tail -n 1 | grep -oE "\b$1=[0-9]+,[0-9]+" | cut -d= -f2 | tr , ' '; }
session_info() {
    session="$(loginctl show-user alice -p Display --value)"
    echo "session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
         "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value)"
}
case "$1" in
    start)  # start MODE: alice's seat session running Xvfb and MODE (mate, lock)
        env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user"
        systemd-run --quiet --unit=pingate-xsession -p PAMName=login -p User=alice -p "$env" \
            sh /usr/local/bin/pingate-xsession "$2" < /dev/null
        if [ "$2" = mate ]; then
            for i in $(seq 150); do query | grep -q "is inactive" && break; sleep 0.1; done
            query | grep -q "is inactive" ||
                { echo "mate-screensaver did not start: $(query) $(tail -5 "$d/log" 2>/dev/null | tr '\n' ' ')"; exit 1; }
            echo "$(session_info), $(dpkg-query -W -f='${Package} ${Version}' mate-screensaver)"
        else
            for i in $(seq 200); do [ -e "$d/up" ] && as_alice xdpyinfo > /dev/null 2>&1 && break; sleep 0.1; done
            [ -e "$d/up" ] && as_alice xdpyinfo > /dev/null 2>&1 ||
                { echo "Xvfb did not start: $(cat "$d/xvfb.log" 2>/dev/null | tr '\n' ' ')"; exit 1; }
            echo "$(session_info), $(dpkg-query -W -f='${Package} ${Version}' pingate-lock)"
        fi ;;
    # --- pingate-lock
    lock)   # pingate-lock started; waits for its UI: prints its ready line
        rm -f "$d/rc" "$d/lock.log"
        touch "$d/go"
        for i in $(seq 400); do grep -q "ready:" "$d/lock.log" 2>/dev/null && break; sleep 0.05; done
        grep -q "ready:" "$d/lock.log" 2>/dev/null || {
            echo "no lock screen in 20 s: [$(tail -5 "$d/lock.log" 2>/dev/null | tr '\n' ' ')]; go $(ls "$d/go" 2>&1);" \
                 "alice's processes: $(ps -u alice -o pid=,stat=,args= | tr '\n' ';'); Xvfb: $(tail -3 "$d/xvfb.log" | tr '\n' ' ')"
            exit 1; }
        sleep 0.3
        grep -oE "ready: mode=[a-z]+" "$d/lock.log" | tail -n 1 ;;
    keys)   # keys KEY...: pressed one after another; "typed" is the time just before the last
        shift
        while [ $# -gt 1 ]; do as_alice xdotool key "$1"; sleep 0.04; shift; done
        now > "$d/typed"
        as_alice xdotool key "$1" ;;
    text)   # text TEXT: typed
        as_alice xdotool type --delay 30 -- "$2" ;;
    said)   # said TEXT: waits (10 s) until the trace has TEXT
        for i in $(seq 200); do grep -qF -- "$2" "$d/lock.log" && break; sleep 0.05; done
        grep -qF -- "$2" "$d/lock.log" && echo yes ;;
    exited) # waits (15 s) for pingate-lock to end: "status N after MS ms" (from the last key)
        for i in $(seq 750); do [ -e "$d/rc" ] && break; sleep 0.02; done
        [ -e "$d/rc" ] || { echo "still locked 15 s after the last key"; exit 0; }
        read -r rc at < "$d/rc"
        echo "status $rc after $(( (at - $(cat "$d/typed")) / 1000000 )) ms" ;;
    running) [ -e "$d/rc" ] && echo ended || echo running ;;
    drag)   # drag DOT...: pressed on the first, moved through the others in small steps (held)
        shift
        set -- $(echo "$@")
        xy="$(where "cell$1")"; x="${xy% *}"; y="${xy#* }"; shift
        as_alice xdotool mousemove "$x" "$y" mousedown 1
        for cell in "$@"; do
            xy="$(where "cell$cell")"; tx="${xy% *}"; ty="${xy#* }"
            for s in 1 2 3 4; do
                as_alice xdotool mousemove $((x + (tx - x) * s / 4)) $((y + (ty - y) * s / 4))
            done
            x=$tx; y=$ty
        done ;;
    move)   as_alice xdotool mousemove "$2" "$3" ;;
    release) # release DOT: the pointer to DOT, the button let go
        xy="$(where "cell$2")"
        as_alice xdotool mousemove "${xy% *}" "${xy#* }"
        now > "$d/typed"
        as_alice xdotool mouseup 1 ;;
    # --- mate-screensaver
    mlock)  # --lock, then a click: prints the trace's line count before, once the dialog asks
        mark=$(wc -l < "$d/log")
        as_alice mate-screensaver-command --lock
        for i in $(seq 100); do locked && break; sleep 0.1; done
        locked || { echo "not locked: $(query)"; exit 1; }
        as_alice xdotool mousemove 100 100 click 1
        for i in $(seq 200); do tail -n +$((mark + 1)) "$d/log" | grep -q "Setting prompt to:" && break; sleep 0.05; done
        tail -n +$((mark + 1)) "$d/log" | grep -q "Setting prompt to:" ||
            { echo "no question after a click: $(tail -5 "$d/log" | tr '\n' ' ')"; exit 1; }
        sleep 0.3
        echo "$mark" ;;
    type)   # type TEXT: typed into the dialog, then Return
        as_alice xdotool type --delay 40 -- "$2"
        as_alice xdotool key Return ;;
    unlock) # unlock TEXT: typed, Return; waits for "inactive": "unlocked in MS ms"
        as_alice xdotool type --delay 40 -- "$2"
        as_alice xdotool key Return
        typed=$(now)
        for i in $(seq 400); do unlocked && break; sleep 0.02; done
        if ! unlocked; then echo "still locked 8 s after Return: $(query)"
        else echo "unlocked in $(( ($(now) - typed) / 1000000 )) ms"; fi ;;
    asked)  # asked MARK N: waits until the dialog asked its Nth question since MARK (10 s)
        for i in $(seq 200); do
            [ "$(tail -n +$(($2 + 1)) "$d/log" | grep -c "Setting prompt to:")" -ge "$3" ] && break; sleep 0.05
        done
        [ "$(tail -n +$(($2 + 1)) "$d/log" | grep -c "Setting prompt to:")" -ge "$3" ] && sleep 0.3 && echo yes ;;
    query)  query ;;
    # --- both
    shot)   as_alice xwd -root -silent -display :1 > "$2" ;;
    stop)
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

# setup ENABLE: both packages, alice with her password and PIN;
# ENABLE (a service) turned on with `pingate enable`, if given.
setup() {
    [ -f "$LOCK_DEB" ] || fail "no pingate-lock package from build-deb.sh: $(cat "$WORK/build.out")"
    cp "$LOCK_DEB" "$(ct_root)/tmp/"
    install_deb trixie "$DEB" "$WORK/apt-trixie.log" "./$(basename "$LOCK_DEB")"
    write_x_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" "${1:-}" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
install -d -o alice -g alice /var/tmp/pingate-x
if [ -n "$3" ]; then
    pingate enable "$3" > /dev/null
    echo "$3: $(grep -v -e '^#' -e '^$' "/etc/pam.d/$3" | tr -s ' \t' ' ' | tr '\n' ';')"
fi
echo "installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}\n' pingate pingate-lock | tr '\n' ' ')"
EOF
)" || fail "setting up alice failed: $out"
    echo "    $(tr '\n' ' ' <<< "$out")"
    assert_contains "$out" "pingate 0.3.0 install ok installed pingate-lock 0.3.0 install ok installed" "the packages"
}

# shot NAME [CROP]: the screen as REPORT_DIR/NAME.png (the whole screen, half
# size, or CROP), and NAME-full.png.
shot() {
    local out
    out="$(x shot /tmp/shot.xwd)" || fail "no screenshot: $out; Xvfb: $(tail -3 "$(ct_root)/var/tmp/pingate-x/xvfb.log" | tr '\n' ' ')"
    xwd_png "$1" "${2:-}"
}

# --- pingate-lock ----------------------------------------------------------------

# LOCK_LOG: pingate-lock's trace, as the host reads it.
lock_log() { cat "$(ct_root)/var/tmp/pingate-x/lock.log"; }

# lock_up MODE: pingate-lock started and showing MODE (pin, pattern, password).
lock_up() {
    local out
    out="$(x lock)" || fail "pingate-lock did not come up: $out"
    assert_eq "ready: mode=$1" "$out" "pingate-lock's first screen"
}
# unlocked WHAT KIND: pingate-lock ended with status 0; the time is recorded.
unlocked() {
    local out ms
    out="$(x exited)"
    assert_contains "$out" "status 0 after " "pingate-lock after $1 (trace: $(lock_log | grep -E 'message:|PAM answered' | tail -3 | tr '\n' ' '))"
    ms="$(sed -nE 's/^status 0 after ([0-9]+) ms.*/\1/p' <<< "$out")"
    echo "      $1 -> unlocked (pingate-lock exited 0) $ms ms after the last key ($(lock_log | grep -o 'PAM answered in [0-9]* ms' | tail -1))" >&2
    record "$2" "$ms"
    LOCK_RUNS=$((LOCK_RUNS + 1))
    lock_log > "$REPORT_DIR/pingate-lock-$LOCK_RUNS.log"
    echo "        it said: $(lock_log | grep -E 'message:' | sed 's/.*message: //' | tr '\n' '|')" >&2
}
LOCK_RUNS=0
# xdo STEP ARGS...: a pingate-x step that types or drags; fails with what it printed.
xdo() { local out; out="$(x "$@")" || fail "pingate-x $*: $out (trace: $(lock_log | tail -4 | tr '\n' ' '))"; }
said() { [ "$(x said "$1")" = yes ] || fail "pingate-lock did not say [$1]: $(lock_log | grep 'message:' | tail -3 | tr '\n' ' ')"; }
running() { assert_eq running "$(x running)" "pingate-lock ($1)"; }

# Every case, in one session of alice's:
#   1. the PIN typed on the pad (no Enter: the last digit unlocks), three times;
#   2. a wrong PIN: "Wrong PIN — 4 attempts left", still locked, counted; the
#      PIN then unlocks;
#   3. Tab to the password field, the password and Return unlock;
#   4. alice re-enrolled with a pattern: the screen shows the dots; the
#      pattern dragged with the mouse (pressed, moved, released) unlocks.
test_debian_13_pingate_lock_pin_password_and_pattern() {
    local out start i digits
    start=$(date +%s%N)
    need_deb
    layer trixie x11mate "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    out="$(x start lock)" || fail "Xvfb did not start in alice's seat session: $out"
    echo "    $out"
    assert_contains "$out" "seat seat0, type x11, active yes" "alice's session"
    end_with 'lock_log > "$REPORT_DIR/pingate-lock-last.log" 2>/dev/null; x stop > /dev/null'
    # shellcheck disable=SC2046
    digits="$(sed 's/./& /g' <<< "$PIN")"

    # 1. The PIN on the pad.
    for i in 1 2 3; do
        lock_up pin
        if [ "$i" = 1 ]; then
            # shellcheck disable=SC2086
            xdo keys ${digits% * }   # all but the last digit
            sleep 0.3
            shot debian13-pin-pad
            xdo keys "${PIN: -1}"
        else
            # shellcheck disable=SC2086
            xdo keys $digits
        fi
        unlocked "the PIN (try $i)" pin
    done
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 2. A wrong PIN, then the PIN.
    lock_up pin
    # shellcheck disable=SC2046
    xdo keys $(sed 's/./& /g' <<< "${WRONG_PINS[0]}")
    said "message: Wrong PIN — 4 attempts left"
    shot debian13-pin-wrong
    running "after a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    sleep 0.7
    # shellcheck disable=SC2086
    xdo keys $digits
    unlocked "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    # The entry is a PAM conversation of its own, which tells of the wrong
    # PIN before its question; the screen shows that for 3 s, then opens.
    assert_contains "$(lock_log)" "message: 1 failed PIN attempt since your last PIN sign-in, at " \
        "what pingate-lock showed before opening"

    # 3. Tab, the password.
    lock_up pin
    xdo keys Tab
    said "mode: password"
    xdo text "$ALICE_PASSWORD"
    sleep 0.3
    shot debian13-password
    xdo keys Return
    unlocked "Tab, the password, Return" password
    assert_eq 0 "$(count alice)" "alice's failures after the password"

    # 4. The pattern.
    out="$(CT_TIMEOUT=30 ct_sh "$PATTERN" 2>&1 <<'EOF'
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pattern --stdin --force --allow-weak && echo enrolled
EOF
)"
    assert_contains "$out" "enrolled" "pingate enroll alice --pattern"
    lock_up pattern
    local dots
    dots="${PATTERN//-/ }"
    # shellcheck disable=SC2086
    xdo drag ${dots% *}         # held, on the fourth dot
    xdo move 1000 700           # the line follows the pointer
    sleep 0.3
    shot debian13-pattern-mid-drag
    running "while the pattern is drawn"
    xdo release "${PATTERN##*-}"
    # Nothing shows between the release and the unlock: the module's text
    # legend of the grid is for clients that show text only, and the lock
    # screen drops it (it once showed it for 3 s, taken for a notice).
    unlocked "the pattern dragged with the mouse" pattern
    local pattern_ms; pattern_ms="$(sed -n 's/^pattern //p' "$UNLOCK_TIMES" | tail -1)"
    [ -n "$pattern_ms" ] && [ "$pattern_ms" -lt 1500 ] || fail "the pattern unlocked ${pattern_ms:-?} ms after the release, not at once"
    assert_eq 0 "$(count alice)" "alice's failures after the pattern"

    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

# --- mate-screensaver -------------------------------------------------------------

# The dialog's trace inside (trace, in booted_screen_lib.sh, reads it since the lock).
# shellcheck disable=SC2034  # read by booted_screen_lib.sh (trace)
DIALOG_LOG=/var/tmp/pingate-x/log
questions() { trace | grep -F "Setting prompt to: " | sed "s/.*Setting prompt to: //"; }
# messages: PAM's error and info lines (styles 3 and 4) the dialog showed.
messages() { trace | grep -F "Got message style" | grep -v "style [12]:" | sed "s/.*Got message style [0-9]: //"; }
mlock() { dialog_lock mlock; }
munlock() { dialog_unlock "$1" "$2" "mate-$3"; }

# Every case, in one session:
#   1. the PIN unlocks;
#   2. a wrong PIN: "Wrong PIN — 4 attempts left", the question again,
#      counted; the PIN unlocks there;
#   3. two wrong PINs: the try fails, the next one's question takes the PIN;
#   4. the password unlocks, not counted;
#   5. the PIN locked by five wrong PINs (pingate verify): the password unlocks.
test_debian_13_mate_screensaver_with_pingate_enable() {
    local out start
    start=$(date +%s%N)
    need_deb
    layer trixie x11mate "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup mate-screensaver
    out="$(x start mate)" || fail "mate-screensaver did not start in alice's seat session: $out"
    echo "    $out"
    assert_contains "$out" "seat seat0, type x11, active yes, mate-screensaver 1.26.2" "alice's session running mate-screensaver"
    end_with 'cp "$(ct_root)/var/tmp/pingate-x/log" "$REPORT_DIR/mate-screensaver.log"; x stop > /dev/null'

    # 1. The PIN.
    mlock
    assert_eq "PIN or password" "$(questions)" "the dialog's label"
    shot debian13-mate-before 560x380+232+194
    munlock "$PIN" "the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 2. A wrong PIN, then the PIN.
    mlock
    x type "${WRONG_PINS[0]}" > /dev/null
    asked 2
    assert_eq "'Wrong PIN — 4 attempts left'" "$(messages)" "the dialog's message after a wrong PIN"
    assert_eq "PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the dialog's labels"
    shot debian13-mate-wrong-pin 560x380+232+194
    still_locked "after a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    munlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 3. Two wrong PINs, then the PIN.
    mlock
    x type "${WRONG_PINS[1]}" > /dev/null
    asked 2
    x type "${WRONG_PINS[2]}" > /dev/null
    asked 3
    assert_contains "$(trace)" "Verify user returned error: Authentication failed." "the trace after two wrong PINs"
    still_locked "after two wrong PINs"
    assert_eq 2 "$(count alice)" "alice's failures after two wrong PINs"
    echo "      the dialog's lines after two wrong PINs: $(messages | tr '\n' '|')" >&2
    assert_contains "$(messages | tr '\n' '|')" "'Wrong PIN — 4 attempts left'|'Wrong PIN — 3 attempts left'|" \
        "the dialog's messages after two wrong PINs"
    shot debian13-mate-two-wrong-pins 560x380+232+194
    munlock "$PIN" "two wrong PINs, then the PIN" pin
    # The next try told of the failed attempts first: case 2's wrong PIN,
    # which the PIN after it did not spend (whoever answered may not have
    # typed it), and these two.
    assert_contains "$(messages)" "'3 failed PIN attempts since your last PIN sign-in, the first at " \
        "the next try's first line after two wrong PINs"
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the dialog's labels"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 4. The password.
    mlock
    munlock "$ALICE_PASSWORD" "the password" password
    assert_eq 0 "$(count alice)" "alice's failures after the password"

    # 5. The PIN locked: five different wrong PINs.
    lock_the_pin alice
    mlock
    shot debian13-mate-pin-locked 560x380+232+194
    echo "      while the PIN is locked: labels $(questions | tr '\n' '|'), lines $(messages | tr '\n' '|')" >&2
    assert_eq "Password:" "$(questions)" "the dialog's label while the PIN is locked (pam_unix's)"
    assert_contains "$(messages)" "'PIN locked for " "the dialog's message while the PIN is locked"
    assert_contains "$(messages)" " after 5 failed attempts — use your password'" "the dialog's message while the PIN is locked"
    munlock "$ALICE_PASSWORD" "the password while the PIN is locked" password

    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

# shellcheck disable=SC2034  # read by run_screen_tests
DOC_SCREENSHOTS=(debian13-pin-pad)
run_screen_tests "last key to unlocked" pin password pattern mate-pin mate-password
