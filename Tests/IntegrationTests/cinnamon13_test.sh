#!/bin/bash
# cinnamon13_test.sh — Cinnamon's own lock screen, cinnamon-screensaver 6.4,
# with a PIN on a booted Debian 13 (trixie), as a person meets it (issue 31):
# the real program from Debian's archive, alice's seat session made by
# logind, her PIN and password typed on a (virtual) keyboard, the screen
# read back. cinnamon_test.sh does the same for Debian 12's 5.6 under Xvfb
# on the build machine; debian13_x11_test.sh (MATE) and xfce_test.sh are
# the same kind of test, and say more.
#
# What the person sees is what 5.6 shows (unlock.py has not changed in what
# it does with PAM's lines): the question as the entry's placeholder, "PIN
# or password"; the entry now has an eye button that shows what is typed.
# A wrong PIN ends the try (the line `pingate enable` writes has no retries=,
# so one question per try, and auth_err=die, so no password module runs):
# the helper hands "Wrong PIN — 4 attempts left" to the dialog and then the
# failure, and the dialog puts its own "Incorrect password" under the entry
# and wipes the info line as the entry takes keys again, so "Incorrect
# password" is all that shows, with "PIN or password" again. While the PIN
# is locked, "PIN locked for 1 minute after 5 failed attempts — use your
# password" is wiped the same way, at once: the person sees pam_unix's
# question as "Please enter your password..." and no reason why.
#
# How (container_lib.sh, booted_lib.sh):
#   * Layer: cinnamon-screensaver, Xvfb, xdotool, xwd (x11-apps), xdpyinfo
#     (x11-utils) and a font, installed once over the cached Debian 13 tree
#     (`container_layer trixie cinnamon …`). Outside a Cinnamon desktop,
#     6.4 needs two things its package does not bring: the typelib Cvc
#     (gir1.2-cvc-1.0: its volume and media controls import it) and the
#     schema org.cinnamon.keyboard (the on-screen keyboard's settings),
#     which only cinnamon-common ships; the layer has that package rather
#     than a schema written by hand (it adds Muffin's library and some 40 MB).
#     Caribou (gir1.2-caribou-1.0), which 5.6 also lacked, is now a
#     dependency of cinnamon-screensaver. librsvg2-common (a GTK
#     recommendation) draws the dialog's icons, which are SVG.
#   * Session: alice's seat session, made by logind from systemd-run with
#     PAMName=login and XDG_SEAT=seat0 (what a display manager starts). It
#     runs Xvfb (1024x768) and then `cinnamon-screensaver --debug` on her
#     session bus. Its PAM helper, cinnamon-screensaver-pam-helper, runs PAM
#     as alice (service cinnamon-screensaver) in that session.
#   * Locking: `cinnamon-screensaver-command --lock`; a click brings the
#     dialog, as for someone coming back. Unlocked is the screensaver's
#     GetActive (the D-Bus call `cinnamon-screensaver-command --query` makes,
#     through busctl: the command, a Python program, takes 0.1-0.2 s to
#     start) saying false.
#   * What the dialog shows: its --debug trace. The helper writes each PAM
#     line on its stderr ("Got message style N: 'TEXT'") and hands it to the
#     dialog as CS_PAM_AUTH_SET_PROMPT_TEXT_ (a question: the entry's
#     placeholder; any question with "password:" in it becomes "Please enter
#     your password...", others lose their colons) or CS_PAM_AUTH_SET_INFO_TEXT_
#     (the line under the entry), which the trace shows as "Output from pam
#     helper: '…'"; CS_PAM_AUTH_BUSY_FALSE once the entry takes keys again,
#     which clears the info line; CS_PAM_AUTH_FAILURE when a try failed (the
#     dialog then says "Incorrect password" under the entry).
#   * Typing: xdotool inside the container, as alice, on her display.
#   * Seeing: xwd reads the screen back; the host crops the dialog to PNG.
#     The dialog before and after a wrong PIN, and while the PIN is locked,
#     is kept in $PINGATE_CINNAMON13_REPORT (/tmp/pingate-cinnamon13); with
#     PINGATE_UPDATE_DOCS=1 docs/screenshots/debian13-cinnamon-before.png and
#     debian13-cinnamon-wrong-pin.png are made from them.
#   * Stack: Debian's /etc/pam.d/cinnamon-screensaver (`@include
#     common-auth`, pam_gnome_keyring) with the line `pingate enable
#     cinnamon-screensaver` writes before it, and two loggers (add_loggers):
#     what PinGate's line hands on, and what pam_unix refused.
#   * Logs: in /var/tmp/pingate-x inside (not her runtime dir, which logind
#     removes when her session ends).
#   * Times: from Return (xdotool done) to the first GetActive that says
#     false, asked every 20 ms; medians at the end.
#
# Run as root: bash Tests/IntegrationTests/cinnamon13_test.sh
# (PINGATE_BOOTED_DEB=path: test that package instead of building one.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"

. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" cinnamon13
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"

LAYER_PACKAGES=(cinnamon-screensaver gir1.2-cvc-1.0 cinnamon-common librsvg2-common xvfb xdotool x11-apps x11-utils fonts-dejavu-core)
# The dialog, in the middle of the 1024x768 screen.
CROP=560x380+232+194

# write_x_programs: the session alice's seat runs, and pingate-x, the steps
# the test takes inside as root (each prints what it saw). No #! line: they
# are the container's programs, run by its sh.
write_x_programs() {
    local root
    root="$(ct_root)"
    cat > "$root/usr/local/bin/pingate-xsession" <<'EOF'
d=/var/tmp/pingate-x
Xvfb :1 -screen 0 1024x768x24 -nolisten tcp -noreset +extension RANDR > "$d/xvfb.log" 2>&1 &
for i in $(seq 100); do xdpyinfo -display :1 > /dev/null 2>&1 && break; sleep 0.1; done
export DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
cinnamon-screensaver --debug > "$d/log" 2>&1
echo "cinnamon-screensaver exited with status $? at $(date +%T.%N)" > "$d/ended"
EOF
    cat > "$root/usr/local/bin/pingate-x" <<'EOF'
set -u
run="/run/user/$(id -u alice)"
d=/var/tmp/pingate-x
# (NO_AT_BRIDGE: cinnamon-screensaver-command, a GTK program, warns of the
# accessibility bus her session does not have)
as_alice() { runuser -u alice -- env XDG_RUNTIME_DIR="$run" DISPLAY=:1 DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" NO_AT_BRIDGE=1 "$@"; }
query() { as_alice cinnamon-screensaver-command --query 2>&1; }
# active: GetActive, as --query asks it ("b true" or "b false"); no
# auto-start: a call before the screensaver owns its name would otherwise
# start a second one through its D-Bus service file.
active() { as_alice busctl --user --auto-start=no call org.cinnamon.ScreenSaver /org/cinnamon/ScreenSaver org.cinnamon.ScreenSaver GetActive 2>&1; }
locked() { [ "$(active)" = "b true" ]; }
unlocked() { [ "$(active)" = "b false" ]; }
now() { date +%s%N; }
# prompts, ready: the questions handed to the dialog since line MARK, and the
# times its entry took keys again.
prompts() { tail -n +$(($1 + 1)) "$d/log" | grep -c "CS_PAM_AUTH_SET_PROMPT_"; }
ready() { tail -n +$(($1 + 1)) "$d/log" | grep -c "CS_PAM_AUTH_BUSY_FALSE"; }
# asked MARK N: N questions since MARK, the entry ready for each
asked() { [ "$(prompts "$1")" -ge "$2" ] && [ "$(ready "$1")" -ge "$(prompts "$1")" ]; }
case "$1" in
    start)  # alice's seat session running Xvfb and cinnamon-screensaver
        env="Environment=XDG_SEAT=seat0 XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user"
        systemd-run --quiet --unit=pingate-xsession -p PAMName=login -p User=alice -p "$env" \
            sh /usr/local/bin/pingate-xsession < /dev/null
        for i in $(seq 300); do unlocked && break; sleep 0.1; done
        unlocked || { echo "cinnamon-screensaver did not start: $(active) $(tail -5 "$d/log" 2>/dev/null | tr '\n' ' ')"; exit 1; }
        session="$(loginctl show-user alice -p Display --value)"
        t=$(now); q="$(query)"; t=$(( ($(now) - t) / 1000000 ))
        echo "--query: $(echo $q) ($t ms); session $session: seat $(loginctl show-session "$session" -p Seat --value)," \
             "type $(loginctl show-session "$session" -p Type --value), active $(loginctl show-session "$session" -p Active --value)," \
             "$(dpkg-query -W -f='${Package} ${Version}' cinnamon-screensaver)" ;;
    lock)   # --lock, then a click: prints the trace's line count before, once the dialog asks
        mark=$(wc -l < "$d/log")
        as_alice cinnamon-screensaver-command --lock
        for i in $(seq 100); do locked && break; sleep 0.1; done
        locked || { echo "not locked: $(active)"; exit 1; }
        sleep 0.5   # the lock screen fades in
        as_alice xdotool mousemove 100 100 click 1
        for i in $(seq 300); do asked "$mark" 1 && break; sleep 0.05; done
        asked "$mark" 1 || { echo "no question after a click: $(tail -5 "$d/log" | tr '\n' ' ')"; exit 1; }
        sleep 0.3   # GTK draws the entry and gives it the focus
        echo "$mark" ;;
    type)   # type TEXT: typed into the dialog, then Return
        as_alice xdotool type --delay 40 -- "$2"
        as_alice xdotool key Return ;;
    unlock) # unlock TEXT: typed, Return; waits for GetActive false: "unlocked in MS ms"
        as_alice xdotool type --delay 40 -- "$2"
        as_alice xdotool key Return
        typed=$(now)
        for i in $(seq 400); do unlocked && break; sleep 0.02; done
        if ! unlocked; then echo "still locked 8 s after Return: $(active)"
        else echo "unlocked in $(( ($(now) - typed) / 1000000 )) ms"; fi ;;
    asked)  # asked MARK N: waits until the dialog asked its Nth question since MARK (10 s)
        for i in $(seq 200); do asked "$2" "$3" && break; sleep 0.05; done
        asked "$2" "$3" && sleep 0.3 && echo yes ;;
    query)  query ;;
    shot)   as_alice xwd -root -silent -display :1 > "$2" ;;
    stop)   # ends her session and her user manager before the poweroff
        systemctl stop pingate-xsession.service
        loginctl kill-user alice --signal=KILL
        systemctl kill --signal=KILL "user@$(id -u alice).service" 2> /dev/null ;;
esac
EOF
}

# x STEP ARGS...: one of pingate-x's steps (X_TIMEOUT: its deadline, 30 s).
x() {
    CT_TIMEOUT="${X_TIMEOUT:-30}" ct_sh "$@" 2>&1 <<'EOF'
sh /usr/local/bin/pingate-x "$@"
EOF
}

# setup: the package, alice with her password and PIN, PinGate turned on
# with `pingate enable cinnamon-screensaver`, and the loggers.
setup() {
    install_deb trixie "$DEB"
    write_x_programs
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
install -d -o alice -g alice /var/tmp/pingate-x
pingate enable cinnamon-screensaver > /dev/null
echo "cinnamon-screensaver: $(grep -v -e '^#' -e '^$' /etc/pam.d/cinnamon-screensaver | tr -s ' \t' ' ' | tr '\n' ';')"
echo "doctor: $(pingate doctor 2>&1 | grep -F "Cinnamon lock screen")"
echo "installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}\n' pingate)"
EOF
)" || fail "setting up alice failed: $out"
    echo "    $(tr '\n' ' ' <<< "$out")"
    assert_contains "$out" "cinnamon-screensaver: auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password nonotice;@include common-auth;auth optional pam_gnome_keyring.so;" \
        "the stack after pingate enable cinnamon-screensaver"
    assert_contains "$out" "doctor: ok      Cinnamon lock screen: a PIN is offered (service cinnamon-screensaver)" \
        "pingate doctor after pingate enable cinnamon-screensaver"
    add_loggers cinnamon-screensaver
}

# shot NAME: the dialog as REPORT_DIR/NAME.png, the screen as NAME-full.png.
shot() {
    x shot /tmp/shot.xwd > /dev/null || fail "no screenshot"
    xwd_png "$1" "$CROP"
}

# The dialog's trace inside (trace, in booted_screen_lib.sh, reads it since the lock).
# shellcheck disable=SC2034  # read by booted_screen_lib.sh (trace)
DIALOG_LOG=/var/tmp/pingate-x/log
# questions: what PAM asked (the placeholder, before Cinnamon rewrites it), one a line.
questions() { trace | grep -F "CS_PAM_AUTH_SET_PROMPT_" | sed "s/.*CS_PAM_AUTH_SET_PROMPT_//; s/_'\$//"; }
# infos: the info lines handed to the dialog (the line under the entry).
infos() { trace | grep -F "CS_PAM_AUTH_SET_INFO_" | sed "s/.*CS_PAM_AUTH_SET_INFO_//; s/_'\$//"; }
# seen TEXT: how many trace lines since MARK have TEXT.
seen() { trace | grep -cF -- "$1" || true; }
# events: what the helper told the dialog since MARK, in order, without the texts.
events() {
    trace | grep -oE "CS_PAM_AUTH_(SET_PROMPT|SET_INFO|BUSY_TRUE|BUSY_FALSE|FAILURE|SUCCESS|CANCELLED)" |
        sed 's/^CS_PAM_AUTH_//' | tr '\n' ' '
}

# Every case, in one session:
#   1. the PIN unlocks;
#   2. a wrong PIN ends the try: "Incorrect password" (the info line "Wrong
#      PIN — 4 attempts left" is wiped as the entry takes keys again), the
#      question again, counted; the PIN unlocks there;
#   3. two wrong PINs, then the PIN;
#   4. the password unlocks, and is not counted; a wrong PIN, then the
#      password: counted once;
#   5. the PIN locked by five wrong PINs (pingate verify, as any sign-in
#      counts them): pam_unix's question only, and the password unlocks.
test_debian_13_cinnamon_screensaver_with_pingate_enable() {
    local out start
    start=$(date +%s%N)
    need_deb
    layer trixie cinnamon "${LAYER_PACKAGES[@]}"
    boot trixie --layer "$LAYER"
    setup
    out="$(X_TIMEOUT=90 x start)" || fail "cinnamon-screensaver did not start in alice's seat session: $out"
    echo "    $out"
    assert_contains "$out" "seat seat0, type x11, active yes, cinnamon-screensaver 6.4" "alice's session running cinnamon-screensaver"
    assert_contains "$out" "--query: The screensaver is inactive" "cinnamon-screensaver-command --query"
    # The session ends before the poweroff, which would wait for it.
    end_with 'cp "$(ct_root)/var/tmp/pingate-x/log" "$REPORT_DIR/cinnamon-screensaver.log"; x stop > /dev/null'

    # 1. The PIN.
    dialog_lock
    assert_eq "PIN or password" "$(questions)" "the question (the placeholder)"
    assert_eq "" "$(infos)" "the info lines"
    shot debian13-cinnamon-before
    dialog_unlock "$PIN" "the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 2. A wrong PIN, then the PIN.
    dialog_lock
    x type "${WRONG_PINS[0]}" > /dev/null
    asked 2
    assert_eq "Wrong PIN — 4 attempts left" "$(infos)" "the info line after a wrong PIN"
    assert_eq 1 "$(seen CS_PAM_AUTH_FAILURE)" "failures the helper reported"
    assert_eq "PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the questions"
    # The info line, then the failure ("Incorrect password"), then the
    # entry ready again, which wipes the info line.
    assert_eq "SET_PROMPT BUSY_FALSE BUSY_TRUE SET_INFO FAILURE SET_PROMPT BUSY_FALSE " "$(events)" "what the helper told the dialog"
    shot debian13-cinnamon-wrong-pin
    still_locked "after a wrong PIN"
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN"
    dialog_unlock "$PIN" "a wrong PIN, then the PIN" pin
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    # nonotice: Cinnamon's "Incorrect password" is where the notice would be
    # shown; it waits, unspent, for a sign-in that shows it.
    assert_not_contains "$(infos)" "failed PIN attempt" "the info lines"
    assert_eq 1 "$(unseen)" "failed attempts not yet told"

    # 3. Two wrong PINs, then the PIN.
    dialog_lock
    x type "${WRONG_PINS[1]}" > /dev/null
    asked 2
    x type "${WRONG_PINS[2]}" > /dev/null
    asked 3
    assert_eq 2 "$(seen CS_PAM_AUTH_FAILURE)" "failures the helper reported"
    still_locked "after two wrong PINs"
    assert_eq 2 "$(count alice)" "alice's failures after two wrong PINs"
    dialog_unlock "$PIN" "two wrong PINs, then the PIN" pin
    assert_eq "PIN or password|PIN or password|PIN or password|" "$(questions | tr '\n' '|')" "the questions"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"
    assert_eq 3 "$(unseen)" "failed attempts not yet told"
    never_followed "$PIN" "${WRONG_PINS[@]:0:3}"
    assert_eq "" "$(handed_on)$(refused_by_unix)" "what reached the password modules in cases 1-3"

    # 4. The password: handed on by PinGate's question, taken by pam_unix.
    dialog_lock
    dialog_unlock "$ALICE_PASSWORD" "the password" password
    assert_eq 0 "$(count alice)" "alice's failures after the password"
    assert_eq "$ALICE_PASSWORD" "$(handed_on)" "what PinGate handed on"
    assert_eq "" "$(refused_by_unix)" "what pam_unix refused"
    # A wrong PIN, then the password at the next question.
    dialog_lock
    x type "${WRONG_PINS[3]}" > /dev/null
    asked 2
    dialog_unlock "$ALICE_PASSWORD" "a wrong PIN, then the password" password
    assert_eq 1 "$(count alice)" "alice's failures after a wrong PIN and the password"

    # 5. The PIN locked: five different wrong PINs.
    lock_the_pin alice
    dialog_lock
    shot debian13-cinnamon-pin-locked
    echo "      while the PIN is locked: questions $(questions | tr '\n' '|'), info lines $(infos | tr '\n' '|')" >&2
    assert_eq "Password: " "$(questions)" "the question while the PIN is locked (pam_unix's)"
    assert_contains "$(infos)" "PIN locked for " "the info line while the PIN is locked"
    assert_contains "$(infos)" " after 5 failed attempts — use your password" "the info line while the PIN is locked"
    # ... wiped at once: the entry, ready for pam_unix's question, clears it.
    # The person sees "Please enter your password..." and no reason.
    assert_eq "SET_INFO SET_PROMPT BUSY_FALSE " "$(events)" "what the helper told the dialog while the PIN is locked"
    dialog_unlock "$ALICE_PASSWORD" "the password while the PIN is locked" password
    never_followed "$PIN" "${WRONG_PINS[@]}"

    echo "    $(( ($(date +%s%N) - start) / 1000000 )) ms in all"
}

# shellcheck disable=SC2034  # read by run_screen_tests
DOC_SCREENSHOTS=(debian13-cinnamon-before debian13-cinnamon-wrong-pin)
run_screen_tests "Return to unlocked" pin password
