#!/bin/bash
# wayland_lock_test.sh — pingate-lock on Wayland (issue 42) on a booted Debian
# 13 (trixie): sway 1.10, headless, as alice's seat session; pingate-lock run
# by Super+P as a person's key binding would (sway's `bindsym … exec`); the
# PIN typed on a virtual keyboard (wtype); the screen read back with grim.
#
# How: sway_test.sh's layer (SWAY_LAYER_PACKAGES, booted_screen_lib.sh: one
# cache entry for both) and its session: a systemd-run unit of alice's with
# PAMName=login and XDG_SEAT=seat0, WLR_BACKENDS=headless, WLR_RENDERER=pixman,
# one 800x600 output. The packages pingate and pingate-lock are built from
# the tree (build-deb.sh --no-build). The binding runs a script that starts
# `PINGATE_LOCK_DEBUG=1 pingate-lock`, records its pid and, when it ends, its
# exit status and the time. The trace's "key press t=…" and "unlocked by the
# UI t=…" stamps (one monotonic clock) give the time from the last digit to
# the unlock request.
#
# Cases: the PIN typed unlocks on its last digit; a wrong PIN is told ("Wrong
# PIN") and counted, then the PIN unlocks; the password (Tab, then typed,
# Return) unlocks; the locker killed (SIGKILL) while locked leaves the output
# locked — grim reads sway's colour for a lock whose client died, not the
# desktop — and nothing unlocks; then a second pingate-lock takes over the
# lock and the PIN unlocks (sway and labwc let a new client lock a session
# whose locker died).
#
# Also: the pad clicked and the pattern dragged with a virtual pointer
# (pam/tests/virtual_pointer.c); an output added while locked (sway's
# create_output), and one removed while locked (`output NAME unplug`: the
# added one, then the first); an output at scale 2 (the pad drawn twice as
# big in pixels, clicked) and at 1.5 (wp_fractional_scale_v1: the image at
# the output's own pixels, the pad 1.5 times as big); a password typed with a dead key; BackSpace held
# (key repeat); a second locker refused while one holds the lock (`finished`);
# the UI child's environment, with which no Wayland client connects;
# --daemonize; and the PIN at pingate-lock and at swaylock alternately in
# one session, timed alike (wtype's exit to the locker's).
#
# The same cases under labwc 0.8 (its rc.xml binds Super+P; its autostart
# runs swaybg for the same desktop colour).
#
# Run as root: bash Tests/IntegrationTests/wayland_lock_test.sh

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" wayland-lock
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

LOCK_DEB="$(ls "$WORK"/dist/pingate-lock_*.deb 2>/dev/null | head -1)"
# The README's (PINGATE_UPDATE_DOCS=1 copies them to docs/screenshots/).
DOC_SCREENSHOTS=(sway-pin-pad sway-wrong-pin sway-pattern-mid-drag)
# alice's pattern for the pointer's case, on the 3×3 grid, dots 1-9 by rows.
PATTERN=1-5-9-6-3
# The desktop's colour in the corner (swaybg, under both compositors), as
# start_session reads it.
DESKTOP=""

# write_programs: sway's settings, the script its binding runs, and
# pingate-wlock, the steps the test takes inside as root (each prints one
# line). No #! line: they are the container's programs, run by its sh.
write_programs() {
    local root
    root="$(ct_root)"
    mkdir -p "$root/etc/pingate-test/labwc"
    cat > "$root/etc/pingate-test/sway.conf" <<'EOF'
output * bg #1d4f73 solid_color
output HEADLESS-1 resolution 800x600
bindsym Mod4+p exec sh /usr/local/bin/pingate-wayland-lock
bindsym Mod4+l exec sh /usr/local/bin/pingate-swaylock
EOF
    cat > "$root/etc/pingate-test/labwc/rc.xml" <<'EOF'
<?xml version="1.0"?>
<labwc_config>
  <keyboard>
    <keybind key="W-p"><action name="Execute" command="sh /usr/local/bin/pingate-wayland-lock"/></keybind>
  </keyboard>
</labwc_config>
EOF
    # labwc draws no background of its own: the desktop's colour, as sway's.
    echo 'swaybg -c "#1d4f73" >/dev/null 2>&1 &' > "$root/etc/pingate-test/labwc/autostart"
    # Run by sway, as alice, in her session (WAYLAND_DISPLAY is sway's).
    cat > "$root/usr/local/bin/pingate-wayland-lock" <<'EOF'
d="$XDG_RUNTIME_DIR/pingate-lock"
mkdir -p "$d"
# The memory test's allocator, when it asks for it (keep_freed.c).
[ ! -s /etc/pingate-test/preload ] || export LD_PRELOAD="$(cat /etc/pingate-test/preload)"
# More environment, when a test asks for it (one VAR=VALUE a line).
[ ! -s /etc/pingate-test/env ] || export $(cat /etc/pingate-test/env)
PINGATE_LOCK_DEBUG=1 pingate-lock "$@" 2> "$d/log" &
echo $! > "$d/pid"
wait $!
echo "$? $(date +%s%N)" > "$d/done.tmp" && mv "$d/done.tmp" "$d/done"
EOF
    # A second pingate-lock, with a log and an exit status of its own.
    cat > "$root/usr/local/bin/pingate-second-lock" <<'EOF'
PINGATE_LOCK_DEBUG=1 pingate-lock 2> "$XDG_RUNTIME_DIR/second.log"
echo $? > "$XDG_RUNTIME_DIR/second.tmp" && mv "$XDG_RUNTIME_DIR/second.tmp" "$XDG_RUNTIME_DIR/second.done"
EOF
    # swaylock, for its times next to ours (sway_test.sh's way: -R says locked).
    cat > "$root/usr/local/bin/pingate-swaylock" <<'EOF'
d="$XDG_RUNTIME_DIR/pingate-lock"
mkdir -p "$d"
swaylock --color 7a1f5c -R 3 3> "$d/ready" 2> "$d/log"
echo "$? $(date +%s%N)" > "$d/done.tmp" && mv "$d/done.tmp" "$d/done"
EOF
    cat > "$root/usr/local/bin/pingate-wlock" <<'EOF'
set -u
. /usr/local/lib/pingate-wayland-session.sh
d="$run/pingate-lock"
said() { for i in $(seq 200); do grep -qF -- "$1" "$d/log" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# where NAME: "X Y" of a pad key or pattern dot, from the UI's last geometry trace
# (one output at the layout's origin: the image's positions are the layout's).
where() { grep -oE "(ready|mode|relayout):.*" "$d/log" | tail -n 1 | grep -oE "\b$1=[0-9]+,[0-9]+" | cut -d= -f2 | tr , ' '; }
size() { as_alice grim -t ppm - | sed -n 2p; }
# sway's outputs (-p: swaymsg writes JSON, not these lines, when not on a
# terminal): their names, one a line; the colour 10 px inside output NAME's
# corner, or "unknown" when sway has no output NAME.
outputs() { as_alice env SWAYSOCK="$(ls "$run"/sway-ipc.*.sock | head -1)" swaymsg -p -t get_outputs; }
output_names() { outputs | sed -n 's/^Output \([^ ]*\) .*/\1/p'; }
corner_of() {
    at="$(outputs | sed -n "/^Output $1 /,/^\$/s/.*Position: \([0-9]*\),\([0-9]*\).*/\1 \2/p")"
    if [ -n "$at" ]; then pixel $((${at% *} + 10)) $((${at#* } + 10)); else echo unknown; fi
}
case "$1" in
    start)  # start sway|labwc: alice's seat session running the compositor
        compositor="$2"
        start_compositor "$compositor"
        # The desktop drawn (swaybg): the corner not black, and steady.
        for i in $(seq 50); do c="$(corner)"; sleep 0.2; [ "$c" != 000000 ] && [ "$c" = "$(corner)" ] && break; done
        echo "$(session_facts) corner $(corner), $(dpkg-query -W -f='${Package} ${Version}\n' "$compositor" pingate-lock | tr '\n' ' ')" ;;
    lock)   # Super+P; waits for the compositor's "locked" and the UI's first frame
        rm -rf "$d"
        as_alice wtype -M logo p -m logo
        said "ready:" && said "locked:" || { echo "not locked: $(tr '\n' ' ' < "$d/log" 2>/dev/null)"; exit 1; }
        sleep 0.3
        echo "$(grep -oE 'ready: mode=[a-z]+' "$d/log" | tail -1), locked, corner $(corner)" ;;
    rescaled) # at a fractional scale sway sends the preferred scale after the
            # first frame, and the UI is started again for it: waits (10 s) for
            # a "ready:" after the last "preferred scale" line
        for i in $(seq 200); do
            awk '/preferred scale/ { p = NR } /ready:/ { r = NR } END { exit !(p && r > p) }' "$d/log" && break
            sleep 0.05
        done
        sleep 0.3
        echo "preferred scale lines: $(grep -c 'preferred scale' "$d/log")" ;;
    keys)   # keys WTYPE-ARGS...: one wtype, after Escape and a pause (a new
            # virtual keyboard's keymap must reach the client first)
        shift
        as_alice wtype -k Escape -s 300 "$@"
        date +%s%N > "$d/typed" ;;
    more)   # more WTYPE-ARGS...: one wtype that goes on with what is typed (no Escape)
        shift
        as_alice wtype -s 300 "$@"
        date +%s%N > "$d/typed" ;;
    swaylock) # Super+L: swaylock, which says when it has locked (-R)
        rm -rf "$d"
        as_alice wtype -M logo l -m logo
        for i in $(seq 100); do [ -s "$d/ready" ] && break; sleep 0.05; done
        [ -s "$d/ready" ] && echo "swaylock locked" || echo "swaylock did not lock: $(tr '\n' ' ' < "$d/log" 2>/dev/null)" ;;
    said)   said "$2" && echo yes ;;
    exited) # waits (10 s) for the locker's end: "status N, last key to unlock MS ms, corner RGB"
        for i in $(seq 200); do [ -e "$d/done" ] && break; sleep 0.05; done
        [ -e "$d/done" ] || { echo "still locked 10 s later, corner $(corner)"; exit 0; }
        read -r status at < "$d/done"
        key=$(grep -oE '(key press|button release) t=[0-9.]+' "$d/log" | tail -1 | grep -oE '[0-9.]+$')
        unlock=$(grep -oE 'unlocked by the UI t=[0-9.]+' "$d/log" | tail -1 | grep -oE '[0-9.]+$')
        ms=$(awk -v a="$key" -v b="$unlock" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.0f", b - a }')
        sleep 0.2
        # (wtype's end: keys only; the virtual pointer lingers after its last event)
        typed=-; [ -e "$d/typed" ] && typed=$(( (at - $(cat "$d/typed")) / 1000000 ))
        echo "status $status, last key to unlock $ms ms, wtype's end to exit $typed ms, corner $(corner)" ;;
    kill)   # SIGKILL to the locker (and its UI): "killed, corner RGB, then RGB 2 s later"
        pid=$(cat "$d/pid")
        pkill -KILL -P "$pid"; kill -KILL "$pid"
        for i in $(seq 100); do [ -e "$d/done" ] && break; sleep 0.05; done
        first=$(corner); sleep 2
        echo "killed ($(cat "$d/done" 2>/dev/null | cut -d' ' -f1)), corner $first, then $(corner) 2 s later" ;;
    relock) # the binding's script again; neither compositor runs a person's
            # binding while locked: sway starts it (swaymsg exec), in alice's
            # session as before; under labwc her user manager does, as it
            # would run swayidle (a caller in her own manager is at the machine)
        rm -rf "$d"
        if ls "$run"/sway-ipc.*.sock > /dev/null 2>&1; then
            as_alice env SWAYSOCK="$(ls "$run"/sway-ipc.*.sock | head -1)" swaymsg -q exec sh /usr/local/bin/pingate-wayland-lock
        else
            as_alice systemd-run --user --quiet -E WAYLAND_DISPLAY="$(display)" sh /usr/local/bin/pingate-wayland-lock
        fi
        said "ready:" && said "locked:" || { echo "not locked: $(tr '\n' ' ' < "$d/log" 2>/dev/null)"; exit 1; }
        sleep 0.3
        echo "$(grep -oE 'ready: mode=[a-z]+' "$d/log" | tail -1), locked, corner $(corner)" ;;
    daemonize) # the binding's script with --daemonize, by swaymsg exec: waits
            # (10 s) for the command to return: "returned STATUS, locked: N, corner RGB"
        rm -rf "$d"
        as_alice env SWAYSOCK="$(ls "$run"/sway-ipc.*.sock | head -1)" swaymsg -q exec "sh /usr/local/bin/pingate-wayland-lock --daemonize"
        for i in $(seq 200); do [ -e "$d/done" ] && break; sleep 0.05; done
        [ -e "$d/done" ] || { echo "did not return in 10 s: $(tr '\n' ' ' < "$d/log")"; exit 0; }
        sleep 0.3
        echo "returned $(cut -d' ' -f1 "$d/done"), locked: $(grep -c 'locked: the compositor' "$d/log"), corner $(corner)" ;;
    opened) # waits (10 s) for the daemon's unlock: "unlocked: N, corner RGB"
        for i in $(seq 200); do grep -q 'unlocked by the UI' "$d/log" && break; sleep 0.05; done
        sleep 0.2
        echo "unlocked: $(grep -c 'unlocked by the UI' "$d/log"), corner $(corner)" ;;
    addoutput) # sway makes a second headless output while locked: waits for the
            # locker's new geometry and UI: "geometry G, ready, second corner RGB"
        sock="$(ls "$run"/sway-ipc.*.sock | head -1)"
        before="$(output_names)"
        as_alice env SWAYSOCK="$sock" swaymsg -q create_output
        for i in $(seq 200); do [ "$(grep -c 'ready:' "$d/log")" -ge 2 ] && break; sleep 0.05; done
        sleep 0.5
        new="$(output_names | grep -vxF "$before" | head -1)"
        echo "$(grep -oE 'geometry: [0-9,;]+' "$d/log" | tail -1), $(grep -c 'ready:' "$d/log") ready," \
             "second corner $([ -n "$new" ] && corner_of "$new" || echo "unknown (no new output: $before)")"
        [ "$(grep -c 'ready:' "$d/log")" -ge 2 ] || echo "its trace ends: $(grep -v offer "$d/log" | tail -8 | tr '\n' '|')" ;;
    rmoutput) # rmoutput NAME: sway unplugs output NAME while locked (`output
            # NAME unplug`: wlroots destroys it, as when a monitor's cable is
            # pulled); waits for the locker's next UI: "unplug NAME: status S
            # (REPLY), locker running|gone, removed: TRACE, geometry: G, N
            # ready, left OUTPUT..., first corner RGB" (of the first left)
        sock="$(ls "$run"/sway-ipc.*.sock | head -1)"
        before="$(grep -c 'ready:' "$d/log")"
        said="$(as_alice env SWAYSOCK="$sock" swaymsg output "$2" unplug 2>&1)"; status=$?
        for i in $(seq 200); do [ "$(grep -c 'ready:' "$d/log")" -gt "$before" ] && break; sleep 0.05; done
        sleep 0.5
        left="$(output_names | tr '\n' ' ')"
        running=gone; kill -0 "$(cat "$d/pid")" 2>/dev/null && [ ! -e "$d/done" ] && running=running
        echo "unplug $2: status $status ($(echo "$said" | tr -d ' \n')), locker $running," \
             "removed: $(grep -oE 'output [0-9]+ removed' "$d/log" | paste -sd ' ' -), $(grep -oE 'geometry: [0-9,;]+' "$d/log" | tail -1)," \
             "$(grep -c 'ready:' "$d/log") ready, left ${left% }, first corner $(corner_of "${left%% *}")"
        [ "$(grep -c 'ready:' "$d/log")" -gt "$before" ] || echo "its trace ends: $(grep -v offer "$d/log" | tail -8 | tr '\n' '|')" ;;
    click)  # click DIGIT...: each pad key clicked with the virtual pointer
        shift
        steps=""
        for digit in "$@"; do steps="$steps move $(where "key$digit") press release"; done
        as_alice virtual_pointer $(size) $steps ;;
    drag)   # drag SHOT DOT...: pressed on the first dot, moved through the others
            # in small steps, held while grim takes SHOT, then released
        shot="$2"; shift 2
        xy="$(where "cell$1")"; x="${xy% *}"; y="${xy#* }"; shift
        steps="move $x $y press"
        for cell in "$@"; do
            xy="$(where "cell$cell")"; tx="${xy% *}"; ty="${xy#* }"
            for s in 1 2 3 4; do steps="$steps move $((x + (tx - x) * s / 4)) $((y + (ty - y) * s / 4))"; done
            x=$tx; y=$ty
        done
        as_alice virtual_pointer $(size) $steps wait 1500 release &
        sleep 1.2
        as_alice grim -t png "$run/shot.png" && mv "$run/shot.png" "$shot"
        wait ;;
    scale)  # scale N: HEADLESS-1 at 1600x1200 pixels and scale N (800x600 at 2)
        as_alice env SWAYSOCK="$(ls "$run"/sway-ipc.*.sock | head -1)" swaymsg -q output HEADLESS-1 resolution 1600x1200 scale "$2"
        sleep 0.3
        echo "screenshot $(size)" ;;
    spacing) # the pad's keys 1 and 3: "keys 1 to 3: DX pixels, geometry G"
        a="$(where key1)"; b="$(where key3)"
        echo "keys 1 to 3: $((${b% *} - ${a% *})) pixels, $(grep -oE 'geometry: [0-9,;]+' "$d/log" | tail -1)" ;;
    second) # a second pingate-lock while the first holds the lock (swaymsg
            # exec, its own log): waits (10 s) for its end: "second: status N, SAID"
        rm -f "$run/second.log" "$run/second.done"
        # (sway splits a command at ";": the steps are a script of their own.)
        as_alice env SWAYSOCK="$(ls "$run"/sway-ipc.*.sock | head -1)" swaymsg -q exec sh /usr/local/bin/pingate-second-lock
        for i in $(seq 200); do [ -e "$run/second.done" ] && break; sleep 0.05; done
        [ -e "$run/second.done" ] || { echo "second: still running 10 s later: $(grep -v offer "$run/second.log" 2>&1 | tail -5 | tr '\n' '|')"; exit 0; }
        echo "second: status $(cat "$run/second.done"), $(grep -F 'pingate-lock: ' "$run/second.log" | tail -1)" ;;
    uienv)  # the UI child's Wayland variables, and whether grim run as alice with
            # exactly its environment reaches the compositor: "VARS; grim: connected|refused (…)"
        ui="$(pgrep -u alice -f -- '--ui-child' | head -1)"
        cp "/proc/$ui/environ" /tmp/ui.environ && chmod 644 /tmp/ui.environ
        vars="$(tr '\0' '\n' < /tmp/ui.environ | grep -E '^WAYLAND_' | tr '\n' ' ')"
        # (xargs puts the variables last: sh puts them before grim.)
        if err="$(runuser -u alice -- xargs -0 -a /tmp/ui.environ sh -c 'exec env -i "$@" grim -t ppm -' sh 2>&1 > /dev/null)"; then
            echo "${vars}; grim: connected"
        else
            echo "${vars}; grim: refused ($(echo "$err" | head -1))"
        fi ;;
    pids)   # the locker's and its UI's process ids (the container's)
        echo "$(cat "$d/pid") $(pgrep -u alice -f -- '--ui-child' | head -1)" ;;
    corner) corner ;;
    shot)   as_alice grim -t png "$run/shot.png" && mv "$run/shot.png" "$2" ;;
    stop)   stop_compositor ;;
esac
EOF
}

wl() {
    CT_TIMEOUT=30 ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-wlock "$@"
EOF
}
lock_log() { cat "$(ct_root)/run/user/1000/pingate-lock/log" 2>/dev/null; }

setup() {
    [ -f "$LOCK_DEB" ] || fail "no pingate-lock package from build-deb.sh: $(cat "$WORK/build.out")"
    cp "$LOCK_DEB" "$(ct_root)/tmp/"
    install_deb trixie "$DEB" "$WORK/apt-trixie.log" "./$(basename "$LOCK_DEB")"
    write_wayland_session_lib
    write_programs
    add_alice trixie
    local out
    out="$(ct_sh <<'EOF'
echo "installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}\n' pingate pingate-lock | tr '\n' ' ')"
EOF
)"
    assert_contains "$out" "pingate-lock 0.3.0 install ok installed" "the packages"
}

shot() { wl shot "/tmp/$1.png" > /dev/null && cp "$(ct_root)/tmp/$1.png" "$REPORT_DIR/$1.png"; }
lock() {
    local out
    out="$(wl lock)" || fail "pingate-lock did not lock: $out"
    assert_contains "$out" "ready: mode=$1, locked, corner " "pingate-lock's first screen"
    assert_not_contains "$out" "corner $DESKTOP" "the screen once locked"
}
# unlocked WHAT: exited 0, the desktop back; the time from the last key is recorded.
LOCK_RUNS=0
unlocked() {
    local out ms
    out="$(wl exited)"
    LOCK_RUNS=$((LOCK_RUNS + 1))
    lock_log > "$REPORT_DIR/pingate-lock-$LOCK_RUNS.log"
    echo "      $1 -> $out" >&2
    assert_contains "$out" "status 0, last key to unlock " "pingate-lock after $1 (trace: $(lock_log | grep -E 'message:|PAM answered' | tail -3 | tr '\n' ' '))"
    assert_contains "$out" "corner $DESKTOP" "the screen after $1"
    ms="$(sed -nE 's/.*last key to unlock ([0-9]+) ms.*/\1/p' <<< "$out")"
    [ -z "${2:-}" ] || record "$2" "$ms"
}
said() { [ "$(wl said "$1")" = yes ] || fail "pingate-lock did not say [$1]: $(lock_log | grep 'message:' | tail -3 | tr '\n' ' ')"; }

start_session() {
    local out
    need_deb
    layer trixie sway "${SWAY_LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    out="$(wl start "$1")" || fail "$1 did not start in alice's seat session: $out"
    echo "    $1: $out"
    assert_contains "$out" "seat seat0, type wayland, active yes, corner " "alice's session running $1"
    # swaybg's colour as the compositor shows it (sway: 1d4f73; labwc's
    # pixman output, darker): what the corner is when unlocked.
    DESKTOP="$(sed -nE 's/.*, corner ([0-9a-f]{6}),.*/\1/p' <<< "$out")"
    [ -n "$DESKTOP" ] && [ "$DESKTOP" != 000000 ] || fail "no desktop colour in the corner: $out"
    end_with 'wl stop > /dev/null'
}

# pin_wrong_pin_and_password COMPOSITOR: the PIN typed unlocks on its last
# digit; a wrong PIN is told and counted, then the PIN unlocks; Tab, then
# the password unlocks.
pin_wrong_pin_and_password() {
    start_session "$1"
    lock pin
    shot "$1-pin-pad"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN typed ($1)" pin
    lock pin
    wl keys "${WRONG_PINS[0]}" > /dev/null
    said "Wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    shot "$1-wrong-pin"
    wl keys "$PIN" > /dev/null
    # (Not timed: the screen shows the module's notice of the failed try for
    # 3 s before it opens, as on X11.)
    unlocked "a wrong PIN, then the PIN ($1)"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN unlocked"
    lock pin
    wl keys -k Tab "$ALICE_PASSWORD" -k Return > /dev/null
    unlocked "Tab, then the password ($1)" password
}

# killed_locker COMPOSITOR: SIGKILL while locked leaves the output locked in
# the compositor's own colour, and a PIN typed then unlocks nothing; then a
# second pingate-lock takes the lock over and the PIN unlocks.
killed_locker() {
    local out abandoned
    start_session "$1"
    lock pin
    out="$(wl kill)"
    echo "      $1: SIGKILL while locked -> $out" >&2
    assert_not_contains "$out" "corner $DESKTOP" "the screen after the locker was killed"
    abandoned="$(sed -nE 's/.*corner ([0-9a-f]{6}), then.*/\1/p' <<< "$out")"
    assert_contains "$out" "then $abandoned 2 s later" "the screen stays the same"
    wl keys "$PIN" -k Return > /dev/null
    sleep 1
    assert_eq "$abandoned" "$(wl corner)" "the screen after the PIN typed with no locker"
    out="$(wl relock)" || true
    echo "      $1: a second pingate-lock -> $out" >&2
    assert_contains "$out" "ready: mode=pin, locked" "a new pingate-lock on $1 after the first was killed"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, at the second locker ($1)" pin
}

# --daemonize (swayidle's before-sleep): the command returns 0 once the
# compositor has locked, the screen stays locked, and the PIN then unlocks.
test_daemonize_returns_once_locked_sway() {
    local out
    start_session sway
    out="$(wl daemonize)"
    echo "      pingate-lock --daemonize -> $out" >&2
    assert_contains "$out" "returned 0, locked: 1, corner " "pingate-lock --daemonize"
    assert_not_contains "$out" "corner $DESKTOP" "the screen once --daemonize returned"
    wl keys "$PIN" > /dev/null
    out="$(wl opened)"
    assert_eq "unlocked: 1, corner $DESKTOP" "$out" "the PIN after --daemonize"
}

# An output added while locked (sway's create_output) gets a lock surface:
# the UI is started again for both outputs, the new one shows the lock
# screen's background, and the PIN unlocks.
test_an_output_added_while_locked_is_covered_sway() {
    local out
    start_session sway
    lock pin
    out="$(wl addoutput)"
    echo "      a second output while locked -> $out" >&2
    assert_contains "$out" "geometry: 800,600,120;" "the locker's image after create_output"
    assert_contains "$out" "2 ready" "the UI, started again for two outputs"
    assert_not_contains "$out" "second corner $DESKTOP" "the new output while locked"
    assert_contains "$out" "second corner 191e2b" "the new output: the lock screen's background"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, with two outputs" pin
}

# An output removed while locked (sway's `output NAME unplug`, as when a
# monitor is unplugged; sway 1.10 has it, undocumented, for headless
# outputs): the locker stays, its lock with it; it drops the output's lock
# surface and starts the UI again for the one output left ("output N
# removed", a one-output geometry, one "ready:" more), which shows the lock
# screen's background, not the desktop; the PIN then unlocks. Once the added
# output (HEADLESS-2); once the first (HEADLESS-1), whose surface had the
# dialog and the keyboard's focus: the image is then the added output's
# alone (the UI draws the dialog on it), and the keys typed reach it.
test_an_output_removed_while_locked_keeps_the_lock_sway() {
    local out name added ready left
    start_session sway
    for name in HEADLESS-2 HEADLESS-1; do
        lock pin
        out="$(wl addoutput)"
        echo "      a second output while locked -> $out" >&2
        assert_contains "$out" "geometry: 800,600,120;" "the locker's image after create_output"
        added="$(sed -nE 's/^geometry: 800,600,120;([0-9]+,[0-9]+,[0-9]+), .*/\1/p' <<< "$out")"
        ready="$(sed -nE 's/.*, ([0-9]+) ready,.*/\1/p' <<< "$out")"
        # What the geometry must be once NAME is gone: the other output alone.
        if [ "$name" = HEADLESS-1 ]; then left="$added"; else left="800,600,120"; fi
        out="$(wl rmoutput "$name")"
        echo "      $name unplugged while locked -> $out" >&2
        assert_contains "$out" "unplug $name: status 0 (" "swaymsg output $name unplug"
        # sway has one output left, and not NAME.
        grep -qE "ready, left [^ ,]+, first corner" <<< "$out" || fail "sway's outputs after $name was unplugged: $out"
        assert_not_contains "$out" "left $name," "sway's outputs after the unplug"
        assert_contains "$out" "locker running," "pingate-lock after $name was unplugged"
        assert_contains "$out" "removed: output " "the locker's trace after $name was unplugged"
        assert_contains "$out" ", geometry: $left, " "the locker's image after $name was unplugged (one output)"
        [ -n "$ready" ] && [ "$(sed -nE 's/.*, ([0-9]+) ready,.*/\1/p' <<< "$out")" -gt "$ready" ] 2>/dev/null ||
            fail "the UI was not started again after $name was unplugged ($ready ready before): $out"
        assert_not_contains "$out" "first corner $DESKTOP" "the output left, while locked"
        assert_contains "$out" "first corner 191e2b" "the output left: the lock screen's background"
        wl keys "$PIN" > /dev/null
        unlocked "the PIN, after $name was unplugged" pin
    done
}

# start_sway_with_pointer: alice's sway session, with the virtual pointer
# (pam/tests/virtual_pointer.c, zwlr_virtual_pointer_v1) installed inside.
start_sway_with_pointer() {
    local pointer="$REPO_ROOT/pam/build/virtual_pointer"
    [ -f "$pointer" ] || make -s -C "$REPO_ROOT/pam" harness > "$WORK/harness.out" 2>&1 ||
        fail "make -C pam harness failed: $(cat "$WORK/harness.out")"
    start_session sway
    install -m 0755 "$pointer" "$(ct_root)/usr/local/bin/virtual_pointer"
}

# keys_apart "keys 1 to 3: DX pixels, ...": DX (the `spacing` step's line).
keys_apart() { sed -nE 's/keys 1 to 3: ([0-9]+) pixels.*/\1/p' <<< "$1"; }

# The pointer (a virtual one: pam/tests/virtual_pointer.c): the PIN clicked
# on the pad unlocks on its last click; alice re-enrolled with a pattern,
# the pattern dragged through the dots unlocks on release.
test_pointer_clicks_the_pad_and_drags_the_pattern_sway() {
    local out
    start_sway_with_pointer
    lock pin
    wl click $(sed 's/./& /g' <<< "$PIN") > /dev/null
    unlocked "the PIN clicked on the pad" pin-click
    out="$(CT_TIMEOUT=60 ct_sh "$PATTERN" 2>&1 <<'EOF'
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pattern --stdin --force --allow-weak > /dev/null && echo enrolled
EOF
)"
    assert_eq enrolled "$out" "alice re-enrolled with a pattern"
    lock pattern
    wl drag /tmp/sway-pattern-mid-drag.png $(tr '-' ' ' <<< "$PATTERN") > /dev/null
    cp "$(ct_root)/tmp/sway-pattern-mid-drag.png" "$REPORT_DIR/" 2>/dev/null || true
    unlocked "the pattern dragged" pattern
}

# An output with scale 2 (1600x1200 pixels, 800x600 in the layout): the
# lock surface's buffer is drawn at 1600x1200 with the dialog at twice its
# size in pixels (the pad's key spacing doubles against the same output at
# 800x600, scale 1), shown through a viewport at 800x600 (sway offers
# fractional scale: its preferred scale is 240/120); the PIN clicked with
# the virtual pointer, whose positions go through surface coordinates times
# 2, unlocks.
test_an_output_at_scale_2_gets_a_sharp_pad_sway() {
    local out one two
    start_sway_with_pointer
    lock pin
    one="$(wl spacing)"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN typed (scale 1)"
    out="$(wl scale 2)"
    assert_eq "screenshot 1600 1200" "$out" "grim's screenshot of HEADLESS-1 at scale 2"
    lock pin
    two="$(wl spacing)"
    echo "      scale 1: $one; scale 2: $two" >&2
    assert_contains "$two" "geometry: 1600,1200,240" "the locker's image at scale 2 (a 800x600 surface)"
    one="$(keys_apart "$one")"
    two="$(keys_apart "$two")"
    [ -n "$one" ] && [ -n "$two" ] && [ $((two - 2 * one)) -ge -2 ] && [ $((two - 2 * one)) -le 2 ] ||
        fail "the pad at scale 2 is not drawn twice as big: keys 1 to 3 $one pixels at scale 1, $two at scale 2"
    shot sway-scale-2-pin-pad
    wl click $(sed 's/./& /g' <<< "$PIN") > /dev/null
    unlocked "the PIN clicked on the pad at scale 2" pin-click-scale-2
}

# An output at scale 1.5 (1600x1200 pixels; sway configures the lock surface
# at 1600/1.5 x 1200/1.5, truncated: 1066x800): with wp_fractional_scale_v1
# and wp_viewporter the buffer is the surface's size times 1.5, rounded,
# which is the output's own pixels (within the pixel the truncation lost),
# not an image at the integer scale 2 that the compositor shrinks. The
# dialog is drawn 1.5 times as big as on the same output at scale 1 (the
# pad's key spacing: at 1600x1200, scale 1, the dialog is at its natural
# size); the PIN clicked with the virtual pointer, whose positions go
# through surface coordinates times 1.5, unlocks.
test_an_output_at_scale_1_5_gets_a_sharp_pad_sway() {
    local out one half geometry
    start_sway_with_pointer
    out="$(wl scale 1)"
    assert_eq "screenshot 1600 1200" "$out" "grim's screenshot of HEADLESS-1 at 1600x1200, scale 1"
    lock pin
    one="$(wl spacing)"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN typed (1600x1200, scale 1)"
    out="$(wl scale 1.5)"
    assert_eq "screenshot 1600 1200" "$out" "grim's screenshot of HEADLESS-1 at scale 1.5"
    # The desktop as sway's pixman renderer shows it at 1.5 (swaybg's colour
    # comes out darker in the corner, before any lock): what unlocked is.
    DESKTOP="$(wl corner)"
    lock pin
    wl rescaled > /dev/null
    half="$(wl spacing)"
    echo "      scale 1: $one; scale 1.5: $half" >&2
    # "W,H,S": the image's size in pixels and the scale in 120ths.
    geometry="$(sed -nE 's/.*geometry: ([0-9]+,[0-9]+,[0-9]+).*/\1/p' <<< "$half")"
    [[ "$geometry" =~ ^(1599|1600),1200,180$ ]] ||
        fail "the locker's image at scale 1.5 is not the output's 1600x1200 pixels at 180/120: [$half]"
    one="$(keys_apart "$one")"
    half="$(keys_apart "$half")"
    [ -n "$one" ] && [ -n "$half" ] && [ $((2 * half - 3 * one)) -ge -4 ] && [ $((2 * half - 3 * one)) -le 4 ] ||
        fail "the pad at scale 1.5 is not drawn 1.5 times as big: keys 1 to 3 $one pixels at scale 1, $half at scale 1.5"
    shot sway-scale-1.5-pin-pad
    wl click $(sed 's/./& /g' <<< "$PIN") > /dev/null
    unlocked "the PIN clicked on the pad at scale 1.5" pin-click-scale-1.5
}

# A second pingate-lock while the first holds the lock: sway refuses it
# (ext_session_lock_v1.finished, no `locked`): it exits 1 saying so, and the
# first keeps the lock (the screen stays the lock screen) until the PIN.
test_a_second_locker_is_refused_while_one_holds_the_lock_sway() {
    local out before
    start_session sway
    lock pin
    before="$(wl corner)"
    out="$(wl second)"
    echo "      a second pingate-lock while locked -> $out" >&2
    assert_contains "$out" "second: status 1, " "the second pingate-lock"
    assert_contains "$out" "not locking: the compositor refused the lock (another locker holds it?)" "the second's message"
    assert_eq "$before" "$(wl corner)" "the screen after the second was refused"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, at the first locker"
}

# Dead keys through xkbcommon's compose table: alice's password has an é,
# typed as dead_acute then e (wtype sends the keysyms), and it unlocks.
test_a_password_typed_with_a_dead_key_unlocks_sway() {
    local out password
    password="$(printf 'caf\303\2519Wq7z')"
    start_session sway
    out="$(CT_TIMEOUT=60 ct_sh "$password" 2>&1 <<'EOF'
printf 'alice:%s\n' "$1" | chpasswd && echo changed
EOF
)"
    assert_eq changed "$out" "alice's password with an é"
    lock pin
    # (One text argument after the dead key: wtype puts a space between two.)
    wl keys -k Tab caf -k dead_acute e9Wq7z -k Return > /dev/null
    unlocked "the password typed with a dead key" password-dead-key
}

# Key repeat (wl_keyboard.repeat_info; sway's defaults: 25 a second after
# 600 ms): BackSpace held for 1.5 s in the password field erases 15 wrong
# characters (one press without repeat), and the password typed then unlocks.
test_backspace_held_repeats_in_the_password_field_sway() {
    start_session sway
    lock pin
    wl keys -k Tab wrongwrongwrong -P BackSpace -s 1500 -p BackSpace "$ALICE_PASSWORD" -k Return > /dev/null
    unlocked "BackSpace held, then the password"
    echo "      repeats of the held BackSpace: $(lock_log | grep -c 'key repeat')" >&2
    [ "$(lock_log | grep -c 'key repeat')" -ge 14 ] || fail "BackSpace held 1.5 s repeated fewer than 14 times"
}

# The UI child, which runs PAM and holds the secrets, has no way to the
# compositor: its environment has no WAYLAND_SOCKET and a WAYLAND_DISPLAY
# that is no socket, and a Wayland client (grim) run as alice with exactly
# that environment cannot connect (with the locker's, it does).
test_the_ui_child_cannot_reach_the_compositor_sway() {
    local out
    start_session sway
    lock pin
    out="$(wl uienv)"
    echo "      the UI child's environment -> $out" >&2
    assert_contains "$out" "WAYLAND_DISPLAY=/dev/null ; grim: refused" "the UI child's Wayland environment"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN typed"
}

# The PIN at pingate-lock and at swaylock, alternately in one session, timed
# the same way: from wtype's exit (the last key sent) to the locker's exit.
# (pingate-lock checks on the last digit; swaylock needs Return, which wtype
# sends last.) swaylock's stack gets PinGate's line (pingate enable swaylock).
test_pin_unlock_times_next_to_swaylock_sway() {
    local out i ms
    start_session sway
    out="$(ct_sh <<'EOF'
pingate enable swaylock > /dev/null && grep -c pam_pingate /etc/pam.d/swaylock
EOF
)"
    assert_eq 1 "$out" "PinGate's line in /etc/pam.d/swaylock"
    for i in 1 2 3; do
        lock pin
        wl keys "$PIN" > /dev/null
        out="$(wl exited)"
        assert_contains "$out" "status 0," "pingate-lock, round $i"
        ms="$(sed -nE "s/.*wtype's end to exit ([0-9]+) ms.*/\1/p" <<< "$out")"
        record pingate-lock-exit "$ms"
        out="$(wl swaylock)"
        assert_eq "swaylock locked" "$out" "swaylock, round $i"
        wl keys "$PIN" -k Return > /dev/null
        out="$(wl exited)"
        assert_contains "$out" "status 0," "swaylock, round $i"
        assert_contains "$out" "corner $DESKTOP" "the screen after swaylock, round $i"
        ms="$(sed -nE "s/.*wtype's end to exit ([0-9]+) ms.*/\1/p" <<< "$out")"
        record swaylock-exit "$ms"
    done
    echo "      wtype's end to exit: pingate-lock $(awk '$1 == "pingate-lock-exit" {printf "%s ", $2}' "$UNLOCK_TIMES")ms," \
         "swaylock $(awk '$1 == "swaylock-exit" {printf "%s ", $2}' "$UNLOCK_TIMES")ms" >&2
}

# host_pid PID: the host's number of the container's process PID.
host_pid() {
    local status
    for status in /proc/[0-9]*/status; do
        [ "$(readlink "${status%/status}/ns/pid" 2>/dev/null)" = "$(readlink "/proc/$CT_PID/ns/pid")" ] || continue
        if awk -v pid="$1" '$1 == "NSpid:" && $NF == pid { found = 1 } END { exit !found }' "$status" 2>/dev/null; then
            basename "${status%/status}"
            return 0
        fi
    done
    return 1
}

# On Wayland as on X11 (lock_test.sh's memory test, the same memscan.py and
# keep_freed.so): once a wrong PIN and a wrong password have been answered,
# no copy of either, nor any 8-byte piece of one, is left in the locker
# (which turned the keys into text with xkbcommon) or in its UI, which keep
# running. The controls: the PIN one digit short and the password in its
# field are found in the UI while held. Read from the host (/proc/PID/mem).
test_no_copy_of_a_typed_pin_or_password_is_left_in_memory_sway() {
    local here="$REPO_ROOT/Tests/IntegrationTests" wrong_pin=739146285013 scan pids locker ui out
    local wrong_password=Xk4Wq9Tz-5f3a9c-7Qm2Zx8Lw4Rt6Yp0Hk3Nb9Vc5Gd1Js7Fa2Ue8Io4Xq
    cc -O2 -Wall -Werror -fPIC -shared "$here/keep_freed.c" -o "$WORK/keep_freed.so" -ldl || fail "cc keep_freed.c failed"
    start_session sway
    install -m 0644 "$WORK/keep_freed.so" "$(ct_root)/usr/local/lib/keep_freed.so"
    echo /usr/local/lib/keep_freed.so > "$(ct_root)/etc/pingate-test/preload"
    out="$(CT_TIMEOUT=60 ct_sh 2>&1 <<'EOF'
printf 'pin_max_length = 12\n' >> /etc/pingate/pingate.conf
printf '482915736047\n482915736047\n' | pingate enroll alice --pin --stdin --force > /dev/null && echo enrolled
EOF
)"
    assert_eq enrolled "$out" "alice re-enrolled with a 12-digit PIN"
    lock pin
    pids="$(wl pids)"
    locker="$(host_pid "${pids% *}")" && ui="$(host_pid "${pids#* }")" || fail "no host pids for [$pids]"
    wl keys "${wrong_pin%?}" > /dev/null
    sleep 0.3
    scan=$(python3 "$here/memscan.py" --present "${wrong_pin%?}" "$ui") || fail "the scan missed the PIN being typed: $scan"
    wl more "${wrong_pin: -1}" > /dev/null
    said "message: Wrong PIN"
    wl keys -k Tab "$wrong_password" > /dev/null
    sleep 0.3
    scan=$(python3 "$here/memscan.py" --present "$wrong_password" "$ui") || fail "the scan missed the password in its field: $scan"
    wl more -k Return > /dev/null
    said "message: Wrong password"
    assert_not_contains "$(wl corner)" "$DESKTOP" "the screen after the wrong password"
    scan=$(python3 "$here/memscan.py" --secret "$wrong_pin" --secret "$wrong_password" "$locker" "$ui") ||
        fail "a typed secret is still in memory: $scan"
    echo "    $scan"
}

# WAYLAND_DEBUG=1 in the session's environment makes libwayland-client log
# every event it gets to stderr (the journal): each wl_keyboard.key, so each
# digit typed. pingate-lock drops it before it connects: its log (stderr,
# the locker's and the UI's) has no Wayland event after the PIN unlocked.
test_wayland_debug_logs_no_key_of_the_pin_sway() {
    start_session sway
    echo WAYLAND_DEBUG=1 > "$(ct_root)/etc/pingate-test/env"
    lock pin
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, with WAYLAND_DEBUG=1"
    assert_eq 0 "$(lock_log | grep -c 'wl_keyboard')" "wl_keyboard lines in pingate-lock's stderr with WAYLAND_DEBUG=1 ($(lock_log | grep -m1 '\.key('))"
}

# The image the UI child draws is a memfd the compositor reads: its size is
# sealed, so a child (or anything that gets the descriptor) that shrank it
# cannot make the compositor's reads fault and the compositor drop the
# locker. Tried from the host on the UI's fd 4: ftruncate is refused, and
# the PIN still unlocks.
test_the_shared_image_cannot_be_shrunk_sway() {
    local pids ui out
    start_session sway
    lock pin
    pids="$(wl pids)"
    ui="$(host_pid "${pids#* }")" || fail "no host pid for the UI [$pids]"
    out="$(python3 -c 'import os, sys
fd = os.open(f"/proc/{sys.argv[1]}/fd/4", os.O_RDWR)
try:
    os.ftruncate(fd, 4096); print("shrunk")
except OSError as e:
    print("refused:", e.strerror)' "$ui" 2>&1)"
    assert_eq "refused: Operation not permitted" "$out" "ftruncate of the UI's image"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, after the image was to be shrunk"
}

# The UI's image (a memfd on fd 4) and frame pipe (fd 5) are close-on-exec
# before the UI runs anything: the setgid helper it asks first, here behind
# a wrapper that lists the descriptors it was given and then runs it, holds
# neither.
test_the_helper_holds_no_descriptor_of_the_image_sway() {
    local out
    start_session sway
    out="$(CT_TIMEOUT=30 ct_sh 2>&1 <<'EOF'
h=/usr/libexec/pingate/pingate-verify
mv "$h" "$h.real"
printf '#!/bin/sh\nls -l /proc/$$/fd > /tmp/helper-fds.$$ 2>&1\nexec %s.real "$@"\n' "$h" > "$h"
chmod 755 "$h" && echo wrapped
EOF
)"
    assert_eq wrapped "$out" "the helper's wrapper"
    lock pin
    out="$(cat "$(ct_root)"/tmp/helper-fds.* 2>/dev/null)"
    assert_contains "$out" " 0 -> " "the descriptors the helper was given"
    assert_not_contains "$out" "memfd:" "the descriptors the helper was given"
    assert_not_contains "$out" " 5 -> " "the descriptors the helper was given"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, with the helper wrapped"
}

# While the UI is dead and not yet started again (2 s once it has died
# four times in 10 s) the locker sleeps in poll: the dead UI's pipes, at
# EOF and always readable, are no longer polled (they made it spin,
# committing every output on each turn). The UI is killed (from the host)
# five times, each time once the locker started the next; the locker's CPU
# time over the next 1.5 s is read from /proc/PID/stat.
test_a_dead_ui_costs_the_locker_no_cpu_sway() {
    local pids locker ui before after i
    start_session sway
    lock pin
    pids="$(wl pids)"
    locker="$(host_pid "${pids% *}")" || fail "no host pid for the locker [$pids]"
    for i in 1 2 3 4 5; do
        for _ in $(seq 100); do ui="$(pgrep -P "$locker" | head -1)"; [ -n "$ui" ] && break; sleep 0.02; done
        [ -n "$ui" ] || fail "no UI after kill $((i - 1))"
        kill -KILL "$ui"
        for _ in $(seq 100); do [ -d "/proc/$ui" ] || break; sleep 0.01; done
    done
    ticks() { awk '{ print $14 + $15 }' "/proc/$locker/stat"; }
    before="$(ticks)"; sleep 1.5; after="$(ticks)"
    echo "      the locker's CPU time in the 1.5 s without a UI: $((after - before)) ticks (of 1/100 s)" >&2
    [ $((after - before)) -le 15 ] || fail "the locker spun without a UI: $((after - before)) ticks in 1.5 s"
    # The next UI up (keys typed before it are dropped; a UI killed as it
    # started said no "ready:"), then the PIN.
    i="$(lock_log | grep -c 'ready:')"
    for _ in $(seq 100); do [ "$(lock_log | grep -c 'ready:')" -gt "$i" ] && break; sleep 0.05; done
    [ "$(lock_log | grep -c 'ready:')" -gt "$i" ] || fail "no UI came up after the fifth was killed: $(lock_log | tail -3)"
    wl keys "$PIN" > /dev/null
    unlocked "the PIN, after the UI was killed five times"
}

test_pin_wrong_pin_and_password_unlock_sway() { pin_wrong_pin_and_password sway; }
test_killed_locker_leaves_the_output_locked_sway() { killed_locker sway; }
test_pin_wrong_pin_and_password_unlock_labwc() { pin_wrong_pin_and_password labwc; }
test_killed_locker_leaves_the_output_locked_labwc() { killed_locker labwc; }

run_screen_tests "last digit or release to the unlock request; wtype's end to exit (-exit)" pin password pin-click pin-click-scale-2 pin-click-scale-1.5 pattern password-dead-key \
    pingate-lock-exit swaylock-exit
