# shellcheck shell=bash disable=SC2034 # shared variables
# stacks.sh — enabling PinGate must never let a PIN stand in for more than
# the password: install.sh --enable on a staged root whose sudo stack holds a
# lockout and a second factor after the PIN's place.

attack_enable_skips_a_second_factor() {
    local stage="$WORKDIR/stage" install="$ATTACK_DIR/../../packaging/install.sh"
    rm -rf "$stage"; mkdir -p "$stage/etc/pam.d"
    printf 'root:x:0:\n' > "$stage/etc/group"; printf 'root:*::\n' > "$stage/etc/gshadow"
    printf '%s\n' "auth required pam_env.so" "@include common-auth" "@include common-account" > "$stage/etc/pam.d/sudo"
    printf '%s\n' "auth [success=1 default=ignore] pam_unix.so" "auth requisite pam_deny.so" \
        "auth required pam_permit.so" "auth required pam_faillock.so authsucc" \
        "auth required pam_u2f.so cue" > "$stage/etc/pam.d/common-auth"
    cp /etc/pam.d/common-account "$stage/etc/pam.d/"
    local before after output rc
    before="$(cd "$stage" && find . -type f -exec sha256sum {} \; | sort)"
    output="$("$install" --no-build --root "$stage" --enable sudo 2>&1)"; rc=$?
    after="$(cd "$stage" && find . -type f -exec sha256sum {} \; | sort)"
    [ "$rc" = 2 ] || breach "install.sh --enable sudo exited $rc, expected the refusal (2)"
    [ "$before" = "$after" ] || breach "the staged root changed"
    case "$output" in *pam_u2f*pam_faillock*|*pam_faillock*pam_u2f*) ;; *) breach "the refusal does not name pam_u2f and pam_faillock" ;; esac
    row "enable over a second factor" 1 0 0 "$(verdict "refused, nothing changed, both modules named")"
}
