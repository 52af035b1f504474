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
. "$(dirname "${BASH_SOURCE[0]}")/tpm_lib.sh"

# lintian is a test dependency: install it on the host once, outside the overlays.
if [ "$(id -u)" = 0 ] && [ -z "${PINGATE_IN_OVERLAY:-}" ] && ! command -v lintian > /dev/null; then
    echo "(installing lintian for the package checks)" >&2
    apt-get install -y --no-install-recommends lintian > /dev/null 2>&1 ||
        echo "(could not install lintian; its test will be skipped)" >&2
fi
overlay_enter "$@"

MULTIARCH="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
HELPER=/usr/libexec/pingate/pingate-verify
MODULE="/usr/lib/$MULTIARCH/security/pam_pingate.so"
# Built once for every test; each test then starts from a fresh system.
"$REPO_ROOT/packaging/build-deb.sh" --no-build --output "$OVERLAY/dist" > "$OVERLAY/build.out" 2>&1
BUILD_STATUS=$?
DEB="$(ls "$OVERLAY"/dist/pingate_*.deb 2>/dev/null | head -1)"
LOCK_DEB="$(ls "$OVERLAY"/dist/pingate-lock_*.deb 2>/dev/null | head -1)"

need_deb() {
    [ "$BUILD_STATUS" = 0 ] && [ -f "$DEB" ] && [ -f "$LOCK_DEB" ] || fail "build-deb.sh failed: $(cat "$OVERLAY/build.out")"
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

test_the_packages_build_with_the_version_in_their_names() {
    need_deb
    local arch; arch=$(dpkg --print-architecture)
    assert_eq "pingate_0.3.0_$arch.deb" "$(basename "$DEB")" "file name"
    assert_eq "pingate-lock_0.3.0_$arch.deb" "$(basename "$LOCK_DEB")" "file name"
    assert_eq "pingate 0.3.0" "$(dpkg-deb -f "$DEB" Package Version | awk -F': ' '{printf "%s%s", sep, $2; sep=" "}')"
    assert_eq "pingate-lock 0.3.0" "$(dpkg-deb -f "$LOCK_DEB" Package Version | awk -F': ' '{printf "%s%s", sep, $2; sep=" "}')"
}

# archive_files DEB: "MODE OWNER PATH" of every file (not directory), sorted.
archive_files() {
    dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $1, $2, $6 }' | LC_ALL=C sort -k3
}

test_the_archives_hold_exactly_the_installed_files_with_their_modes() {
    need_deb
    local expected
    expected="-rw-r--r-- root/root ./etc/pingate/pingate.conf
-rw-r--r-- root/root ./usr/lib/systemd/system/pingate-key.service
-rw-r--r-- root/root ./usr/lib/systemd/system/pingate-verify.socket
-rw-r--r-- root/root ./usr/lib/systemd/system/pingate-verify@.service
-rw-r--r-- root/root .$MODULE
-rwxr-xr-x root/root ./usr/libexec/pingate/pingate-verify
-rwxr-xr-x root/root ./usr/bin/pingate
-rw-r--r-- root/root ./usr/share/bash-completion/completions/pingate
-rw-r--r-- root/root ./usr/share/doc/pingate/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/pingate/copyright
-rw-r--r-- root/root ./usr/share/doc/pingate/README.md.gz
-rw-r--r-- root/root ./usr/share/man/man5/pingate.conf.5.gz
-rw-r--r-- root/root ./usr/share/man/man8/pam_pingate.8.gz"
    if [ -f "$REPO_ROOT/packaging/man/pingate.8" ]; then
        expected="$expected
-rw-r--r-- root/root ./usr/share/man/man8/pingate.8.gz"
    fi
    local example
    for example in "$REPO_ROOT"/pam/pam.d/*; do
        expected="$expected
-rw-r--r-- root/root ./usr/share/doc/pingate/examples/pam.d/$(basename "$example")"
    done
    expected="$expected
-rw-r--r-- root/root ./usr/share/locale/zh_CN/LC_MESSAGES/pingate.mo
-rw-r--r-- root/root ./usr/share/locale/zh_TW/LC_MESSAGES/pingate.mo
-rw-r--r-- root/root ./usr/share/pam-configs/pingate"
    assert_eq "$(echo "$expected" | LC_ALL=C sort -k3)" "$(archive_files "$DEB")" "files in pingate"
    expected="-rw-r--r-- root/root ./etc/pam.d/pingate-lock
-rwxr-xr-x root/root ./usr/bin/pingate-lock
-rw-r--r-- root/root ./usr/share/doc/pingate-lock/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/pingate-lock/copyright
-rw-r--r-- root/root ./usr/share/man/man1/pingate-lock.1.gz"
    assert_eq "$(echo "$expected" | LC_ALL=C sort -k3)" "$(archive_files "$LOCK_DEB")" "files in pingate-lock"
    assert_not_contains "$(dpkg-deb -c "$DEB" | awk '{print $1}')" "s" "set-id bits in the archive (postinst's statoverride sets them)"
}

# A server that wants a PIN for sudo gets no X, cairo or pango: those are
# pingate-lock's, which needs this very version of pingate.
test_control_fields_name_only_the_runtime_libraries() {
    need_deb
    local depends package
    depends="$(dpkg-deb -f "$DEB" Depends)"
    for package in $(echo "$depends" | tr ',' '\n' | sed 's/(.*)//; s/ //g'); do
        case "$package" in
            libc6|libpam0g|libsystemd0|libstdc++6|libgcc-s1|libpam-runtime|adduser) ;;
            # The CLI's `pingate key` (tpm2-tss); the helper links none of it.
            libtss2-esys-3.0.2-0|libtss2-tctildr0|libtss2-rc0|libtss2-tcti-device0) ;;
            # Debian 13's libtss2-mu provides no old name: one package set installs on both.
            "libtss2-mu0|libtss2-mu-4.0.1-0t64") ;;
            "debconf|debconf-2.0") ;;   # one alternative: the question whether to seal the key with the TPM
            *) fail "unexpected dependency $package of pingate in [$depends]" ;;
        esac
    done
    # Every executable carries libsodium from its archive: Debian 14 has
    # another soname (libsodium26), so no package names one.
    assert_not_contains "$depends" "libsodium" "pingate's Depends"
    assert_contains "$depends" "libpam-runtime (>= 1.0.1-6)"
    assert_contains "$depends" "libtss2-mu0 (>= 3.0.1) | libtss2-mu-4.0.1-0t64"
    # The helper carries libsodium, libstdc++ and its unwinder from their
    # static archives, the CLI and pingate-lock libsodium: a security update
    # of their sources needs a rebuild.
    local built_using; built_using="$(dpkg-deb -f "$DEB" Built-Using)"
    assert_contains "$built_using" "libsodium (= $(dpkg-query -W -f='${source:Version}' libsodium-dev))" "pingate's Built-Using"
    assert_contains "$built_using" "gcc-12 (= " "pingate's Built-Using"
    assert_eq "pingate-lock" "$(dpkg-deb -f "$DEB" Suggests)" "pingate's Suggests"
    assert_eq "/etc/pingate/pingate.conf" "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles)" "pingate's conffiles"
    depends="$(dpkg-deb -f "$LOCK_DEB" Depends)"
    for package in $(echo "$depends" | tr ',' '\n' | sed 's/(.*)//; s/ //g'); do
        case "$package" in
            libc6|libpam0g|libsystemd0|libstdc++6|libgcc-s1|pingate) ;;
            libx11-6|libxrandr2|libcairo2|libpango-1.0-0|libpangocairo-1.0-0|libglib2.0-0|libharfbuzz0b) ;;
            # Its Wayland front end: libwayland-client (and the generated
            # protocol code, which is in the binary), xkbcommon for keys.
            libwayland-client0|libxkbcommon0) ;;
            *) fail "unexpected dependency $package of pingate-lock in [$depends]" ;;
        esac
    done
    assert_contains "$depends" "pingate (= 0.3.0)"
    assert_not_contains "$depends" "libsodium" "pingate-lock's Depends"
    assert_eq "libsodium (= $(dpkg-query -W -f='${source:Version}' libsodium-dev))" "$(dpkg-deb -f "$LOCK_DEB" Built-Using)" "pingate-lock's Built-Using"
    assert_contains "$depends" "libx11-6"
    assert_contains "$depends" "libwayland-client0"
    assert_contains "$depends" "libxkbcommon0"
    assert_eq "/etc/pam.d/pingate-lock" "$(dpkg-deb --ctrl-tarfile "$LOCK_DEB" | tar -xO ./conffiles)" "pingate-lock's conffiles"
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
    local out deb
    for deb in "$DEB" "$LOCK_DEB"; do
        out="$(lintian "$deb" 2>&1 | grep -v 'running with root privileges')" || true
        assert_not_contains "$out" "E: " "lintian on $(basename "$deb")"
        echo "$out" | grep '^W: ' | sed 's/^/    lintian: /' >&2 || true
    done
}

test_dpkg_install_sets_up_group_helper_store_and_key() {
    need_deb
    dpkg_do -i "$DEB" "$LOCK_DEB"
    local gid; gid="$(getent group pingate | cut -d: -f3)"
    [ -n "$gid" ] && [ "$gid" -lt 1000 ] || fail "no system group pingate: [$gid]"
    expect "$HELPER" root:pingate 2755
    assert_eq "root pingate 2755 $HELPER" "$(dpkg-statoverride --list "$HELPER")" "statoverride"
    expect /usr/bin/pingate root:root 755
    expect "$MODULE" root:root 644
    expect /etc/pingate/pingate.conf root:root 644
    expect /var/lib/pingate root:pingate 750
    expect /var/lib/pingate/machine.key root:pingate 640
    assert_eq 32 "$(stat -c %s /var/lib/pingate/machine.key)" "machine key size"
    assert_not_contains "$(cat /etc/pam.d/common-auth)" "pam_pingate" "common-auth (the profile is Default: no)"
    assert_contains "$(dpkg -s pingate)" "Status: install ok installed"
    expect /usr/bin/pingate-lock root:root 755
    expect /etc/pam.d/pingate-lock root:root 644
    assert_contains "$(dpkg -s pingate-lock)" "Status: install ok installed"
}

test_dpkg_refuses_pingate_lock_without_pingate() {
    need_deb
    rm -f /var/lib/man-db/auto-update
    local out
    out="$(dpkg -i "$LOCK_DEB" 2>&1)" && fail "dpkg installed pingate-lock alone: $out"
    assert_contains "$out" "depends on pingate (= 0.3.0)"
    [ ! -e /usr/bin/pingate-lock ] || [ "$(dpkg-query -W -f='${Status}' pingate-lock)" != "install ok installed" ] ||
        fail "pingate-lock is configured without pingate"
    dpkg -r pingate-lock > /dev/null 2>&1 || true
}

test_dpkg_reinstall_keeps_the_key_and_the_override() {
    need_deb
    dpkg_do -i "$DEB"
    local key; key="$(sha256sum < /var/lib/pingate/machine.key)"
    dpkg_do -i "$DEB"
    assert_eq "$key" "$(sha256sum < /var/lib/pingate/machine.key)" "machine key after reinstall"
    expect "$HELPER" root:pingate 2755
}

# with_a_tpm: the package and swtpm are there (else skip), and a private
# /run for /run/pingate, stopped and unmounted when the test ends.
with_a_tpm() {
    need_deb
    tpm_available || skip "swtpm or tpm2-tools is not installed"
    TPM_DIR="$OVERLAY/tpm"; mkdir -p "$TPM_DIR"
    tpm_setup
    trap 'tpm_stop; umount -l /run' EXIT
}

# An upgrade's postinst (`pingate init --upgrade`) keeps a key sealed by the
# TPM as the key: no clear key appears beside it, and every PIN still works.
test_dpkg_reinstall_keeps_a_sealed_key_and_every_pin() {
    with_a_tpm
    dpkg_do -i "$DEB"
    printf 'kdf_operations = 1\nkdf_memory = 8K\ntpm_tcti = %s\n' "$TCTI" >> /etc/pingate/pingate.conf
    tpm_start
    printf '4821\n4821\n' | /usr/bin/pingate enroll root --pin --stdin > /dev/null || fail "enroll failed"
    /usr/bin/pingate key seal > /dev/null || fail "key seal failed"
    local sealed; sealed="$(sha256sum < /var/lib/pingate/machine.key.sealed)"
    dpkg_do -i "$DEB"
    [ ! -e /var/lib/pingate/machine.key ] || fail "postinst made a clear key beside the sealed one"
    assert_eq "$sealed" "$(sha256sum < /var/lib/pingate/machine.key.sealed)" "sealed key after the upgrade"
    reboot_memory
    /usr/bin/pingate key load > /dev/null || fail "key load failed"
    printf '4821\n' | /usr/bin/pingate verify root --stdin > /dev/null || fail "the PIN no longer verifies"
}

# The package offers sealing where there is a TPM (debconf's
# pingate/seal-with-tpm, default no): answered yes, postinst seals the key.
test_dpkg_seals_the_key_when_the_question_is_answered_yes() {
    with_a_tpm
    dpkg_do -i "$DEB"
    [ -f /var/lib/pingate/machine.key ] || fail "the default (no) sealed the key"
    printf 'kdf_operations = 1\nkdf_memory = 8K\ntpm_tcti = %s\n' "$TCTI" >> /etc/pingate/pingate.conf
    tpm_start
    printf '4821\n4821\n' | /usr/bin/pingate enroll root --pin --stdin > /dev/null || fail "enroll failed"
    echo "pingate pingate/seal-with-tpm boolean true" | debconf-set-selections
    DEBIAN_FRONTEND=noninteractive dpkg_do -i "$DEB"
    [ -f /var/lib/pingate/machine.key.sealed ] || fail "postinst did not seal: $(cat "$OVERLAY/dpkg.out")"
    [ ! -e /var/lib/pingate/machine.key ] || fail "the clear key is still there"
    reboot_memory
    /usr/bin/pingate key load > /dev/null || fail "key load failed"
    printf '4821\n' | /usr/bin/pingate verify root --stdin > /dev/null || fail "the PIN no longer verifies"
}

test_dpkg_remove_takes_the_profile_out_first_and_keeps_the_store() {
    need_deb
    dpkg_do -i "$DEB" "$LOCK_DEB"
    pam-auth-update --package --enable pingate
    assert_contains "$(cat /etc/pam.d/common-auth)" "pam_pingate.so forward_pass" "common-auth after --enable"
    dpkg_do -r pingate-lock pingate
    assert_not_contains "$(cat /etc/pam.d/common-auth)" "pam_pingate" "common-auth after dpkg -r"
    [ ! -e "$MODULE" ] || fail "module left behind"
    [ ! -e "$HELPER" ] || fail "helper left behind"
    [ -f /var/lib/pingate/machine.key ] || fail "remove (not purge) deleted the key"
    [ -f /etc/pingate/pingate.conf ] || fail "remove (not purge) deleted the conffile"
}

# A remove undoes `pingate enable` before the module leaves: a stack keeps no
# line naming a missing module, and a file enable made from /usr/lib/pam.d is
# deleted, since left behind it would hide every later update of the original.
test_dpkg_remove_undoes_pingate_enable_including_a_copied_distribution_file() {
    need_deb
    dpkg_do -i "$DEB"
    local sudo_before; sudo_before="$(sha256sum < /etc/pam.d/sudo)"
    mkdir -p /usr/lib/pam.d
    printf '%s\n' "auth requisite pam_nologin.so" "@include common-auth" > /usr/lib/pam.d/pgdistro
    rm -f /etc/pam.d/pgdistro
    /usr/bin/pingate enable sudo pgdistro > "$OVERLAY/enable.out" 2>&1 || fail "pingate enable failed: $(cat "$OVERLAY/enable.out")"
    grep -q pam_pingate /etc/pam.d/pgdistro || fail "no PIN line in the copied pgdistro"
    dpkg_do -r pingate
    [ ! -e /etc/pam.d/pgdistro ] || fail "the copy of /usr/lib/pam.d/pgdistro was left behind"
    assert_eq "$sudo_before" "$(sha256sum < /etc/pam.d/sudo)" "sudo's stack after dpkg -r"
    assert_eq "" "$(grep -l pam_pingate /etc/pam.d/* 2>/dev/null || true)" "stacks naming pam_pingate.so after dpkg -r"
}

# A remove masks the key's boot unit; installing again must take the mask
# away, or a sealed key the remove kept would never be loaded at boot.
test_dpkg_reinstall_after_remove_unmasks_the_key_unit() {
    need_deb
    local unit=/etc/systemd/system/pingate-key.service wants=/etc/systemd/system/multi-user.target.wants/pingate-key.service
    dpkg_do -i "$DEB"
    [ -L "$wants" ] || fail "install did not enable the unit: $(ls -l /etc/systemd/system/multi-user.target.wants 2>&1)"
    dpkg_do -r pingate
    assert_eq /dev/null "$(readlink "$unit")" "the unit after dpkg -r (masked)"
    dpkg_do -i "$DEB"
    [ ! -e "$unit" ] && [ ! -L "$unit" ] || fail "the unit is still masked after installing again: $(ls -l "$unit")"
    [ -L "$wants" ] || fail "the unit is not enabled after installing again"
}

test_dpkg_purge_leaves_the_system_as_it_was() {
    need_deb
    dpkg_do -i "$DEB" "$LOCK_DEB"
    dpkg_do -P pingate-lock pingate
    [ ! -e /var/lib/pingate ] || fail "store left behind"
    [ ! -e /etc/pam.d/pingate-lock ] || fail "/etc/pam.d/pingate-lock left behind"
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
