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

# find_cgroup_root: sets CGROUP_ROOT to the root of a writable cgroup
# hierarchy that /proc/self/cgroup reports (systemd's v1 named one, the v2
# one, or a fresh cgroup2 mount); empty if there is none. The module accepts
# only logind's own layout, /user.slice/user-UID.slice/session-ID.scope from
# the hierarchy's root, so the fixtures are made there and removed after.
find_cgroup_root() {
    CGROUP_ROOT=""
    local candidate
    for candidate in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
        if mkdir -p "$candidate/user.slice" 2>/dev/null && [ -e "$candidate/user.slice/cgroup.procs" ]; then
            CGROUP_ROOT="$candidate"; return 0
        fi
    done
    mkdir -p "$SANDBOX/cgroup2"
    if mount -t cgroup2 none "$SANDBOX/cgroup2" 2>/dev/null && mkdir -p "$SANDBOX/cgroup2/user.slice"; then
        CGROUP_ROOT="$SANDBOX/cgroup2"; return 0
    fi
    return 1
}

# session ID REMOTE|absent [UID] [CLASS]: logind's state file for session ID
# (REMOTE=0/1, owned by UID, default pgalice's, of CLASS, default user), or none.
session() {
    local id=$1 remote=$2 uid=${3:-61001} class=${4:-user}
    rm -f "/run/systemd/sessions/$id"
    [ "$remote" = absent ] && return 0
    printf '# This is private data. Do not parse.\nUID=%s\nUSER=pgalice\nACTIVE=1\nREMOTE=%s\nSERVICE=sshd\nCLASS=%s\n' \
        "$uid" "$remote" "$class" > "/run/systemd/sessions/$id"
}

# user_sessions UID ID...: logind's list of UID's sessions (/run/systemd/users/UID).
user_sessions() {
    local uid=$1; shift
    mkdir -p /run/systemd/users
    printf 'NAME=pgalice\nSTATE=active\nSESSIONS=%s\n' "$*" > "/run/systemd/users/$uid"
}

# in_cgroup PATH COMMAND...: runs COMMAND in the cgroup PATH (from the root).
in_cgroup() {
    local path=$1; shift
    [ -n "$CGROUP_ROOT" ] || { echo "no writable cgroup hierarchy to simulate a logind session" >&2; return 125; }
    mkdir -p "$CGROUP_ROOT/$path"
    echo "$CGROUP_ROOT/$path" >> "$SANDBOX/cgroups-made"
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CGROUP_ROOT/$path" "$@"
}

# in_session ID COMMAND...: runs COMMAND in logind's scope of pgalice's session ID.
in_session() {
    local id=$1; shift
    in_cgroup "user.slice/user-61001.slice/session-$id.scope" "$@"
}

# cleanup_cgroups: removes the cgroups made here (once their processes ended),
# deepest first, and the parents they needed if nothing else is in them.
cleanup_cgroups() {
    [ -n "${CGROUP_ROOT:-}" ] && [ -f "$SANDBOX/cgroups-made" ] || return 0
    local path
    for path in $(sort -ru "$SANDBOX/cgroups-made"); do
        while [ "$path" != "$CGROUP_ROOT" ] && rmdir "$path" 2>/dev/null; do path="$(dirname "$path")"; done
    done
    return 0
}
