# shellcheck shell=bash
# session_lib.sh — a simulated logind inside the sandbox, for the helper's
# "only at the machine" rule (LocalityRule.swift), which reads logind through
# sd-login: logind keeps a state file per session in /run/systemd/sessions/ID
# (SEAT=, REMOTE=, CLASS=, ACTIVE=, LEADER=), one per user in /run/systemd/users/UID
# (SESSIONS=, DISPLAY=), creates /run/systemd/seats/seat0 when it runs, and
# puts a session's processes in a cgroup named session-ID.scope. The test
# machines run no systemd, so tests make all of these: a private /run, and
# real cgroups with those names that the command under test is moved into.
#
# Source after sandbox.sh; call private_run_with_sessions and
# find_cgroup_root once inside the sandbox (not in a test's subshell), and
# cleanup_cgroups when done.

# private_run_with_sessions: a tmpfs over /run in this namespace, with the
# directories logind and sudo use, and seat0: logind runs.
private_run_with_sessions() {
    mount -t tmpfs -o mode=755 tmpfs /run
    mkdir -p /run/systemd/sessions /run/systemd/seats /run/systemd/users /run/sudo
    logind_starts
}

# logind_starts / logind_stops: seat0 is how sd-login's callers know logind runs.
logind_starts() { printf 'IS_SEAT0=1\nCAN_MULTI_SESSION=1\nCAN_TTY=1\nCAN_GRAPHICAL=1\n' > /run/systemd/seats/seat0; }
logind_stops() { rm -f /run/systemd/seats/seat0; }

# find_cgroup_root: sets CGROUP_ROOTS to the roots of the writable cgroup
# hierarchies that /proc/self/cgroup reports (the v2 one, which sd-login
# reads where it exists, and systemd's v1 named one), or a fresh cgroup2
# mount; CGROUP_ROOT is the first. Fails if there is none. sd-login finds a
# session only in logind's own layout, /user.slice/user-UID.slice/
# session-ID.scope from the hierarchy's root, so the fixtures are made there
# (in every hierarchy alike) and removed after.
find_cgroup_root() {
    CGROUP_ROOTS=()
    local candidate
    for candidate in /sys/fs/cgroup/unified /sys/fs/cgroup /sys/fs/cgroup/systemd; do
        if mkdir -p "$candidate/user.slice" 2>/dev/null && [ -e "$candidate/user.slice/cgroup.procs" ]; then
            CGROUP_ROOTS+=("$candidate")
        fi
    done
    if [ ${#CGROUP_ROOTS[@]} -eq 0 ]; then
        mkdir -p "$SANDBOX/cgroup2"
        if mount -t cgroup2 none "$SANDBOX/cgroup2" 2>/dev/null && mkdir -p "$SANDBOX/cgroup2/user.slice"; then
            CGROUP_ROOTS=("$SANDBOX/cgroup2")
        fi
    fi
    CGROUP_ROOT="${CGROUP_ROOTS[0]:-}"
    [ -n "$CGROUP_ROOT" ]
}

# session ID REMOTE|absent [UID] [CLASS] [SEAT]: logind's state file for
# session ID (REMOTE=0/1, owned by UID, default pgalice's, of CLASS, default
# user, at SEAT: default seat0 for a local session and none for a remote
# one, "-" for none), or no file at all. Its leader is PID 1, which runs and
# never signs in with a PIN (the first-sign-in rule skips sessions whose
# leader did).
session() {
    local id=$1 remote=$2 uid=${3:-61001} class=${4:-user} seat=${5:-}
    rm -f "/run/systemd/sessions/$id"
    [ "$remote" = absent ] && return 0
    [ -n "$seat" ] || { [ "$remote" = 0 ] && seat=seat0 || seat=-; }
    {
        printf '# This is private data. Do not parse.\nUID=%s\nUSER=pgalice\nACTIVE=1\nIS_DISPLAY=0\nSTATE=active\n' "$uid"
        printf 'REMOTE=%s\nTYPE=tty\nCLASS=%s\nSCOPE=session-%s.scope\nLEADER=1\n' "$remote" "$class" "$id"
        if [ "$seat" != - ]; then printf 'SEAT=%s\nVTNR=2\nSERVICE=login\n' "$seat"; else printf 'SERVICE=sshd\n'; fi
    } > "/run/systemd/sessions/$id"
}

# user_sessions UID ID...: logind's list of UID's sessions (/run/systemd/users/UID),
# its display session the first of them at a seat (as logind picks one).
user_sessions() {
    local uid=$1 id display=""; shift
    for id in "$@"; do
        if [ -z "$display" ] && grep -q '^SEAT=' "/run/systemd/sessions/$id" 2>/dev/null; then display=$id; fi
    done
    printf 'NAME=pgalice\nSTATE=%s\nSESSIONS=%s\nDISPLAY=%s\n' "${*:+active}" "$*" "$display" |
        sed 's/^STATE=$/STATE=lingering/' > "/run/systemd/users/$uid"
}

# in_cgroup PATH COMMAND...: runs COMMAND in the cgroup PATH (from the root), in every hierarchy.
in_cgroup() {
    local path=$1 root; shift
    [ -n "$CGROUP_ROOT" ] || { echo "no writable cgroup hierarchy to simulate a logind session" >&2; return 125; }
    for root in "${CGROUP_ROOTS[@]}"; do
        mkdir -p "$root/$path"
        echo "$root/$path" >> "$SANDBOX/cgroups-made"
    done
    sh -c 'for dir in "$@"; do [ "$dir" = -- ] && break; echo $$ > "$dir/cgroup.procs" || exit 125; done
           while [ "$1" != -- ]; do shift; done; shift; exec "$@"' sh \
        $(for root in "${CGROUP_ROOTS[@]}"; do printf '%s ' "$root/$path"; done) -- "$@"
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
        while [ "$path" != / ] && [ "$(basename "$path")" != cgroup ] && [ "$(basename "$path")" != unified ] &&
              [ "$(basename "$path")" != systemd ] && [ "$(basename "$path")" != cgroup2 ] && rmdir "$path" 2>/dev/null; do
            path="$(dirname "$path")"
        done
    done
    return 0
}
