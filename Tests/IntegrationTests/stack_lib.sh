# shellcheck shell=bash disable=SC2034  # variables and $out/$rc/$err are for the test files
# stack_lib.sh — shared by pam_test.sh, sudo_test.sh and locker_test.sh:
# the real module, the real setgid helper at its default path, real libpam.
#
# Source after lib.sh and sandbox.sh and before `sandbox_enter "$@"`: outside
# the sandbox it builds what is missing (the suite runner normally has), so
# sandbox.sh can install the release helper and the module
# (PINGATE_SKIP_BUILD=1: never run swift build, e.g. while another one runs).

HARNESS="$PAM_BUILD/pam_harness"
AUTHTOK_MODULE="$PAM_BUILD/pam_test_authtok.so"
TEST_PIN=4821          # not weak: no repeat, no constant step, not blocklisted
TEST_PATTERN=1-5-9-6

_build_prerequisites() {
    [ "${PINGATE_IN_SANDBOX:-}" = 1 ] && return 0
    [ "$(id -u)" = 0 ] || return 0
    if [ "${PINGATE_SKIP_BUILD:-}" != 1 ] && { [ ! -x "$RELEASE_BIN/pingate-verify" ] || [ ! -x "$RELEASE_BIN/pingate" ]; }; then
        (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib) >&2 \
            || echo "warning: swift build failed; tests needing it will fail or skip" >&2
    fi
    make -s -C "$REPO_ROOT/pam" all harness >/dev/null \
        || { echo "make -C pam all harness failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
}
_build_prerequisites

# need_cli: skip unless the admin CLI can enrol (built by a teammate).
need_cli() {
    case "$("$PINGATE" enroll --help 2>&1)" in
        *--stdin*) ;;
        *) skip "the admin CLI ($PINGATE) cannot enrol yet" ;;
    esac
}

# enroll USER SECRET [FLAGS...]: root enrols USER, typing SECRET twice.
enroll() {
    local user=$1 secret=$2; shift 2
    printf '%s\n%s\n' "$secret" "$secret" | "$PINGATE" enroll "$user" --stdin "$@" >/dev/null \
        || fail "pingate enroll $user $* failed"
}

# write_service CONFDIR SERVICE LINE...: a PAM service file, one stack line each.
write_service() {
    local dir=$1 service=$2; shift 2
    mkdir -p "$dir"; chmod 755 "$dir"
    printf '%s\n' "$@" > "$dir/$service"
    chmod 644 "$dir/$service"
}

# The module's own code decides the result, except PAM_IGNORE: the stack then
# falls through to "NEXT" and libpam answers PAM_PERM_DENIED.
module_line() { echo "auth [success=done ignore=ignore default=die] $SANDBOX/pam_pingate.so $*"; }
next_line() { echo "auth required $AUTHTOK_MODULE show"; }

# pam_run CONFDIR SERVICE USER INPUT [harness options]: sets $out and $rc.
# With RUN_AS=name the harness runs as that user (no supplementary groups).
pam_run() {
    local dir=$1 service=$2 user=$3 input=$4; shift 4
    local runner=()
    [ -n "${RUN_AS:-}" ] && runner=(as_user "$RUN_AS")
    out=$(printf '%s' "$input" | "${runner[@]}" "$HARNESS" --confdir "$dir" \
        --service "$service" --user "$user" "$@") && rc=0 || rc=$?
}

result() { sed -n 's/^RESULT //p' <<< "$out"; }
prompts() { grep -c '^PROMPT_' <<< "$out" || true; }

assert_ignored() {
    assert_contains "$out" "INFO NEXT authtok=" "transcript (fell through)"
    assert_eq PAM_PERM_DENIED "$(result)" "result"
}

# helper_status USER: root's view of USER's record through the helper.
helper_status() { helper_request op=status user="$1" | head -n 1; }

# record_state USER: the record file's bytes and metadata, for "unchanged" checks.
record_state() {
    local path
    path="/var/lib/pingate/$(id -u "$1").record"
    if [ -e "$path" ]; then
        stat -c '%s %U:%G %a %Y' "$path"; sha256sum < "$path"
    else
        echo absent
    fi
}

# sudo_stack: /etc/pam.d/sudo with a "PIN: " prompt before the password.
sudo_stack() {
    cat > /etc/pam.d/sudo <<EOF
#%PAM-1.0
session    required   pam_limits.so
auth       sufficient $SANDBOX/pam_pingate.so
@include common-auth
@include common-account
@include common-session-noninteractive
EOF
}

# sudo_as USER INPUT: `sudo -S -k true` as USER; sets $rc and $err (stderr).
sudo_as() {
    local user=$1 input=$2
    err=$(printf '%s' "$input" | as_user "$user" sudo -S -k true 2>&1 >/dev/null) && rc=0 || rc=$?
}

# Keep sudo's timestamp files in the namespace, not on the host.
private_sudo_rundir() {
    [ -d /run/sudo ] && mount -t tmpfs -o mode=0711 tmpfs /run/sudo
    return 0
}
