#!/bin/bash
# gnome_shell13_test.sh — the real GNOME Shell 48 lock screen with a PIN, on
# a booted Debian 13 (issue 41): Debian's gnome-shell 48 and gdm3 48, alice's
# seat session made by logind, her PIN and password typed on a (virtual)
# keyboard, the dialog read back and photographed. gnome13_test.sh keeps the
# emulation (pam/tests/gnome_unlock) for what the real shell cannot show
# here: a fingerprint reader beside gdm-password (the shell starts
# gdm-fingerprint only when fprintd has a reader), a smartcard inserted
# (gdm-smartcard; no card, no reader), the login screen's first sign-in of a
# boot (gdm shows no login screen here) and a remote display (PAM_RHOST).
#
# How (container_lib.sh, booted_lib.sh, gdm3_lib.sh):
#   * Layer: gdm3_lib.sh's (gdm3, which brings gnome-shell and gjs, and
#     libpam-fprintd); gdm's daemon runs from the boot on, with no login
#     screen of its own. The shell builds its lock screen only if gdm answers
#     when it starts, and gdm runs the lock screen's PAM conversations: for a
#     session it did not start it opens a reauthentication channel and runs
#     gdm-password in a worker as root.
#   * Session: `gnome-shell --headless --wayland --virtual-monitor 1280x800
#     --unsafe-mode` as alice's seat session, made by logind from systemd-run
#     with PAMName=login and XDG_SEAT=seat0, XDG_SESSION_TYPE=wayland (what
#     gdm starts): Mutter draws with no GPU ("Created surfaceless renderer
#     without GPU"), on her session bus.
#   * Driving: gnome_shell_drive.js, run by the container's gjs as alice,
#     says how: org.gnome.ScreenSaver.Lock locks; keys go in through
#     org.gnome.Mutter.RemoteDesktop, on one D-Bus connection; with
#     --unsafe-mode, org.gnome.Shell.Eval reads the entry's hint and the line
#     under it, and org.gnome.Shell.Screenshot takes pictures. Unlocked is the
#     shield's ActiveChanged(false) after Return, never asked for
#     (ScreenSaver.SetActive(false) unlocks with no authentication at all);
#     pingate's journal lines say what verified it.
#   * Stacks: each case runs on both ways PinGate is turned on for GNOME:
#     the line `pingate enable gdm-password` writes in Debian's
#     /etc/pam.d/gdm-password (`again_or_password retries=2`), and the Debian
#     profile (`pam-auth-update --enable pingate`: `forward_pass` in
#     common-auth, which gdm-password reaches through `@include
#     common-auth`). Two loggers (add_loggers) show what went on to pam_unix.
#   * Times: from Return's key press to the shield's ActiveChanged(false),
#     both on the container's clock (gjs's); they include the shell's 250 ms
#     slide of the lock screen. Medians at the end.
#   * Screenshots of the dialog: $PINGATE_GNOME_SHELL13_REPORT
#     (/tmp/pingate-gnome-shell13); with PINGATE_UPDATE_DOCS=1 the line
#     stack's become docs/screenshots/debian13-gnome-*.png.
#
# Run as root: bash Tests/IntegrationTests/gnome_shell13_test.sh
# (TEST_FILTER=word to pick one; PINGATE_BOOTED_DEB=path: test that package
# instead of building one from the tree.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"

. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" gnome-shell13
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/gdm3_lib.sh"

ALICE_UID=4831
# The dialog (avatar, name, entry, the line under it) on the 1280x800 screen.
CROP=600x380+340+250

# write_shell_programs: the program alice's session runs, gnome_shell_drive.js,
# and pingate-shell, the steps the test takes inside as root (no #! line:
# the container's programs, run by its sh).
write_shell_programs() {
    local root
    root="$(ct_root)"
    install -m 0644 "$REPO_ROOT/Tests/IntegrationTests/gnome_shell_drive.js" "$root/usr/local/lib/gnome_shell_drive.js"
    cat > "$root/usr/local/bin/pingate-shell-session" <<'EOF'
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
exec gnome-shell --headless --wayland --virtual-monitor 1280x800 --unsafe-mode > /var/tmp/pingate-shell/log 2>&1
EOF
    cat > "$root/usr/local/bin/pingate-shell" <<'EOF'
set -u
run="/run/user/$(id -u alice)"
drive() {
    runuser -u alice -- env XDG_RUNTIME_DIR="$run" DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" \
        gjs -m /usr/local/lib/gnome_shell_drive.js "$@" 2>> /var/tmp/pingate-shell/drive.err
}
case "$1" in
    start)  # alice's seat session running gnome-shell, its shield on her bus
        systemd-run --quiet --unit=pingate-gnome-shell -p PAMName=login -p User=alice \
            -p "Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=wayland XDG_SESSION_CLASS=user XDG_CURRENT_DESKTOP=GNOME" \
            sh /usr/local/bin/pingate-shell-session < /dev/null
        for i in $(seq 120); do
            drive state 2> /dev/null | grep -q '"active":false' &&
                busctl --user -M alice@ status org.gnome.Shell.ScreenShield > /dev/null 2>&1 && break
            sleep 0.5
        done
        session="$(loginctl show-user alice -p Display --value)"
        echo "session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
             "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value)," \
             "shield $(drive state), $(dpkg-query -W -f='${Package} ${Version}' gnome-shell)," \
             "$(grep -o 'Created surfaceless renderer without GPU' /var/tmp/pingate-shell/log)" ;;
    stop)   # her session and user manager end before the poweroff
        systemctl stop pingate-gnome-shell.service
        loginctl kill-user alice --signal=KILL
        systemctl kill --signal=KILL "user@$(id -u alice).service" 2> /dev/null ;;
    *)  drive "$@" ;;
esac
EOF
}

# shell STEP ARG...: one of pingate-shell's steps inside (gnome_shell_drive.js's;
# SHELL_TIMEOUT: its deadline, 60 s).
shell() {
    CT_TIMEOUT="${SHELL_TIMEOUT:-60}" ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-shell "$@"
EOF
}

# setup STACK: the package, alice with her password and PIN, PinGate turned
# on by STACK (`line`: pingate enable gdm-password; `profile`:
# pam-auth-update --enable pingate), the loggers, and her session running
# GNOME Shell.
setup() {
    install_deb trixie "$DEB"
    write_shell_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$1" "$PIN" "$ALICE_PASSWORD" "$ALICE_UID" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh -u "$4" alice
printf 'alice:%s\n' "$3" | chpasswd
printf '%s\n%s\n' "$2" "$2" | pingate enroll alice --pin --stdin > /dev/null
install -d -o alice -g alice /var/tmp/pingate-shell
case "$1" in
    line)    pingate enable gdm-password > /dev/null ;;
    profile) pam-auth-update --enable pingate < /dev/null ;;
esac
echo "gdm-password: $(grep -E '^(auth|@include common-auth)' /etc/pam.d/gdm-password | tr -s ' \t' ' ' | tr '\n' ';')"
echo "common-auth: $(grep -c pam_pingate /etc/pam.d/common-auth) PinGate line(s)"
EOF
)" || fail "setting up alice and the $1 stack failed: $out"
    echo "    $(tr '\n' ' ' <<< "$out")"
    case "$1" in
        line)    assert_contains "$out" "gdm-password: auth requisite pam_nologin.so;auth required pam_succeed_if.so user != root quiet_success;auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password;@include common-auth;auth optional pam_gnome_keyring.so;
common-auth: 0 PinGate" "the stacks after pingate enable gdm-password"
                 add_loggers gdm-password ;;
        profile) assert_contains "$out" "gdm-password: auth requisite pam_nologin.so;auth required pam_succeed_if.so user != root quiet_success;@include common-auth;auth optional pam_gnome_keyring.so;
common-auth: 1 PinGate" "the stacks after pam-auth-update --enable pingate"
                 add_loggers common-auth ;;
    esac
    out="$(SHELL_TIMEOUT=90 shell start)"
    echo "    $out"
    assert_contains "$out" "seat seat0, type wayland, active yes, shield {\"dialog\":false,\"active\":false}, gnome-shell 48." \
        "alice's session running GNOME Shell"
    assert_eq "gdm: active, 0 restarts, seat0 sessions: alice " "$(gdm_idle)" "gdm with alice's session"
}

# dialog WHAT OUTPUT: shown, what the dialog showed (watch in
# gnome_shell_drive.js: MESSAGE and HINT lines), a notice's clock as HH:MM,
# a lock's seconds as N; on stderr under WHAT, and in
# REPORT_DIR/dialog-STACK.txt.
shown=""
dialog() {
    shown="$(sed -E 's/\bat [0-9]{2}:[0-9]{2}\b/at HH:MM/g; s/PIN locked for [0-9]+ seconds?/PIN locked for N seconds/' <<< "$2")"
    printf '== %s (%s)\n%s\n\n' "$1" "$WHERE" "$shown" >> "$REPORT_DIR/dialog-$STACK.txt"
    echo "      $1:" >&2
    sed 's/^/        | /' <<< "$shown" >&2
}
# lock WHAT: locked, the dialog raised; what it showed until it asked.
lock() { dialog "$1" "$(shell lock)"; }
# submit TEXT WHAT: TEXT and Return; what the dialog showed until it asked again.
submit() { dialog "$2" "$(shell submit "$1")"; }
# unlock TEXT WHAT KIND: TEXT and Return, and the shield unlocked; the time
# is recorded as KIND.
unlock() {
    local out ms
    out="$(shell enter "$1")"
    echo "      $2 -> $out" >&2
    assert_contains "$out" "unlocked in " "the lock screen after $2 ($WHERE)"
    ms="$(sed -nE 's/^unlocked in ([0-9]+) ms.*/\1/p' <<< "$out")"
    record "$3" "$ms" "$WHERE: $2"
}
# shot NAME: the dialog as REPORT_DIR/NAME.png (cropped, 128 colours), the
# screen as NAME-full.png.
shot() {
    assert_eq shot "$(shell shot /var/tmp/pingate-shell/shot.png)" "a screenshot ($1)"
    cp "$(ct_root)/var/tmp/pingate-shell/shot.png" "$REPORT_DIR/$1-full.png"
    convert "$REPORT_DIR/$1-full.png" -crop "$CROP" +repage -strip +dither -colors 128 "$REPORT_DIR/$1.png" ||
        fail "could not crop the screenshot $1"
}

# shell_cases STACK: every case, in one session of the real shell:
#   1. the hint "PIN or password"; the PIN unlocks;
#   2. a wrong PIN: what the dialog says, counted once; then the PIN;
#   3. the next lock tells of that wrong PIN; the PIN unlocks;
#   4. the password unlocks, not counted;
#   5. five wrong PINs typed there: counted one by one, then the PIN locked:
#      what the dialog says, and the password unlocks;
# and pam_unix never saw the PIN (the loggers).
shell_cases() {
    local out start
    STACK="$1" WHERE="gnome-shell 48, $1"
    start=$(date +%s%N)
    rm -f "$REPORT_DIR/dialog-$STACK.txt"
    boot_gdm3 'cp "$(ct_root)/var/tmp/pingate-shell/log" "$REPORT_DIR/gnome-shell-$STACK.log"; shell stop > /dev/null'
    setup "$1"
    local names=(debian13-gnome-before debian13-gnome-wrong-pin debian13-gnome-pin-locked)
    [ "$1" = line ] || names=("${names[@]/%/-$1}")

    # 1. The PIN.
    lock "locked"
    assert_eq "HINT PIN or password" "$shown" "the dialog ($WHERE)"
    shot "${names[0]}"
    unlock "$PIN" "the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN ($WHERE)"

    # 2. A wrong PIN, then the PIN.
    lock "locked"
    submit "${WRONG_PINS[0]}" "a wrong PIN"
    case "$1" in
        # asked again in the same conversation (retries=2)
        line) assert_eq "MESSAGE Wrong PIN — 4 attempts left
HINT PIN or password" "$shown" "the dialog after a wrong PIN ($WHERE)" ;;
        # then pam_unix refuses the same text (forward_pass), taking its
        # 2 s; the try ends, GNOME starts afresh, and the new conversation
        # tells of the wrong PIN
        profile) assert_eq "MESSAGE Wrong PIN — 4 attempts left
MESSAGE Sorry, password authentication didn’t work. Please try again.
MESSAGE 1 failed PIN attempt since your last PIN sign-in, at HH:MM
HINT PIN or password" "$shown" "the dialog after a wrong PIN ($WHERE)" ;;
    esac
    shot "${names[1]}"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN ($WHERE)"
    unlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN ($WHERE)"

    # 3. The next lock: the notice (the line stack's; the profile's was told
    # already, in the conversation the PIN ended).
    lock "the next lock"
    case "$1" in
        line) assert_eq "MESSAGE 1 failed PIN attempt since your last PIN sign-in, at HH:MM
HINT PIN or password" "$shown" "the dialog at the next lock ($WHERE)" ;;
        profile) assert_eq "HINT PIN or password" "$shown" "the dialog at the next lock ($WHERE)" ;;
    esac
    unlock "$PIN" "the PIN (the notice told)" pin
    lock "the lock after it"
    assert_eq "HINT PIN or password" "$shown" "the dialog once the notice was told ($WHERE)"

    # 4. The password (the lock screen from case 3 still asks).
    unlock "$ALICE_PASSWORD" "the password" password
    assert_eq 0 "$(count alice)" "alice's failures after the password ($WHERE)"

    # 5. Five wrong PINs in the dialog, then the password.
    lock "locked"
    local i all=""
    for i in 0 1 2 3 4; do
        submit "${WRONG_PINS[$i]}" "wrong PIN $((i + 1))"
        all+="$shown"$'\n'
        assert_eq $((i + 1)) "$(count alice)" "alice's failures after wrong PIN $((i + 1)) ($WHERE)"
    done
    assert_eq "MESSAGE PIN locked for N seconds after 5 failed attempts — use your password
HINT Password" "$(tail -n 2 <<< "${all%$'\n'}")" "the dialog while the PIN is locked ($WHERE)"
    shot "${names[2]}"
    unlock "$ALICE_PASSWORD" "the password while the PIN is locked" password

    # What reached pam_unix: never the PIN; with the line, no wrong PIN
    # either (auth_err=die); with the profile each wrong PIN, as the
    # password it might have been (forward_pass: pam_unix try_first_pass).
    never_followed "$PIN"
    case "$1" in
        line)
            never_followed "${WRONG_PINS[@]}"
            # (case 4; while the PIN is locked pam_unix asks for itself)
            assert_eq "$ALICE_PASSWORD" "$(handed_on)" "what PinGate's line handed on ($WHERE)"
            assert_eq "" "$(refused_by_unix)" "what pam_unix refused ($WHERE)" ;;
        profile)
            assert_eq "$(printf '%s\n' "${WRONG_PINS[0]}" "${WRONG_PINS[@]}")" "$(refused_by_unix)" \
                "what pam_unix refused: case 2's wrong PIN, then case 5's ($WHERE)" ;;
    esac
    local lines
    lines="$(ct_sh <<'EOF'
journalctl -b -q -o cat --no-pager SYSLOG_IDENTIFIER=pingate | sed -E 's/ \(user=alice uid=[0-9]+ service=([a-z-]+) .*/ (\1)/'
EOF
)"
    echo "      pingate's journal: $(sed -E 's/ (at|the first at) [0-9-]+ [0-9:]+ [+0-9]+//' <<< "$lines" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" >&2
    assert_eq 3 "$(grep -c '^verify: success (gdm-password)$' <<< "$lines")" "pingate's successes for gdm-password ($WHERE)"
    assert_eq "" "$(grep -v '(gdm-password)$' <<< "$lines" | grep -v "$KEY_PAGE_LINE")" "pingate's journal lines for other services ($WHERE)"
    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

test_debian_13_gnome_shell_48_lock_screen_with_pingate_enable_gdm_password() { shell_cases line; }
test_debian_13_gnome_shell_48_lock_screen_with_the_debian_profile() { shell_cases profile; }

# shellcheck disable=SC2034  # read by run_screen_tests
DOC_SCREENSHOTS=(debian13-gnome-before debian13-gnome-wrong-pin debian13-gnome-pin-locked)
run_screen_tests "Return to the shield's ActiveChanged(false)" pin password
