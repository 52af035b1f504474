# shellcheck shell=bash
# desktop_lib.sh — a desktop's PAM service as a person's machine has it, for
# the desktop tests (kde, mate, cinnamon, gnome): written by the real `install.sh --enable`
# over Debian 12's stack, and watched by a logger of what reaches the
# modules after PinGate's line.
#
# Source after sandbox.sh and stack_lib.sh, inside the sandbox.

INSTALL="$REPO_ROOT/packaging/install.sh"

# enable_like_install_sh ARGS...: `install.sh --no-build --enable ARGS` run
# on a staged root that has this sandbox's /etc/pam.d; the stacks it changed
# are copied back, with the module from pam/build (the sandbox does not
# install it under /lib/.../security), as lock_test.sh does for pingate-lock.
enable_like_install_sh() {
    local stage="$SANDBOX/stage" file name
    rm -rf "$stage"; mkdir -p "$stage/etc"
    cp -a /etc/pam.d "$stage/etc/pam.d"
    printf 'root:x:0:\n' > "$stage/etc/group"
    printf 'root:*::\n' > "$stage/etc/gshadow"
    "$INSTALL" --no-build --root "$stage" --enable "$@" > "$SANDBOX/install.out" 2>&1 ||
        { echo "install.sh --enable $* failed: $(cat "$SANDBOX/install.out")" >&2; return 1; }
    for file in "$stage"/etc/pam.d/*; do
        name=$(basename "$file")
        case "$name" in *.pingate-backup|pingate-lock) continue ;; esac
        cmp -s "$file" "/etc/pam.d/$name" && continue
        sed "s|pam_pingate\.so|$SANDBOX/pam_pingate.so|" "$file" > "/etc/pam.d/$name"
        chmod 644 "/etc/pam.d/$name"
    done
}

# log_what_follows_pingate SERVICE: what the password modules of
# /etc/pam.d/SERVICE are given, by pam/tests/pam_test_authtok.so log=, one
# line each. AUTHTOK_LOG ($SANDBOX/authtok.log): PAM_AUTHTOK as PinGate's
# line left it, what pam_unix and pam_gnome_keyring take without asking.
# UNIX_AUTHTOK_LOG: PAM_AUTHTOK after pam_unix failed, as it read it — a
# person's answer to pam_unix's own "Password:" question, logged by a line
# right after pam_unix in this sandbox's common-auth (pam_unix's success
# jumps one line further, over it as over pam_deny). The logger asks nothing
# (unlike pam_exec's expose_authtok, which prompts when the item is empty),
# returns PAM_IGNORE, and runs as whoever runs PAM (a locker's user): the
# logs are writable by all.
log_what_follows_pingate() {
    local service=$1 logger
    AUTHTOK_LOG="$SANDBOX/authtok.log"
    UNIX_AUTHTOK_LOG="$SANDBOX/authtok-unix.log"
    : > "$AUTHTOK_LOG"; chmod 666 "$AUTHTOK_LOG"
    sed -i "/pam_pingate\.so/a auth optional $AUTHTOK_MODULE log=$AUTHTOK_LOG" "/etc/pam.d/$service"
    grep -q "pam_test_authtok.so log=" "/etc/pam.d/$service" || { echo "no PinGate line in /etc/pam.d/$service" >&2; return 1; }
    logger="auth optional $AUTHTOK_MODULE log=$UNIX_AUTHTOK_LOG"
    : > "$UNIX_AUTHTOK_LOG"; chmod 666 "$UNIX_AUTHTOK_LOG"
    grep -qF "$logger" /etc/pam.d/common-auth && return 0
    sed -i "s/^auth\s*\[success=1 default=ignore\]\s*pam_unix\.so\(.*\)\$/auth [success=2 default=ignore] pam_unix.so\1\n$(sed 's/[\/&]/\\&/g' <<< "$logger")/" /etc/pam.d/common-auth
    grep -qF "$logger" /etc/pam.d/common-auth || { echo "no pam_unix line to watch in /etc/pam.d/common-auth" >&2; return 1; }
}

# forget_what_followed: both logs emptied, for the next test.
forget_what_followed() { : > "$AUTHTOK_LOG"; : > "$UNIX_AUTHTOK_LOG"; }

# assert_never_followed SECRET: SECRET never reached the password modules,
# neither handed on by PinGate nor typed at pam_unix's own question.
assert_never_followed() {
    if grep -qxF -- "$1" "$AUTHTOK_LOG"; then fail "[$1] went on to the password modules: $(tr '\n' ' ' < "$AUTHTOK_LOG")"; fi
    if grep -qxF -- "$1" "$UNIX_AUTHTOK_LOG"; then fail "[$1] was typed at pam_unix's question: $(tr '\n' ' ' < "$UNIX_AUTHTOK_LOG")"; fi
}

# unseen_failures USER: failed attempts not yet told to the owner (root's view, which spends nothing).
unseen_failures() {
    "$PINGATE" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["unseen_failures"])'
}

# ms_since START_NS: milliseconds since a `date +%s%N`.
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
