#!/bin/bash
# run0_test.sh — systemd 257's run0 with PinGate, on a booted Debian 13
# container (booted_test.sh and container_lib.sh say how it is made, booted
# and driven).
#
# run0 asks systemd for a transient unit; systemd asks polkit (action
# org.freedesktop.systemd1.manage-units, auth_admin_keep for an active local
# session, auth_admin otherwise), and polkit asks the agent run0 starts on
# its own terminal: pkttyagent (Debian 13's polkitd package ships it), whose
# polkit-agent-helper-1 authenticates through PAM service polkit-1. Debian
# 13 ships that service only as /usr/lib/pam.d/polkit-1.
#
# Two configurations, each on a fresh container with alice (a sudoer, so an
# admin to polkit, PIN 4827) and sshd: the Debian profile (common-auth's
# `pam_pingate.so forward_pass`: one "PIN or password" question), and the
# profile off with `pingate enable polkit-1` (it makes /etc/pam.d/polkit-1
# from /usr/lib/pam.d/polkit-1 with `auth sufficient pam_pingate.so`: "PIN:",
# then pam_unix's "Password:"). From alice's seat session, on a real
# terminal (pty_drive.py on the host, systemd-run --pty inside): the PIN
# works, a wrong PIN is counted and told at once, and the next run0 tells of
# it before the question; over ssh no PIN is offered, the PIN typed there is
# refused and not counted, and the password works. pkttyagent shows
# PinGate's info lines as "Info: …". What the person saw is compared line by
# line (seen: colours gone, the time HH:MM); transcripts are kept in
# $REPORT_DIR/run0-*.txt.
#
# Run as root: bash Tests/IntegrationTests/run0_test.sh
# (PINGATE_BOOTED_DEB=FILE: that package instead of this tree's build.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"

# The transcripts are kept in booted_test.sh's REPORT_DIR.
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" run0 booted

REPORT=/dev/null
BANNER="==== AUTHENTICATING FOR org.freedesktop.systemd1.manage-units ====
Authentication is required to start transient unit 'run-pN-iN.service'.
Authenticating as: alice"
COMPLETE="==== AUTHENTICATION COMPLETE ===="
FAILED="polkit-agent-helper-1: pam_authenticate failed: Authentication failure
==== AUTHENTICATION FAILED ====
Failed to start transient service unit: Access denied"
NOT_HERE="Info: PIN sign-in is offered only at the machine — use your password"

# run0_setup CONFIG (profile or enable-polkit-1): a booted Debian 13 with
# pingate, alice, bob and sshd; SETUP is what the configuration step said.
# (Not to be run in $(…): the container goes with the subshell that booted it.)
run0_setup() {
    need_deb
    boot trixie
    end_with
    install_deb trixie "$DEB"
    setup_users trixie
    write_tty_program
    SETUP="$(CT_TIMEOUT=60 ct_sh "$1" 2>&1 <<'EOF'
if [ "$1" = enable-polkit-1 ]; then
    pam-auth-update --disable pingate < /dev/null 2> /dev/null
    pingate enable polkit-1; echo "enable: status $?"
fi
echo "systemd $(dpkg-query -W -f='${Version}' systemd), polkitd $(dpkg-query -W -f='${Version}' polkitd), $(dpkg -S /usr/bin/pkttyagent)"
echo "common-auth: $(grep -c pam_pingate /etc/pam.d/common-auth) PinGate lines"
pingate stack polkit-1 | head -1
EOF
)"
    echo "    $(tr '\n' ';' <<< "$SETUP")"
}

# try_run0 NAME CONTEXT STEP...: `run0 id -u` once (try_tty).
try_run0() {
    try_tty "$@" -- run0 id -u
}

# The agent polkitd saw for these runs: run0's pkttyagent.
agents() {
    ct_sh <<'EOF'
journalctl -q -o cat -u polkit.service | grep -o 'Registered Authentication Agent for unix-process:[^ ]* (system bus name [^ ]* \[[^]]*\]' |
    sed -E 's/unix-process:[0-9:]+/unix-process:N/; s/name :[0-9.]+/name :N/; s/--notify-fd [0-9]+/--notify-fd N/' | sort | uniq -c | tr -s ' '
EOF
}

# over_ssh: run0 over ssh, the same with either line: the PIN typed at
# "Password:" fails and counts nothing, the password works.
over_ssh() {
    local saw
    saw="$(try_run0 "ssh: the PIN" ssh "expect:Password: " "send:$PIN\r")"
    assert_eq "$BANNER
$NOT_HERE
Password:
$FAILED
status=1" "$saw" "run0 with the PIN over ssh"
    assert_eq "0 0" "$(count alice) $(unseen)" "alice's failures and unseen failures after the PIN over ssh"
    saw="$(try_run0 "ssh: the password" ssh "expect:Password: " "send:$ALICE_PASSWORD\r")"
    assert_eq "$BANNER
$NOT_HERE
Password:
$COMPLETE
0
status=0" "$saw" "run0 with the password over ssh"
}

test_run0_with_the_profile_takes_the_pin_at_the_seat_and_only_the_password_over_ssh() {
    REPORT="$REPORT_DIR/run0-profile.txt"; : > "$REPORT"
    local saw q="PIN or password:"
    run0_setup profile
    assert_contains "$SETUP" "systemd 257" "systemd"
    assert_contains "$SETUP" "polkitd: /usr/bin/pkttyagent" "pkttyagent's package"
    assert_contains "$SETUP" "common-auth: 1 PinGate lines" "the profile"
    assert_contains "$SETUP" "reads it: /usr/lib/pam.d/polkit-1" "the file libpam reads for polkit-1"

    saw="$(try_run0 "the PIN" seat "expect:$q " "send:$PIN\r")"
    assert_eq "$BANNER
$q
$COMPLETE
0
status=0" "$saw" "run0 with the PIN from alice's seat session"

    # A wrong PIN ends the try: polkit's helper asks once.
    saw="$(try_run0 "a wrong PIN" seat "expect:$q " "send:$WRONG_PIN\r")"
    assert_eq "$BANNER
$q
Info: Wrong PIN — 4 attempts left
$FAILED
status=1" "$saw" "run0 with a wrong PIN from alice's seat session"
    assert_eq "1 1" "$(count alice) $(unseen)" "alice's failures and unseen failures after a wrong PIN"

    saw="$(try_run0 "the next run: the notice, then the PIN" seat \
        "expect:Info: 1 failed PIN attempt since your last PIN sign-in" "expect:$q " "send:$PIN\r")"
    assert_eq "$BANNER
Info: 1 failed PIN attempt since your last PIN sign-in, at HH:MM
$q
$COMPLETE
0
status=0" "$saw" "run0 after a wrong PIN: the notice, then the PIN"
    assert_eq "0 0" "$(count alice) $(unseen)" "alice's failures and unseen failures after the notice and the PIN"

    saw="$(try_run0 "the password" seat "expect:$q " "send:$ALICE_PASSWORD\r")"
    assert_eq "$BANNER
$q
$COMPLETE
0
status=0" "$saw" "run0 with the password from alice's seat session"

    over_ssh

    local seen_agents
    seen_agents="$(agents)"
    echo "      polkitd: $(tr '\n' ';' <<< "$seen_agents")"
    assert_eq " 6 Registered Authentication Agent for unix-process:N (system bus name :N [/usr/bin/pkttyagent --notify-fd N --fallback]" \
        "$seen_agents" "the agents polkitd registered"
}

test_run0_with_pingate_enable_polkit_1_takes_the_pin_at_the_seat_and_only_the_password_over_ssh() {
    REPORT="$REPORT_DIR/run0-enable-polkit-1.txt"; : > "$REPORT"
    local saw
    run0_setup enable-polkit-1
    assert_contains "$SETUP" "created    /etc/pam.d/polkit-1 (from /usr/lib/pam.d/polkit-1" "pingate enable polkit-1"
    assert_contains "$SETUP" "common-auth: 0 PinGate lines" "the profile, off"
    assert_contains "$SETUP" "reads it: /etc/pam.d/polkit-1" "the file libpam reads for polkit-1"

    saw="$(try_run0 "the PIN" seat "expect:PIN: " "send:$PIN\r")"
    assert_eq "$BANNER
PIN:
$COMPLETE
0
status=0" "$saw" "run0 with the PIN from alice's seat session"

    # A wrong PIN: told, then pam_unix asks in the same try.
    saw="$(try_run0 "a wrong PIN, then the password" seat "expect:PIN: " "send:$WRONG_PIN\r" \
        "expect:Password: " "send:$ALICE_PASSWORD\r")"
    assert_eq "$BANNER
PIN:
Info: Wrong PIN — 4 attempts left
Password:
$COMPLETE
0
status=0" "$saw" "run0 with a wrong PIN, then the password"
    assert_eq "1 1" "$(count alice) $(unseen)" "alice's failures and unseen failures after a wrong PIN"

    saw="$(try_run0 "the next run: the notice, then the PIN" seat \
        "expect:Info: 1 failed PIN attempt since your last PIN sign-in" "expect:PIN: " "send:$PIN\r")"
    assert_eq "$BANNER
Info: 1 failed PIN attempt since your last PIN sign-in, at HH:MM
PIN:
$COMPLETE
0
status=0" "$saw" "run0 after a wrong PIN: the notice, then the PIN"
    assert_eq "0 0" "$(count alice) $(unseen)" "alice's failures and unseen failures after the notice and the PIN"

    over_ssh
}

run_tests
