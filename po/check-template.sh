#!/bin/bash
# po/check-template.sh — the message catalogues agree with the code.
#
#   po/check-template.sh        exit 0 if all is well, 1 with a list of problems
#
# 1. pingate.pot holds exactly the strings the code marks for translation:
#    xgettext runs again (through `make pot`, so with the same flags) into a
#    temporary file and the msgids (with plurals and contexts) are compared.
#    A string in the code but not in the template fails: run `make -C po update-po`.
#    Swift is extracted as C, so every L("…") literal found by a plain search
#    must also be in the template: xgettext must not have misread a Swift line.
# 2. Every <lang>.po of LINGUAS translates every template string (no missing,
#    untranslated or fuzzy entry) and compiles with `msgfmt --check`.
set -uo pipefail

PO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d /tmp/pingate-po-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
status=0

problem() { echo "check-template: $*" >&2; status=1; }

# msgids FILE: one line per entry, "ctxt<TAB>msgid<TAB>msgid_plural", each a
# single quoted C string, sorted; the header is left out.
msgids() {
    msgcat --no-wrap --no-location --sort-output "$1" | awk '
        function flush() { if (id != "") print ctxt "\t" id "\t" plural; ctxt = id = plural = ""; field = "" }
        function join(a, b) { return a == "" ? b : substr(a, 1, length(a) - 1) substr(b, 2) }
        /^msgctxt /      { flush(); field = "ctxt"; ctxt = substr($0, 9); next }
        /^msgid /        { if (field != "ctxt") flush(); field = "id"; id = substr($0, 7); next }
        /^msgid_plural / { field = "plural"; plural = substr($0, 14); next }
        /^msgstr/        { field = ""; next }
        /^"/             { if (field == "ctxt") ctxt = join(ctxt, $0); else if (field == "id") id = join(id, $0);
                           else if (field == "plural") plural = join(plural, $0); next }
        END { flush() }' | grep -v '^	""	$' | sort
}

if ! make -s -C "$PO_DIR" pot POT="$WORK/fresh.pot" 2>"$WORK/xgettext.err"; then
    cat "$WORK/xgettext.err" >&2
    problem "xgettext failed on the sources (make -C po sources lists them)"
else
    msgids "$WORK/fresh.pot" > "$WORK/code"
    msgids "$PO_DIR/pingate.pot" > "$WORK/template"
    missing="$(comm -23 "$WORK/code" "$WORK/template")"
    stale="$(comm -13 "$WORK/code" "$WORK/template")"
    [ -z "$missing" ] || problem "strings in the code but not in po/pingate.pot (run: make -C po update-po):
$missing"
    # A literal that xgettext read differently (or not at all) is missing here.
    swift_sources="$(make -s -C "$PO_DIR" sources | tr ' ' '\n' | grep '\.swift$' | sed "s|^|$PO_DIR/../|")"
    if [ -n "$swift_sources" ]; then
        # shellcheck disable=SC2086
        grep -ho '\bLP\?("\([^"\\]\|\\.\)*"' $swift_sources | sed 's/^LP\?(//' | sort -u > "$WORK/literals"
        cut -f2 "$WORK/code" | sort -u > "$WORK/extracted"
        unread="$(comm -23 "$WORK/literals" "$WORK/extracted")"
        [ -z "$unread" ] || problem "L(\"…\") literals that xgettext did not extract as written (keep them plain, one line):
$unread"
    fi
    [ -z "$stale" ] || problem "strings in po/pingate.pot that the code no longer has (run: make -C po update-po):
$stale"
fi

for lang in $(grep -v '^#' "$PO_DIR/LINGUAS"); do
    po="$PO_DIR/$lang.po"
    if [ ! -f "$po" ]; then problem "$lang is in LINGUAS but po/$lang.po does not exist"; continue; fi
    msgfmt --check --output-file=/dev/null "$po" 2>"$WORK/msgfmt.err" ||
        problem "po/$lang.po fails msgfmt --check:
$(cat "$WORK/msgfmt.err")"
    msgcmp "$po" "$PO_DIR/pingate.pot" 2>"$WORK/msgcmp.err" ||
        problem "po/$lang.po does not translate the whole template (missing, untranslated or fuzzy):
$(cat "$WORK/msgcmp.err")"
done

[ "$status" = 0 ] && echo "check-template: pingate.pot matches the code; $(grep -vc '^#' "$PO_DIR/LINGUAS") catalogues complete and valid"
exit "$status"
