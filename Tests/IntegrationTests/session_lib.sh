# shellcheck shell=bash
# session_lib.sh — a simulated logind session inside the sandbox, for the
# module's "only at the machine" rule: logind keeps a state file per session
# in /run/systemd/sessions/ID (REMOTE=1 for ssh) and puts the session's
# processes in a cgroup named session-ID.scope. The test machines run no
# systemd, so tests make both: a private /run, and a real cgroup with that
# name that the command under test is moved into.
#
# Source after sandbox.sh; call private_run_with_sessions and
# find_cgroup_root once inside the sandbox (not in a test's subshell), and
# cleanup_cgroups when done.

# private_run_with_sessions: a tmpfs over /run in this namespace, with the
# directories logind and sudo use.
private_run_with_sessions() {
    mount -t tmpfs -o mode=755 tmpfs /run
    mkdir -p /run/systemd/sessions /run/sudo
}

# find_cgroup_root: sets CGROUP_ROOT to a fresh directory in a writable
# cgroup hierarchy (systemd's v1 named one, the v2 one, or a private cgroup2
# mount); empty if there is none.
find_cgroup_root() {
    CGROUP_ROOT=""
    local candidate
    for candidate in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
        if mkdir "$candidate/pingate-test-$$" 2>/dev/null; then
            CGROUP_ROOT="$candidate/pingate-test-$$"; return 0
        fi
    done
    mkdir -p "$SANDBOX/cgroup2"
    if mount -t cgroup2 none "$SANDBOX/cgroup2" 2>/dev/null && mkdir "$SANDBOX/cgroup2/pingate-test-$$"; then
        CGROUP_ROOT="$SANDBOX/cgroup2/pingate-test-$$"; return 0
    fi
    return 1
}

# session ID REMOTE|absent: logind's state file for session ID (REMOTE=0/1), or none.
session() {
    local id=$1 remote=$2
    rm -f "/run/systemd/sessions/$id"
    [ "$remote" = absent ] && return 0
    printf '# This is private data. Do not parse.\nUID=61001\nUSER=pgalice\nACTIVE=1\nREMOTE=%s\nSERVICE=sshd\n' \
        "$remote" > "/run/systemd/sessions/$id"
}

# in_session ID COMMAND...: runs COMMAND in the cgroup .../session-ID.scope.
in_session() {
    local id=$1; shift
    [ -n "$CGROUP_ROOT" ] || { echo "no writable cgroup hierarchy to simulate a logind session" >&2; return 125; }
    local scope="$CGROUP_ROOT/user.slice/session-$id.scope"
    mkdir -p "$scope"
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$scope" "$@"
}

# cleanup_cgroups: removes the cgroups made here (once their processes ended).
cleanup_cgroups() {
    [ -n "${CGROUP_ROOT:-}" ] || return 0
    find "$CGROUP_ROOT" -depth -type d -exec rmdir {} \; 2>/dev/null
    return 0
}
