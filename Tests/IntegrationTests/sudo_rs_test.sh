#!/bin/bash
# sudo_rs_test.sh — sudo-rs (Debian 13's package sudo-rs, 0.2.5: the binary
# /usr/lib/cargo/bin/sudo, also called as sudo-rs) with PinGate, on a booted
# Debian 13 container (booted_test.sh and container_lib.sh say how it is
# made, booted and driven).
#
# sudo-rs authenticates through PAM service `sudo`, but ships no
# /etc/pam.d/sudo: with the sudo package installed libpam reads sudo's file,
# without it /etc/pam.d/other. sudo-rs is in a cached layer over the Debian
# 13 tree (booted_lib.sh's layer: container_layer, made once per machine).
# Each test boots a fresh container, installs
# the package (apt-get install ./pingate_….deb), makes alice (a sudoer, PIN
# 4827) and bob, turns the Debian profile on (pam-auth-update) and starts
# sshd, then sets one of four configurations:
#
#   the profile, sudo's file          common-auth's `pam_pingate.so forward_pass`, read through /etc/pam.d/sudo
#   the profile, no sudo file         the same, read through /etc/pam.d/other
#   pingate enable sudo, sudo's file  the profile off, `auth sufficient pam_pingate.so` in /etc/pam.d/sudo
#   pingate enable sudo, no sudo file the profile off: enable has no file to put its line in (see that test)
#
# and types at sudo-rs's own prompts, on a real terminal (pty_drive.py on the
# host, through systemd-run --pty or ssh -tt inside): from alice's seat
# session the PIN works, a wrong PIN is counted (`pingate status alice
# --json`) and the next run tells of it inside the question, before the PIN
# is typed, the password works; over ssh no PIN is offered, the PIN typed at
# the password prompt is not counted, and the password works. What the
# person saw is compared line by line (seen: colours gone, the time HH:MM).
#
# sudo-rs passes PAM_SILENT for a plain command (`sudo-rs id -u`): PinGate's
# info lines ("PIN sign-in is offered only at the machine") are not shown,
# the notice of failed attempts goes into the question itself, and after a
# wrong PIN on enable's line PinGate asks the password itself, "Wrong PIN —
# 4 attempts left" above it. With -s (and -i, tried by hand) it does not: they come, as
# "[sudo] …" lines. Every prompt is prefixed "[sudo: authenticate] ".
#
# Transcripts are kept in $REPORT_DIR/sudo-rs-*.txt.
#
# Run as root: bash Tests/IntegrationTests/sudo_rs_test.sh
# (PINGATE_BOOTED_DEB=FILE: that package instead of this tree's build.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/container_lib.sh"

# The transcripts are kept in booted_test.sh's REPORT_DIR.
. "$(dirname "${BASH_SOURCE[0]}")/booted_lib.sh" sudo-rs booted

# sudo_rs_setup CONFIG: a booted Debian 13 with pingate, alice, bob, sshd and
# the configuration CONFIG (profile-sudo-file, profile-other,
# enable-sudo-file, enable-other); SETUP is what the configuration step said.
# (Not to be run in $(…): the container goes with the subshell that booted it.)
sudo_rs_setup() {
    need_deb
    layer trixie sudo-rs sudo-rs
    boot trixie --layer "$LAYER"
    # A poweroff is quick with the user managers gone; when they hang, a kill.
    end_with
    install_deb trixie "$DEB"
    setup_users trixie
    write_tty_program
    SETUP="$(CT_TIMEOUT=60 ct_sh "$1" 2>&1 <<'EOF'
case "$1" in
    profile-other|enable-other) rm /etc/pam.d/sudo ;;
esac
case "$1" in
    enable-*) pam-auth-update --disable pingate < /dev/null 2> /dev/null
              pingate enable sudo; echo "enable: status $?" ;;
esac
echo "sudo-rs $(dpkg-query -W -f='${Version}' sudo-rs), $(readlink -f /usr/bin/sudo-rs)"
lines=none
[ ! -e /etc/pam.d/sudo ] || lines="$(grep -c pam_pingate /etc/pam.d/sudo)"
echo "/etc/pam.d/sudo: $lines PinGate lines; common-auth: $(grep -c pam_pingate /etc/pam.d/common-auth)"
pingate stack sudo | head -1
EOF
)"
    echo "    $(tr '\n' ';' <<< "$SETUP")"
}

# sudo_rs_cases QUESTION: the runs every configuration gets, QUESTION being
# the PIN's ("PIN or password:" for the profile's forward_pass, "PIN:" for
# enable's line). Each compares what alice saw, and her counts.
sudo_rs_cases() {
    local q="$1" saw
    # 1. The PIN, at the seat.
    saw="$(try_tty "the PIN" seat "expect:$q " "send:$PIN\r" -- sudo-rs -k id -u)"
    assert_eq "[sudo: authenticate] $q
0
status=0" "$saw" "sudo-rs with the PIN from alice's seat session"
    assert_eq 0 "$(count alice)" "alice's failures after the PIN"

    # 2. A wrong PIN, then the password: counted, told in the next question
    # (the profile: sudo-rs asks again; enable's line: PinGate's own password
    # question says it, and pam_unix takes the answer).
    if [ "$q" = "PIN or password:" ]; then
        saw="$(try_tty "a wrong PIN, then the password" seat "expect:$q " "send:$WRONG_PIN\r" \
            "expect:$q " "send:$ALICE_PASSWORD\r" -- sudo-rs -k id -u)"
        assert_eq "[sudo: authenticate] $q
sudo: Authentication failed, try again.
[sudo: authenticate] 1 failed PIN attempt since your last PIN sign-in, at HH:MM
$q
0
status=0" "$saw" "sudo-rs with a wrong PIN, then the password"
    else
        saw="$(try_tty "a wrong PIN, then the password" seat "expect:$q " "send:$WRONG_PIN\r" \
            "expect:Password (not your PIN) for alice: " "send:$ALICE_PASSWORD\r" -- sudo-rs -k id -u)"
        assert_eq "[sudo: authenticate] $q
[sudo: authenticate] Wrong PIN — 4 attempts left
Password (not your PIN) for alice:
0
status=0" "$saw" "sudo-rs with a wrong PIN, then the password"
    fi
    assert_eq "1 1" "$(count alice) $(unseen)" "alice's failures and unseen failures after a wrong PIN"

    # 3. The next run: the notice comes inside the question, before the PIN
    # is typed (pty_drive types only once both are on the screen).
    saw="$(try_tty "the next run: the notice, then the PIN" seat \
        "expect:1 failed PIN attempt since your last PIN sign-in" "expect:$q " "send:$PIN\r" -- sudo-rs -k id -u)"
    assert_eq "[sudo: authenticate] 1 failed PIN attempt since your last PIN sign-in, at HH:MM
$q
0
status=0" "$saw" "sudo-rs after a wrong PIN: the notice, then the PIN"
    assert_eq "0 0" "$(count alice) $(unseen)" "alice's failures and unseen failures after the notice and the PIN"

    # 4. Told once: the run after has no notice.
    saw="$(try_tty "the PIN again" seat "expect:$q " "send:$PIN\r" -- sudo-rs -k id -u)"
    assert_eq "[sudo: authenticate] $q
0
status=0" "$saw" "sudo-rs with the PIN once the notice was told"

    # 5. The password alone, through the binary's own name: at the profile's
    # question, or after Enter at enable's "PIN:"; nothing counted.
    if [ "$q" = "PIN or password:" ]; then
        saw="$(try_tty "the password" seat "expect:$q " "send:$ALICE_PASSWORD\r" -- /usr/lib/cargo/bin/sudo -k id -u)"
        assert_eq "[sudo: authenticate] $q
0
status=0" "$saw" "/usr/lib/cargo/bin/sudo with the password from the seat"
    else
        saw="$(try_tty "Enter, then the password" seat "expect:$q " "send:\r" \
            "expect:Password: " "send:$ALICE_PASSWORD\r" -- /usr/lib/cargo/bin/sudo -k id -u)"
        assert_eq "[sudo: authenticate] $q
[sudo: authenticate] Password:
0
status=0" "$saw" "/usr/lib/cargo/bin/sudo with Enter, then the password, from the seat"
    fi
    assert_eq 0 "$(count alice)" "alice's failures after the password"

    # 6. Over ssh: only pam_unix asks; the PIN typed there is a wrong
    # password, not a PIN attempt; the password works.
    saw="$(try_tty "ssh: the PIN, then the password" ssh "expect:Password: " "send:$PIN\r" \
        "expect:Password: " "send:$ALICE_PASSWORD\r" -- sudo-rs -k id -u)"
    assert_eq "[sudo: authenticate] Password:
sudo: Authentication failed, try again.
[sudo: authenticate] Password:
0
status=0" "$saw" "sudo-rs over ssh: the PIN, then the password"
    assert_eq "0 0" "$(count alice) $(unseen)" "alice's failures and unseen failures after the PIN over ssh"
}

REPORT=/dev/null

test_sudo_rs_with_the_profile_through_sudos_pam_file() {
    REPORT="$REPORT_DIR/sudo-rs-profile-sudo-file.txt"; : > "$REPORT"
    local saw
    sudo_rs_setup profile-sudo-file
    local out="$SETUP"
    assert_contains "$out" "sudo-rs 0.2.5" "the sudo-rs package"
    assert_contains "$out" "/usr/lib/cargo/bin/sudo" "what sudo-rs is"
    assert_contains "$out" "/etc/pam.d/sudo: 0 PinGate lines; common-auth: 1" "the stacks"
    assert_contains "$out" "reads it: /etc/pam.d/sudo" "the file libpam reads for sudo"
    sudo_rs_cases "PIN or password:"

    # Without PAM_SILENT (-s): PinGate's lines come as "[sudo] …": a wrong
    # PIN is answered, and the notice is its own line above the question.
    saw="$(try_tty "-s: a wrong PIN, then the PIN" seat "expect:PIN or password: " "send:$WRONG_PIN\r" \
        "expect:1 failed PIN attempt" "expect:PIN or password: " "send:$PIN\r" -- sudo-rs -k -s id -u)"
    assert_eq "[sudo: authenticate] PIN or password:
[sudo] Wrong PIN — 4 attempts left
sudo: Authentication failed, try again.
[sudo] 1 failed PIN attempt since your last PIN sign-in, at HH:MM
[sudo: authenticate] PIN or password:
0
status=0" "$saw" "sudo-rs -s with a wrong PIN, then the PIN"
    assert_eq "0 0" "$(count alice) $(unseen)" "alice's failures and unseen failures after sudo-rs -s"
    saw="$(try_tty "-s over ssh: the password" ssh "expect:Password: " "send:$ALICE_PASSWORD\r" -- sudo-rs -k -s id -u)"
    assert_eq "[sudo] PIN sign-in is offered only at the machine — use your password
[sudo: authenticate] Password:
0
status=0" "$saw" "sudo-rs -s over ssh"
}

test_sudo_rs_with_the_profile_through_pam_d_other_without_sudos_file() {
    REPORT="$REPORT_DIR/sudo-rs-profile-other.txt"; : > "$REPORT"
    sudo_rs_setup profile-other
    local out="$SETUP"
    assert_contains "$out" "/etc/pam.d/sudo: none PinGate lines; common-auth: 1" "the stacks"
    assert_contains "$out" "no file of its own, so \"other\"'s" "the file libpam reads for sudo"
    sudo_rs_cases "PIN or password:"
}

test_sudo_rs_with_pingate_enable_sudo_in_sudos_pam_file() {
    REPORT="$REPORT_DIR/sudo-rs-enable-sudo-file.txt"; : > "$REPORT"
    sudo_rs_setup enable-sudo-file
    local out="$SETUP"
    assert_contains "$out" "enabled    /etc/pam.d/sudo (line: auth sufficient pam_pingate.so)" "pingate enable sudo"
    assert_contains "$out" "/etc/pam.d/sudo: 1 PinGate lines; common-auth: 0" "the stacks"
    sudo_rs_cases "PIN:"
}

# Without sudo's file, `pingate enable sudo` makes /etc/pam.d/sudo from
# /etc/pam.d/other, which libpam read for sudo-rs until then (the client
# table marks sudo so), with the PIN in front.
test_sudo_rs_with_pingate_enable_sudo_without_sudos_file() {
    REPORT="$REPORT_DIR/sudo-rs-enable-other.txt"; : > "$REPORT"
    sudo_rs_setup enable-other
    local out="$SETUP"
    assert_contains "$out" "enable: status 0" "pingate enable sudo without sudo's file"
    assert_contains "$out" "created    /etc/pam.d/sudo (from /etc/pam.d/other, which libpam used for sudo until now)" "pingate enable sudo"
    assert_contains "$out" "/etc/pam.d/sudo: 1 PinGate lines; common-auth: 0" "the stacks"
    sudo_rs_cases "PIN:"
}

run_tests
