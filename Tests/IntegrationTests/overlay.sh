# overlay.sh — a throwaway copy of this whole system, for install tests.
#
# Source it and call `overlay_enter "$@"` first: the test file re-executes
# itself under `unshare --mount` (root only; otherwise it prints a skip line and
# exits 0). Inside, `fresh_system` puts an overlay over /etc, /usr and /var
# (/lib is /usr/lib on Debian 12), so that installers can run for real —
# groupadd, dpkg, pam-auth-update, files in /usr/sbin — and every write lands
# in a tmpfs that vanishes with the namespace. Call it again for a clean slate.
#
#   $OVERLAY/lower/{etc,usr,var}   the untouched originals
#   $OVERLAY/upper/{etc,usr,var}   exactly what the test changed
#
# Unlike sandbox.sh nothing is created on the host, not even mount points.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PINGATE_RELEASE_BIN="${PINGATE_RELEASE_BIN:-$REPO_ROOT/.build/release}"
OVERLAY_DIRS=(etc usr var)

overlay_enter() {
    if [ "${PINGATE_IN_OVERLAY:-}" = 1 ]; then
        _overlay_setup
        return
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "skip: install tests need root (a private mount namespace with overlays over /etc, /usr, /var); run as root" >&2
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
    fi
    _overlay_build_artefacts
    local script
    script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
    PINGATE_IN_OVERLAY=1 exec unshare --mount --propagation private bash "$script" "$@"
}

# The suite runner builds these first; a test run on its own builds them here.
_overlay_build_artefacts() {
    if [ ! -x "$PINGATE_RELEASE_BIN/pingate" ] || [ ! -x "$PINGATE_RELEASE_BIN/pingate-verify" ]; then
        echo "(building release binaries: swift build -c release --static-swift-stdlib)" >&2
        (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib >&2) || exit 1
    fi
    if [ ! -f "$REPO_ROOT/pam/build/pam_pingate.so" ]; then
        echo "(building the module: make -C pam)" >&2
        make -C "$REPO_ROOT/pam" >&2 || exit 1
    fi
    make -s -C "$REPO_ROOT/po" >&2 || exit 1   # message catalogues; cheap when up to date
}

_overlay_setup() {
    OVERLAY="$(mktemp -d /tmp/pingate-overlay.XXXXXX)"
    trap '_overlay_cleanup' EXIT
    mount -t tmpfs -o mode=0755 pingate-overlay "$OVERLAY"
    local dir
    for dir in "${OVERLAY_DIRS[@]}"; do
        mkdir -p "$OVERLAY/lower/$dir"
        mount --bind "/$dir" "$OVERLAY/lower/$dir"
    done
    fresh_system
}

_overlay_cleanup() {
    local dir
    for dir in "${OVERLAY_DIRS[@]}"; do umount -l "/$dir" 2>/dev/null; done
    umount -l "$OVERLAY" 2>/dev/null
    rmdir "$OVERLAY" 2>/dev/null
}

# fresh_system: new, empty overlays. Refuses to go on unless each of /etc, /usr
# and /var is verifiably an overlay afterwards: a test must never write to the host.
fresh_system() {
    local dir
    for dir in "${OVERLAY_DIRS[@]}"; do
        if [ "$(findmnt -no FSTYPE "/$dir" 2>/dev/null)" = overlay ]; then umount -l "/$dir"; fi
        rm -rf "${OVERLAY:?}/upper/$dir" "${OVERLAY:?}/work/$dir"
        mkdir -p "$OVERLAY/upper/$dir" "$OVERLAY/work/$dir"
        mount -t overlay overlay \
            -o "lowerdir=$OVERLAY/lower/$dir,upperdir=$OVERLAY/upper/$dir,workdir=$OVERLAY/work/$dir" "/$dir"
        if [ "$(findmnt -no FSTYPE "/$dir")" != overlay ]; then
            echo "overlay.sh: could not put an overlay over /$dir; stopping before anything is written" >&2
            exit 1
        fi
    done
}

# changed_paths: every file, symlink or new directory the test left in the
# system, as paths like /etc/group, one a line (directories only copied up to
# hold a change are not listed). A deleted original is listed as "deleted PATH".
changed_paths() {
    local dir path
    for dir in "${OVERLAY_DIRS[@]}"; do
        (cd "$OVERLAY/upper/$dir" && find . -mindepth 1 -printf '%y %P\n') | while read -r type path; do
            case "$type" in
                d) [ -d "$OVERLAY/lower/$dir/$path" ] || echo "/$dir/$path/" ;;
                c) echo "deleted /$dir/$path" ;;
                *) if [ -e "$OVERLAY/lower/$dir/$path" ] && cmp -s "$OVERLAY/lower/$dir/$path" "/$dir/$path" &&
                       [ "$(stat -c '%a %u %g' "$OVERLAY/lower/$dir/$path")" = "$(stat -c '%a %u %g' "/$dir/$path")" ]; then
                       continue   # rewritten with the same bytes, mode and owner
                   fi
                   echo "/$dir/$path" ;;
            esac
        done
    done | LC_ALL=C sort
}
