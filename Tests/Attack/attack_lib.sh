# shellcheck shell=bash disable=SC2034,SC2046 # shared variables; intentional word splitting
# attack_lib.sh — helpers shared by the attack scenarios (sourced inside the
# sandbox by run-attacks.sh; needs sandbox.sh's HELPER, PINGATE, SANDBOX).

ROWS="$SANDBOX/rows"
WORKDIR="$SANDBOX/attack"
mkdir -p "$WORKDIR"; chmod 755 "$WORKDIR"
RECORD_TOOL="$ATTACK_DIR/record_tool.py"
: > "$ROWS"

# row SCENARIO ATTEMPTS VERIFICATIONS SUCCESSES RESULT: one line of the table.
# RESULT is "held", "held: note", "BREACH: what" or "ERROR: what".
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$ROWS"; }

# breach WHAT: records why the current scenario failed (shown under the table).
breach() { echo "$*" >> "$WORKDIR/breaches"; }
# take_breaches: the breaches noted since the last call ("" if none).
take_breaches() { cat "$WORKDIR/breaches" 2>/dev/null | head -3 | paste -sd ';' -; rm -f "$WORKDIR/breaches"; }
# verdict [NOTE]: "held[: NOTE]" or "BREACH: …" from the breaches noted.
verdict() {
    local found; found="$(take_breaches)"
    if [ -n "$found" ]; then echo "BREACH: $found"; else echo "held${1:+: $1}"; fi
}

print_table() {
    local failed=0
    echo
    printf '%-38s | %8s | %13s | %9s | %s\n' scenario attempts verifications successes result
    printf '%s\n' "$(printf -- '-%.0s' $(seq 100))"
    while IFS=$'\t' read -r name attempts verifications successes result; do
        printf '%-38s | %8s | %13s | %9s | %s\n' "$name" "$attempts" "$verifications" "$successes" "$result"
        case "$result" in held*) ;; *) failed=1 ;; esac
    done < "$ROWS"
    if [ -s "$WORKDIR/notes" ] || [ -s "$WORKDIR/tamper-log" ]; then
        echo; echo "details:"; cat "$WORKDIR/notes" "$WORKDIR/tamper-log" 2>/dev/null
    fi
    echo
    if [ "$failed" -eq 0 ]; then echo "attacks: every scenario held"; else echo "attacks: BREACH or ERROR above"; fi
    return "$failed"
}

attack_preflight() {
    local missing=()
    [ -x "$HELPER" ] && [ -g "$HELPER" ] || missing+=("the setgid release helper (swift build -c release --static-swift-stdlib)")
    [ -x "$PINGATE" ] || missing+=("the pingate CLI (swift build)")
    command -v python3 >/dev/null || missing+=("python3")
    if [ ${#missing[@]} -gt 0 ]; then
        printf 'run-attacks: missing %s\n' "${missing[@]}" >&2
        return 1
    fi
}

uid_of() { id -u "$1"; }
record_of() { echo "/var/lib/pingate/$(uid_of "$1").record"; }

# policy LINES...: pingate.conf with LINES, plus cheap KDF parameters for
# those the LINES do not set.
policy() {
    {
        printf '%s\n' "$@"
        [[ " $* " == *" kdf_operations "* ]] || echo "kdf_operations = 1"
        [[ " $* " == *" kdf_memory "* ]] || echo "kdf_memory = 8K"
    } > /etc/pingate/pingate.conf
}

enroll_pin() { printf '%s\n%s\n' "$2" "$2" | "$PINGATE" enroll "$1" --pin --stdin --allow-weak --force >/dev/null; }
enroll_pattern() { printf '%s\n%s\n' "$3" "$3" | "$PINGATE" enroll "$1" --pattern --grid "$2" --stdin --allow-weak --force >/dev/null; }
unlock() { "$PINGATE" unlock "$1" >/dev/null; }

# request_file NAME LINES...: a request file in $WORKDIR (readable by everyone).
request_file() {
    local name="$1"; shift
    { printf 'pingate-verify/1'; printf '\n%s' "$@"; printf '\n'; } > "$WORKDIR/$name"
    chmod 644 "$WORKDIR/$name"
    echo "$WORKDIR/$name"
}

# ask USER FILE: the setgid helper as USER (no groups, clean env) with FILE on
# stdin; sets ANSWER (first line) and RC.
ask() {
    local output
    output="$(cd "$WORKDIR" && as_user "$1" "$HELPER" < "$2" 2>/dev/null)"
    RC=$?
    ANSWER="${output%%$'\n'*}"
}

# failures USER: the record's failure count, read by root through the helper
# (the same decoder the verifier uses); "unreadable: …" if it does not parse.
failures() {
    local answer
    answer="$(printf 'pingate-verify/1\nop=status\nuser=%s\n' "$1" | "$HELPER" 2>/dev/null)"
    case "$answer" in
        *failures=*) sed -E 's/.*failures=([0-9]+).*/\1/' <<<"$answer" ;;
        *) echo "unreadable: $answer" ;;
    esac
}

# first_words FILES...: "word=count " for the answers' first words.
first_words() { cat "$@" 2>/dev/null | awk 'NF {print $1}' | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}'; }
# count_word WORD FILES...: how many answers start with WORD.
count_word() { local word="$1"; shift; cat "$@" 2>/dev/null | awk -v w="$word" '$1 == w' | wc -l; }

# no_core_files DIR...: notes a breach for any core file left behind.
no_core_files() {
    local found; found="$(find "$@" -maxdepth 1 -name 'core*' -type f 2>/dev/null | head -3)"
    [ -z "$found" ] || breach "core file(s) left: $found"
}
