#!/bin/bash
# enable_test.sh — install.sh --enable never weakens a PAM stack.
#
# A correct PIN ends the auth stack (`auth sufficient pam_pingate.so`), so
# --enable must refuse a stack where that would skip more than the password,
# and a password sign-in must still pass every module the stack had.
#
# Refusals are checked on staged roots (--root): the stacks there are files,
# their modules need not exist, and "nothing changed" is a checksum of the
# whole tree. Sign-ins run through real libpam on the overlay's /etc/pam.d
# (overlay.sh) with pam/build/pam_harness, the installed module and helper,
# and test users added to the overlay's /etc/passwd.
# Run as root: bash Tests/IntegrationTests/enable_test.sh (TEST_FILTER=word)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/overlay.sh"
if [ "${PINGATE_IN_OVERLAY:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
    make -s -C "$REPO_ROOT/pam" all harness >&2 || { echo "make -C pam all harness failed"; exit 1; }
fi
overlay_enter "$@"

INSTALL="$REPO_ROOT/packaging/install.sh"
HARNESS="$REPO_ROOT/pam/build/pam_harness"
TEST_PASSWORD="correct horse"
TEST_PIN=4821
DEBIAN_STACKS=(sudo login common-auth common-account common-session common-session-noninteractive common-password)

# --- staged roots ------------------------------------------------------------

# stage_root: a fresh staged root with this system's (Debian 12's) stacks and an
# /etc/group to add the pingate group to; sets STAGE.
stage_root() {
    STAGE="$OVERLAY/stage"
    rm -rf "$STAGE"
    mkdir -p "$STAGE/etc/pam.d"
    printf 'root:x:0:\n' > "$STAGE/etc/group"
    printf 'root:*::\n' > "$STAGE/etc/gshadow"
    local stack
    for stack in "${DEBIAN_STACKS[@]}"; do cp -p "/etc/pam.d/$stack" "$STAGE/etc/pam.d/"; done
}

# stage_stack NAME LINE...: /etc/pam.d/NAME of the staged root, one line each.
stage_stack() {
    local name=$1; shift
    printf '%s\n' "$@" > "$STAGE/etc/pam.d/$name"
}

# tree_state DIR: every path under DIR with its type, mode, owner and content.
tree_state() {
    (cd "$1" && find . -printf '%p %y %m %u:%g ' \( -type f -exec sha256sum {} \; -o -printf '\n' \)) | LC_ALL=C sort
}

# install_staged ARGS...: install.sh --no-build --root STAGE ARGS; sets $out and $rc.
install_staged() {
    out="$("$INSTALL" --no-build --root "$STAGE" "$@" 2>&1)" && rc=0 || rc=$?
}

# A common-auth with a lockout before the password and a second factor after it.
stage_guarded_common_auth() {
    stage_stack common-auth \
        "auth    required                    pam_faillock.so preauth" \
        "auth    [success=1 default=ignore]  pam_unix.so nullok" \
        "auth    [default=die]               pam_faillock.so authfail" \
        "auth    requisite                   pam_deny.so" \
        "auth    required                    pam_permit.so" \
        "auth    required                    pam_google_authenticator.so nullok"
}

# --- sign-ins through libpam -------------------------------------------------

# install_here ARGS...: install.sh --no-build ARGS on the overlay system.
install_here() {
    "$INSTALL" --no-build "$@" > "$OVERLAY/install.out" 2>&1 ||
        fail "install.sh --no-build $* failed: $(cat "$OVERLAY/install.out")"
}

# add_user NAME PASSWORD: a local user (an empty PASSWORD leaves the field empty)
# with a PIN, in the overlay; cheap KDF parameters for the enrolment.
add_user() {
    local hash=""
    [ -z "$2" ] || hash="$(openssl passwd -6 "$2")"
    useradd -M -N -s /bin/sh -p "$hash" "$1" || fail "useradd $1"
    grep -q '^kdf_operations = 1$' /etc/pingate/pingate.conf ||
        printf 'kdf_operations = 1\nkdf_memory = 8K\n' >> /etc/pingate/pingate.conf
    printf '%s\n%s\n' "$TEST_PIN" "$TEST_PIN" | /usr/bin/pingate enroll "$1" --pin --stdin > /dev/null ||
        fail "pingate enroll $1 failed"
}

# sign_in SERVICE USER ANSWER: one pam_authenticate on the overlay's /etc/pam.d,
# ANSWER typed at every prompt; sets $out, $rc and $result.
sign_in() {
    out="$(printf '%s\n%s\n' "$3" "$3" | "$HARNESS" --confdir /etc/pam.d --service "$1" --user "$2" 2>&1)" && rc=0 || rc=$?
    result="$(sed -n 's/^RESULT //p' <<< "$out")"
}
prompts() { grep -c '^PROMPT_' <<< "$out" || true; }

# Debian's swaylock stack: the login stack, which includes common-auth.
debian_swaylock() { printf 'auth include login\n' > /etc/pam.d/swaylock; }

# --- refusals ------------------------------------------------------------------

test_enable_refuses_a_lockout_or_second_factor_behind_the_pin_and_changes_nothing() {
    stage_root
    stage_guarded_common_auth
    local before; before="$(tree_state "$STAGE")"
    install_staged --enable sudo
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "pam_faillock"
    assert_contains "$out" "/etc/pam.d/common-auth:1"
    assert_contains "$out" "pam_google_authenticator"
    assert_contains "$out" "/etc/pam.d/common-auth:6"
    assert_contains "$out" "--force"
    assert_not_contains "$out" "pam_unix " "the refusal (pam_unix is the password)"
    assert_eq "$before" "$(tree_state "$STAGE")" "the staged root after a refused --enable"
}

test_enable_follows_auth_include_and_substack_into_other_files() {
    stage_root
    stage_stack swaylock "auth include login"
    stage_stack extra-factor "auth required pam_u2f.so cue"
    printf 'auth substack extra-factor\n' >> "$STAGE/etc/pam.d/common-auth"
    local before; before="$(tree_state "$STAGE/etc/pam.d")"
    install_staged --enable locker swaylock
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "pam_u2f"
    assert_contains "$out" "/etc/pam.d/extra-factor:1"
    assert_eq "$before" "$(tree_state "$STAGE/etc/pam.d")" "stacks after a refused --enable"
}

test_enable_refuses_a_stack_it_cannot_read_to_the_end() {
    stage_root
    printf '@include common-auth-local\n' >> "$STAGE/etc/pam.d/sudo"
    install_staged --enable sudo
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "/etc/pam.d/common-auth-local"
    grep -q pam_pingate "$STAGE/etc/pam.d/sudo" && fail "sudo was enabled"
    return 0
}

# common-auth's pam_deny is jumped over by a password success; one that a
# password reaches is the admin closing the service, which a PIN must not open.
test_enable_refuses_a_service_the_admin_closed_with_pam_deny() {
    stage_root
    stage_stack i3lock "auth include login" "auth required pam_deny.so"
    install_staged --enable locker i3lock
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "pam_deny(unconditional)"
    assert_contains "$out" "/etc/pam.d/i3lock:2"
    assert_not_contains "$out" "common-auth" "the refusal (common-auth's pam_deny is jumped over)"
}

# libpam ends a comment at its line, backslash or not (the awk reader joined
# the next line to it and never saw the second factor).
test_enable_refuses_a_second_factor_after_a_comment_ending_in_a_backslash() {
    stage_root
    printf '%s\n' '# a second factor for admins \' 'auth required pam_google_authenticator.so' >> "$STAGE/etc/pam.d/sudo"
    install_staged --enable sudo
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "pam_google_authenticator"
    assert_contains "$out" "/etc/pam.d/sudo:$(grep -c '' "$STAGE/etc/pam.d/sudo")"
}

# libpam ends a [...] control at its ], space or not (the awk reader dropped
# the rule: its control never closed).
test_enable_refuses_a_second_factor_whose_control_touches_its_path() {
    stage_root
    printf '%s\n' 'auth [success=ok default=die]pam_u2f.so cue' >> "$STAGE/etc/pam.d/sudo"
    install_staged --enable sudo
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "pam_u2f"
}

test_force_enables_and_names_the_modules_a_pin_skips() {
    stage_root
    stage_guarded_common_auth
    install_staged --force --enable sudo
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_eq "auth       sufficient pam_pingate.so" "$(grep -B1 '^@include common-auth' "$STAGE/etc/pam.d/sudo" | head -1)"
    local warning; warning="$(grep '^warning: --force' <<< "$out")"
    assert_contains "$warning" "pam_faillock (/etc/pam.d/common-auth:1)"
    assert_contains "$warning" "pam_google_authenticator (/etc/pam.d/common-auth:6)"
}

test_force_without_enable_is_a_usage_error() {
    local rc=0 out
    out="$("$INSTALL" --no-build --force 2>&1)" || rc=$?
    assert_eq 2 "$rc" "exit status"
    assert_contains "$out" "--force only applies to --enable"
}

# Debian 12's own stacks hold only password modules: pam_cap, pam_group and
# pam_gnome_keyring take nothing away when skipped; login's pam_nologin runs
# before the PIN, and a locker's `auth include login` only unlocks a session.
test_plain_debian_stacks_still_enable_without_a_warning() {
    stage_root
    stage_stack i3lock "auth include login"
    stage_stack gdm-password \
        "auth    requisite       pam_nologin.so" \
        "auth    required        pam_succeed_if.so user != root quiet_success" \
        "@include common-auth" \
        "auth    optional        pam_gnome_keyring.so"
    install_staged --enable sudo --enable login --enable gdm-password --enable locker i3lock
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_eq "auth       sufficient pam_pingate.so nonotice" "$(grep -v '^#' "$STAGE/etc/pam.d/i3lock" | head -1)" "i3lock"
    assert_not_contains "$out" "warning" "install.sh output"
    local stack
    for stack in sudo login; do
        assert_eq "auth       sufficient pam_pingate.so" "$(grep -B1 '^@include common-auth' "$STAGE/etc/pam.d/$stack" | head -1)" "$stack"
    done
    # GNOME's lock screen keeps one field for every question: the second
    # wrong PIN ends the try, so pam_unix never asks while a PIN is offered
    # (gnome_test.sh).
    assert_eq "auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password" \
        "$(grep -B1 '^@include common-auth' "$STAGE/etc/pam.d/gdm-password" | head -1)" "gdm-password"
}

# KDE's lock screen asks for the service `kde`, which Debian does not ship
# (libpam then reads `other`): --enable creates it from other's stack with the
# PIN in front, and --disable removes it again. Its line (kde_test.sh shows
# why): a wrong PIN ends the conversation, so KDE clears its field; the first
# question takes the PIN or the password; an info line says so, which only
# kde's line asks for (other clients show the prompt itself).
test_enable_locker_kde_creates_the_service_from_other_and_disable_removes_it() {
    stage_root
    cp -p /etc/pam.d/other "$STAGE/etc/pam.d/other"
    install_staged   # the files an install adds (pingate-lock's service), before
    local before; before=$(tree_state "$STAGE/etc/pam.d")
    install_staged --enable locker kde
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_contains "$out" "created" "install.sh output"
    assert_eq "auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password announce" \
        "$(grep -B1 '^@include common-auth' "$STAGE/etc/pam.d/kde" | head -1)" "kde"
    assert_eq "$(grep -v '^#' /etc/pam.d/other | grep .)" \
        "$(grep -v '^#' "$STAGE/etc/pam.d/kde" | grep -v pam_pingate | grep .)" "kde is other's stack and the PIN"
    install_staged --disable kde
    assert_eq 0 "$rc" "exit status of --disable (output: $out)"
    assert_eq "$before" "$(tree_state "$STAGE/etc/pam.d")" "/etc/pam.d after --disable"
    stage_stack mate-screensaver "@include common-auth"
    stage_stack i3lock "auth include login"
    install_staged --enable locker mate-screensaver --enable locker i3lock --enable sudo
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_eq "" "$(grep -l announce "$STAGE/etc/pam.d/"*)" "files with announce"
}

# Phosh's lock screen asks for the service `phosh`, which Debian's phosh does
# not ship (libpam reads `other`): enable makes /etc/pam.d/phosh from other's
# stack with a one-field screen's line (phosh13_test.sh shows why: its keypad
# answers every question with the digits and shows no PAM line), and disable
# removes it again.
test_enable_phosh_creates_the_service_from_other_and_disable_removes_it() {
    stage_root
    cp -p /etc/pam.d/other "$STAGE/etc/pam.d/other"
    install_staged
    local before; before=$(tree_state "$STAGE/etc/pam.d")
    out="$("$CLI" enable --root "$STAGE" phosh 2>&1)" || fail "pingate enable phosh failed: $out"
    assert_contains "$out" "created    /etc/pam.d/phosh (from /etc/pam.d/other"
    assert_eq "auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password nonotice" \
        "$(grep -B1 '^@include common-auth' "$STAGE/etc/pam.d/phosh" | head -1)" "phosh"
    assert_eq "$(grep -v '^#' /etc/pam.d/other | grep .)" \
        "$(grep -v '^#' "$STAGE/etc/pam.d/phosh" | grep -v pam_pingate | grep .)" "phosh is other's stack and the PIN"
    out="$("$CLI" disable --root "$STAGE" phosh 2>&1)" || fail "pingate disable phosh failed: $out"
    assert_eq "$before" "$(tree_state "$STAGE/etc/pam.d")" "/etc/pam.d after pingate disable phosh"
}

# A jump above the insertion point that passes over it would land one rule
# earlier once the PinGate line is counted: with this stack pgbob's password
# failed before (the jump lands on pam_deny) and passed after.
test_enable_refuses_a_jump_that_would_cross_the_pin_line_and_changes_nothing() {
    stage_root
    stage_stack sudo "auth [success=1 default=ignore] pam_succeed_if.so quiet user = pgbob" "@include common-auth"
    local before; before="$(tree_state "$STAGE")"
    install_staged --enable sudo
    assert_eq 2 "$rc" "exit status (output: $out)"
    assert_contains "$out" "/etc/pam.d/sudo:1"
    assert_contains "$out" "--force"
    assert_eq "$before" "$(tree_state "$STAGE")" "the staged root after a refused --enable"
}

# --- pingate enable and disable ---------------------------------------------------

CLI="$REPO_ROOT/.build/release/pingate"

# Debian 13 ships Plasma 6's kde (and polkit-1) only in /usr/lib/pam.d: enable
# makes /etc/pam.d/kde from it, libpam reads that; disable deletes it, and
# libpam reads the distribution's file again, updated meanwhile or not.
test_pingate_enable_copies_a_distribution_stack_and_disable_removes_it() {
    stage_root
    mkdir -p "$STAGE/usr/lib/pam.d"
    printf '%s\n' "auth       requisite   pam_nologin.so" "@include common-auth" "@include common-account" > "$STAGE/usr/lib/pam.d/kde"
    local before; before="$(tree_state "$STAGE")"
    out="$("$CLI" enable --root "$STAGE" kde 2>&1)" || fail "pingate enable kde failed: $out"
    assert_contains "$out" "created    /etc/pam.d/kde (from /usr/lib/pam.d/kde"
    # There was no /etc/pam.d/kde to back up: its .pingate-backup only keeps what was made.
    assert_not_contains "$out" "backed up" "pingate enable kde's report"
    out="$("$CLI" stack --root "$STAGE" kde)"
    assert_contains "$out" "pingate_rule = /etc/pam.d/kde:4"
    assert_contains "$out" "rule = /etc/pam.d/kde:2 requisite pam_nologin.so"
    echo "auth optional pam_kwallet5.so" >> "$STAGE/usr/lib/pam.d/kde"
    local updated; updated="$(tree_state "$STAGE")"
    out="$("$CLI" disable --root "$STAGE" kde 2>&1)" || fail "pingate disable kde failed: $out"
    assert_contains "$out" "removed    /etc/pam.d/kde (made by pingate enable: libpam reads /usr/lib/pam.d/kde again)"
    assert_eq "$(grep -v ' ./etc/pam.d/kde' <<< "$updated")" "$(tree_state "$STAGE")" "the staged root after disable"
    assert_contains "$("$CLI" stack --root "$STAGE" kde | head -n 1)" "reads it: /usr/lib/pam.d/kde"
    [ -n "$before" ] || fail "no tree state"
}

test_pingate_enable_dry_run_prints_the_diff_and_changes_nothing() {
    stage_root
    local before; before="$(tree_state "$STAGE")"
    out="$("$CLI" enable --dry-run --root "$STAGE" sudo 2>&1)" || fail "pingate enable --dry-run failed: $out"
    assert_contains "$out" "+auth       sufficient pam_pingate.so"
    assert_contains "$out" "+++ /etc/pam.d/sudo"
    assert_eq "$before" "$(tree_state "$STAGE")" "the staged root after --dry-run"
    out="$("$CLI" enable --json --root "$STAGE" sudo 2>&1)" || fail "pingate enable --json failed: $out"
    assert_contains "$out" '"outcome":"enabled"'
    out="$("$CLI" disable --all --json --root "$STAGE" 2>&1)" || fail "pingate disable --all failed: $out"
    assert_contains "$out" '"service":"sudo","file":"/etc/pam.d/sudo","outcome":"restored"'
    assert_eq "$before" "$(tree_state "$STAGE")" "the staged root after enable and disable --all"
}

test_pingate_enable_never_adds_a_pin_to_a_conversation_nobody_sees() {
    stage_root
    local service
    for service in kde-fingerprint kde-smartcard gdm-fingerprint gdm-smartcard; do
        stage_stack "$service" "@include common-auth"
        local rc=0
        out="$("$CLI" enable --root "$STAGE" "$service" 2>&1)" || rc=$?
        assert_eq 2 "$rc" "exit status for $service (output: $out)"
        assert_contains "$out" "no person ever sees its questions"
        grep -q pam_pingate "$STAGE/etc/pam.d/$service" && fail "$service was enabled"
    done
    return 0
}

# --- single-prompt lockers -------------------------------------------------------

test_enable_locker_swaylock_adds_no_nullok_and_no_password_line() {
    stage_root
    sed -i 's/ nullok//' "$STAGE/etc/pam.d/common-auth"
    stage_stack swaylock "auth include login"
    install_staged --enable locker swaylock
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_eq "auth       sufficient pam_pingate.so forward_pass nonotice
auth include login" "$(grep -v '^#' "$STAGE/etc/pam.d/swaylock")" "swaylock stack"
    assert_eq "" "$(grep -rl nullok "$STAGE/etc/pam.d" || true)" "stacks with nullok"
}

# A stack enabled by an older install.sh keeps its pam_unix line until the
# admin replaces it: --enable says how, --disable takes it out.
test_enable_over_an_older_locker_block_says_how_to_replace_it() {
    stage_root
    stage_stack swaylock \
        "# Added by PinGate's install.sh --enable; install.sh --disable or --uninstall removes it." \
        "auth       sufficient pam_pingate.so forward_pass" \
        "auth       sufficient pam_unix.so use_first_pass nullok" \
        "auth include login"
    install_staged --enable locker swaylock
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_contains "$out" "warning: /etc/pam.d/swaylock has the pam_unix line an older install.sh added"
    install_staged --disable locker swaylock
    assert_eq "auth include login" "$(cat "$STAGE/etc/pam.d/swaylock")" "swaylock after --disable"
}

# MATE's line from before a wrong PIN ended the try there: --enable leaves it
# (the admin may have edited it) and says how to replace it; --disable and
# --enable write the line of today.
test_enable_over_an_older_line_says_how_to_replace_it() {
    stage_root
    stage_stack mate-screensaver \
        "# Added by PinGate's install.sh --enable; install.sh --disable or --uninstall removes it." \
        "auth       sufficient pam_pingate.so retries=2 again_or_password nonotice" \
        "@include common-auth"
    install_staged --enable locker mate-screensaver
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_contains "$out" "warning: /etc/pam.d/mate-screensaver has the PinGate line an older release wrote, not the one it needs now (auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password). Run pingate disable mate-screensaver, then pingate enable mate-screensaver again."
    install_staged --disable locker mate-screensaver
    install_staged --enable locker mate-screensaver
    assert_eq 0 "$rc" "exit status (output: $out)"
    assert_not_contains "$out" "warning" "install.sh output"
    assert_eq "auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password" \
        "$(grep pam_pingate "$STAGE/etc/pam.d/mate-screensaver")" "the line"
    install_staged --enable locker mate-screensaver
    assert_not_contains "$out" "warning" "install.sh output, run again"
}

test_a_password_at_swaylock_passes_every_module_of_the_stack_with_one_prompt() {
    install_here
    add_user pgenable "$TEST_PASSWORD"
    printf '#!/bin/sh\necho "$PAM_USER" >> %s/passed\n' "$OVERLAY" > "$OVERLAY/marker.sh"
    chmod 755 "$OVERLAY/marker.sh"
    echo "auth    required    pam_exec.so quiet $OVERLAY/marker.sh" >> /etc/pam.d/common-auth
    debian_swaylock
    install_here --force --enable locker swaylock
    rm -f "$OVERLAY/passed"
    sign_in swaylock pgenable "$TEST_PASSWORD"
    assert_eq PAM_SUCCESS "$result" "password sign-in (transcript: $out)"
    assert_eq 1 "$(prompts)" "prompts (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN or password: "
    assert_eq pgenable "$(cat "$OVERLAY/passed" 2>/dev/null)" "users pam_exec saw after the password"
    sign_in swaylock pgenable "wrong horse"
    assert_eq PAM_AUTH_ERR "$result" "wrong password (transcript: $out)"
}

test_an_empty_password_stays_refused_at_swaylock_after_enable() {
    install_here
    add_user pgempty ""
    sed -i 's/ nullok//' /etc/pam.d/common-auth
    debian_swaylock
    sign_in swaylock pgempty ""
    assert_eq PAM_AUTH_ERR "$result" "empty password before --enable (transcript: $out)"
    install_here --enable locker swaylock
    sign_in swaylock pgempty ""
    assert_eq PAM_AUTH_ERR "$result" "empty password after --enable (transcript: $out)"
}

test_a_pin_at_swaylock_still_signs_in_with_one_prompt() {
    install_here
    add_user pgenable "$TEST_PASSWORD"
    debian_swaylock
    install_here --enable locker swaylock
    sign_in swaylock pgenable "$TEST_PIN"
    assert_eq PAM_SUCCESS "$result" "PIN sign-in (transcript: $out)"
    assert_eq 1 "$(prompts)" "prompts (transcript: $out)"
}

# --- doctor ----------------------------------------------------------------------

# --enable refuses a second factor behind the PIN; one added afterwards is
# doctor's to find, with its file and line. A comment naming the module is no rule.
test_doctor_flags_a_second_factor_added_after_enabling() {
    install_here --enable sudo
    # sudo's package ships sudo-i (sudo -i's service), which enable sudo brings along.
    local used="pingate-lock, sudo"
    [ ! -f /etc/pam.d/sudo-i ] || used+=", sudo-i"
    /usr/bin/pingate doctor > "$OVERLAY/doctor.out" 2>&1 || true
    assert_eq "note    pam_pingate.so is used by /etc/pam.d/: $used" "$(grep 'is used by' "$OVERLAY/doctor.out")" "doctor after --enable"
    assert_not_contains "$(cat "$OVERLAY/doctor.out")" "a correct PIN now skips" "doctor after --enable"
    echo "auth    required    pam_u2f.so cue" >> /etc/pam.d/sudo
    echo "auth    required    pam_unix.so   # was pam_pingate.so" >> /etc/pam.d/su
    local rc=0
    out="$(/usr/bin/pingate doctor 2>&1)" || rc=$?
    assert_eq 5 "$rc" "doctor's exit status (output: $out)"
    assert_contains "$out" "a correct PIN now skips pam_u2f.so (/etc/pam.d/sudo:$(grep -c '' /etc/pam.d/sudo)), added after PinGate was enabled"
    assert_eq "note    pam_pingate.so is used by /etc/pam.d/: $used" "$(grep 'is used by' <<< "$out")" "the stacks doctor lists"
}

# Doctor has a line for each lock screen installed here (MATE's, which the test
# command installs), judged by the same table install.sh --enable takes its
# line from: not offered, then offered, then each thing that stops it.
test_doctor_reports_each_installed_lock_screen() {
    local file=/etc/pam.d/mate-screensaver line
    [ -x /usr/bin/mate-screensaver ] || fail "mate-screensaver is not installed (Tests/run-all.sh installs it)"
    install_here
    out="$(/usr/bin/pingate doctor 2>&1)" || true
    assert_contains "$out" "note    MATE lock screen: no PIN is offered (no pam_pingate.so in the auth stack of mate-screensaver, $file)" "doctor before --enable"
    assert_contains "$out" "fix: pingate enable mate-screensaver" "doctor before --enable"
    install_here --enable locker mate-screensaver
    out="$(/usr/bin/pingate doctor 2>&1)" || true
    assert_contains "$out" "ok      MATE lock screen: a PIN is offered (service mate-screensaver)" "doctor after --enable"
    # KDE's line has a control of its own: doctor accepts the one --enable writes.
    install_here --enable locker kde
    assert_contains "$(/usr/bin/pingate doctor 2>&1)" "ok      KDE Plasma lock screen: a PIN is offered (service kde)" "doctor after --enable locker kde"
    line=$(grep -n 'pam_pingate.so' "$file" | cut -d: -f1)
    local needed="auth [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password"
    assert_eq "$needed" "auth $(sed -n "${line}p" "$file" | tr -s ' ' | cut -d' ' -f2-)" "the line --enable wrote"
    # The line an older install.sh wrote: after two wrong PINs pam_unix asked,
    # and took the next PIN as a password.
    sed -i 's/\[success=done[^]]*\]/sufficient/' "$file"
    out="$(/usr/bin/pingate doctor 2>&1)" || true
    assert_contains "$out" "PROBLEM MATE lock screen: the pam_pingate.so line at $file:$line is not the one this screen needs (it shows PAM's questions its own way): $needed" "doctor on the older sufficient line"
    sed -i 's/ retries=2 again_or_password$//' "$file"
    out="$(/usr/bin/pingate doctor 2>&1)" || true
    assert_contains "$out" "PROBLEM MATE lock screen: the pam_pingate.so line at $file:$line is not the one this screen needs (it shows PAM's questions its own way): $needed" "doctor on a line without the options"
    printf 'services = sudo\n' >> /etc/pingate/pingate.conf
    out="$(/usr/bin/pingate doctor 2>&1)" || true
    assert_contains "$out" "PROBLEM MATE lock screen: pam_pingate.so is in the stack of mate-screensaver, but pingate.conf's services do not name it" "doctor with services = sudo"
}

# Every test starts from the original system.
for name in $(declare -F | awk '{print $3}' | grep '^test_'); do
    eval "_body_$name() $(declare -f "$name" | tail -n +2)"
    eval "$name() { fresh_system; _body_$name; }"
done
run_tests
