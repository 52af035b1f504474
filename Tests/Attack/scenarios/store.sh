# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# store.sh — the clock, the record and the disk as attack surfaces.

# wrong_guesses USER SECRET N: N verifications as USER of distinct wrong
# PINs from SECRET up (the same wrong PIN again is not counted again),
# answers discarded.
wrong_guesses() {
    local i request
    for i in $(seq 0 $(($3 - 1))); do
        request="$(request_file guess op=verify user="$1" secret="$(printf '%04d' $(( (10#$2 + i) % 10000 )))")"
        ask "$1" "$request"
    done
}

# try_while_locked LABEL EXPECTED_WORD: status and a correct PIN as pgalice,
# both must answer EXPECTED_WORD; counts into ATTEMPTS/VERIFIED/SUCCEEDED.
try_while_locked() {
    local label="$1" expected="$2" request
    for request in "$(request_file status op=status user=pgalice)" "$(request_file right op=verify user=pgalice secret=0427)"; do
        ask pgalice "$request"
        ATTEMPTS=$((ATTEMPTS + 1))
        case "$ANSWER" in ok*|wrong*) VERIFIED=$((VERIFIED + 1)) ;; esac
        case "$ANSWER" in ok*) SUCCEEDED=$((SUCCEEDED + 1)) ;; esac
        [ "${ANSWER%% *}" = "$expected" ] || breach "$label: answer [$ANSWER], expected $expected"
    done
}

attack_clock_rollback_and_reboot() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    enroll_pin pgalice 0427
    wrong_guesses pgalice 1111 5
    [ "$(failures pgalice)" = 5 ] || { row "clock rollback + reboot" - - - "ERROR: setup: 5 failures not counted"; return; }
    local record; record="$(record_of pgalice)"
    # The wall clock now reads an hour (then ten years) earlier than the last
    # failure; the boot clock, which times the lockout, has not moved.
    python3 "$RECORD_TOOL" set "$record" last_failure=now+3600
    try_while_locked "clock 1 h behind" locked
    python3 "$RECORD_TOOL" set "$record" last_failure=now+315360000
    try_while_locked "clock 10 years behind" locked
    # A reboot: the last failure is stamped with another boot's id, and the
    # wall clock says the timeout ran out long ago. The full timeout restarts.
    python3 "$RECORD_TOOL" set "$record" last_failure=now-86400 last_failure_boot_id=random last_failure_boot_clock=1
    sync
    local dropped="caches dropped"
    echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || dropped="drop_caches refused (container), new processes only"
    try_while_locked "after reboot" locked
    local seconds; seconds="$(locked_seconds)"
    [ "$(record_field "$record" last_failure_boot_id)" = "$(cat /proc/sys/kernel/random/boot_id)" ] ||
        breach "after reboot: the restarted timeout was not written with this boot's id"
    [ "${seconds:-0}" -ge 59 ] || breach "after reboot: locked ${seconds:-?} s, expected the full 60 s"
    # A record from before boot stamps: the same, the full timeout restarts.
    python3 "$RECORD_TOOL" set "$record" last_failure=now-86400 last_failure_boot_id=none
    try_while_locked "record without a boot stamp" locked
    # A disabled credential stays disabled across the same.
    python3 "$RECORD_TOOL" set "$record" failures=10 last_failure=now+3600
    sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
    try_while_locked "disabled, after reboot" disabled
    [ "$(failures pgalice)" = 10 ] || breach "failures changed while locked: $(failures pgalice)"
    row "clock rollback + reboot" "$ATTEMPTS" "$VERIFIED" "$SUCCEEDED" "$(verdict "locked ${seconds:-?} s after a reboot (full timeout: 60 s); $dropped")"
}

# Root sets the wall clock forward: the record's wall-clock last failure reads
# a year ago while its boot stamp says 5 s ago. The boot clock decides.
attack_wall_clock_set_forward() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    enroll_pin pgalice 0427
    wrong_guesses pgalice 1111 5
    [ "$(failures pgalice)" = 5 ] || { row "wall clock set forward" - - - "ERROR: setup: 5 failures not counted"; return; }
    local record; record="$(record_of pgalice)"
    python3 "$RECORD_TOOL" set "$record" last_failure=now-31536000 last_failure_boot_id=this last_failure_boot_clock=boot-5
    local before; before="$(fingerprint "$record")"
    try_while_locked "clock a year ahead" locked
    local seconds; seconds="$(locked_seconds)"
    [ "${seconds:-0}" -ge 50 ] && [ "${seconds:-0}" -le 55 ] ||
        breach "clock a year ahead: locked ${seconds:-?} s, expected 55 s less the seconds this took"
    [ "$(fingerprint "$record")" = "$before" ] || breach "clock a year ahead: the record was rewritten"
    row "wall clock set forward" "$ATTEMPTS" "$VERIFIED" "$SUCCEEDED" "$(verdict "locked ${seconds:-?} s of 60 with the last failure a year ago on the wall clock")"
}

# locked_seconds: the seconds left that a status of pgalice reports ("" if not locked).
locked_seconds() { sed -nE 's/^locked seconds=([0-9]+).*/\1/p' <<<"$(failures_answer)"; }

# record_field FILE KEY: one field of the record's current slot.
record_field() { python3 "$RECORD_TOOL" show "$1" | sed -n "s/^$2=//p"; }

failures_answer() { printf 'pingate-verify/1\nop=status\nuser=pgalice\n' | "$HELPER" 2>/dev/null; }

# fingerprint PATH: type, owner, mode, size and (regular files only) content hash.
fingerprint() {
    stat -c '%F %U:%G %a %s' "$1" 2>/dev/null
    [ -f "$1" ] && [ ! -L "$1" ] && sha256sum "$1" | cut -c1-16
}

# tamper_case NAME NAMED_PATH SETUP_COMMAND...: enrol, tamper, then a status and
# a correct PIN as pgalice must both answer "error …" (exit 6) naming NAMED_PATH,
# and the tampered file must be left as it was.
tamper_case() {
    local name="$1" named="$2"; shift 2
    chown root:pingate /var/lib/pingate; chmod 750 /var/lib/pingate
    store_reset
    enroll_pin pgalice 0427; enroll_pin pgbob 3859
    "$@" || { breach "$name: setup failed"; return; }
    local record before after request
    record="$(record_of pgalice)"
    before="$(fingerprint "$record")"
    for request in "$(request_file status op=status user=pgalice)" "$(request_file right op=verify user=pgalice secret=0427)"; do
        ask pgalice "$request"
        ATTEMPTS=$((ATTEMPTS + 1))
        case "$ANSWER" in ok*|wrong*) VERIFIED=$((VERIFIED + 1)) ;; esac
        case "$ANSWER" in ok*) SUCCEEDED=$((SUCCEEDED + 1)) ;; esac
        if [ "$RC" != 6 ] || [[ "$ANSWER" != error* ]]; then
            breach "$name: [$ANSWER] exit $RC, expected error exit 6"
        elif [[ "$ANSWER" != *"$named"* ]]; then
            breach "$name: error does not name $named: [$ANSWER]"
        fi
    done
    after="$(fingerprint "$record")"
    [ "$before" = "$after" ] || breach "$name: the record was changed ($before -> $after)"
    echo "    $name: $ANSWER" >> "$WORKDIR/tamper-log"
}

attack_store_tampering() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    local store=/var/lib/pingate alice bob
    alice="$store/$(uid_of pgalice).record"; bob="$store/$(uid_of pgbob).record"
    tamper_case "owner pgalice" "$alice" chown pgalice "$alice"
    tamper_case "group root" "$alice" chgrp root "$alice"
    tamper_case "mode 0666" "$alice" chmod 666 "$alice"
    tamper_case "hard link" "$alice" ln "$alice" "$store/extra-link"
    tamper_case "symlink" "$alice" eval "mv '$alice' '$SANDBOX/real-record' && ln -s '$SANDBOX/real-record' '$alice'"
    tamper_case "fifo" "$alice" eval "rm '$alice' && mkfifo -m 660 '$alice' && chgrp pingate '$alice'"
    tamper_case "directory" "$alice" eval "rm '$alice' && mkdir -m 770 '$alice' && chgrp pingate '$alice'"
    tamper_case "truncated (700 B)" "$alice" truncate -s 700 "$alice"
    tamper_case "extended (2048 B)" "$alice" truncate -s 2048 "$alice"
    tamper_case "garbage" "$alice" eval "head -c 1024 /dev/urandom | dd of='$alice' conv=notrunc status=none"
    tamper_case "zeros" "$alice" eval "head -c 1024 /dev/zero | dd of='$alice' conv=notrunc status=none"
    tamper_case "bob's record as alice's" "$alice" eval "cat '$bob' > '$alice'"
    tamper_case "missing key" "$store/machine.key" rm "$store/machine.key"
    tamper_case "short key" "$store/machine.key" truncate -s 16 "$store/machine.key"
    tamper_case "key mode 0644" "$store/machine.key" chmod 644 "$store/machine.key"
    tamper_case "key symlink" "$store/machine.key" eval "mv '$store/machine.key' '$SANDBOX/key' && ln -s '$SANDBOX/key' '$store/machine.key'"
    tamper_case "store mode 0777" "$store" chmod 777 "$store"
    tamper_case "store owner pgalice" "$store" chown pgalice "$store"
    chown root:pingate "$store"; chmod 750 "$store"
    row "store tampering (18 cases)" "$ATTEMPTS" "$VERIFIED" "$SUCCEEDED" "$(verdict "every case: error exit 6 naming the file")"
}

attack_user_rewrites_own_record() {
    enroll_pin pgalice 0427
    wrong_guesses pgalice 1111 3
    local record before tries=0 succeeded=0
    record="$(record_of pgalice)"; before="$(sha256sum "$record")"
    local attempt
    for attempt in "dd if=/dev/zero of=$record bs=1 count=1 conv=notrunc" "rm -f $record" \
                   "ln -s /tmp/x /var/lib/pingate/evil" "cat $record" "touch /var/lib/pingate/$(uid_of pgalice).record"; do
        tries=$((tries + 1))
        if (cd "$WORKDIR" && as_user pgalice sh -c "$attempt" >/dev/null 2>&1); then
            succeeded=$((succeeded + 1)); breach "pgalice could: $attempt"
        fi
    done
    [ "$before" = "$(sha256sum "$record")" ] || breach "the record changed"
    [ "$(failures pgalice)" = 3 ] || breach "failures changed: $(failures pgalice)"
    row "user edits own record/store" "$tries" 0 "$succeeded" "$(verdict "write, delete, link, read, create all denied")"
}

attack_disk_full() {
    ATTEMPTS=0 VERIFIED=0 SUCCEEDED=0
    local key="$SANDBOX/disk-full-key"
    cp /var/lib/pingate/machine.key "$key"
    mount -t tmpfs -o size=128k,mode=750 pingate-full /var/lib/pingate || { row "disk full" - - - "ERROR: cannot mount tmpfs"; return; }
    chown root:pingate /var/lib/pingate
    install -o root -g pingate -m 640 "$key" /var/lib/pingate/machine.key
    enroll_pin pgalice 0427
    dd if=/dev/zero of=/var/lib/pingate/filler bs=4k status=none 2>/dev/null
    local free; free="$(df --output=avail -B1 /var/lib/pingate | tail -1 | tr -d ' ')"
    local wrong right before after
    wrong="$(request_file wrong op=verify user=pgalice secret=1111)"; right="$(request_file right op=verify user=pgalice secret=0427)"
    local other; other="$(request_file other-wrong op=verify user=pgalice secret=1112)"
    for request in "$wrong" "$other" "$right"; do
        before="$(failures pgalice)"
        ask pgalice "$request"; ATTEMPTS=$((ATTEMPTS + 1))
        after="$(failures pgalice)"
        case "$ANSWER" in
            wrong*) VERIFIED=$((VERIFIED + 1)); [ "$after" -eq $((before + 1)) ] || breach "wrong answered, failures $before -> $after" ;;
            ok*) VERIFIED=$((VERIFIED + 1)); [ "$request" = "$right" ] || { SUCCEEDED=$((SUCCEEDED + 1)); breach "wrong PIN answered ok"; } ;;
            error*) ;;
            *) breach "unexpected answer on a full disk: [$ANSWER]" ;;
        esac
    done
    local in_place="$ANSWER"
    # New records need new blocks: enrolment must fail cleanly and leave nothing behind.
    local message rc
    message="$(printf '3859\n3859\n' | "$PINGATE" enroll pgbob --pin --stdin --allow-weak 2>&1 >/dev/null)"; rc=$?
    [ "$rc" -ne 0 ] || breach "enrolment on a full disk reported success"
    [ ! -e "/var/lib/pingate/$(uid_of pgbob).record" ] || breach "a record for pgbob exists after the failed enrolment"
    [ -z "$(find /var/lib/pingate -name '*.tmp*' -o -name '.*' -type f)" ] || breach "temporary files left: $(ls -a /var/lib/pingate)"
    message="$(printf '5823\n5823\n' | "$PINGATE" enroll pgalice --pin --stdin --allow-weak --force 2>&1 >/dev/null)"
    ask pgalice "$right"; ATTEMPTS=$((ATTEMPTS + 1))
    case "$ANSWER" in ok*) VERIFIED=$((VERIFIED + 1)) ;; *) breach "old PIN no longer works after a failed re-enrolment: [$ANSWER]" ;; esac
    # A store that cannot be written at all (read-only) must fail closed.
    mount -o remount,ro /var/lib/pingate
    ask pgalice "$right"; ATTEMPTS=$((ATTEMPTS + 1))
    case "$ANSWER" in ok*|wrong*) VERIFIED=$((VERIFIED + 1)); breach "read-only store: verified without counting: [$ANSWER]" ;; esac
    [ "$RC" = 6 ] || breach "read-only store: [$ANSWER] exit $RC, expected error exit 6"
    local readonly_answer="$ANSWER"
    umount /var/lib/pingate
    echo "    disk full: $free bytes free; in place: [$in_place]; enrol: [${message:0:140}]; read-only: [$readonly_answer]" >> "$WORKDIR/notes"
    row "disk full / read-only store" "$ATTEMPTS" "$VERIFIED" "$SUCCEEDED" \
        "$(verdict "full: in-place slot writes still succeed (no new blocks), every answer counted; enrolment fails cleanly; read-only: error exit 6")"
}
