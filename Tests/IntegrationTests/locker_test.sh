#!/bin/bash
# locker_test.sh — the user-run path: a screen locker (i3lock, swaylock,
# kscreenlocker) runs PAM as the user, so pam_pingate.so runs without root
# and only the setgid helper can reach the store. Here pam/tests/pam_harness
# runs as pgalice (setpriv, no supplementary groups, reset environment) on a
# private confdir with service i3lock and the real module and helper; the
# helper is also driven directly as pgalice to show what a user can and
# cannot make it do.
#
# usage: bash Tests/IntegrationTests/locker_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
sandbox_enter "$@"

CONF="$SANDBOX/locker-conf"
EVIL="$SANDBOX/evil"          # what an attacking user controls
write_service "$CONF" i3lock "$(module_line)" "$(next_line)"
private_sudo_rundir
sudo_stack

fresh() {
    store_reset
    rm -rf "$EVIL"
}

locker() { RUN_AS=pgalice pam_run "$CONF" i3lock "$@"; }

# ask_as USER [VAR=VALUE...] -- LINES...: a request to the helper as USER, in
# an environment with those variables (HELPER_ARGS: its arguments); prints
# the answer, anything else on stderr, then "exit=N". A helper that hangs (a
# stop seam honoured) is killed after 10 s: exit=137. The Swift runtime reads
# SWIFT_BACKTRACE before main() and may print why it will not backtrace a
# privileged program; those two refusals are not counted as output.
ask_as() {
    local user=$1; shift
    local vars=()
    while [ "$1" != "--" ]; do vars+=("$1"); shift; done
    shift
    local request="pingate-verify/1" line answer rc
    for line in "$@"; do request+=$'\n'"$line"; done
    answer=$(printf '%s\n' "$request" | timeout -s KILL 10 \
        setpriv --reuid="$(id -u "$user")" --regid="$(id -u "$user")" --clear-groups --reset-env -- \
        env "${vars[@]}" "$HELPER" ${HELPER_ARGS:-} 2>&1) \
        && rc=0 || rc=$?
    grep -Ev '^swift runtime: (unable to locate swift-backtrace; disabling backtracing|backtrace-on-crash is not supported for privileged executables)\.$' <<< "$answer"
    echo "exit=$rc"
}

# store_listing: names, owners and modes of everything in the store.
store_listing() { (cd /var/lib/pingate && find . -printf '%p %u:%g %m %s\n' | sort); }

# --- the locker itself ---------------------------------------------------------

test_right_pin_unlocks_as_the_user() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    locker pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
}

test_wrong_pin_from_the_locker_is_counted() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    locker pgalice $'1397\n'
    assert_eq PAM_AUTH_ERR "$(result)" "result"
    assert_eq 1 "$(record_failures pgalice)" "failures"
}

# One helper run per sign-in (pingate_protocol.h, FOLLOW-UP): the locker's
# status and verify are one start of the helper, run as the user.
test_the_lockers_status_and_verify_are_one_helper_run() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    command -v strace >/dev/null || skip "no strace"
    out=$(printf '%s\n' "$TEST_PIN" | strace -f -qq -e trace=execve -o "$SANDBOX/execs" \
        setpriv --reuid=61001 --regid=61001 --clear-groups --reset-env -- \
        "$HARNESS" --confdir "$CONF" --service i3lock --user pgalice) && rc=0 || rc=$?
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
    assert_eq 1 "$(grep -c "execve(\"$HELPER\"" "$SANDBOX/execs")" "helper starts"
}

# The verify that follows a status is judged from the start: for the
# status's user only (another user's is refused and nothing is counted).
test_a_follow_up_is_a_verify_for_the_same_user_only() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    enroll pgbob "$TEST_PIN" --pin
    local status=$'pingate-verify/1\nop=status\nuser=pgalice\nthen=verify'
    local answer
    answer=$(printf 'pingate-verify/1\nop=verify\nuser=pgbob\nsecret=1397\n' > "$SANDBOX/next";
        printf '%s\n' "$status" | as_user pgalice "$HELPER" 3< "$SANDBOX/next") && rc=0 || rc=$?
    assert_contains "$answer" "enrolled kind=pin" "the status line"
    assert_contains "$answer" "refused a follow-up must be a verify for the user of the status" "the follow-up"
    assert_eq 7 "$rc" "exit status"
    assert_eq 0 "$(record_failures pgbob)" "pgbob's failures"
    answer=$(printf 'pingate-verify/1\nop=verify\nuser=pgalice\nsecret=1397\n' > "$SANDBOX/next";
        printf '%s\n' "$status" | as_user pgalice "$HELPER" 3< "$SANDBOX/next") && rc=0 || rc=$?
    assert_contains "$answer" "wrong failures=1" "the follow-up verify"
    assert_eq 1 "$rc" "exit status"
    assert_eq 1 "$(record_failures pgalice)" "pgalice's failures"
}

# While a run waits for its verify (the person is typing), it holds no lock:
# another verify of the same user, and an unlock, go through at once.
test_a_run_waiting_for_its_verify_holds_nothing() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    mkfifo "$SANDBOX/later"
    ( printf 'pingate-verify/1\nop=status\nuser=pgalice\nthen=verify\n' \
        | as_user pgalice "$HELPER" 3< "$SANDBOX/later" > "$SANDBOX/waiting" ) &
    local waiter=$! i
    exec 7> "$SANDBOX/later"
    for i in $(seq 100); do grep -q enrolled "$SANDBOX/waiting" 2>/dev/null && break; sleep 0.05; done
    assert_contains "$(cat "$SANDBOX/waiting")" "enrolled" "the waiting run's status"
    local start=$(date +%s%N)
    assert_contains "$(helper_request op=verify user=pgalice secret=$TEST_PIN)" "ok" "a verify meanwhile"
    "$PINGATE" unlock pgalice >/dev/null || fail "unlock while a run waits"
    local ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$ms" -lt 1500 ] || fail "the verify and unlock took $ms ms: something waited for the run"
    exec 7>&-
    wait "$waiter"
    assert_eq "enrolled kind=pin length=4 failures=0" "$(cat "$SANDBOX/waiting")" "the run, ended without a verify"
}

# conf= on the module line is for root callers; the helper takes no
# options from a user, so the module must not pass it from a user-run locker.
test_conf_on_the_module_line_does_not_break_a_user_run_locker() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    write_service "$SANDBOX/conf-given" i3lock "$(module_line conf=/etc/pingate/pingate.conf)" "$(next_line)"
    RUN_AS=pgalice pam_run "$SANDBOX/conf-given" i3lock pgalice "$TEST_PIN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "result (transcript: $out)"
}

# A pingate.conf the helper cannot read (here 0600, so a user-run locker's
# helper is refused it) may narrow the services; the defaults, which include
# i3lock, must not stand in for it. Only a missing file means the defaults.
test_an_unreadable_config_offers_nothing() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    echo "services = sudo" >> /etc/pingate/pingate.conf
    chmod 600 /etc/pingate/pingate.conf
    locker pgalice "$TEST_PIN"$'\n'
    chmod 644 /etc/pingate/pingate.conf   # store_reset keeps the mode for later tests
    # The helper answers `error`: the module is unavailable, the password decides.
    assert_eq PAM_AUTHINFO_UNAVAIL "$(result)" "result"
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

# A services list that leaves the locker out: nothing offered, nothing counted.
test_a_services_list_without_the_locker_offers_nothing() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    printf 'services = sudo %s\n' "$(printf 'x%.0s' $(seq 1200))" >> /etc/pingate/pingate.conf
    locker pgalice "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_locker_not_enrolled_is_ignored() {
    fresh
    locker pgalice ''
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
}

# The module asks nothing when the caller is not the user: no prompt and no
# helper call (before the owner rule, the helper's refusal stopped it).
test_locker_run_by_one_user_for_another_is_not_offered() {
    need_cli; fresh
    enroll pgbob "$TEST_PIN" --pin
    local before; before=$(record_state pgbob)
    locker pgbob "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "prompts"
    assert_eq "$before" "$(record_state pgbob)" "pgbob's record"
}

# --- what the user cannot do -----------------------------------------------------

test_user_cannot_read_the_store() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    [ -s /var/lib/pingate/61001.record ] || fail "no record at /var/lib/pingate/61001.record"
    if as_user pgalice cat /var/lib/pingate/61001.record >/dev/null 2>&1; then fail "pgalice read her record"; fi
    if as_user pgalice cat /var/lib/pingate/machine.key >/dev/null 2>&1; then fail "pgalice read the key"; fi
    if as_user pgalice ls /var/lib/pingate >/dev/null 2>&1; then fail "pgalice listed the store"; fi
    if as_user pgalice sh -c ': >> /var/lib/pingate/61001.record' 2>/dev/null; then fail "pgalice opened her record for writing"; fi
}

test_helper_refuses_another_users_record_the_same_way() {
    need_cli; fresh
    local ops=("op=status user=pgbob" "op=verify user=pgbob secret=1397" "op=verify user=pgbob secret=$TEST_PIN"
               "op=change user=pgbob secret=$TEST_PIN new_kind=pin new=5820")
    local op not_enrolled=() enrolled=() i
    for op in "${ops[@]}"; do not_enrolled+=("$(ask_as pgalice -- $op)"); done
    enroll pgbob "$TEST_PIN" --pin
    local before; before=$(record_state pgbob)
    for op in "${ops[@]}"; do enrolled+=("$(ask_as pgalice -- $op)"); done
    for i in "${!ops[@]}"; do
        assert_contains "${enrolled[$i]}" "refused " "answer to [${ops[$i]}]"
        assert_contains "${enrolled[$i]}" "exit=7" "answer to [${ops[$i]}]"
        assert_eq "${not_enrolled[$i]}" "${enrolled[$i]}" "answer to [${ops[$i]}], enrolled or not"
    done
    assert_eq "$before" "$(record_state pgbob)" "pgbob's record"
    assert_eq 0 "$(record_failures pgbob)" "pgbob's failures"
    assert_eq "${enrolled[0]}" "$(ask_as pgalice -- op=status user=pgnobody)" "answer for a user that does not exist"
    assert_eq "${enrolled[0]}" "$(ask_as pgalice -- op=status user=root)" "answer for root"
}

test_helper_takes_no_arguments_from_a_user() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    mkdir -p "$EVIL"; chmod 777 "$EVIL"
    local args tmp_x_existed=no
    [ -e /tmp/x ] && tmp_x_existed=yes
    for args in "--store /tmp/x" "--store $EVIL/x" "--config $EVIL/x.conf" "--store /var/lib/pingate" "--help" "-"; do
        out=$(HELPER_ARGS="$args" ask_as pgalice -- op=status user=pgalice)
        assert_contains "$out" "refused " "answer with [$args]"
        assert_contains "$out" "exit=7" "answer with [$args]"
    done
    assert_eq "" "$(ls -A "$EVIL")" "files created in $EVIL"
    [ "$tmp_x_existed" = yes ] || [ ! -e /tmp/x ] || fail "/tmp/x was created"
}

# A library that, if the dynamic loader ever ran it inside pingate-verify,
# leaves a marker, says so and aborts. Built as an LD_PRELOAD/LD_AUDIT object
# and as a fake libsodium.so.23 for LD_LIBRARY_PATH.
build_hijack_libraries() {
    mkdir -p "$EVIL/lib" "$EVIL/store" "$EVIL/config/pingate"
    cat > "$EVIL/hijack.c" <<EOF
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
unsigned int la_version(unsigned int version) { return version; }
__attribute__((constructor)) static void hijack(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) return;
	exe[n] = '\0';
	if (strstr(exe, "pingate-verify") == NULL) return;   /* not env(1) */
	close(open("$EVIL/hijacked", O_WRONLY | O_CREAT, 0666));
	puts("HIJACKED");
	fflush(stdout);
	abort();
}
EOF
    cc -shared -fPIC -o "$EVIL/hijack.so" "$EVIL/hijack.c" || fail "cannot build hijack.so"
    # The fake library is libm, the one the helper loads besides libc (it
    # carries libsodium). The helper binds every symbol at start (full RELRO),
    # so the fake must define what it takes from libm, or the loader stops
    # before any constructor runs and the control below would prove nothing.
    cp "$EVIL/hijack.c" "$EVIL/fake-libm.c"
    nm -D --defined-only /lib/x86_64-linux-gnu/libm.so.6 | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u > "$EVIL/libm.names"
    nm -D --undefined-only "$HELPER" | awk '{ sub(/@.*/, "", $2); print $2 }' | sort -u | comm -12 - "$EVIL/libm.names" |
        sed 's/.*/void &(void) {}/' >> "$EVIL/fake-libm.c"
    cc -shared -fPIC -fno-builtin -w -Wl,-soname,libm.so.6 -o "$EVIL/lib/libm.so.6" "$EVIL/fake-libm.c" \
        || fail "cannot build the fake libm"
    # A store and a config the user controls: honouring either changes the answer.
    head -c 32 /dev/urandom > "$EVIL/store/machine.key"
    echo garbage > "$EVIL/store/61001.record"
    printf 'kdf_operations = banana\nservices = none\n' > "$EVIL/pingate.conf"
    cp "$EVIL/pingate.conf" "$EVIL/config/pingate/pingate.conf"
    chown -R pgalice:pgalice "$EVIL"
    chmod 755 "$EVIL"
}

test_environment_does_not_reach_the_helper() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    build_hijack_libraries
    local variants=(
        "LD_PRELOAD=$EVIL/hijack.so"
        "LD_AUDIT=$EVIL/hijack.so"
        "LD_LIBRARY_PATH=$EVIL/lib"
        "SWIFT_BACKTRACE=enable=yes"
        "SWIFT_BACKTRACE=enable=yes,interactive=no,output-to=stdout"
        "PINGATE_STORE=$EVIL/store"
        "PINGATE_STORE_DIR=$EVIL/store"
        "PINGATE_CONFIG=$EVIL/pingate.conf"
        "PINGATE_CONF=$EVIL/pingate.conf"
        "PINGATE_CONFIG_FILE=$EVIL/pingate.conf"
        "PINGATE_TEST_FAULT=counted:kill"
        "PINGATE_TEST_FAULT=opened:stop"
        "HOME=$EVIL XDG_CONFIG_HOME=$EVIL/config"
        "TMPDIR=$EVIL"
    )
    # Control: the libraries do work on an unprivileged copy of the helper.
    cp "$HELPER" "$EVIL/pingate-verify-copy"; chmod 755 "$EVIL/pingate-verify-copy"
    out=$(printf 'pingate-verify/1\nop=status\nuser=pgalice\n' | as_user pgalice \
        env LD_PRELOAD="$EVIL/hijack.so" "$EVIL/pingate-verify-copy" 2>&1 || true)
    assert_contains "$out" "HIJACKED" "control run of an unprivileged copy with LD_PRELOAD"
    out=$(printf 'pingate-verify/1\nop=status\nuser=pgalice\n' | as_user pgalice \
        env LD_LIBRARY_PATH="$EVIL/lib" "$EVIL/pingate-verify-copy" 2>&1 || true)
    assert_contains "$out" "HIJACKED" "control run of an unprivileged copy with LD_LIBRARY_PATH"
    rm -f "$EVIL/hijacked" "$EVIL/pingate-verify-copy"
    local listing evil_files
    listing=$(store_listing)
    evil_files=$(find "$EVIL" | sort)
    local status_base ok_base variant
    status_base=$(ask_as pgalice -- op=status user=pgalice)
    ok_base=$(ask_as pgalice -- op=verify user=pgalice secret="$TEST_PIN")
    assert_eq $'enrolled kind=pin length=4 failures=0\nexit=0' "$status_base" "baseline status"
    assert_eq $'ok\nexit=0' "$ok_base" "baseline verify"
    for variant in "${variants[@]}"; do
        # shellcheck disable=SC2086  # a variant may set two variables
        assert_eq "$status_base" "$(ask_as pgalice $variant -- op=status user=pgalice)" "status with $variant"
        assert_eq "$ok_base" "$(ask_as pgalice $variant -- op=verify user=pgalice secret="$TEST_PIN")" "verify with $variant"
    done
    [ ! -e "$EVIL/hijacked" ] || fail "a hijack library ran inside the helper"
    assert_eq "garbage" "$(cat "$EVIL/store/61001.record")" "the user's fake record"
    assert_eq "$evil_files" "$(find "$EVIL" | sort)" "files in $EVIL"
    assert_eq "$listing" "$(store_listing)" "the store's files"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_wrong_pin_counts_the_same_with_a_fault_variable() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local plain
    plain=$(ask_as pgalice -- op=verify user=pgalice secret=1397)
    assert_contains "$plain" $'\nexit=1' "a plain wrong answer"
    "$PINGATE" unlock pgalice >/dev/null || fail "pingate unlock failed"
    local step
    for step in opened:kill lock-held:kill counted:kill released:stop verified:kill; do
        assert_eq "$plain" "$(ask_as pgalice PINGATE_TEST_FAULT=$step -- op=verify user=pgalice secret=1397)" \
            "wrong answer with PINGATE_TEST_FAULT=$step"
        assert_eq 1 "$(record_failures pgalice)" "failures with PINGATE_TEST_FAULT=$step"
        "$PINGATE" unlock pgalice >/dev/null
    done
}

test_crash_handler_from_the_environment_never_runs() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    mkdir -p "$EVIL"
    printf '#!/bin/sh\nid > %s/backtracer-ran\ncat /var/lib/pingate/machine.key > %s/key\n' "$EVIL" "$EVIL" > "$EVIL/bt"
    chmod 755 "$EVIL/bt"; chown -R pgalice:pgalice "$EVIL"
    # The helper waits for its request; the user crashes it meanwhile.
    sleep 1 | as_user pgalice env SWIFT_BACKTRACE="enable=yes,interactive=no,swift-backtrace=$EVIL/bt" \
        "$HELPER" >/dev/null 2>&1 &
    local pid="" i
    for i in $(seq 50); do
        pid=$(pgrep -u pgalice -f "^$HELPER\$" || true)
        [ -n "$pid" ] && break
        sleep 0.02
    done
    [ -n "$pid" ] || fail "the helper did not start"
    sleep 0.1
    grep -q '^SigCgt:[[:space:]]*0*$' "/proc/$pid/status" || fail "the helper catches signals: $(grep ^SigCgt "/proc/$pid/status")"
    as_user pgalice kill -SEGV "$pid" || fail "pgalice could not signal her own helper"
    wait || true
    sleep 0.2
    [ ! -e "$EVIL/backtracer-ran" ] || fail "the user's backtracer ran: $(cat "$EVIL/backtracer-ran")"
    [ ! -s "$EVIL/key" ] || fail "the machine key leaked"
    assert_eq 0 "$(record_failures pgalice)" "failures"
}

test_concurrent_wrong_attempts_are_counted_at_most_five() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    local i
    for i in $(seq 20); do
        (locker pgalice "$((1000 + i))"$'\n'; echo "$out" > "$SANDBOX/locker.$i") &
    done
    wait
    assert_eq 5 "$(record_failures pgalice)" "failures after 20 concurrent wrong PINs"
    # Of the 20, four heard "Wrong PIN", one started the lockout, the rest
    # were turned away (at status or at verify) without being counted.
    local wrong
    wrong=$(cat "$SANDBOX"/locker.* | grep -c '^INFO Wrong PIN' || true)
    assert_eq 4 "$wrong" "answers that were 'Wrong PIN'"
    rm -f "$SANDBOX"/locker.*
}

# --- the one-field lock screens over Debian's common-auth --------------------------

# MATE's and KDE's lines as `pingate enable` writes them (PAMClient.known;
# enable_test.sh checks the lines), each in front of the system's own
# common-auth (pam_unix, pam_deny), run as the user as the screens run PAM.
# HANDED_ON logs what PinGate's line leaves as PAM_AUTHTOK (pam_test_authtok.so
# log=): what pam_unix takes without asking.
# pgdana's password is all digits, as long as a PIN; pgerin's is digits
# too, and no pattern can be written with them (a 0, cells used twice).
one_field_stacks() {
    local dir="$SANDBOX/one-field-conf" control="[success=done new_authtok_reqd=done auth_err=die default=ignore]"
    local logger="auth optional $AUTHTOK_MODULE log=$HANDED_ON"
    write_service "$dir" mate-screensaver "auth $control $SANDBOX/pam_pingate.so retries=2 again_or_password nonotice" \
        "$logger" "@include common-auth"
    write_service "$dir" kde "auth $control $SANDBOX/pam_pingate.so again_or_password announce nonotice" \
        "$logger" "@include common-auth"
    : > "$HANDED_ON"; chmod 666 "$HANDED_ON"
    cp /etc/pam.d/common-auth "$dir/common-auth"
    add_user pgdana 61004 7391
    add_user pgerin 61005 20240101
}

# add_user NAME UID PASSWORD: a test user with that password, written into
# the sandbox's copies in place (they are bind mounts: no rename).
add_user() {
    local name=$1 uid=$2 password=$3
    grep -q "^$name:" /etc/passwd && return 0
    mkdir -p "$SANDBOX/home/$name"; chown "$uid:$uid" "$SANDBOX/home/$name"
    echo "$name:x:$uid:$uid:PinGate test user:$SANDBOX/home/$name:/bin/sh" >> /etc/passwd
    echo "$name:x:$uid:" >> /etc/group
    echo "$name:$(openssl passwd -6 "$password"):19000:0:99999:7:::" >> /etc/shadow
}

HANDED_ON="$SANDBOX/handed-on.log"

# screen SERVICE USER INPUT: one try at that lock screen, as USER.
screen() { RUN_AS=$2 pam_run "$SANDBOX/one-field-conf" "$1" "$2" "$3"; }

# issue 32: an all-digit password as long as the PIN was always taken for
# the PIN, and auth_err=die kept it from pam_unix forever (the same wrong
# PIN again is not counted, so it never even locked). Typed again — at the
# next try's question, or at MATE's second question — it is the password.
test_one_field_screens_take_a_pin_shaped_password_typed_again() {
    need_cli; fresh; one_field_stacks
    enroll pgdana "$TEST_PIN" --pin
    screen kde pgdana $'7391\n'
    assert_eq PAM_AUTH_ERR "$(result)" "kde, the password the first time (taken for a wrong PIN)"
    assert_eq 1 "$(record_failures pgdana)" "failures after it"
    screen kde pgdana $'7391\n'
    assert_eq PAM_SUCCESS "$(result)" "kde, the password at the next try (transcript: $out)"
    assert_eq 1 "$(prompts)" "kde's questions (pam_unix took it without asking)"
    screen mate-screensaver pgdana $'7391\n'
    assert_eq PAM_SUCCESS "$(result)" "mate, the password at the next try (transcript: $out)"
    assert_eq 1 "$(record_failures pgdana)" "failures after the password twice more"
    fresh; enroll pgdana "$TEST_PIN" --pin
    screen mate-screensaver pgdana $'7391\n7391\n'
    assert_eq PAM_SUCCESS "$(result)" "mate, the password typed twice in one try (transcript: $out)"
    assert_eq 2 "$(prompts)" "mate's questions"
    assert_eq 1 "$(record_failures pgdana)" "failures after it"
}

# What did not change: the right PIN signs in, on both, and is never handed
# on; a first wrong PIN is counted and ends the try (KDE's; MATE's second
# question comes first, and a second wrong PIN ends it) without reaching
# pam_unix. Typed again, the last wrong PIN goes to pam_unix as the
# password, which refuses it, and it is not counted twice.
test_one_field_screens_still_count_a_first_wrong_pin_and_take_the_right_one() {
    need_cli; fresh; one_field_stacks
    local service wrong
    for service in kde mate-screensaver; do
        store_reset; enroll pgdana "$TEST_PIN" --pin; : > "$HANDED_ON"
        screen "$service" pgdana "$TEST_PIN"$'\n'
        assert_eq PAM_SUCCESS "$(result)" "$service, the right PIN"
        if [ "$service" = kde ]; then
            wrong=1397; screen kde pgdana $'1397\n'
        else
            wrong=1398; screen mate-screensaver pgdana $'1397\n1398\n'
            assert_eq 2 "$(record_failures pgdana)" "mate, failures after two wrong PINs"
        fi
        assert_eq PAM_AUTH_ERR "$(result)" "$service, a wrong PIN ends the try"
        assert_not_contains "$out" "PROMPT_ECHO_OFF Password" "$service's questions (pam_unix asked)"
        assert_eq "" "$(cat "$HANDED_ON")" "$service, handed on after the right and the wrong PINs"
        [ "$service" = mate-screensaver ] || assert_eq 1 "$(record_failures pgdana)" "kde, failures after a first wrong PIN"
        local failures; failures=$(record_failures pgdana)
        screen "$service" pgdana "$wrong"$'\n'
        assert_eq PAM_AUTH_ERR "$(result)" "$service, the last wrong PIN again (pam_unix refuses it)"
        assert_eq "$wrong" "$(cat "$HANDED_ON")" "$service, handed on to pam_unix"
        assert_eq 1 "$(prompts)" "$service's questions (pam_unix took it without asking)"
        assert_eq "$failures" "$(record_failures pgdana)" "$service, failures after the wrong PIN again"
        screen "$service" pgdana "$TEST_PIN"$'\n'
        assert_eq PAM_SUCCESS "$(result)" "$service, the right PIN after them"
        assert_eq 0 "$(record_failures pgdana)" "$service, failures after the right PIN"
        assert_eq "$wrong" "$(cat "$HANDED_ON")" "$service, handed on in the end"
    done
}

# A pattern user's all-digit password is no pattern (a 0, cells used
# twice): it is the password, at once, on both screens, and counts nothing.
test_one_field_screens_take_a_password_that_is_no_pattern() {
    need_cli; fresh; one_field_stacks
    enroll pgerin "$TEST_PATTERN" --pattern
    screen kde pgerin $'20240101\n'
    assert_eq PAM_SUCCESS "$(result)" "kde (transcript: $out)"
    screen mate-screensaver pgerin $'20240101\n'
    assert_eq PAM_SUCCESS "$(result)" "mate (transcript: $out)"
    assert_eq 1 "$(prompts)" "mate's questions"
    assert_not_contains "$out" "That is not a pattern" "mate's transcript"
    assert_eq 0 "$(record_failures pgerin)" "failures"
    screen kde pgerin "$TEST_PATTERN"$'\n'
    assert_eq PAM_SUCCESS "$(result)" "kde, the pattern"
}

# --- one record for every path ---------------------------------------------------

test_failures_through_sudo_and_the_locker_add_up() {
    need_cli; fresh
    enroll pgalice "$TEST_PIN" --pin
    sudo_as pgalice $'1397\n'"$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo with a wrong PIN then the password (stderr: $err)"
    assert_eq 1 "$(record_failures pgalice)" "failures after sudo"
    locker pgalice $'1398\n'
    assert_eq PAM_AUTH_ERR "$(result)" "locker result"
    assert_eq 2 "$(record_failures pgalice)" "failures after sudo and the locker"
    sudo_as pgalice $'1399\n'"$TEST_PASSWORD"$'\n'
    locker pgalice $'1400\n'
    sudo_as pgalice $'1401\n'"$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo still takes the password"
    assert_eq 5 "$(record_failures pgalice)" "failures after five through both"
    # Locked for both now: the locker does not even ask.
    locker pgalice "$TEST_PIN"$'\n'
    assert_ignored
    assert_eq 0 "$(prompts)" "locker prompts while locked"
    # sudo asks no PIN either: its one question, the password's, says why.
    sudo_as pgalice "$TEST_PASSWORD"$'\n'
    assert_eq 0 "$rc" "sudo while locked (stderr: $err)"
    assert_not_contains "$err" "PIN: " "sudo's prompts while locked"
    assert_contains "$err" "PIN locked for" "sudo's question while locked"
    assert_eq 5 "$(record_failures pgalice)" "failures while locked"
}

run_tests
