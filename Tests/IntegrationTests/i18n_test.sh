#!/bin/bash
# i18n_test.sh — PinGate speaks the user's language: English, 繁體中文, 简体中文.
#
# The catalogues (po/, built by po/Makefile) must cover every string the code
# marks, and the module must translate by the locale of the application that
# loaded it, through real libpam: pam/tests/pam_harness calls setlocale like
# any PAM application. Most module tests use the fake helper of
# module_test.sh (translation is the module's job); one uses the real helper.
# The admin CLI must translate by the user's LANG/LC_* and lay out help and
# tables by display width (a Chinese character takes two columns).
#
# Inside the sandbox's private mount namespace the catalogues are installed at
# the default path, /usr/share/locale/<lang>/LC_MESSAGES/pingate.mo, on a copy
# of that directory bind-mounted over it, so the module under test is the
# shipped one. The zh_TW and zh_CN locales are compiled with localedef into
# .build/test-locales and used through LOCPATH: the host's locales are untouched.
#
# usage: bash Tests/IntegrationTests/i18n_test.sh   (TEST_FILTER=word to pick; root)

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/sandbox.sh"
. "$here/stack_lib.sh"
sandbox_enter "$@"

LANGUAGES=(zh_TW zh_CN)
LOCALES="$REPO_ROOT/.build/test-locales"
FAKE_HELPER="$REPO_ROOT/pam/tests/fake-helper.sh"

make -s -C "$REPO_ROOT/po" >/dev/null || { echo "make -C po failed"; echo "0 passed, 1 failed"; exit 1; }

install_catalogues() {
    local lang dir copy
    for lang in "${LANGUAGES[@]}"; do
        dir="/usr/share/locale/$lang/LC_MESSAGES"
        [ -d "$dir" ] || { echo "missing $dir (libpam-runtime ships it)"; echo "0 passed, 1 failed"; exit 1; }
        copy="$SANDBOX/locale-$lang"
        cp -a "$dir" "$copy"
        install -m 644 "$REPO_ROOT/po/build/$lang/LC_MESSAGES/pingate.mo" "$copy/pingate.mo"
        mount --bind "$copy" "$dir"
    done
}

compile_locales() {
    local lang
    mkdir -p "$LOCALES"
    for lang in "${LANGUAGES[@]}"; do
        [ -e "$LOCALES/$lang.UTF-8/LC_MESSAGES" ] && continue
        localedef -i "$lang" -f UTF-8 "$LOCALES/$lang.UTF-8" 2>/dev/null ||
            [ -e "$LOCALES/$lang.UTF-8/LC_MESSAGES" ] ||
            { echo "localedef $lang.UTF-8 failed (needs the locales package)"; echo "0 passed, 1 failed"; exit 1; }
    done
}

install_catalogues
compile_locales

# speak LOCALE: this test's programs run in LOCALE, as if LANG=LOCALE were the
# user's only setting.
speak() {
    unset LANGUAGE LC_ALL LC_MESSAGES LC_CTYPE
    export LOCPATH="$LOCALES" LANG="$1"
}

# fake_setup: a temp dir with the fake helper (a PIN user by default) and the
# service "sudo" using the installed module with it.
fake_setup() {
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    cp "$FAKE_HELPER" "$T/fake-helper"
    echo "0 enrolled kind=pin failures=0" > "$T/status"
    echo "0 ok" > "$T/verify"
    fake_stack
}

# fake_stack [MODULE ARGS...]
fake_stack() {
    write_service "$T/pam.d" sudo "$(module_line "helper=$T/fake-helper conf=$T/pingate.conf $*")" "$(next_line)"
}

fake_run() { pam_run "$T/pam.d" sudo "$(id -un)" "$@"; }

# --- the catalogues ---------------------------------------------------------------

test_template_covers_the_code_and_every_catalogue_compiles() {
    local report
    report=$("$REPO_ROOT/po/check-template.sh" 2>&1) || fail "check-template.sh: $report"
}

test_template_check_fails_for_a_string_missing_from_the_template() {
    local file
    copy=$(mktemp -d)
    trap 'rm -rf "$copy"' EXIT
    cp -a "$REPO_ROOT/po" "$copy/po"
    rm -rf "$copy/po/build"
    for file in $(make -s -C "$REPO_ROOT/po" sources); do
        mkdir -p "$copy/$(dirname "$file")"
        cp "$REPO_ROOT/$file" "$copy/$file"
    done
    printf '\nstatic const char *added(void) { return _("A sentence nobody translated"); }\n' \
        >> "$copy/pam/pam_pingate.c"
    local report
    report=$("$copy/po/check-template.sh" 2>&1) && fail "check passed with a new string: $report"
    assert_contains "$report" "A sentence nobody translated" "check report"
}

test_catalogues_use_traditional_and_simplified_characters_respectively() {
    # Pairs that differ between the scripts; each catalogue must use its own side.
    python3 - "$REPO_ROOT/po" <<'EOF' || fail "wrong script in a catalogue (see above)"
import re, sys
traditional = "碼鎖圖帳號錯誤還機會請輸經過編執行遠無數試敗連續員這讀寫設終檔"
simplified  = "码锁图账号错误还机会请输经过编执行远无数试败连续员这读写设终档"
pairs = [(t, s) for t, s in zip(traditional, simplified) if t != s]
bad = 0
for lang, forbidden in (("zh_TW", {s for t, s in pairs}), ("zh_CN", {t for t, s in pairs})):
    text = open(f"{sys.argv[1]}/{lang}.po", encoding="utf-8").read()
    strings = "".join(re.findall(r'^msgstr(?:\[\d\])? "(.*)"', text, re.M))
    wrong = sorted({c for c in strings if c in forbidden})
    if wrong:
        print(f"{lang}.po uses {''.join(wrong)}", file=sys.stderr); bad = 1
sys.exit(bad)
EOF
}

test_syslog_lines_are_never_marked_for_translation() {
    local calls
    calls=$(cat "$REPO_ROOT"/pam/*.c | tr '\n' ' ' | grep -o 'pam_syslog([^;]*;' || true)
    [ -n "$calls" ] || fail "found no pam_syslog calls to check"
    if grep -E '(^|[^A-Za-z0-9_])P?_\(' <<< "$calls"; then fail "a syslog line goes through gettext"; fi
}

# --- the module, by the application's locale ----------------------------------------

test_module_prompts_for_a_pin_in_traditional_chinese() {
    fake_setup; speak zh_TW.UTF-8
    echo "1 wrong failures=2 left=3" > "$T/verify"
    fake_run $'1111\n'
    assert_contains "$out" "PROMPT_ECHO_OFF PIN 碼："
    assert_contains "$out" "INFO PIN 碼錯誤，還剩 3 次機會"
}

test_module_prompts_for_a_pin_in_simplified_chinese() {
    fake_setup; speak zh_CN.UTF-8
    echo "1 wrong failures=2 left=3" > "$T/verify"
    fake_run $'1111\n'
    assert_contains "$out" "PROMPT_ECHO_OFF PIN 码："
    assert_contains "$out" "INFO PIN 码错误，还剩 3 次机会"
}

test_module_shows_the_pattern_legend_and_prompt_translated() {
    fake_setup; speak zh_TW.UTF-8
    echo "0 enrolled kind=pattern grid=3 failures=0" > "$T/status"
    fake_run $'1-5-9-6\n'
    assert_contains "$out" 'INFO 請依序輸入圖形經過的格子編號（例如 1-5-9-6）：\n  1  2  3\n  4  5  6\n  7  8  9'
    assert_contains "$out" "PROMPT_ECHO_OFF 圖形："
    speak zh_CN.UTF-8
    fake_run $'1-5-9-6\n'
    assert_contains "$out" 'INFO 请按顺序输入图案经过的格子编号（例如 1-5-9-6）：\n  1  2  3'
    assert_contains "$out" "PROMPT_ECHO_OFF 图案："
}

test_module_lockout_message_in_traditional_chinese() {
    fake_setup; speak zh_TW.UTF-8
    echo "2 locked seconds=300 failures=6" > "$T/status"
    fake_run ''
    assert_ignored
    assert_contains "$out" "INFO 連續失敗 6 次，PIN 碼已鎖定 5 分鐘，請改用密碼"
    echo "2 locked seconds=61 failures=5" > "$T/status"
    fake_run ''
    assert_contains "$out" "鎖定 2 分鐘"
    echo "2 locked seconds=1 failures=5" > "$T/status"
    fake_run ''
    assert_contains "$out" "鎖定 1 秒"
    echo "2 locked seconds=60 failures=1" > "$T/status"
    fake_run ''
    assert_contains "$out" "INFO 嘗試失敗 1 次，PIN 碼已鎖定 1 分鐘"
}

test_module_lockout_message_in_simplified_chinese() {
    fake_setup; speak zh_CN.UTF-8
    echo "2 locked seconds=300 failures=6" > "$T/status"
    fake_run ''
    assert_contains "$out" "INFO 连续失败 6 次，PIN 码已锁定 5 分钟，请改用密码"
    echo "0 enrolled kind=pattern grid=3 failures=4" > "$T/status"
    echo "1 wrong failures=5 left=0 locked=60" > "$T/verify"
    fake_run $'1-2-3-6\n'
    assert_contains "$out" "INFO 连续失败 5 次，图案已锁定 1 分钟，请改用密码"
}

# Under PAM_SILENT (sudo) the reason comes above the module's own password
# question: both lines in the user's language.
test_module_silent_password_question_is_translated() {
    fake_setup; speak zh_TW.UTF-8
    echo "2 locked seconds=300 failures=6" > "$T/status"
    fake_run $'hunter2\n' --silent
    assert_contains "$out" "PROMPT_ECHO_OFF 連續失敗 6 次，PIN 碼已鎖定 5 分鐘，請改用密碼\\n$(id -un) 的密碼（不是 PIN 碼）：" "zh_TW, locked"
    speak zh_CN.UTF-8
    echo "0 enrolled kind=pin failures=0" > "$T/status"
    echo "1 wrong failures=1 left=4" > "$T/verify"
    fake_run $'1111\nhunter2\n' --silent
    assert_contains "$out" "PROMPT_ECHO_OFF PIN 码错误，还剩 4 次机会\\n$(id -un) 的密码（不是 PIN 码）：" "zh_CN, a wrong PIN"
    assert_contains "$out" "INFO NEXT authtok=hunter2" "the answer, left for the next module"
}

test_module_disabled_and_remote_messages_are_translated() {
    fake_setup; speak zh_TW.UTF-8
    echo "3 disabled failures=10" > "$T/status"
    fake_run ''
    assert_contains "$out" "INFO 連續失敗 10 次，PIN 碼已停用，請改用密碼；管理員可執行：pingate unlock $(id -un)"
    speak zh_CN.UTF-8
    echo "8 not-local the request comes from 192.0.2.7" > "$T/status"
    fake_run '' --rhost 192.0.2.7
    assert_contains "$out" "INFO PIN 码只能在这台电脑前使用，请使用密码"
}

test_module_forward_pass_prompt_is_translated() {
    fake_setup; speak zh_TW.UTF-8
    fake_stack forward_pass
    fake_run $'4821\n'
    assert_contains "$out" "PROMPT_ECHO_OFF PIN 碼或密碼："
}

test_module_speaks_english_in_the_c_locale() {
    fake_setup; speak C
    echo "2 locked seconds=300 failures=6" > "$T/status"
    fake_run ''
    assert_contains "$out" "INFO PIN locked for 5 minutes after 6 failed attempts — use your password"
    echo "0 enrolled kind=pin failures=0" > "$T/status"
    fake_run $'1234\n'
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
}

test_module_follows_lc_messages_over_lang() {
    fake_setup; speak zh_TW.UTF-8
    export LC_MESSAGES=C
    fake_run $'1234\n'
    assert_contains "$out" "PROMPT_ECHO_OFF PIN: "
    speak C
    export LC_ALL=zh_CN.UTF-8
    fake_run $'1234\n'
    assert_contains "$out" "PROMPT_ECHO_OFF PIN 码："
}

# The real helper and store: the fifth wrong PIN starts a one-minute timeout.
test_real_helper_lockout_is_reported_in_the_users_language() {
    need_cli
    store_reset
    enroll pgalice "$TEST_PIN" --pin
    write_service "$SANDBOX/pam-conf" sudo "$(module_line)" "$(next_line)"
    speak zh_TW.UTF-8
    local i
    for i in 1 2 3 4; do pam_run "$SANDBOX/pam-conf" sudo pgalice "139$i"$'\n'; done
    assert_contains "$out" "INFO PIN 碼錯誤，還剩 1 次機會"
    pam_run "$SANDBOX/pam-conf" sudo pgalice $'1397\n'
    assert_contains "$out" "INFO 連續失敗 5 次，PIN 碼已鎖定 1 分鐘，請改用密碼"
    speak C
    pam_run "$SANDBOX/pam-conf" sudo pgalice ''
    # A second may have passed since the lockout began: 59 seconds left.
    grep -Eq '^INFO PIN locked for (1 minute|[0-9]+ seconds) after 5 failed attempts — use your password$' <<< "$out" ||
        fail "no English lockout line: [$out]"
}

# --- the CLI, by the user's LANG/LC_* ------------------------------------------------

# cli ARGS...: runs the admin CLI; sets $out (stdout and stderr) and $rc.
cli() { out=$("$PINGATE" "$@" 2>&1) && rc=0 || rc=$?; }

test_cli_help_is_translated() {
    speak zh_TW.UTF-8
    cli --help
    assert_eq 0 "$rc" "exit status"
    assert_contains "$out" "pingate — 管理 PinGate 的 PIN 碼與圖形"
    assert_contains "$out" "用法：pingate COMMAND"
    assert_contains "$out" "  unlock   清除使用者的失敗次數、鎖定與停用（root）"   # the column fits "disable"
    speak zh_CN.UTF-8
    cli enroll --help
    assert_contains "$out" "pingate enroll — 为用户设置 PIN 码或图案（root）"
    assert_contains "$out" "全局选项："
}

test_cli_errors_are_translated() {
    speak zh_TW.UTF-8
    cli status pgnosuchuser
    assert_eq 4 "$rc" "exit status"
    assert_eq "pingate: 沒有「pgnosuchuser」這個使用者；請用「getent passwd」確認名稱" "$out"
    speak zh_CN.UTF-8
    cli unlock
    assert_eq 2 "$rc" "exit status"
    assert_contains "$out" "pingate: 缺少 USER（用户名）"$'\n'"用法：pingate unlock USER"
    out=$(as_user pgbob env LOCPATH="$LOCALES" LANG=zh_TW.UTF-8 "$PINGATE" unlock pgalice 2>&1) || true
    assert_eq "pingate: unlock 必須以 root 身分執行（請試試：sudo pingate unlock ...）" "$out"
}

# pingate.conf's errors: PinGateCore writes them in English for the log,
# the CLI says them in the reader's language, with the keys probably meant.
test_cli_configuration_errors_are_translated() {
    store_reset
    printf 'pin_length = 6\n' > /etc/pingate/pingate.conf
    speak zh_TW.UTF-8
    cli policy check
    assert_eq 5 "$rc" "exit status"
    assert_eq "pingate: /etc/pingate/pingate.conf:1: 未知的設定鍵「pin_length」（您是指「pin_min_length」或「pin_max_length」嗎？）" "$out"
    speak zh_CN.UTF-8
    printf 'max_failures = 3\nfree_failures = 4\n' > /etc/pingate/pingate.conf
    cli policy check
    assert_eq 5 "$rc" "exit status"
    assert_eq "pingate: /etc/pingate/pingate.conf: max_failures（3）必须大于 free_failures（4）" "$out"
    speak C
    cli policy check
    assert_eq "pingate: /etc/pingate/pingate.conf: max_failures (3) must be larger than free_failures (4)" "$out"
    store_reset
}

test_cli_status_and_credential_errors_are_translated() {
    need_cli
    store_reset
    enroll pgalice "$TEST_PIN" --pin
    speak zh_TW.UTF-8
    cli status pgalice
    assert_contains "$out" "pgalice（uid 61001）：PIN 碼，使用中"
    assert_contains "$out" "  失敗次數： 0（再 5 次後鎖定）"
    out=$(printf '123\n' | "$PINGATE" enroll pgbob --stdin 2>&1) || true
    assert_contains "$out" "PIN 碼應為 4 位數；輸入了 3 位"
    speak zh_CN.UTF-8
    out=$(printf '1111\n1111\n' | "$PINGATE" enroll pgbob --stdin 2>&1) || true
    assert_contains "$out" "它只重复同一个数字"
    cli doctor
    assert_contains "$out" "正常 用户组 pingate 存在（gid 61000）"
    assert_contains "$out" "问题 缺少PAM 模块"
    assert_contains "$out" "修复：make -C pam"
    speak C
    cli status pgalice
    assert_contains "$out" "  failures:     0 (5 left before a timeout)"
    cli doctor
    assert_contains "$out" "ok      group pingate exists (gid 61000)"
}

test_cli_speaks_english_in_the_c_locale() {
    speak C
    cli status pgnosuchuser
    assert_eq "pingate: no such user 'pgnosuchuser'; check the name with 'getent passwd'" "$out"
    cli --help
    assert_contains "$out" "clear a user's failures, timeout and disable (root)"
}

test_cli_finds_catalogues_in_pingate_localedir() {
    speak zh_CN.UTF-8
    PINGATE_LOCALEDIR=/nonexistent cli unlock
    assert_contains "$out" "pingate: missing USER"
    PINGATE_LOCALEDIR="$REPO_ROOT/po/build" cli unlock
    assert_contains "$out" "pingate: 缺少 USER"
}

# The list's columns line up by display width: a CJK header character takes two.
test_cli_list_columns_align_by_display_width() {
    need_cli
    store_reset
    enroll pgalice "$TEST_PIN" --pin
    speak zh_TW.UTF-8
    cli list
    assert_eq 0 "$rc" "exit status: $out"
    python3 -c '
import sys, unicodedata
def starts(line):
    found, column, spaces = [], 0, 0
    for character in line:
        if character == " ":
            spaces += 1
        else:
            if column == 0 or spaces >= 2: found.append(column)
            spaces = 0
        column += 2 if unicodedata.east_asian_width(character) in "WF" else 1
    return found
header, row = sys.argv[1].splitlines()[:2]
if starts(header)[:4] != starts(row)[:4]:
    sys.exit("misaligned:\n" + header + "\n" + row)
' "$out" || fail "columns of pingate list"
}

# Help is wrapped by display width: Chinese lines fit 80 columns like English ones.
test_cli_help_fits_80_columns_in_every_language() {
    local locale command
    for locale in C zh_TW.UTF-8 zh_CN.UTF-8; do
        speak "$locale"
        for command in enroll change remove status unlock list verify policy doctor help; do
            cli "$command" --help
            python3 -c '
import sys, unicodedata
for line in sys.argv[1].splitlines():
    if line.startswith(("usage: ", "用法：", "pingate ")):
        continue  # the title and usage lines are one line by design
    width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    if width > 80:
        sys.exit(f"{width} columns: {line}")
' "$out" || fail "pingate $command --help in $locale"
        done
    done
}

run_tests
