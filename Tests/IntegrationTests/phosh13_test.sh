#!/bin/bash
# phosh13_test.sh — Phosh 0.46's lock screen, the phone's, with a PIN on a
# booted Debian 13 (trixie), as a person meets it (issue 38): the real phosh
# and phoc from Debian's archive in alice's seat session made by logind, her
# PIN and password typed on a (virtual) keyboard, the screen read back.
#
# What the person sees: phosh's keypad page, "Enter Passcode" over a row of
# dots and the digits 0-9 with "Unlock". Return (or Unlock) sends what was
# typed; "Checking…" shows with the keypad greyed while PAM runs. phosh's
# conversation answers every question with the typed text and shows none of
# PAM's lines (an info or error line makes its conversation fail: libpam logs
# "conversation failed"), so PinGate's "Wrong PIN — N attempts left" and
# "PIN locked … use your password" never show: after a wrong PIN the dots
# clear and "Enter Passcode" is back, and while the PIN is locked the keypad
# looks the same as ever. Nor can the keypad's own feedback carry the
# reason: its label ("Enter Passcode", "Checking…") is phosh's own text,
# which no PAM line changes, so only a change to phosh would show it.
# While the PIN is locked PinGate asks nothing and pam_unix asks: a PIN
# typed then goes to pam_unix as a (wrong) password, the one thing a
# person who was not told can do wrong; the test types the password there.
#
# How (container_lib.sh, booted_lib.sh; booted_test.sh says how the trees
# are made and booted):
#   * Layer: phosh, phoc, grim, wtype and what phosh needs to run outside a
#     phone (gnome-settings-daemon-common: without its schema
#     org.gnome.settings-daemon.peripherals.touchscreen phosh stops at
#     once), installed once over the cached Debian 13 tree (`container_layer
#     trixie phosh …`): 492 MB, 2.5-7 min to build on the
#     busy 2-core build machine.
#   * Session: what Debian's phosh.service does (User=1000, PAMName=login:
#     an autologin, no password asked), as systemd-run: `phoc -E
#     /usr/libexec/phosh`, alice's seat session made by logind, with
#     WLR_BACKENDS=headless and WLR_RENDERER=pixman (no GPU, no input
#     devices, one 1280x720 output). phosh starts locked ("Slide up to
#     unlock"); its debug domain phosh-shell logs "Removing
#     PHOSH_STATE_LOCKED" when it unlocks.
#   * Typing: wtype (a virtual keyboard): digits typed on the lock screen go
#     to the keypad page's entry, Return sends it. Each wtype waits 1 s
#     first, until phosh has taken its keymap. No space first: phosh hands
#     it to the entry (" 4827"), and the module then takes the answer for a
#     password. Each case starts a fresh session: phosh's lock screen as it
#     starts takes keys, while one locked later with org.gnome.ScreenSaver's
#     Lock did not (nothing reached PAM; not understood).
#   * Seeing: grim reads the screen while the start-up lock screen shows
#     (phoc refuses screen copies only once the screen saver's lock is on):
#     the keypad with three dots, "Checking…" and the keypad after a wrong
#     PIN, kept in $PINGATE_PHOSH13_REPORT (/tmp/pingate-phosh13);
#     with PINGATE_UPDATE_DOCS=1 docs/screenshots/phosh-keypad.png is made
#     from there.
#   * Stack: Debian's phosh ships no PAM file (libpam reads `other`);
#     `pingate enable phosh` makes /etc/pam.d/phosh from other's stack with
#     a one-field screen's line (a wrong PIN ends the try, a password goes
#     on to pam_unix), and the two loggers (add_loggers) show what went on
#     to the password modules.
#   * Times: from the last key (a journal line written as wtype, which ends
#     with Return, exits) to pingate-verify's success and to phosh's unlock
#     ("Removing PHOSH_STATE_LOCKED"), all journal timestamps.
#
# Run as root: bash Tests/IntegrationTests/phosh13_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of building one.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" phosh13
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

LAYER_PACKAGES=(phosh phoc grim wtype fonts-dejavu-core dbus-user-session gsettings-desktop-schemas
                dconf-gsettings-backend gnome-session-bin gnome-settings-daemon-common phosh-mobile-tweaks)
# The keypad, in the middle of the 1280x720 output.
CROP=360x600+460+110

# write_phosh_program: pingate-phosh, the steps the test takes inside as
# root (each prints what it saw). No #! line: run by the container's sh.
write_phosh_program() {
    cat > "$(ct_root)/usr/local/bin/pingate-phosh" <<'EOF'
set -u
run="/run/user/$(id -u alice)"
d=/var/tmp/pingate-phosh
as_alice() { runuser -u alice -- env XDG_RUNTIME_DIR="$run" WAYLAND_DISPLAY=wayland-0 DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" "$@"; }
# since: the journal (Unix times) after the time the last `start` or `type` kept.
since() {
    t="$(cat "$d/mark")"
    journalctl -b -q --no-pager -o short-unix --since "@${t%.*}" "$@" | awk -v t="$t" '$1 > t'
}
mark() { date +%s.%N > "$d/mark"; }
unlocked() { since _COMM=phosh | grep -q "Removing PHOSH_STATE_LOCKED"; }
# at PATTERN: the Unix time (s.us) of the first journal line since the mark with PATTERN.
at() { since | grep -m1 -E "$1" | cut -d' ' -f1; }
# ms_after T PATTERN: milliseconds from T to that line.
ms_after() { local t; t="$(at "$2")"; [ -n "$t" ] && awk -v a="$1" -v b="$t" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
case "$1" in
    start)  # a fresh session: phoc and phosh as alice's seat session, waits for "Phosh ready"
        systemctl stop pingate-phosh.service 2> /dev/null
        for i in $(seq 100); do [ -z "$(loginctl show-user alice -p Display --value 2>/dev/null)" ] && break; sleep 0.1; done
        mark
        env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=wayland XDG_SESSION_CLASS=user XDG_CURRENT_DESKTOP=Phosh:GNOME"
        env="$env WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 G_MESSAGES_DEBUG=phosh-shell"
        systemd-run --quiet --unit=pingate-phosh -p PAMName=login -p User=alice -p "$env" \
            phoc -E /usr/libexec/phosh < /dev/null
        for i in $(seq 300); do since _COMM=phosh | grep -q "Phosh ready" && break; sleep 0.1; done
        ready="$(since _COMM=phosh | grep -m1 "Phosh ready" | cut -d' ' -f4-)"
        [ -n "$ready" ] || { echo "phosh is not ready: $(systemctl status pingate-phosh --no-pager -n 10 | tr '\n' ' ')"; exit 1; }
        session="$(loginctl show-user alice -p Display --value)"
        echo "$ready; locked: $(since _COMM=phosh | grep -c "Adding PHOSH_STATE_LOCKED");" \
             "session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
             "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value)," \
             "$(dpkg-query -W -f='${Package} ${Version}\n' phosh phoc | tr '\n' ' ')" ;;
    type)   # type TEXT [return]: TEXT (digits one by one, a password at once), then Return if asked
        mark
        text="$2" enter="${3:-}"
        set -- -s 1000
        case "$text" in
            *[!0-9]*) set -- "$@" "$text" ;;
            *) for digit in $(echo "$text" | fold -w1); do set -- "$@" "$digit" -s 200; done ;;
        esac
        [ "$enter" != return ] || set -- "$@" -s 300 -k Return
        as_alice wtype "$@"
        logger -t pingate-phosh-test "last key" ;;
    unlocked)   # waits for the unlock: "unlocked, pingate's success +MS ms, phosh +MS ms"
        for i in $(seq 150); do unlocked && break; sleep 0.1; done
        key="$(at "pingate-phosh-test.*last key")"
        if unlocked; then
            success="$(ms_after "$key" 'pingate\[[0-9]+\]: verify: success')"
            echo "unlocked,${success:+ pingate's success +$success ms,} phosh +$(ms_after "$key" "Removing PHOSH_STATE_LOCKED") ms"
        else
            echo "still locked after 15 s: $(since | grep -E "pam_|pingate\[" | cut -d' ' -f3- | tr '\n' ' ')"
        fi ;;
    wrong)  # waits for pingate's wrong answer, then 2 s: "wrong, still locked" or what happened
        for i in $(seq 100); do since | grep -qE 'pingate\[[0-9]+\]: verify: wrong' && break; sleep 0.1; done
        sleep 2
        if unlocked; then echo "unlocked"
        elif since | grep -qE 'pingate\[[0-9]+\]: verify: wrong'; then echo "wrong, still locked"
        else echo "no answer from pingate: $(since | grep -E "pam_|pingate\[" | cut -d' ' -f3- | tr '\n' ' ')"; fi ;;
    journal)    # the PAM and pingate lines since the mark
        since | grep -E "pam_|pingate\[" | cut -d' ' -f3- ;;
    shot)   # shot FILE
        as_alice grim -t png "$run/shot.png" && mv "$run/shot.png" "$2" ;;
    stop)   # ends her session and her user manager before the poweroff
        systemctl stop pingate-phosh.service
        systemctl kill --signal=KILL "user@$(id -u alice).service" 2> /dev/null ;;
esac
EOF
}

# ph STEP ARGS...: one of pingate-phosh's steps.
ph() {
    CT_TIMEOUT=60 ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-phosh "$@"
EOF
}

# setup: the package, alice with her password and PIN, `pingate enable
# phosh` (phosh is in pingate.conf's default services), and the loggers.
setup() {
    install_deb trixie "$DEB"
    write_phosh_program
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
mkdir -p /var/tmp/pingate-phosh
echo "before: $(pingate stack phosh | head -n 1)"
pingate enable phosh
echo "phosh: $(grep -v -e '^#' -e '^$' /etc/pam.d/phosh | tr -s ' \t' ' ' | tr '\n' ';')"
echo "doctor: $(pingate doctor 2>&1 | grep -F "Phosh lock screen")"
EOF
)" || fail "setting up alice failed: $out"
    echo "$out" | sed 's/^/    /'
    assert_contains "$out" "created    /etc/pam.d/phosh (from /etc/pam.d/other" "pingate enable phosh"
    assert_contains "$out" "phosh: auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password nonotice;@include common-auth;" \
        "the stack after pingate enable phosh"
    assert_contains "$out" "doctor: ok      Phosh lock screen: a PIN is offered (service phosh)" "pingate doctor"
    add_loggers phosh
}

# start: a fresh phosh session, locked as it starts.
start() {
    local out
    out="$(ph start)" || fail "phosh did not start in alice's seat session: $out"
    echo "      $out" >&2
    assert_contains "$out" "Phosh ready after" "phosh's start"
    assert_contains "$out" "locked: 1; session" "phosh's start (locked)"
    assert_contains "$out" "seat seat0, type wayland, active yes" "alice's session running phosh"
}

# shot NAME: the keypad as REPORT_DIR/NAME.png, the screen as NAME-full.png.
shot() {
    ph shot /tmp/shot.png > /dev/null || fail "no screenshot"
    cp "$(ct_root)/tmp/shot.png" "$REPORT_DIR/$1-full.png"
    convert "$REPORT_DIR/$1-full.png" -crop "$CROP" +repage -strip -colors 64 "$REPORT_DIR/$1.png" || fail "could not crop $1"
}

# expect_unlock ANSWER WHAT KIND: ANSWER typed, Return, and phosh unlocked;
# the time from the last key to the unlock is recorded as KIND.
expect_unlock() {
    local out ms
    ph type "$1" return > /dev/null
    out="$(ph unlocked)"
    echo "      $2 -> $out" >&2
    assert_contains "$out" "unlocked, " "phosh after $2 ($(ph journal | tr '\n' '|'))"
    ms="$(sed -nE 's/.*phosh \+([0-9]+) ms.*/\1/p' <<< "$out")"
    record "$3" "$ms" "$2"
    if [ "$3" = pin ]; then
        record pingate "$(sed -nE "s/.*pingate's success \+([0-9]+) ms.*/\1/p" <<< "$out")" "$2"
    fi
}

# expect_wrong PIN WHAT: PIN typed, Return: pingate says wrong, still locked.
expect_wrong() {
    local out
    ph type "$1" return > /dev/null
    out="$(ph wrong)"
    echo "      $2 -> $out" >&2
    assert_eq "wrong, still locked" "$out" "phosh after $2"
}

# Every case on a fresh session, as Debian's phosh.service starts it (an
# autologin, no password given this boot):
#   1. the PIN unlocks (the first unlock of the boot: see docs/design.md,
#      "an autologin session's lock screen");
#   2. a wrong PIN is counted once, the keypad clears, and the PIN then
#      unlocks on the same PAM handle (phosh calls pam_authenticate again);
#   3. the password unlocks: PinGate's question takes it and hands it on;
#   4. the PIN locked by five wrong PINs (pingate verify, as any sign-in
#      counts them): the keypad looks as ever, the password unlocks;
#   and no PIN ever reaches the password modules.
test_debian_13_phosh_lock_screen_with_pingate_enable() {
    local out begin
    begin=$(date +%s%N)
    need_deb
    layer trixie phosh "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    # The session ends before the poweroff, which would wait for it.
    end_with 'ph stop > /dev/null'

    # 1. The PIN, the first unlock since the boot.
    start
    ph type "${PIN:0:3}" > /dev/null
    shot phosh-keypad
    ph type "${PIN:3}" return > /dev/null
    out="$(ph unlocked)"
    echo "      the PIN (three digits, a screenshot, the fourth) -> $out" >&2
    assert_contains "$out" "unlocked, " "phosh after the PIN ($(ph journal | tr '\n' '|'))"
    start
    expect_unlock "$PIN" "the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 2. A wrong PIN, then the PIN, on one lock screen.
    start
    ph type "${WRONG_PINS[0]}" return > /dev/null
    sleep 0.1
    shot phosh-checking
    out="$(ph wrong)"
    echo "      a wrong PIN -> $out" >&2
    assert_eq "wrong, still locked" "$out" "phosh after a wrong PIN"
    shot phosh-after-wrong-pin
    # "Wrong PIN — 4 attempts left" went to phosh's conversation, which
    # takes no info or error line: libpam logs that it failed.
    assert_contains "$(ph journal)" "pam_pingate(phosh:auth): conversation failed" "the wrong PIN's line"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    expect_unlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    # Two wrong PINs, then the PIN: each counted once.
    start
    expect_wrong "${WRONG_PINS[1]}" "a wrong PIN"
    expect_wrong "${WRONG_PINS[2]}" "a second wrong PIN"
    assert_eq 2 "$(count alice)" "alice's failures after two wrong PINs"
    expect_unlock "$PIN" "two wrong PINs, then the PIN" pin
    never_followed "$PIN" "${WRONG_PINS[@]:0:3}"
    assert_eq "" "$(handed_on)$(refused_by_unix)" "what reached the password modules in cases 1-2"

    # 3. The password: PinGate's question takes it and hands it on.
    start
    expect_unlock "$ALICE_PASSWORD" "the password" password
    assert_eq "$ALICE_PASSWORD" "$(handed_on)" "what PinGate handed on"
    assert_eq "" "$(refused_by_unix)" "what pam_unix refused"
    assert_eq 0 "$(count alice)" "alice's failures after the password"

    # 4. The PIN locked: five different wrong PINs. The keypad shows what it
    # always shows; the password unlocks.
    lock_the_pin alice
    start
    expect_unlock "$ALICE_PASSWORD" "the password while the PIN is locked" password
    # "PIN locked for 1 minute … use your password" never shows: the
    # conversation refuses it, and pam_unix takes the password.
    out="$(ph journal)"
    assert_contains "$out" "pam_pingate(phosh:auth): conversation failed" "the locked PIN's line"
    assert_not_contains "$(grep -v "$KEY_PAGE_LINE" <<< "$out")" "pingate[" \
        "pingate-verify's lines while the PIN is locked (nothing verified)"
    never_followed "$PIN" "${WRONG_PINS[@]}"

    echo "    $(( ($(date +%s%N) - begin) / 1000000 )) ms in all"
}

# shellcheck disable=SC2034  # read by run_screen_tests
DOC_SCREENSHOTS=(phosh-keypad)
run_screen_tests "last key to phosh's unlock (pingate: to pingate-verify's success)" pin pingate password
