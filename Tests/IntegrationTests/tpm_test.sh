#!/bin/bash
# The machine key sealed by a TPM (issue 21), against swtpm: `pingate key
# seal` leaves only the sealed blob in the store, `key load` unseals it into
# a ramfs once per boot, the real module through real libpam takes the PIN
# from it, and every way the TPM can say no (another machine, a changed PCR,
# no TPM) fails closed: no PIN offered, nothing counted, the password works,
# doctor says why. The helper never links tpm2-tss.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
sandbox_enter "$@"

CONF="$SANDBOX/pam-conf"

. "$here/tpm_lib.sh"
TPM_DIR="$SANDBOX"
tpm_available || { echo "skip: swtpm or tpm2-tools is not installed (apt install swtpm tpm2-tools)"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
tpm_setup
trap 'tpm_stop; rm -rf "$SANDBOX"' EXIT

fresh() {
    reboot_memory
    store_reset
    printf 'tpm_tcti = %s\n' "$TCTI" >> /etc/pingate/pingate.conf
    write_service "$CONF" sudo "auth sufficient $SANDBOX/pam_pingate.so" "auth required pam_unix.so"
    tpm_start "${1:-}"
}

run() { pam_run "$CONF" sudo "$@"; }
key_hex() { xxd -p -c 64 "$1"; }
key_state() { "$PINGATE" key status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

test_seal_then_load_then_the_pin_works_through_libpam() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local start=$(now_ms)
    "$PINGATE" key seal > "$SANDBOX/out" || fail "key seal: $(cat "$SANDBOX/out")"
    echo "    seal: $(( $(now_ms) - start )) ms"
    [ ! -e /var/lib/pingate/machine.key ] || fail "the clear key file is still there"
    assert_eq "600 root:pingate" "$(stat -c '%a %U:%G' /var/lib/pingate/machine.key.sealed)" "sealed key"
    assert_eq sealed-loaded "$(key_state)"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "PIN right after sealing"
    reboot_memory
    assert_eq sealed-not-loaded "$(key_state)"
    start=$(now_ms)
    "$PINGATE" key load >/dev/null || fail "key load failed"
    echo "    load: $(( $(now_ms) - start )) ms"
    assert_eq "750 root:pingate ramfs" "$(stat -c '%a %U:%G' /run/pingate) $(stat -f -c %T /run/pingate)" "loaded-key directory"
    assert_eq "640 root:pingate 32" "$(stat -c '%a %U:%G %s' /run/pingate/machine.key)" "loaded key"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "PIN after a reboot and key load"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
}

# A screen locker runs the setgid helper as the user: the helper reaches the
# loaded key through the pingate group, the user alone reaches nothing.
test_the_helper_reads_the_loaded_key_that_its_user_cannot() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    as_user pgalice cat /run/pingate/machine.key >/dev/null 2>&1 && fail "pgalice read the loaded key"
    as_user pgalice ls /run/pingate >/dev/null 2>&1 && fail "pgalice listed /run/pingate"
    local answer
    answer=$(helper_request as pgalice op=verify user=pgalice service=i3lock secret="$TEST_PIN")
    assert_contains "$answer" $'ok\nexit=0' "the helper run by pgalice"
}

test_the_keys_bytes_are_in_no_file_under_the_store() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local key; key=$(key_hex /var/lib/pingate/machine.key)
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    assert_eq "$key" "$(key_hex /run/pingate/machine.key)" "the loaded key is the old key"
    python3 - "$key" /var/lib/pingate <<'PY' || fail "the key's bytes are in a file under the store"
import os, sys
key = bytes.fromhex(sys.argv[1]); found = []; files = 0
for root, dirs, names in os.walk(sys.argv[2]):
    for name in names:
        files += 1
        with open(os.path.join(root, name), "rb") as f:
            if key in f.read(): found.append(name)
assert files >= 2, "the walk saw the sealed key and the record"
sys.exit(1 if found else 0)
PY
    # The control: the same search finds them where they are.
    python3 -c 'import sys; sys.exit(0 if bytes.fromhex(sys.argv[1]) in open("/run/pingate/machine.key","rb").read() else 1)' "$key" \
        || fail "the search cannot find the key where it is"
}

# Doctor says where the key is and whether its memory can reach swap: a
# ramfs cannot; a key someone put on a tmpfs can, and is reported.
test_doctor_reports_the_sealed_key_and_its_memory() {
    need_cli; fresh
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    "$PINGATE" doctor > "$SANDBOX/doctor" 2>&1 || true
    assert_contains "$(cat "$SANDBOX/doctor")" "the machine key is sealed by the TPM: /var/lib/pingate/machine.key.sealed"
    assert_contains "$(cat "$SANDBOX/doctor")" "the loaded key is on a ramfs: never written to swap"
    local key; key=$(key_hex /run/pingate/machine.key)
    reboot_memory
    mkdir -m 750 /run/pingate && chgrp pingate /run/pingate     # on /run's tmpfs
    echo "$key" | xxd -r -p > /run/pingate/machine.key
    chgrp pingate /run/pingate/machine.key && chmod 640 /run/pingate/machine.key
    "$PINGATE" doctor > "$SANDBOX/doctor" 2>&1 && fail "doctor found no problem with a key on tmpfs"
    assert_contains "$(cat "$SANDBOX/doctor")" "the loaded key is on tmpfs, which can be written to swap"
    "$PINGATE" key load >/dev/null || fail "key load over a tmpfs directory failed"
    assert_eq ramfs "$(stat -f -c %T /run/pingate)" "key load mounts a ramfs over it"
}

test_another_tpm_cannot_load_it_and_fails_closed() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    reboot_memory
    tpm_start fresh            # the disk in another machine, or this TPM cleared
    local before; before=$(record_state pgalice)
    "$PINGATE" key load > "$SANDBOX/out" 2>&1 && fail "key load succeeded on another TPM"
    assert_contains "$(cat "$SANDBOX/out")" "another machine's TPM sealed it"
    [ ! -e /run/pingate/machine.key ] || fail "a key is loaded after a failed load"
    assert_eq sealed-elsewhere "$("$PINGATE" key status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["load_failure"]["cause"])')"
    # The first and only question is pam_unix's: the PIN is not offered.
    run pgalice "$TEST_PASSWORD"$'\n'
    assert_not_contains "$out" "PIN: " "transcript (no PIN offered)"
    assert_eq 1 "$(prompts)" "prompts (the password only)"
    assert_eq PAM_SUCCESS "$(result)" "the password"
    assert_eq "$before" "$(record_state pgalice)" "record (nothing counted)"
    "$PINGATE" doctor > "$SANDBOX/doctor" 2>&1 || true
    assert_contains "$(cat "$SANDBOX/doctor")" "the last 'pingate key load' failed (sealed-elsewhere)"
}

# TPM2_Clear gives the owner hierarchy a new seed: the storage key the
# sealed object hangs under is gone, and with it the machine key.
test_a_cleared_tpm_cannot_load_it_and_doctor_says_so() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    tpm2_clear -c l || fail "tpm2_clear failed"
    reboot_memory
    "$PINGATE" key load > "$SANDBOX/out" 2>&1 && fail "key load succeeded after TPM2_Clear"
    assert_contains "$(cat "$SANDBOX/out")" "or this TPM was cleared"
    run pgalice "$TEST_PASSWORD"$'\n'
    assert_eq 1 "$(prompts)" "prompts (the password only)"
    assert_eq PAM_SUCCESS "$(result)" "the password"
    "$PINGATE" doctor 2>&1 | grep -q "failed (sealed-elsewhere)" || fail "doctor does not name the cause"
}

test_a_failed_load_replaces_a_loaded_key_with_none() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    [ -e /run/pingate/machine.key ] || fail "not loaded after seal"
    tpm_stop
    "$PINGATE" key load > "$SANDBOX/out" 2>&1 && fail "key load succeeded without a TPM"
    assert_contains "$(cat "$SANDBOX/out")" "no TPM answered"
    [ ! -e /run/pingate/machine.key ] || fail "the old key is still loaded after a failed load"
    local answer; answer=$(helper_status pgalice)
    assert_contains "$answer" "error the machine key is sealed by the TPM"
}

# At boot the TPM's device may come after the unit starts: --wait keeps
# trying an unreachable TPM (the unit passes --wait 20).
test_key_load_waits_for_a_tpm_that_answers_late() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    reboot_memory
    tpm_stop
    "$PINGATE" key load --wait 15 > "$SANDBOX/out" 2>&1 &
    local loader=$!
    sleep 1
    tpm_start
    wait "$loader" || fail "key load --wait failed: $(cat "$SANDBOX/out")"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "PIN after a late TPM"
}

test_with_pcr_7_an_extended_pcr_refuses_the_unseal() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    # Sealed and loaded, seal again binds the same key to PCR 7.
    "$PINGATE" key seal --pcr 7 >/dev/null || fail "key seal --pcr 7 (again) failed"
    assert_eq "[7]" "$("$PINGATE" key status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pcrs"])')"
    reboot_memory
    "$PINGATE" key load >/dev/null || fail "key load with unchanged PCR 7 failed"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "PIN with PCR 7 unchanged"
    tpm2_pcrextend 7:sha256=0000000000000000000000000000000000000000000000000000000000000001 || fail "tpm2_pcrextend failed"
    reboot_memory
    local before; before=$(record_state pgalice)
    "$PINGATE" key load > "$SANDBOX/out" 2>&1 && fail "key load succeeded after PCR 7 changed"
    assert_contains "$(cat "$SANDBOX/out")" "the PCRs it is bound to read differently now"
    # The first and only question is pam_unix's: the PIN is not offered.
    run pgalice "$TEST_PASSWORD"$'\n'
    assert_not_contains "$out" "PIN: " "transcript (no PIN offered)"
    assert_eq 1 "$(prompts)" "prompts (the password only)"
    assert_eq PAM_SUCCESS "$(result)" "the password"
    assert_eq "$before" "$(record_state pgalice)" "record (nothing counted)"
    "$PINGATE" doctor 2>&1 | grep -q "failed (pcr-changed)" || fail "doctor does not name the changed PCR"
}

test_key_unseal_restores_the_key_file() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local key; key=$(key_hex /var/lib/pingate/machine.key)
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    reboot_memory
    "$PINGATE" key unseal >/dev/null || fail "key unseal failed (from the TPM)"
    assert_eq "640 root:pingate 32" "$(stat -c '%a %U:%G %s' /var/lib/pingate/machine.key)" "key file"
    assert_eq "$key" "$(key_hex /var/lib/pingate/machine.key)" "the same key"
    [ ! -e /var/lib/pingate/machine.key.sealed ] || fail "the sealed key is still there"
    assert_eq file "$(key_state)"
    tpm_stop                   # a key file needs no TPM
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "PIN with the key file back"
}

test_init_again_keeps_the_sealed_key_and_every_pin() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    enroll pgbob 1-5-9-6 --pattern
    "$PINGATE" key seal >/dev/null || fail "key seal failed"
    local sealed; sealed=$(sha256sum < /var/lib/pingate/machine.key.sealed)
    # What the .deb's postinst and install.sh run on every upgrade.
    "$PINGATE" init --upgrade > "$SANDBOX/out" || fail "pingate init --upgrade failed"
    assert_contains "$(cat "$SANDBOX/out")" "the machine key is sealed by the TPM: /var/lib/pingate/machine.key.sealed (kept; no clear key is made beside it)"
    [ ! -e /var/lib/pingate/machine.key ] || fail "init made a new clear key beside the sealed one"
    assert_eq "$sealed" "$(sha256sum < /var/lib/pingate/machine.key.sealed)" "sealed key"
    reboot_memory
    "$PINGATE" key load >/dev/null || fail "key load failed"
    run pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "pgalice's PIN after the upgrade"
    run pgbob $'1-5-9-6\n'
    assert_eq PAM_SUCCESS "$(result)" "pgbob's pattern after the upgrade"
}

test_seal_without_a_tpm_changes_nothing() {
    need_cli; fresh
    local key; key=$(key_hex /var/lib/pingate/machine.key)
    tpm_stop
    "$PINGATE" key seal > "$SANDBOX/out" 2>&1 && fail "key seal succeeded without a TPM"
    assert_contains "$(cat "$SANDBOX/out")" "no TPM answered at '$TCTI'"
    assert_eq 1 "$(wc -l < "$SANDBOX/out")" "lines of output (tpm2-tss's own log stays quiet)"
    assert_eq "$key" "$(key_hex /var/lib/pingate/machine.key)" "key file"
    [ ! -e /var/lib/pingate/machine.key.sealed ] || fail "a sealed key appeared"
}

test_only_the_cli_links_tpm2_tss() {
    local helper="$RELEASE_BIN/pingate-verify" cli="$RELEASE_BIN/pingate"
    [ -x "$helper" ] && [ -x "$cli" ] || skip "release binaries not built"
    readelf -d "$cli" | grep -q 'NEEDED.*libtss2-esys' || fail "control: the CLI does not link libtss2-esys"
    if readelf -d "$helper" | grep -i tss2 || ldd "$helper" | grep -i tss2; then
        fail "the setgid helper links tpm2-tss"
    fi
}

run_tests
