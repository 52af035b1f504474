#!/bin/bash
# sway_test.sh — swaylock 1.8 with a PIN on a booted Debian 13 (trixie), as a
# person at a Wayland desktop meets it: the real swaylock, sway 1.10 and
# labwc 0.8 from Debian's archive, alice's seat session made by logind, her
# real PIN and password typed on a (virtual) keyboard, the screen read back.
#
# How (container_lib.sh, booted_lib.sh; booted_test.sh says how the trees
# are made and booted):
#   * Layer: sway, swaylock, grim, wtype, swaybg, labwc and a font installed
#     once over the cached Debian 13 tree (`container_layer trixie sway …`:
#     apt-get install --no-install-recommends in a chroot on an overlay of
#     the tree, the overlay's upper dir kept in
#     /var/cache/pingate-tests/layers/trixie-sway-<hash>; the hash is of the
#     tree's, the package list and the code that makes it; built under a
#     .building-* name, renamed when complete). About 15 s and 290 MB (Mesa
#     and LLVM are in sway's Depends). Each test boots the tree with the
#     layer as a second lower dir (`container_boot --layer`).
#   * Session: the compositor is what a display manager starts, a process of
#     alice's started by systemd-run with PAMName=login and XDG_SEAT=seat0,
#     XDG_SESSION_TYPE=wayland, XDG_SESSION_CLASS=user (logind makes it her
#     active seat session), with WLR_BACKENDS=headless and
#     WLR_RENDERER=pixman: no GPU, no input devices, one 800x600 output
#     (sway's setting; labwc's headless output keeps its own size).
#   * Locking: both compositors' settings bind Super+L to swaylock (run
#     through a small script that records its exit status and the time), as a
#     person's would; wtype presses it. swaylock -R says when the screen is
#     locked. swaylock runs as alice inside her session, a child of the
#     compositor, so pam_pingate sees her seat session as for any locker.
#   * Typing: one wtype per answer: Escape (swaylock clears its buffer), a
#     300 ms pause, the answer, Return. Each wtype is a new virtual keyboard
#     with its own keymap; a client that has not taken the keymap yet reads
#     the first keys wrong, hence the Escape and the pause before the answer.
#   * Seeing: grim reads pixels back: a corner is swaylock's colour
#     (--color 7a1f5c) while locked and the desktop's after (sway: swaybg's
#     1d4f73; labwc draws no background: black); the indicator's inside turns
#     d01020 when swaylock says "Wrong". Unlocked means swaylock exited 0 and
#     the corner is no longer the lock's. Screenshots of the locked screen,
#     of "Verifying" and of "Wrong" are kept in $PINGATE_SWAY_REPORT
#     (/tmp/pingate-sway); docs/screenshots/swaylock-*.png are from there.
#   * Stacks: each case runs on both ways PinGate is turned on for swaylock:
#     the line `pingate enable swaylock` writes in /etc/pam.d/swaylock, and
#     the Debian profile (`pam-auth-update --enable pingate`: common-auth,
#     which Debian's swaylock reaches through `auth include login`). Debian's
#     login stack has pam_faildelay delay=3000000: every failed try shows
#     "Verifying" for 3 s.
#
# Debian 13 only: Debian 12's sway 1.7 has no ext-session-lock-v1, the
# protocol swaylock 1.8 locks the screen with (sway 1.8 added it).
#
# Run as root: bash Tests/IntegrationTests/sway_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of building one.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" sway
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

WRONG_PASSWORD=alice-pw-7Qy
LAYER_PACKAGES=("${SWAY_LAYER_PACKAGES[@]}")

# write_wayland_programs: the compositors' settings, the locker script they
# run, and pingate-wl, the steps the test takes inside as root (each prints
# one line). No #! line: they are the container's programs, run by its sh.
write_wayland_programs() {
    local root
    root="$(ct_root)"
    mkdir -p "$root/etc/pingate-test/labwc"
    cat > "$root/etc/pingate-test/sway.conf" <<'EOF'
output HEADLESS-1 resolution 800x600 bg #1d4f73 solid_color
bindsym Mod4+l exec sh /usr/local/bin/pingate-swaylock
EOF
    cat > "$root/etc/pingate-test/labwc/rc.xml" <<'EOF'
<?xml version="1.0"?>
<labwc_config>
  <keyboard>
    <keybind key="W-l"><action name="Execute" command="sh /usr/local/bin/pingate-swaylock"/></keybind>
  </keyboard>
</labwc_config>
EOF
    # Run by the compositor, as alice, in her session.
    cat > "$root/usr/local/bin/pingate-swaylock" <<'EOF'
d="$XDG_RUNTIME_DIR/pingate-lock"
mkdir -p "$d"
swaylock --color 7a1f5c --inside-wrong-color d01020 --indicator-idle-visible --show-failed-attempts \
    -R 3 3> "$d/ready" 2> "$d/log"
echo "$? $(date +%s%N)" > "$d/done.tmp" && mv "$d/done.tmp" "$d/done"
EOF
    cat > "$root/usr/local/bin/pingate-wl" <<'EOF'
set -u
. /usr/local/lib/pingate-wayland-session.sh
lock="$run/pingate-lock"
# The indicator's inside, above its text: from the output's size (read at start).
inside() { read -r w h < "$run/pingate-size"; pixel $((w / 2)) $((h / 2 - 30)); }
case "$1" in
    start)  # start sway|labwc: alice's seat session running the compositor
        compositor="$2"
        start_compositor "$compositor"
        as_alice grim -t ppm "$run/size.ppm" && sed -n 2p "$run/size.ppm" > "$run/pingate-size" && rm -f "$run/size.ppm"
        echo "$(session_facts) output $(cat "$run/pingate-size"), $(dpkg-query -W -f='${Package} ${Version}\n' "$compositor" swaylock | tr '\n' ' ')" ;;
    lock)   # Super+L; waits for swaylock -R's "locked"
        rm -rf "$lock"
        as_alice wtype -M logo l -m logo
        for i in $(seq 100); do [ -s "$lock/ready" ] && break; sleep 0.05; done
        [ -s "$lock/ready" ] && echo "locked, corner $(corner)" || echo "not locked: $(cat "$lock/log" 2>/dev/null | tr '\n' ' ')" ;;
    type)   # type TEXT: one wtype: Escape, a pause, TEXT, Return
        as_alice wtype -k Escape -s 300 "$2" -k Return
        date +%s%N > "$lock/typed" ;;
    wrong)  # waits for "Wrong"; then says whether swaylock still runs
        for i in $(seq 200); do [ "$(inside)" = d01020 ] && break; [ -e "$lock/done" ] && break; sleep 0.05; done
        if [ -e "$lock/done" ]; then echo "swaylock exited: $(cat "$lock/done")"
        elif [ "$(inside)" = d01020 ]; then echo "Wrong shown after $(( ($(date +%s%N) - $(cat "$lock/typed")) / 1000000 )) ms, still locked, corner $(corner)"
        else echo "no Wrong within 10 s, inside $(inside), corner $(corner)"; fi ;;
    unlocked)   # waits for swaylock's exit: "exit STATUS in MS ms, corner RGB"
        for i in $(seq 200); do [ -e "$lock/done" ] && break; sleep 0.05; done
        if [ -e "$lock/done" ]; then
            read -r status at < "$lock/done"
            echo "exit $status in $(( (at - $(cat "$lock/typed")) / 1000000 )) ms, corner $(corner)"
        else
            echo "still locked after 10 s, corner $(corner), inside $(inside)"
        fi ;;
    shot)   # shot FILE: a screenshot
        as_alice grim -t png "$run/shot.png" && mv "$run/shot.png" "$2" ;;
    stop)   stop_compositor ;;
esac
EOF
}

# wl STEP ARGS...: one of pingate-wl's steps.
wl() {
    CT_TIMEOUT=30 ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-wl "$@"
EOF
}

# setup STACK: the package, alice with her password and PIN, and PinGate
# turned on for swaylock by STACK: `line` (pingate enable swaylock) or
# `profile` (pam-auth-update --enable pingate).
setup() {
    install_deb trixie "$DEB"
    write_wayland_session_lib
    write_wayland_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$1" "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
printf 'alice:%s\n' "$3" | chpasswd
printf '%s\n%s\n' "$2" "$2" | pingate enroll alice --pin --stdin > /dev/null
case "$1" in
    line)    pingate enable swaylock > /dev/null ;;
    profile) pam-auth-update --enable pingate < /dev/null ;;
esac
echo "swaylock: $(grep -v -e '^#' -e '^$' /etc/pam.d/swaylock | tr -s ' \t' ' ' | tr '\n' ';')"
echo "common-auth: $(grep -c pam_pingate /etc/pam.d/common-auth) PinGate line(s)"
EOF
)" || fail "setting up alice and the $1 stack failed: $out"
    echo "    $(tr '\n' ' ' <<< "$out")"
    case "$1" in
        line)    assert_contains "$out" "swaylock: auth sufficient pam_pingate.so forward_pass nonotice;auth include login;
common-auth: 0 PinGate" "the stacks after pingate enable swaylock" ;;
        profile) assert_contains "$out" "swaylock: auth include login;
common-auth: 1 PinGate" "the stacks after pam-auth-update --enable pingate" ;;
    esac
}

# lock: Super+L, and the lock is on the screen.
LOCK_COLOUR=7a1f5c
lock() {
    local out
    out="$(wl lock)"
    assert_eq "locked, corner $LOCK_COLOUR" "$out" "after Super+L ($WHERE)"
}
# expect_unlock WHAT: swaylock exited 0 and the lock is gone from the screen;
# the time from Return to its exit is kept in TIMES_<WHAT>.
TIMES_pin=() TIMES_password=()
expect_unlock() {
    local out ms
    out="$(wl unlocked)"
    echo "      $WHERE: $2 -> $out" >&2
    assert_contains "$out" "exit 0 in " "swaylock after $2 ($WHERE)"
    assert_not_contains "$out" "corner $LOCK_COLOUR" "the screen after $2 ($WHERE)"
    ms="$(sed -nE 's/^exit 0 in (-?[0-9]+) ms.*/\1/p' <<< "$out")"
    eval "TIMES_$1+=(\"\$ms\")"
    record "$1" "$ms" "$WHERE"
}
# expect_wrong WHAT: swaylock says "Wrong" and the screen stays locked.
expect_wrong() {
    local out
    out="$(wl wrong)"
    echo "      $WHERE: $1 -> $out" >&2
    assert_contains "$out" "still locked, corner $LOCK_COLOUR" "swaylock after $1 ($WHERE)"
}

# swaylock_cases COMPOSITOR STACK: every case, in one session:
#   1. a wrong PIN: "Wrong", still locked, 1 failure counted; then the PIN
#      unlocks (and clears the failure);
#   2. the password unlocks;
#   3. a wrong password: "Wrong", nothing counted; then the password unlocks;
#   4. the PIN locked by five wrong PINs (pingate verify, as a login counts
#      them): the right PIN is refused, the password unlocks.
swaylock_cases() {
    local compositor="$1" stack="$2" out start
    start=$(date +%s%N)
    WHERE="$compositor, $stack"
    need_deb
    layer trixie sway "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup "$stack"
    out="$(wl start "$compositor")" || fail "$compositor did not start in alice's seat session: $out"
    echo "    $compositor: $out"
    assert_contains "$out" "seat seat0, type wayland, active yes" "alice's session running $compositor"
    # The session ends before the poweroff, which would wait for it.
    end_with 'wl stop > /dev/null'

    local shots="$REPORT_DIR/$compositor-$stack"
    mkdir -p "$shots"
    # 1. A wrong PIN, then the PIN.
    lock
    wl shot "/tmp/locked.png" > /dev/null && cp "$(ct_root)/tmp/locked.png" "$shots/locked.png"
    wl type "${WRONG_PINS[0]}" > /dev/null
    wl shot "/tmp/verifying.png" > /dev/null && cp "$(ct_root)/tmp/verifying.png" "$shots/verifying.png"
    expect_wrong "a wrong PIN"
    wl shot "/tmp/wrong.png" > /dev/null && cp "$(ct_root)/tmp/wrong.png" "$shots/wrong-pin.png"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN at swaylock ($WHERE)"
    wl type "$PIN" > /dev/null
    expect_unlock pin "the PIN"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN unlocked ($WHERE)"
    # 2. The password.
    lock
    wl type "$ALICE_PASSWORD" > /dev/null
    expect_unlock password "the password"
    # 3. A wrong password, then the password.
    lock
    wl type "$WRONG_PASSWORD" > /dev/null
    expect_wrong "a wrong password"
    assert_eq 0 "$(count alice)" "alice's failures after a wrong password ($WHERE)"
    wl type "$ALICE_PASSWORD" > /dev/null
    expect_unlock password "a wrong password, then the password"
    # 4. The PIN locked: five different wrong PINs.
    lock_the_pin alice
    lock
    wl type "$PIN" > /dev/null
    expect_wrong "the PIN while it is locked"
    wl type "$ALICE_PASSWORD" > /dev/null
    expect_unlock password "the password while the PIN is locked"

    echo "    $WHERE: unlocked by the PIN in ${TIMES_pin[*]} ms, by the password in ${TIMES_password[*]} ms" \
         "(median $(median "${TIMES_password[@]}") ms); $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

test_debian_13_swaylock_under_sway_with_pingate_enable_swaylock() {
    swaylock_cases sway line
}
test_debian_13_swaylock_under_sway_with_the_debian_profile() {
    swaylock_cases sway profile
}
test_debian_13_swaylock_under_labwc_with_pingate_enable_swaylock() {
    swaylock_cases labwc line
}
test_debian_13_swaylock_under_labwc_with_the_debian_profile() {
    swaylock_cases labwc profile
}

run_screen_tests "Return to swaylock's exit" pin password
