#!/bin/bash
# gnome13_test.sh — GNOME 48's unlock and login with a PIN against Debian 13's
# own gdm3 48 package, booted (issue 31): Debian's /etc/pam.d/gdm-password,
# gdm-fingerprint and gdm-smartcard as the package installs them, run by
# Debian 13's libpam 1.7 with real systemd 257, logind and the real
# pam_fprintd with fprintd. gnome_test.sh runs the same emulation on the
# build machine against Debian 12's gdm3 43 stacks with stand-ins.
#
# How (container_lib.sh, booted_lib.sh; booted_test.sh says how the trees
# are made and booted):
#   * Layer and gdm: gdm3_lib.sh's (gdm3 and libpam-fprintd over the cached
#     Debian 13 tree). Booted, gdm3's daemon runs (gdm.service) but shows
#     nothing: its daemon.conf turns off Wayland and X11 login screens, so
#     no greeter and no worker of its own ever starts. (With Debian's own
#     daemon.conf gdm crashed and restarted every ~12 s trying an X11
#     greeter on seat0; see gdm3_lib.sh.)
#   * gnome_shell13_test.sh runs the real GNOME Shell 48's lock screen; this
#     test keeps what it cannot show there (a fingerprint reader beside,
#     the login screen's first sign-in, a remote display, a smartcard).
#     Here pam/tests/gnome_unlock (built on this
#     machine by `make -C pam harness`, copied in: Debian 12's glibc and
#     libpam ABI run on Debian 13) does what gdm 48's worker and gnome-shell
#     48's authPrompt.js and util.js do when a person unlocks or signs in
#     (its header names each step): it runs PAM as root, as gdm's worker
#     does, one conversation per service, and prints what the person sees
#     (HINT: the entry's hint, INFO, ERROR, NOTE, RESULT) and what nobody
#     sees (UNSEEN: a question of a conversation beside the field; BESIDE:
#     how that conversation ended). The test runs it inside as root and
#     types each answer when a HINT comes (through two FIFOs on this side),
#     so the time from the last answer's Enter to RESULT is measured.
#   * PAM: `pingate enable gdm-password` (the package's CLI) writes its line
#     into Debian's /etc/pam.d/gdm-password; `pingate enable
#     gdm-fingerprint` and `gdm-smartcard` must refuse and change nothing.
#     gdm-smartcard is an alternative (update-alternatives): Debian 13's
#     default is gdm-smartcard-sssd-or-password (priority 50), beside
#     sssd-exclusive (40) and pkcs11-exclusive (30); their pam_sss and
#     pam_pkcs11 are not installed (gdm3 only suggests them), so libpam
#     loads a faulty module in their place, and each goes on to common-auth,
#     where the Debian profile's PinGate line (`pam-auth-update --enable
#     pingate`) stands in one of the runs.
#   * Sessions: alice (uid 4831; any would do) has a seat session when she
#     unlocks, made by logind from systemd-run with
#     PAMName=login and XDG_SEAT=seat0, XDG_SESSION_TYPE=wayland,
#     XDG_SESSION_CLASS=user (booted_lib.sh's `pingate-case seat-start
#     wayland`), as gdm makes one. Without it, the login screen's sign-in is
#     the first of the boot and takes the password (the FirstSignInRule);
#     her user manager's own session (class manager) does not count.
#   * Counting: `pingate status alice --json` inside, also while
#     gnome_unlock waits at a question.
#   * Each test boots its own container; at its end alice's seat session
#     and user manager are stopped first, so the poweroff is quick.
#
# Run as root: bash Tests/IntegrationTests/gnome13_test.sh
# (TEST_FILTER=word to pick one; PINGATE_BOOTED_DEB=path: test that package
# instead of building one from the tree.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"

. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" gnome13
. "$(dirname "${BASH_SOURCE[0]}")/booted_screen_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/gdm3_lib.sh"

ALICE_UID=4831
GNOME_UNLOCK="$REPO_ROOT/pam/build/gnome_unlock"
# What gdm 48 says when a conversation failed (gdm_failed_message).
PASSWORD_FAILED="ERROR Sorry, password authentication didn’t work. Please try again."
SMARTCARD_FAILED="ERROR Sorry, smart card authentication didn’t work. Please try again."
FIRST_SIGN_IN="INFO The first sign-in since the machine started takes your password; the PIN unlocks after that"
NOT_HERE="INFO PIN sign-in is offered only at the machine — use your password"

# setup: the package, gnome_unlock, alice with her password and PIN, and
# `pingate enable gdm-password` on Debian's file; prints the auth lines of
# the stack it wrote.
setup() {
    install_deb trixie "$DEB"
    [ -x "$GNOME_UNLOCK" ] || make -s -C "$REPO_ROOT/pam" all harness > "$WORK/make.out" 2>&1 ||
        fail "make -C pam all harness failed: $(cat "$WORK/make.out")"
    install -m 0755 "$GNOME_UNLOCK" "$(ct_root)/usr/local/bin/gnome_unlock"
    # (run with sh: a program of the container's, as booted_lib.sh's are)
    cat > "$(ct_root)/usr/local/bin/pingate-gnome" <<'EOF'
exec /usr/local/bin/gnome_unlock --user alice "$@"
EOF
    write_try_program
    local out
    out="$(CT_TIMEOUT=60 ct_sh "$PIN" "$ALICE_PASSWORD" "$ALICE_UID" 2>&1 <<'EOF'
set -e
useradd -m -s /bin/sh -u "$3" alice
printf 'alice:%s\n' "$2" | chpasswd
printf '%s\n%s\n' "$1" "$1" | pingate enroll alice --pin --stdin > /dev/null
pingate enable gdm-password > /dev/null
grep -E '^(auth|@include common-auth)' /etc/pam.d/gdm-password | tr -s ' \t' ' '
EOF
)" || fail "setting up alice and gdm-password failed: $out"
    printf '%s\n' "$out"
}

# The stack `pingate enable gdm-password` makes of Debian 13's file.
GDM_PASSWORD_AUTH="auth requisite pam_nologin.so
auth required pam_succeed_if.so user != root quiet_success
auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password
@include common-auth
auth optional pam_gnome_keyring.so"

# seat_session: alice's seat session, as gdm opens one (Wayland); the exit
# trap ends it, her user manager and the container.
seat_session() {
    local out
    out="$(CT_TIMEOUT=30 ct_sh 2>&1 <<'EOF'
sh /usr/local/bin/pingate-case seat-start wayland && loginctl list-sessions --no-legend | tr -s ' ' | tr '\n' ';'
EOF
)" || fail "alice's seat session: $out"
    echo "    alice's sessions: $out"
}
# boot: gdm3_lib.sh's boot_gdm3, whose exit trap ends her seat session
# before the poweroff.
boot_gnome13() { boot_gdm3 "CT_TIMEOUT=20 ct sh /usr/local/bin/pingate-case seat-stop > /dev/null 2>&1"; }

# gnome ANSWER... [-- OPTION...]: gnome_unlock --user alice OPTION... inside,
# as root; at each HINT the next ANSWER is typed and entered (@count instead
# records alice's failure count in COUNTS, then goes on to the next); at a
# HINT with no answer left, the person walks away (stdin closed). Sets out
# (the transcript, with the clock of a notice as HH:MM), rc (its status) and
# ms (from the last answer's Enter to RESULT).
gnome() {
    local answers=() line next=0 sent="" to from pid
    while [ $# -gt 0 ] && [ "$1" != -- ]; do answers+=("$1"); shift; done
    [ $# -eq 0 ] || shift
    out="" rc="none" ms="" COUNTS=()
    # Through two FIFOs, not a coprocess: bash closes a coprocess's
    # descriptors as soon as it has reaped it, which may be before its last
    # line was read.
    rm -f "$WORK/typed" "$WORK/seen"
    mkfifo "$WORK/typed" "$WORK/seen"
    { CT_TIMEOUT=120 ct sh /usr/local/bin/pingate-gnome "$@" 2>&1; echo "EXIT $?"; } < "$WORK/typed" > "$WORK/seen" &
    pid=$!
    exec {to}> "$WORK/typed" {from}< "$WORK/seen"
    while IFS= read -r -t 150 line <&"$from"; do
        case "$line" in "EXIT "*) rc="${line#EXIT }"; break ;; esac
        out+="$line"$'\n'
        case "$line" in
            "HINT "*)
                while [ "$next" -lt "${#answers[@]}" ] && [ "${answers[$next]}" = @count ]; do
                    COUNTS+=("$(count alice)"); next=$((next + 1))
                done
                if [ "$next" -lt "${#answers[@]}" ]; then
                    sent=$(date +%s%N)
                    printf '%s\n' "${answers[$next]}" >&"$to"
                    next=$((next + 1))
                elif [ -n "$to" ]; then
                    exec {to}>&-
                    to=""
                fi ;;
            "RESULT "*) [ -z "$sent" ] || ms=$(( ($(date +%s%N) - sent) / 1000000 )) ;;
        esac
    done
    if [ -n "$to" ]; then exec {to}>&-; fi
    exec {from}<&-
    wait "$pid" 2> /dev/null || true
    out="$(sed -E 's/\bat [0-9]{2}:[0-9]{2}\b/at HH:MM/g' <<< "${out%$'\n'}")"
}
# show WHAT: the transcript, indented, under WHAT (and the time, if any).
show() {
    echo "      $1${ms:+ (Enter to RESULT $ms ms)}:" >&2
    sed 's/^/        | /' <<< "$out" >&2
}
hints() { sed -n 's/^HINT //p' <<< "$out" | tr '\n' '|'; }
# journal_of SERVICE: pingate's syslog lines for SERVICE this boot.
pingate_lines_for() {
    ct_sh "$1" <<'EOF'
journalctl -b -q -o cat --no-pager SYSLOG_IDENTIFIER=pingate | grep -F "service=$1" || true
EOF
}

# --- the stacks ---------------------------------------------------------------------

# Debian 13's gdm3 48: the versions, gdm-password after `pingate enable`
# (the line before `@include common-auth`), gdm-fingerprint (pam_fprintd
# alone) and gdm-smartcard (an alternative, sssd-or-password by default),
# which `pingate enable` refuses (exit 2), leaving every file as it was.
test_debian_13_gdm3_48_pingate_enable_gdm_password_and_refusals() {
    local out stack
    boot_gnome13
    out="$(ct_sh 2>&1 <<'EOF'
echo "versions: $(dpkg-query -W -f='${Package} ${Version}, ' gdm3 gnome-shell libpam-fprintd fprintd libpam0g systemd)"
echo "gdm.service: $(systemctl is-active gdm.service), sessions: $(loginctl list-sessions --no-legend | wc -l)"
echo "gdm-smartcard: $(readlink -f /etc/pam.d/gdm-smartcard)"
EOF
)"
    echo "    $(tr '\n' ' ' <<< "$out")"
    assert_contains "$out" "gdm3 48." "gdm3's version"
    assert_contains "$out" "gnome-shell 48." "gnome-shell's version"
    assert_contains "$out" "libpam0g 1.7." "libpam's version"
    assert_contains "$out" "gdm.service: active, sessions: 0" "gdm's daemon, idle"
    assert_contains "$out" "gdm-smartcard: /etc/pam.d/gdm-smartcard-sssd-or-password" "the gdm-smartcard alternative"
    local before after
    before="$(ct_sh <<'EOF'
cd /etc/pam.d && sha256sum gdm-fingerprint gdm-smartcard-* common-auth && ls -l gdm-smartcard | sed 's/.* -> //'
EOF
)"
    stack="$(setup)"
    echo "    gdm-password's auth lines after pingate enable gdm-password:" >&2
    sed 's/^/      | /' <<< "$stack" >&2
    assert_eq "$GDM_PASSWORD_AUTH" "$stack" "gdm-password's auth lines after pingate enable gdm-password"
    out="$(ct_sh 2>&1 <<'EOF'
echo "gdm-fingerprint: $(grep -E '^(auth|@include)' /etc/pam.d/gdm-fingerprint | tr -s ' \t' ' ' | tr '\n' ';')"
for service in gdm-fingerprint gdm-smartcard; do
    pingate enable "$service"; echo "status $?"
done
pingate doctor 2>&1 | grep -iE 'gdm|gnome' || true
EOF
)"
    printf '%s\n' "$out" | sed 's/^/    /'
    assert_contains "$out" "gdm-fingerprint: auth requisite pam_nologin.so;auth required pam_succeed_if.so user != root quiet_success;auth required pam_fprintd.so;auth optional pam_gnome_keyring.so;" \
        "Debian 13's gdm-fingerprint"
    assert_contains "$out" "pingate: refusing to enable gdm-fingerprint: no person ever sees its questions" "pingate enable gdm-fingerprint"
    assert_contains "$out" "pingate: refusing to enable gdm-smartcard: no person ever sees its questions" "pingate enable gdm-smartcard"
    assert_eq 2 "$(grep -c '^status 2$' <<< "$out")" "the exit statuses of pingate enable gdm-fingerprint and gdm-smartcard"
    after="$(ct_sh <<'EOF'
cd /etc/pam.d && sha256sum gdm-fingerprint gdm-smartcard-* common-auth && ls -l gdm-smartcard | sed 's/.* -> //'
EOF
)"
    assert_eq "$before" "$after" "gdm-fingerprint, gdm-smartcard and common-auth after pingate enable and the refusals"
}

# --- 1. unlocking: alice's seat session runs ---------------------------------------------

# The PIN, a wrong PIN, the password and the notice at the lock screen are
# gnome_shell13_test.sh's, typed into the real GNOME Shell 48. Here only
# what it cannot show: a fingerprint reader beside gdm-password.

# GNOME with a fingerprint reader enabled runs gdm-fingerprint beside
# gdm-password. Here the real pam_fprintd asks D-Bus for fprintd, which is
# activated, finds no reader ("No devices available") and pam_fprintd ends
# PAM_AUTHINFO_UNAVAIL at once, saying nothing: gdm's "service unavailable",
# no retry. Nothing of the PIN is asked there, neither with Debian's file
# nor with PinGate's line copied into it by hand (the module refuses
# gdm-fingerprint before asking its helper); the PIN is asked and counted in
# gdm-password only, and a wrong PIN left there counts once.
test_debian_13_gdm3_48_fingerprint_beside_asks_no_pin() {
    local out copy
    boot_gnome13
    setup > /dev/null
    seat_session
    out="$(ct_sh <<'EOF'
systemctl is-active fprintd.service || true
EOF
)"
    assert_eq inactive "$out" "fprintd before the first fingerprint conversation"
    for copy in no yes; do
        if [ "$copy" = yes ]; then
            out="$(ct_sh 2>&1 <<'EOF'
line="$(grep pam_pingate /etc/pam.d/gdm-password)"
sed -i "s|^auth\s*required\s*pam_fprintd\.so|$line\n&|" /etc/pam.d/gdm-fingerprint
grep -E '^auth' /etc/pam.d/gdm-fingerprint | tr -s ' \t' ' ' | tr '\n' ';'
EOF
)"
            echo "    gdm-fingerprint with PinGate's line copied in: $out" >&2
            assert_contains "$out" "again_or_password;auth required pam_fprintd.so;" "gdm-fingerprint with PinGate's line"
        fi
        gnome "$WRONG_PIN" @count "$PIN" -- --fingerprint; show "fingerprint beside (PinGate's line there: $copy), a wrong PIN, then the PIN"
        record pin-fingerprint "$ms"
        # The second pass first tells of the first pass's wrong PIN.
        local notice=""
        [ "$copy" = no ] || notice="INFO 1 failed PIN attempt since your last PIN sign-in, at HH:MM"$'\n'
        assert_eq "${notice}HINT PIN or password
INFO Wrong PIN — 4 attempts left
HINT PIN or password
RESULT unlocked" "$(grep -v '^BESIDE ' <<< "$out")" "gdm-password's transcript (line copied: $copy)"
        assert_eq "BESIDE gdm-fingerprint PAM_AUTHINFO_UNAVAIL" "$(grep -e '^BESIDE ' -e '^UNSEEN ' -e '^NOTE ' <<< "$out")" \
            "the fingerprint conversation (line copied: $copy)"
        assert_eq 1 "${COUNTS[0]:-none}" "alice's failures at the second question (line copied: $copy)"
        assert_eq 0 "$(count alice)" "alice's failures after the PIN (line copied: $copy)"
    done
    # The wrong PIN typed, then the person walks away: one failure.
    gnome "$WRONG_PIN" -- --fingerprint; show "fingerprint beside, a wrong PIN, then nothing"
    assert_eq "RESULT cancelled" "$(tail -n 1 <<< "$out")" "the result"
    assert_not_contains "$out" "UNSEEN" "the transcript"
    assert_eq 1 "$(count alice)" "alice's failures after one wrong PIN"
    out="$(ct_sh 2>&1 <<'EOF'
echo "fprintd: $(systemctl is-active fprintd.service)"
busctl call net.reactivated.Fprint /net/reactivated/Fprint/Manager net.reactivated.Fprint.Manager GetDefaultDevice 2>&1 || true
EOF
)"
    echo "    $(tr '\n' ' ' <<< "$out")" >&2
    assert_contains "$out" "fprintd: active" "fprintd, D-Bus activated by pam_fprintd"
    assert_contains "$out" "No devices available" "fprintd's default device"
    assert_eq "" "$(pingate_lines_for gdm-fingerprint)" "pingate's syslog lines for gdm-fingerprint"
}

# --- 2. the login screen's first sign-in of the boot ---------------------------------------

# No session of alice's yet: "Password" only, with a line that says why; the
# PIN typed there is a wrong password (gdm's failure), not a PIN. Once she
# has a seat session, the login screen (switching back to it) asks for the
# PIN or password, and the PIN signs in.
test_debian_13_gdm3_48_first_sign_in_takes_the_password_not_the_pin() {
    local out
    boot_gnome13
    setup > /dev/null
    out="$(ct_sh <<'EOF'
loginctl list-sessions --no-legend | awk '{print $3, $4, $6}' | tr '\n' ';'
EOF
)"
    assert_eq "" "$out" "sessions before the first sign-in"
    gnome "$PIN" "$ALICE_PASSWORD" -- --login; show "the first sign-in: the PIN, then the password"; record password-login "$ms"
    assert_eq "$FIRST_SIGN_IN
HINT Password
$PASSWORD_FAILED
$FIRST_SIGN_IN
HINT Password
RESULT signed in" "$out" "the first sign-in"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN typed at Password"
    seat_session
    gnome "$PIN" -- --login; show "the login screen with her seat session: the PIN"; record pin-login "$ms"
    assert_eq "HINT PIN or password
RESULT signed in" "$out" "switching back to her session"
}

# --- 3. a remote display ----------------------------------------------------------------------

# gdm sets PAM_RHOST (0.0.0.0 for a display with no host name): nobody
# there is at the machine, so no PIN is offered, even while alice has a
# seat session; a PIN typed at "Password" is a wrong password, not counted.
test_debian_13_gdm3_48_remote_display_takes_only_the_password() {
    local host
    boot_gnome13
    setup > /dev/null
    seat_session
    for host in 192.0.2.7 ""; do
        gnome "$PIN" "$ALICE_PASSWORD" -- --remote "$host"; show "a remote display, PAM_RHOST ${host:-0.0.0.0}: the PIN, then the password"
        record password-remote "$ms"
        assert_eq "$NOT_HERE
HINT Password
$PASSWORD_FAILED
$NOT_HERE
HINT Password
RESULT unlocked" "$out" "a remote display, PAM_RHOST ${host:-0.0.0.0}"
        assert_eq 0 "$(count alice)" "alice's failures, PAM_RHOST ${host:-0.0.0.0}"
    done
    gnome "$ALICE_PASSWORD" -- --remote 192.0.2.7 --login; show "a remote login screen: the password"
    assert_eq "$NOT_HERE
HINT Password
RESULT signed in" "$out" "a remote login screen"
}

# --- 4. a smartcard inserted: gdm-smartcard alone ----------------------------------------------

# Each of Debian 13's three gdm-smartcard files (the default first), without
# and with the Debian profile's PinGate line in common-auth: their pam_sss or
# pam_pkcs11 is not installed, so each goes on to common-auth (the two
# "exclusive" ones first say so with pam_echo), where pam_unix asks for the
# password; the PIN is never asked, a PIN typed there is a wrong password
# ("smart card authentication didn't work"), and nothing is counted. With the
# card out, gdm-password asks for the PIN again and it unlocks.
test_debian_13_gdm3_48_smartcard_asks_no_pin() {
    local out profile file echo_line
    boot_gnome13
    setup > /dev/null
    seat_session
    for profile in off on; do
        if [ "$profile" = on ]; then
            out="$(ct_sh 2>&1 <<'EOF'
pam-auth-update --enable pingate < /dev/null && grep pam_pingate /etc/pam.d/common-auth | tr -s ' \t' ' '
EOF
)"
            echo "    common-auth with the Debian profile on: $out" >&2
            assert_contains "$out" "pam_pingate.so forward_pass" "common-auth with the profile"
        fi
        for file in sssd-or-password sssd-exclusive pkcs11-exclusive; do
            out="$(ct_sh "$file" 2>&1 <<'EOF'
update-alternatives --quiet --set gdm-smartcard "/etc/pam.d/gdm-smartcard-$1" && readlink -f /etc/pam.d/gdm-smartcard
EOF
)"
            assert_eq "/etc/pam.d/gdm-smartcard-$file" "$out" "the gdm-smartcard alternative"
            case "$file" in
                sssd-or-password) echo_line="" ;;
                sssd-exclusive) echo_line="INFO SSSD PAM module is not installed, Smart card authentication is not supported, falling back to default mechanism"$'\n' ;;
                pkcs11-exclusive) echo_line="INFO PAM pkcs11 is not installed, Smart card authentication is not supported, falling back to default mechanism"$'\n' ;;
            esac
            gnome "$PIN" "$ALICE_PASSWORD" -- --smartcard; show "gdm-smartcard-$file (profile $profile): the PIN, then the password"
            record password-smartcard "$ms"
            assert_eq "${echo_line}HINT Password
$SMARTCARD_FAILED
${echo_line}HINT Password
RESULT unlocked" "$out" "gdm-smartcard-$file, the profile $profile"
            assert_eq 0 "$(count alice)" "alice's failures (gdm-smartcard-$file, the profile $profile)"
        done
        ct_sh > /dev/null <<'EOF'
update-alternatives --quiet --auto gdm-smartcard
EOF
        gnome "$PIN" -- ; show "the card out (profile $profile): the PIN"; record pin "$ms"
        assert_eq "HINT PIN or password
RESULT unlocked" "$out" "gdm-password with the card out, the profile $profile"
    done
    assert_eq "" "$(pingate_lines_for gdm-smartcard)" "pingate's syslog lines for gdm-smartcard"
    assert_eq "gdm: active, 0 restarts, seat0 sessions: alice " "$(gdm_idle)" "gdm after the smartcard cases"
}

run_screen_tests "the last answer's Enter to RESULT" \
    pin pin-fingerprint pin-login password password-login password-remote password-smartcard
