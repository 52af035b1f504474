# sandbox.sh — a private mount namespace that looks like an installed system.
#
# Source it from a test file and call `sandbox_enter "$@"` first: the file
# re-executes itself under `unshare --mount` (root only; otherwise every test
# is skipped with a clear message) and, inside, gets:
#
#   /etc/passwd /etc/group /etc/shadow   copies with the `pingate` group and
#                                        test users pgalice (61001), pgbob (61002),
#                                        pgcarol (61003), password "correct horse"
#   /etc/pingate/                        empty: tests write pingate.conf
#   /var/lib/pingate/                    the store, root:pingate 0750, with a key
#   /usr/libexec/pingate/pingate-verify  the release helper, root:pingate 2755
#   /etc/pam.d/, /etc/sudoers            copies tests may rewrite
#   $SANDBOX/pam_pingate.so              the module built from pam/
#
# Nothing is written to the host's /etc, /var/lib or /usr/libexec: every
# change is on a bind mount that vanishes with the namespace. Only missing
# mount points are created (and removed again by the outer process).

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RELEASE_BIN="${PINGATE_RELEASE_BIN:-$REPO_ROOT/.build/release}"
DEBUG_BIN="${PINGATE_DEBUG_BIN:-$REPO_ROOT/.build/debug}"
PAM_BUILD="$REPO_ROOT/pam/build"
TEST_PASSWORD="correct horse"
MOUNT_POINTS=(/etc/pingate /var/lib/pingate /usr/libexec/pingate)

sandbox_enter() {
    if [ "${PINGATE_IN_SANDBOX:-}" = 1 ]; then
        _sandbox_setup
        return
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "skip: integration tests need root (a private mount namespace, a setgid helper, test users); run as root" >&2
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
    fi
    # Mount points must exist on the host. Create the missing ones, and
    # remove them afterwards only if no other sandbox is running: removing a
    # directory detaches the mounts on it in every other namespace.
    exec 9>/tmp/pingate-sandbox.lock
    flock -s 9
    local created=()
    local dir
    for dir in "${MOUNT_POINTS[@]}"; do
        if [ ! -e "$dir" ]; then mkdir -p "$dir"; created+=("$dir"); fi
    done
    local script
    script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
    PINGATE_IN_SANDBOX=1 unshare --mount --propagation private bash "$script" "$@" 9>&-
    local rc=$?
    if flock -xn 9; then
        for dir in "${created[@]}"; do rmdir "$dir" 2>/dev/null; done
    fi
    exit $rc
}

_sandbox_setup() {
    SANDBOX="$(mktemp -d /tmp/pingate-sandbox.XXXXXX)"
    chmod 755 "$SANDBOX"
    trap 'rm -rf "$SANDBOX"' EXIT
    mkdir -p "$SANDBOX/etc" "$SANDBOX/etc-pingate" "$SANDBOX/store" "$SANDBOX/libexec" "$SANDBOX/home"

    local file
    for file in passwd group shadow gshadow; do
        [ -e "/etc/$file" ] || continue
        cp -p "/etc/$file" "$SANDBOX/etc/$file"
        mount --bind "$SANDBOX/etc/$file" "/etc/$file"
    done
    local hash
    hash="$(openssl passwd -6 "$TEST_PASSWORD")"
    echo "pingate:x:61000:" >> /etc/group
    local user uid
    for user in pgalice:61001 pgbob:61002 pgcarol:61003; do
        uid="${user#*:}"; user="${user%%:*}"
        mkdir -p "$SANDBOX/home/$user"; chown "$uid:$uid" "$SANDBOX/home/$user"
        echo "$user:x:$uid:$uid:PinGate test user:$SANDBOX/home/$user:/bin/sh" >> /etc/passwd
        echo "$user:x:$uid:" >> /etc/group
        echo "$user:$hash:19000:0:99999:7:::" >> /etc/shadow
    done

    mount --bind "$SANDBOX/etc-pingate" /etc/pingate
    chmod 755 /etc/pingate
    mount --bind "$SANDBOX/store" /var/lib/pingate
    chown root:pingate /var/lib/pingate
    chmod 750 /var/lib/pingate
    mount --bind "$SANDBOX/libexec" /usr/libexec/pingate
    chmod 755 /usr/libexec/pingate
    # Where systemd is not running (no /run/systemd/system), a /run/systemd
    # left by the image (an empty sessions/ directory) would look like logind
    # to the module, and a user's process outside any session is remote
    # there. Hide it: these machines have no logind. session_lib.sh makes its
    # own /run for the tests that simulate one.
    if [ -d /run/systemd ] && [ ! -d /run/systemd/system ]; then
        mount -t tmpfs -o mode=755 tmpfs /run/systemd
    fi

    cp -a /etc/pam.d "$SANDBOX/pam.d"
    mount --bind "$SANDBOX/pam.d" /etc/pam.d
    if [ -e /etc/sudoers ]; then
        printf 'Defaults !lecture\nDefaults !fqdn\nroot ALL=(ALL:ALL) ALL\npgalice ALL=(ALL:ALL) ALL\npgbob ALL=(ALL:ALL) ALL\n' > "$SANDBOX/sudoers"
        chmod 440 "$SANDBOX/sudoers"
        mount --bind "$SANDBOX/sudoers" /etc/sudoers
    fi

    if [ -x "$RELEASE_BIN/pingate-verify" ]; then
        install -o root -g pingate -m 2755 "$RELEASE_BIN/pingate-verify" /usr/libexec/pingate/pingate-verify
    fi
    if [ -f "$PAM_BUILD/pam_pingate.so" ]; then
        install -m 644 "$PAM_BUILD/pam_pingate.so" "$SANDBOX/pam_pingate.so"
    fi
    PINGATE="$RELEASE_BIN/pingate"
    [ -x "$PINGATE" ] || PINGATE="$DEBUG_BIN/pingate"
    HELPER=/usr/libexec/pingate/pingate-verify
    store_reset
}

# store_reset: an empty store with a fresh machine key.
store_reset() {
    find /var/lib/pingate -mindepth 1 -delete
    head -c 32 /dev/urandom > /var/lib/pingate/machine.key
    chown root:pingate /var/lib/pingate/machine.key
    chmod 640 /var/lib/pingate/machine.key
    # Tests use cheap KDF parameters unless they set their own.
    printf 'kdf_operations = 1\nkdf_memory = 8K\n' > /etc/pingate/pingate.conf
}

# as_user USER COMMAND...: run as a non-root user with no supplementary groups.
as_user() {
    local user="$1"; shift
    local uid; uid="$(id -u "$user")"
    setpriv --reuid="$uid" --regid="$uid" --clear-groups --reset-env -- "$@"
}

# helper_request [as USER] LINES...: send a request to the installed helper and
# print its answer line, then "exit=N".
helper_request() {
    local runner=()
    if [ "$1" = as ]; then runner=(as_user "$2"); shift 2; fi
    local request="pingate-verify/1"
    local line
    for line in "$@"; do request+=$'\n'"$line"; done
    local answer rc=0
    answer="$(printf '%s\n' "$request" | "${runner[@]}" "$HELPER")" || rc=$?
    printf '%s\nexit=%s\n' "$answer" "$rc"
}

# record_failures USER: the failure count of USER's record, via the admin CLI.
record_failures() {
    "$PINGATE" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["failures"])'
}
