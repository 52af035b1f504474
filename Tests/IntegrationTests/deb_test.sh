#!/bin/bash
# deb_test.sh — packaging/build-deb.sh, and the package installed and purged
# by the real dpkg on a throwaway copy of this system (overlay.sh).
#
# No chroot is needed (debootstrap is not available offline): dpkg, its
# maintainer scripts, addgroup, dpkg-statoverride and pam-auth-update run on
# overlays over /etc, /usr and /var that vanish with the test's namespace.
# Run as root: bash Tests/IntegrationTests/deb_test.sh

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/overlay.sh"

# lintian is a test dependency: install it on the host once, outside the overlays.
if [ "$(id -u)" = 0 ] && [ -z "${PINGATE_IN_OVERLAY:-}" ] && ! command -v lintian > /dev/null; then
    echo "(installing lintian for the package checks)" >&2
    apt-get install -y --no-install-recommends lintian > /dev/null 2>&1 ||
        echo "(could not install lintian; its test will be skipped)" >&2
fi
overlay_enter "$@"

MULTIARCH="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
HELPER=/usr/libexec/pingate/pingate-verify
MODULE="/lib/$MULTIARCH/security/pam_pingate.so"
# Built once for every test; each test then starts from a fresh system.
"$REPO_ROOT/packaging/build-deb.sh" --no-build --output "$OVERLAY/dist" > "$OVERLAY/build.out" 2>&1
BUILD_STATUS=$?
DEB="$(ls "$OVERLAY"/dist/pingate_*.deb 2>/dev/null | head -1)"

need_deb() {
    [ "$BUILD_STATUS" = 0 ] && [ -f "$DEB" ] || fail "build-deb.sh failed: $(cat "$OVERLAY/build.out")"
}

# dpkg_do ARGS...: dpkg without man-db's slow trigger (the overlay's switch only).
dpkg_do() {
    rm -f /var/lib/man-db/auto-update
    dpkg "$@" > "$OVERLAY/dpkg.out" 2>&1 || fail "dpkg $* failed: $(cat "$OVERLAY/dpkg.out")"
}

# expect PATH OWNER:GROUP MODE
expect() {
    [ -e "$1" ] || fail "$1 is missing"
    assert_eq "$2 $3" "$(stat -c '%U:%G %a' "$1")" "owner and mode of $1"
}

test_the_package_builds_with_the_version_in_its_name() {
    need_deb
    assert_eq "pingate_0.1.0_$(dpkg --print-architecture).deb" "$(basename "$DEB")" "file name"
    assert_eq "pingate 0.1.0" "$(dpkg-deb -f "$DEB" Package Version | awk -F': ' '{printf "%s%s", sep, $2; sep=" "}')"
}

test_the_archive_holds_exactly_the_installed_files_with_their_modes() {
    need_deb
    local expected actual
    expected="-rw-r--r-- root/root ./etc/pingate/pingate.conf
-rw-r--r-- root/root ./etc/pam.d/pingate-lock
-rwxr-xr-x root/root ./usr/bin/pingate-lock
-rw-r--r-- root/root ./usr/share/man/man1/pingate-lock.1.gz
-rw-r--r-- root/root .$MODULE
-rwxr-xr-x root/root ./usr/libexec/pingate/pingate-verify
-rwxr-xr-x root/root ./usr/sbin/pingate
-rw-r--r-- root/root ./usr/share/doc/pingate/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/pingate/copyright
-rw-r--r-- root/root ./usr/share/man/man5/pingate.conf.5.gz
-rw-r--r-- root/root ./usr/share/man/man8/pam_pingate.8.gz"
    if [ -f "$REPO_ROOT/packaging/man/pingate.8" ]; then
        expected="$expected
-rw-r--r-- root/root ./usr/share/man/man8/pingate.8.gz"
    fi
    expected="$expected
-rw-r--r-- root/root ./usr/share/locale/zh_CN/LC_MESSAGES/pingate.mo
-rw-r--r-- root/root ./usr/share/locale/zh_TW/LC_MESSAGES/pingate.mo
-rw-r--r-- root/root ./usr/share/pam-configs/pingate"
    actual="$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print $1, $2, $6 }' | LC_ALL=C sort -k3)"
    assert_eq "$(echo "$expected" | LC_ALL=C sort -k3)" "$actual" "files in the archive"
    assert_not_contains "$(dpkg-deb -c "$DEB" | awk '{print $1}')" "s" "set-id bits in the archive (postinst's statoverride sets them)"
}

test_control_fields_name_only_the_runtime_libraries() {
    need_deb
    local depends package
    depends="$(dpkg-deb -f "$DEB" Depends)"
    for package in $(echo "$depends" | tr ',' '\n' | sed 's/(.*)//; s/ //g'); do
        case "$package" in
            libc6|libpam0g|libsodium23|libstdc++6|libgcc-s1|libpam-runtime|adduser) ;;
            # pingate-lock: Xlib, RandR, cairo, pango
            libx11-6|libxrandr2|libcairo2|libpango-1.0-0|libpangocairo-1.0-0|libglib2.0-0|libharfbuzz0b) ;;
            *) fail "unexpected dependency $package in [$depends]" ;;
        esac
    done
    assert_contains "$depends" "libsodium23 (>= "
    assert_contains "$depends" "libpam-runtime (>= 1.0.1-6)"
    assert_eq "/etc/pingate/pingate.conf"$'\n'"/etc/pam.d/pingate-lock" "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles)" "conffiles"
}

test_maintainer_scripts_parse_and_use_the_agreed_commands() {
    need_deb
    local dir="$OVERLAY/control" script
    rm -rf "$dir"; mkdir -p "$dir"
    dpkg-deb -e "$DEB" "$dir"
    for script in postinst prerm postrm; do
        sh -n "$dir/$script" || fail "$script does not parse"
        assert_eq 755 "$(stat -c %a "$dir/$script")" "mode of $script"
    done
    assert_contains "$(cat "$dir/postinst")" "dpkg-statoverride --update --add root pingate 2755 \"\$HELPER\""
    assert_contains "$(cat "$dir/postinst")" "addgroup --system"
    assert_contains "$(cat "$dir/prerm")" "pam-auth-update --package --remove pingate"
}

test_lintian_reports_no_errors() {
    need_deb
    command -v lintian > /dev/null || skip "lintian is not installed and could not be installed"
    local out
    out="$(lintian "$DEB" 2>&1 | grep -v 'running with root privileges')" || true
    assert_not_contains "$out" "E: " "lintian"
    echo "$out" | grep '^W: ' | sed 's/^/    lintian: /' >&2 || true
}

test_dpkg_install_sets_up_group_helper_store_and_key() {
    need_deb
    dpkg_do -i "$DEB"
    local gid; gid="$(getent group pingate | cut -d: -f3)"
    [ -n "$gid" ] && [ "$gid" -lt 1000 ] || fail "no system group pingate: [$gid]"
    expect "$HELPER" root:pingate 2755
    assert_eq "root pingate 2755 $HELPER" "$(dpkg-statoverride --list "$HELPER")" "statoverride"
    expect /usr/sbin/pingate root:root 755
    expect "$MODULE" root:root 644
    expect /etc/pingate/pingate.conf root:root 644
    expect /var/lib/pingate root:pingate 750
    expect /var/lib/pingate/machine.key root:pingate 640
    assert_eq 32 "$(stat -c %s /var/lib/pingate/machine.key)" "machine key size"
    assert_not_contains "$(cat /etc/pam.d/common-auth)" "pam_pingate" "common-auth (the profile is Default: no)"
    assert_contains "$(dpkg -s pingate)" "Status: install ok installed"
}

test_dpkg_reinstall_keeps_the_key_and_the_override() {
    need_deb
    dpkg_do -i "$DEB"
    local key; key="$(sha256sum < /var/lib/pingate/machine.key)"
    dpkg_do -i "$DEB"
    assert_eq "$key" "$(sha256sum < /var/lib/pingate/machine.key)" "machine key after reinstall"
    expect "$HELPER" root:pingate 2755
}

test_dpkg_remove_takes_the_profile_out_first_and_keeps_the_store() {
    need_deb
    dpkg_do -i "$DEB"
    pam-auth-update --package --enable pingate
    assert_contains "$(cat /etc/pam.d/common-auth)" "pam_pingate.so forward_pass" "common-auth after --enable"
    dpkg_do -r pingate
    assert_not_contains "$(cat /etc/pam.d/common-auth)" "pam_pingate" "common-auth after dpkg -r"
    [ ! -e "$MODULE" ] || fail "module left behind"
    [ ! -e "$HELPER" ] || fail "helper left behind"
    [ -f /var/lib/pingate/machine.key ] || fail "remove (not purge) deleted the key"
    [ -f /etc/pingate/pingate.conf ] || fail "remove (not purge) deleted the conffile"
}

test_dpkg_purge_leaves_the_system_as_it_was() {
    need_deb
    dpkg_do -i "$DEB"
    dpkg_do -P pingate
    [ ! -e /var/lib/pingate ] || fail "store left behind"
    [ ! -e /etc/pingate ] || fail "/etc/pingate left behind"
    assert_eq "" "$(dpkg-statoverride --list "$HELPER")" "statoverride after purge"
    ! getent group pingate > /dev/null || fail "group left behind"
    local left
    left="$(changed_paths | grep -Ev '^(/var/lib/dpkg/|/var/log/|/var/cache/|/var/lib/man-db/|/var/lib/pam/|/etc/(group-|gshadow-|\.pwd\.lock)$|deleted /var/lib/man-db/auto-update$|deleted /(usr/libexec/pingate|etc/pingate|var/lib/pingate)$)' || true)"
    assert_eq "" "$left" "changes left by install + purge"
}

run_tests_fresh() {
    local name
    for name in $(declare -F | awk '{print $3}' | grep '^test_dpkg_'); do
        eval "_body_$name() $(declare -f "$name" | tail -n +2)"
        eval "$name() { fresh_system; _body_$name; }"
    done
    run_tests
}
run_tests_fresh
