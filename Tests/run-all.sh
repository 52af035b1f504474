#!/bin/bash
# Tests/run-all.sh — the one command that runs PinGate's whole test suite on a
# fresh Debian 12 machine with the Swift toolchain, as root:
#
#   sudo Tests/run-all.sh
#
# It installs the apt packages the build and tests need (only those missing),
# builds debug and release (static Swift stdlib) binaries and the PAM module,
# runs the unit tests and every Tests/IntegrationTests/*_test.sh, and exits
# non-zero if anything failed or if no test ran. TEST_FILTER=word narrows the
# integration tests; SKIP_UNIT=1 skips the unit tests.
set -uo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
export PATH="/opt/swift/usr/bin:$PATH"

# Every command the tests run must come from one of these or from Debian's base
# system: Tests/test-commands.txt names each one's package, and the suite
# "test commands have packages" (Tests/check-test-commands.py) fails otherwise.
APT_PACKAGES=(libpam0g-dev libsodium-dev libsystemd-dev pamtester sudo gettext valgrind openssl
              libpam-runtime libpam-modules util-linux locales fakeroot lintian
              chrpath dpkg-dev python3
              gcc make binutils procps strace             # cc, make; nm, readelf, strings; ps, pgrep, pkill, kill; stopping at exit
              pkexec polkitd dbus-daemon dbus-bin          # polkit_test.sh: real pkexec, polkitd, a bus
              libx11-dev libxrandr-dev libcairo2-dev libpango1.0-dev fonts-noto-cjk
              pkgconf                                     # Package.swift: pingate-lock's header paths (pkg-config)
              libwayland-dev wayland-protocols libxkbcommon-dev   # pingate-lock on Wayland: wayland-scanner and ext-session-lock-v1.xml at build time
              xvfb xdotool imagemagick x11-utils x11-xserver-utils x11-apps xss-lock   # pingate-lock and lock_test.sh (xrandr, xrdb, xwd)
              xserver-xephyr libxcomposite-dev            # lock_test.sh: a screen that changes size, a hostile client
              libkscreenlocker5 plasma-workspace plasma-framework   # kde_test.sh: KDE's greeter, Breeze's lock screen and the QML it imports
              qml-module-org-kde-kquickcontrolsaddons qml-module-qtquick-virtualkeyboard
              mate-screensaver                            # mate_test.sh: MATE's lock screen
              cinnamon-screensaver libglib2.0-bin         # cinnamon_test.sh: Cinnamon's lock screen, and its schema
              gir1.2-cvc-1.0 gir1.2-caribou-1.0           # ... the typelibs it imports that only the Cinnamon desktop brings
              libtss2-dev swtpm tpm2-tools                 # the CLI's tpm2-tss (key seal/load); tpm_test.sh: a software TPM, tpm2_pcrextend
              libtss2-tcti-swtpm0 xxd                     # tpm_test.sh: the CLI reaches swtpm through this TCTI; key bytes as hex
              debootstrap systemd-container git)          # booted_test.sh: Debian 12 and 13 trees, booted by systemd-nspawn; 0.1.0 from git

step() { printf '\n==> %s\n' "$*"; }

install_packages() {
    local missing=()
    local package
    for package in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "all ${#APT_PACKAGES[@]} packages present"
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "missing packages: ${missing[*]} (run as root to install them)" >&2
        return 1
    fi
    echo "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The Swift builds must be free of warnings (the C shim builds with -Werror):
# on a clean clone every file compiles, so any warning shows here.
build() {
    local log=.build/swift-build.log
    mkdir -p .build
    { swift build --build-tests && swift build -c release --static-swift-stdlib; } 2>&1 | tee "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || return 1
    if grep -E "warning:" "$log" >&2; then
        echo "FAIL: the Swift build printed the warnings above" >&2
        return 1
    fi
    make -s -C pam all harness asan && make -s -C po
}

check_static_runtime() {
    local binary
    for binary in .build/release/pingate-verify .build/release/pingate .build/release/pingate-lock; do
        if ldd "$binary" | grep -q libswift; then
            echo "FAIL: $binary links the Swift runtime dynamically:" >&2
            ldd "$binary" >&2
            return 1
        fi
    done
    echo "release binaries carry the Swift runtime statically (no libswift* in ldd)"
}

TOTAL_PASSED=0
TOTAL_FAILED=0
TOTAL_SKIPPED=0
FAILED_SUITES=()

# record SUITE OUTPUT_FILE RC: add a suite's "N passed, N failed[, N skipped]" line.
record() {
    local suite="$1" output="$2" rc="$3"
    local line passed failed skipped
    line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$output" | tail -1)"
    if [ -z "$line" ]; then
        TOTAL_FAILED=$((TOTAL_FAILED + 1)); FAILED_SUITES+=("$suite (no summary line)"); return
    fi
    passed="$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")"
    failed="$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")"
    skipped="$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")"
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
    TOTAL_SKIPPED=$((TOTAL_SKIPPED + ${skipped:-0}))
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        TOTAL_FAILED=$((TOTAL_FAILED + 1)); FAILED_SUITES+=("$suite (exit $rc)")
    elif [ "$failed" -ne 0 ]; then
        FAILED_SUITES+=("$suite")
    fi
}

run_unit_tests() {
    local output="$WORK/unit.out"
    swift test --skip-build 2>&1 | tee "$output" | grep -E '^(✘|✔ Test run|✘ Test run)|recorded an issue' 
    local rc=${PIPESTATUS[0]}
    local line count issues
    line="$(grep -E 'Test run with [0-9]+ tests' "$output" | tail -1)"
    count="$(sed -nE 's/.*Test run with ([0-9]+) tests.*/\1/p' <<<"$line")"
    if [ -z "$count" ] || [ "$count" -eq 0 ]; then
        echo "FAIL: the unit test run executed no tests" >&2
        TOTAL_FAILED=$((TOTAL_FAILED + 1)); FAILED_SUITES+=("unit (no tests ran)"); return
    fi
    if [ "$rc" -eq 0 ]; then
        echo "$count passed, 0 failed" > "$WORK/unit.summary"
    else
        issues="$(grep -cE '^✘ Test .* failed' "$output")"
        echo "$((count - issues)) passed, $issues failed" > "$WORK/unit.summary"
    fi
    cat "$WORK/unit.summary"
    record unit "$WORK/unit.summary" "$rc"
}

# Every command the test scripts run comes from a package installed above
# (Tests/test-commands.txt); run before the build, so a gap shows at once.
check_test_commands() {
    local output="$WORK/test-commands.out"
    python3 Tests/check-test-commands.py 2>&1 | tee "$output"
    record "test commands have packages" "$output" "${PIPESTATUS[0]}"
}

# The attacks' record_tool.py takes the slot layout from docs/design.md's table
# (which the unit tests keep equal to RecordLayout.swift); its selftest writes a
# record and finds each value at the table's offset. Cheap: before the build too.
check_record_tool() {
    local output="$WORK/record-tool.out"
    python3 Tests/Attack/record_tool.py selftest 2>&1 | tee "$output"
    record "record_tool.py follows design.md's record table" "$output" "${PIPESTATUS[0]}"
}

run_integration_tests() {
    local file name rc
    for file in Tests/IntegrationTests/*_test.sh; do
        name="$(basename "$file" .sh)"
        step "integration: $name"
        bash "$file" 2>&1 | tee "$WORK/$name.out"
        rc=${PIPESTATUS[0]}
        record "$name" "$WORK/$name.out" "$rc"
    done
}

WORK="$(mktemp -d /tmp/pingate-run.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
START=$(date +%s)

step "packages"; install_packages || { echo "FAIL: could not install packages" >&2; exit 1; }
step "test commands have packages"; check_test_commands
step "record_tool.py follows design.md's record table"; check_record_tool
step "build"; build || { echo "FAIL: build failed" >&2; exit 1; }
step "static Swift runtime"; check_static_runtime || exit 1
if [ "${SKIP_UNIT:-0}" != 1 ]; then step "unit tests"; run_unit_tests; fi
run_integration_tests

step "summary ($(( $(date +%s) - START )) s)"
if [ ${#FAILED_SUITES[@]} -gt 0 ]; then printf 'failed: %s\n' "${FAILED_SUITES[@]}"; fi
echo "${TOTAL_PASSED} passed, ${TOTAL_FAILED} failed, ${TOTAL_SKIPPED} skipped"
[ "$TOTAL_FAILED" -eq 0 ] && [ "$TOTAL_PASSED" -gt 0 ]
