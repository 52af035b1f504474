#!/bin/bash
# run-attacks.sh — PinGate under attack: one command, as root, prints a table
#
#   scenario | attempts | verifications | successes | result
#
# and exits non-zero if any scenario found a breach (or could not run).
#
#   sudo Tests/Attack/run-attacks.sh                  the CI sizes (~2 min)
#   sudo ATTACK_SCALE=full Tests/Attack/run-attacks.sh  the bigger numbers
#   sudo Tests/Attack/run-attacks.sh parallel tamper  scenarios whose name
#                                                     contains a word
#
# Everything runs in Tests/IntegrationTests/sandbox.sh's private mount
# namespace: test users pgalice/pgbob/pgcarol, the release helper installed
# setgid at /usr/libexec/pingate/pingate-verify, a fresh store. Columns:
# attempts = requests an attacker sent; verifications = answers that ran the
# KDF (ok or wrong); successes = answers "ok" the attacker should not have got
# (or, for a legitimate user's run, as labelled). Needs the release build
# (swift build -c release --static-swift-stdlib) and, for the PAM rows,
# `make -C pam all harness asan`.
ATTACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$ATTACK_DIR/../IntegrationTests/lib.sh"
source "$ATTACK_DIR/../IntegrationTests/sandbox.sh"
sandbox_enter "$@"

source "$ATTACK_DIR/attack_lib.sh"
source "$ATTACK_DIR/scenarios/concurrency.sh"
source "$ATTACK_DIR/scenarios/store.sh"
source "$ATTACK_DIR/scenarios/process.sh"
source "$ATTACK_DIR/scenarios/input.sh"
source "$ATTACK_DIR/scenarios/pam.sh"
source "$ATTACK_DIR/../IntegrationTests/session_lib.sh"
source "$ATTACK_DIR/scenarios/owner.sh"
source "$ATTACK_DIR/scenarios/stacks.sh"
source "$ATTACK_DIR/scenarios/deadlines.sh"

SCALE="${ATTACK_SCALE:-ci}"
case "$SCALE" in ci|full) ;; *) echo "ATTACK_SCALE must be ci or full" >&2; exit 2 ;; esac

attack_preflight || exit 1
# Every scenario function is named attack_*, grouped by threat: the lockout's
# counting, the store, the process, the input, the module, then who may spend
# a PIN, from where, and what waits.
SCENARIOS=(
    attack_parallel_wrong_guesses attack_sigkill_at_random_moments attack_clock_rollback_and_reboot
    attack_wall_clock_set_forward attack_store_tampering attack_user_rewrites_own_record attack_disk_full attack_hostile_environment
    attack_hostile_limits attack_bad_input attack_other_users_record attack_pam_module_asan
    attack_pam_module_valgrind attack_other_user_spends_the_pin attack_pin_passed_on_as_password
    attack_remote_session_without_rhost attack_stopped_helper attack_user_stops_the_lockers_helper
    attack_enable_skips_a_second_factor
)
for scenario in "${SCENARIOS[@]}"; do
    if [ $# -gt 0 ]; then
        wanted=0
        for word in "$@"; do [[ "$scenario" == *"$word"* ]] && wanted=1; done
        [ "$wanted" -eq 1 ] || continue
    fi
    store_reset
    printf '  running %s …\n' "${scenario#attack_}" >&2
    ( set +e; "$scenario" ) || row "${scenario#attack_}" - - - "ERROR: scenario stopped (exit $?)"
done
print_table
