#!/usr/bin/env python3
"""Every command the test scripts run comes from a package the suite installs.

Tests/run-all.sh installs the apt packages in its APT_PACKAGES array on a fresh
Debian 12 machine that has only the Swift toolchain, gcc, make, git and a
python3. A test that calls a program from any other package fails there, and
only there (xrandr and xrdb once did: x11-xserver-utils was not in the list).
This check keeps the list complete:

  * Tests/test-commands.txt names, for every external command the test
    scripts run, the package it comes from ("COMMAND PACKAGE", # comments);
  * every package named there must be in APT_PACKAGES, in Debian's base
    system (BASE_PACKAGES below: Priority required or Essential yes, always
    installed), or the Swift toolchain (NOT_FROM_APT);
  * every command in command position in the scripts (Tests/run-all.sh and
    the *.sh of Tests/IntegrationTests, Tests/Attack, Tests/Attack/scenarios
    and Tests/Fuzz) must be in the table, and every table entry must still be
    run by some script.

The scan reads bash the way bash does, for what decides what is run: quotes,
$(...), <(...), heredocs (skipped, unless they hold a #! shell script a test
writes and runs), case patterns, functions (a call of a function defined in
the scripts is no external command; a function that runs "$@" is a wrapper
like the programs below), builtins, variable assignments, and the commands
that run another command: timeout, setpriv, env, exec, nohup, sudo, su -c,
flock, unshare, nsenter, xargs, find -exec, valgrind, sh/bash -c, eval, trap,
script -c, pkexec, pty_drive.py. A variable in command position ($PTY,
${WRAPPER:-}, "${runner[@]}") stands for the values the scripts assign to it.
Commands built by the project (.build/…, pam/…, anything run through a path
variable) are not external.

  python3 Tests/check-test-commands.py               run the check (unittest)
  python3 Tests/check-test-commands.py --root DIR    check a copy of the repository
  python3 Tests/check-test-commands.py --list        every command found, where

Python 3.9+, standard library only. The last line of the output is
"N passed, N failed"; the exit status is 0 only when every test passed.
"""

import argparse
import bisect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = "Tests/test-commands.txt"
RUN_ALL = "Tests/run-all.sh"
SCRIPT_FILES = ("Tests/run-all.sh",)
SCRIPT_FOLDERS = ("Tests/IntegrationTests", "Tests/Attack", "Tests/Attack/scenarios", "Tests/Fuzz")   # their *.sh

# Debian 12's base system: installed on every Debian 12 machine, so a test may
# use them without listing them in APT_PACKAGES. Each one is Priority:
# required or Essential: yes (checked with dpkg-query -W -f='${Priority}
# ${Essential}', and again by test_base_packages_are_required_or_essential).
BASE_PACKAGES = {
    "apt",                 # required
    "bash",                # required, essential
    "bsdutils",            # required, essential (script)
    "coreutils",           # required, essential
    "dash",                # required, essential (/bin/sh)
    "debconf",             # required (debconf-set-selections)
    "debianutils",         # required, essential
    "diffutils",           # required, essential (cmp)
    "dpkg",                # required, essential (dpkg-deb, dpkg-query, dpkg-statoverride)
    "findutils",           # required, essential
    "grep",                # required, essential
    "gzip",                # required, essential (zcat)
    "hostname",            # required, essential
    "libc-bin",            # required, essential (getent, localedef)
    "login",               # required, essential
    "mawk",                # required (awk)
    "mount",               # required (mount, umount)
    "ncurses-bin",         # required, essential
    "passwd",              # required (useradd, groupadd)
    "perl-base",           # required, essential (perl)
    "sed",                 # required, essential
    "tar",                 # required, essential
    "util-linux",          # required, essential (setpriv, unshare, flock, su, findmnt, ...)
}

# Not from apt at all: what the README requires before Tests/run-all.sh runs.
NOT_FROM_APT = {
    "swift-toolchain": "the Swift toolchain at /opt/swift (swift, swiftc)",
}

# Functions whose wrapping the scan cannot see by itself: in_cgroup runs its
# arguments through `sh -c '… exec "$@"' sh PATH "$@"`; pty and connect_as
# take a command before or after "--"; run_in_terminal types its first
# argument into a shell; pkexec_as has pkexec run its second argument.
# Functions that run "$@" themselves (as_user, tamper_case, ...) are found.
EXTRA_WRAPPERS = {
    "in_cgroup": ("args", 1, True),         # in_cgroup PATH COMMAND... (exec'd by sh)
    "connect_as": ("args", 0, False),       # connect_as COMMAND... -- SOCKET ANSWER
    "pty": ("after", "--"),                 # pty STEPS... -- COMMAND...
    "run_in_terminal": ("code", 0),         # run_in_terminal 'SHELL CODE' KEYS...
    "pkexec_as": ("program", 1),            # pkexec_as USER PROGRAM STEPS...
}

BUILTINS = set("""
    : . [ alias bg bind break builtin caller cd command compgen complete compopt
    continue declare dirs disown echo enable eval exec exit export false fc fg
    getopts hash help history jobs kill let local logout mapfile popd printf
    pushd pwd read readarray readonly return set shift shopt source suspend test
    times trap true type typeset ulimit umask unalias unset wait
""".split())
KEYWORDS = set("if then else elif fi case esac for select while until do done in "
               "function time coproc { } ! [[ ]]".split())
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
FD_PREFIX = re.compile(r"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\}")
PARAM = re.compile(r"([!#]?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(\[[^\]]*\])?(.*)\Z", re.S)
REDIRECTIONS = ("<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">")
OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")")


# --- lexing -------------------------------------------------------------------

class Word:
    """One shell word. text: quotes removed, expansions kept as written."""

    def __init__(self, line):
        self.line = line
        self.text = ""
        self.quoted = False
        self.expansions = 0     # $x, ${x}, $(...), `...`, <(...)
        self.literal = 0        # characters outside expansions
        self.params = []        # (name, index, op, arg, in_double_quotes)
        self.subs = []          # token lists of $(...), `...`, <(...)
        self.array = None       # the element Words of NAME=( ... )

    @property
    def param(self):
        """The one parameter expansion this word consists of, or None."""
        if self.expansions == 1 and len(self.params) == 1 and self.literal == 0:
            return self.params[0]
        return None


class Lexer:
    """Splits bash source into ("word", Word) / ("op", text) / ("redir", text)
    / ("nl", None) tokens with line numbers; skips comments and heredoc
    bodies (keeping them in self.heredocs)."""

    def __init__(self, text):
        self.s = text
        self.i = 0
        self.n = len(text)
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.pending = []       # heredocs whose body starts after the next newline
        self.heredocs = []      # (first line, body)

    def line_at(self, i):
        return bisect.bisect_left(self.newlines, i) + 1

    def peek(self, k):
        j = self.i + k
        return self.s[j] if j < self.n else ""

    def tokens(self, stop=None):
        out = []
        depth = 0
        while self.i < self.n:
            c = self.s[self.i]
            if stop == ")" and c == ")" and depth == 0:
                self.i += 1
                return out
            if stop == "`" and c == "`":
                self.i += 1
                return out
            if c in " \t\r":
                self.i += 1
                continue
            if c == "\\" and self.peek(1) == "\n":
                self.i += 2
                continue
            line = self.line_at(self.i)
            if c == "\n":
                out.append(("nl", None, line))
                self.i += 1
                self.read_heredoc_bodies()
                continue
            if c == "#":
                while self.i < self.n and self.s[self.i] != "\n":
                    self.i += 1
                continue
            if self.s.startswith(("&>>", "&>"), self.i):
                op = "&>>" if self.s.startswith("&>>", self.i) else "&>"
                self.i += len(op)
                out.append(("redir", op, line))
                continue
            if c in "<>" and self.peek(1) != "(":
                out.append(("redir", self.read_redirection(), line))
                continue
            op = next((o for o in OPERATORS if self.s.startswith(o, self.i)), None)
            if op:
                self.i += len(op)
                if op == "(" and stop == ")":
                    depth += 1
                elif op == ")" and stop == ")":
                    depth -= 1
                out.append(("op", op, line))
                continue
            word = self.read_word()
            if (self.i < self.n and self.s[self.i] in "<>" and self.peek(1) != "("
                    and not word.quoted and FD_PREFIX.fullmatch(word.text)):
                out.append(("redir", word.text + self.read_redirection(), line))
                continue
            out.append(("word", word, line))
            if out[-2:-1] and out[-2][0] == "redir" and re.fullmatch(r"[0-9]*<<-?", out[-2][1]):
                self.pending.append((word.text, out[-2][1].endswith("-")))
        return out

    def read_redirection(self):
        op = next(o for o in REDIRECTIONS if self.s.startswith(o, self.i))
        self.i += len(op)
        return op

    def read_heredoc_bodies(self):
        while self.pending:
            delimiter, strip_tabs = self.pending.pop(0)
            first = self.line_at(self.i)
            lines = []
            while self.i < self.n:
                end = self.s.find("\n", self.i)
                end = self.n if end < 0 else end
                line = self.s[self.i:end]
                self.i = min(end + 1, self.n)
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                lines.append(line)
            self.heredocs.append((first, "\n".join(lines)))

    def read_word(self):
        w = Word(self.line_at(self.i))
        text = []
        while self.i < self.n:
            c = self.s[self.i]
            if c in " \t\r\n":
                break
            if c == "(" and not w.quoted and ASSIGNMENT.fullmatch("".join(text)):
                self.i += 1                               # NAME=( elements )
                w.array = [t[1] for t in self.tokens(stop=")") if t[0] == "word"]
                text.append("(...)")
                continue
            if c in ";&|()":
                break
            if c in "<>":
                if self.peek(1) != "(":
                    break
                start = self.i                            # <(...) >(...)
                self.i += 2
                w.subs.append(self.tokens(stop=")"))
                w.expansions += 1
                text.append(self.s[start:self.i])
                continue
            if c == "\\":
                if self.peek(1) == "\n":
                    self.i += 2
                    continue
                text.append(self.peek(1))
                w.quoted = True
                w.literal += 1
                self.i += 2
                continue
            if c == "'":
                end = self.s.find("'", self.i + 1)
                end = self.n if end < 0 else end
                text.append(self.s[self.i + 1:end])
                w.literal += end - self.i - 1
                w.quoted = True
                self.i = end + 1
                continue
            if c == '"':
                self.i += 1
                w.quoted = True
                self.read_double_quoted(w, text)
                continue
            if c == "$":
                self.read_dollar(w, text, False)
                continue
            if c == "`":
                self.read_backtick(w, text)
                continue
            text.append(c)
            w.literal += 1
            self.i += 1
        w.text = "".join(text)
        return w

    def read_backtick(self, w, text):
        """`command`: a substitution, outside or inside double quotes alike."""
        start = self.i
        self.i += 1
        w.subs.append(self.tokens(stop="`"))
        w.expansions += 1
        text.append(self.s[start:self.i])

    def read_double_quoted(self, w, text):
        while self.i < self.n:
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                nxt = self.peek(1)
                if nxt == "\n":
                    self.i += 2
                elif nxt in '$`"\\':
                    text.append(nxt)
                    w.literal += 1
                    self.i += 2
                else:
                    text.append(c)
                    w.literal += 1
                    self.i += 1
                continue
            if c == "$":
                self.read_dollar(w, text, True)
                continue
            if c == "`":
                self.read_backtick(w, text)
                continue
            text.append(c)
            w.literal += 1
            self.i += 1

    def read_dollar(self, w, text, in_dq):
        start = self.i
        nxt = self.peek(1)
        if nxt == "(" and self.peek(2) == "(":              # $(( arithmetic ))
            self.i += 3
            depth = 2
            while self.i < self.n and depth > 0:
                c = self.s[self.i]
                if c == "$" and self.peek(1) == "(" and self.peek(2) != "(":
                    self.i += 2
                    w.subs.append(self.tokens(stop=")"))
                    continue
                depth += {"(": 1, ")": -1}.get(c, 0)
                self.i += 1
        elif nxt == "(":                                      # $( command )
            self.i += 2
            w.subs.append(self.tokens(stop=")"))
        elif nxt == "{":                                      # ${ parameter }
            self.i += 2
            inner = self.i
            depth = 1
            while self.i < self.n:
                c = self.s[self.i]
                if c == "\\":
                    self.i += 2
                    continue
                if c == "'" and not in_dq:
                    end = self.s.find("'", self.i + 1)
                    self.i = self.n if end < 0 else end + 1
                    continue
                if c == '"':
                    self.i += 1
                    self.read_double_quoted(Word(0), [])
                    continue
                if c == "$" and self.peek(1) == "(":
                    self.i += 2
                    w.subs.append(self.tokens(stop=")"))
                    continue
                if c == "$" and self.peek(1) == "{":
                    depth += 1
                    self.i += 2
                    continue
                if c == "}":
                    depth -= 1
                    self.i += 1
                    if depth == 0:
                        break
                    continue
                self.i += 1
            self.add_param(w, self.s[inner:self.i - 1], in_dq)
        elif nxt == "'":                                      # $'ansi-c'
            j = self.i + 2
            while j < self.n and self.s[j] != "'":
                j += 2 if self.s[j] == "\\" else 1
            text.append(self.s[self.i + 2:j])
            w.literal += 1
            w.quoted = True
            self.i = j + 1
            return
        elif nxt == '"':                                      # $"locale"
            self.i += 2
            w.quoted = True
            self.read_double_quoted(w, text)
            return
        elif re.match(r"[A-Za-z_]", nxt):
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(self.s, self.i + 1)
            self.i = m.end()
            self.add_param(w, m.group(0), in_dq)
        elif nxt and nxt in "0123456789@*#?$!-":
            self.i += 2
            self.add_param(w, nxt, in_dq)
        else:
            text.append("$")
            w.literal += 1
            self.i += 1
            return
        w.expansions += 1
        text.append(self.s[start:self.i])

    @staticmethod
    def add_param(w, inner, in_dq):
        m = PARAM.match(inner)
        if not m:
            return
        rest = m.group(4)
        op = next((o for o in (":-", ":+", ":=", ":?", "-", "+", "=", "?") if rest.startswith(o)), "")
        arg = rest[len(op):] if op else rest
        w.params.append((m.group(1) + m.group(2), (m.group(3) or "")[1:-1], op, arg, in_dq))


# --- what the scripts run -----------------------------------------------------

class Found:
    """Everything one scan of the scripts learns."""

    def __init__(self):
        self.functions = {}     # name -> set of files that define it
        self.wrappers = {}      # (file, name) -> ("args", arguments before the command, exec'd)
        self.values = {}        # (file, variable) -> list of values (str or list)
        self.commands = {}      # command -> list of (file, line)

    def snapshot(self):
        return (sorted((k, sorted(v)) for k, v in self.functions.items()),
                sorted(self.wrappers.items()),
                sorted((k, repr(v)) for k, v in self.values.items()))


def split_value(value):
    """The words an unquoted $VAR holding VALUE splits into."""
    if isinstance(value, list):
        return list(value)
    return value.split()


def word_text(w):
    return w.text if isinstance(w, Word) else w.strip("\"'")


def word_expanded(w):
    if isinstance(w, Word):
        return w.expansions > 0
    return "$" in w or "`" in w


def word_param(w):
    if isinstance(w, Word):
        return w.param
    text = w.strip("\"'")
    if text in ("$@", "${@}", "$*", "${*}"):
        return ("@", "", "", "", w.startswith('"'))
    return None


class Scanner:
    def __init__(self, found, relpath, final):
        self.found = found
        self.file = relpath
        self.final = final          # record commands only on the last pass
        self.function = None        # [name, shifts] of the function being read

    # ---- the token stream: compound commands, functions, case patterns ----

    def scan_tokens(self, tokens, offset):
        words = []
        case_pattern = False
        pending_function = None
        stack = []                  # brace depth at which each open function's body began
        depth = 0
        i = 0
        n = len(tokens)

        def flush():
            nonlocal words
            if words:
                self.command(words, offset)
            words = []

        while i < n:
            kind, value, line = tokens[i]
            if kind == "nl" or (kind == "op" and value in (";", "&", "&&", "||", "|", "|&")):
                flush()
            elif kind == "op" and value in (";;", ";&", ";;&"):
                flush()
                case_pattern = True
            elif kind == "op" and value == "(" and case_pattern and not words:
                pass                                            # case WORD in (PATTERN)
            elif kind == "op" and value == "(":
                if len(words) == 1 and i + 1 < n and tokens[i + 1][:2] == ("op", ")"):
                    pending_function = word_text(words[0])      # NAME ( ) BODY
                    self.define(pending_function)
                    words = []
                    i += 1
                else:
                    flush()
            elif kind == "op":
                flush()
            elif kind == "redir":
                if i + 1 < n and tokens[i + 1][0] == "word":
                    i += 1
                    self.scan_subs(tokens[i][1], offset)
            elif not words and case_pattern:
                if value.text == "esac" and not value.quoted:
                    case_pattern = False
                else:
                    while i < n and tokens[i][:2] != ("op", ")"):
                        if tokens[i][0] == "word":
                            self.scan_subs(tokens[i][1], offset)
                        i += 1
                    case_pattern = False
            elif not words and not value.quoted and value.text in KEYWORDS - {"[[", "coproc", "for", "select", "case", "function"}:
                if value.text == "{":
                    depth += 1
                    if pending_function is not None:
                        stack.append((depth, self.function))
                        self.function = [pending_function, 0]
                        pending_function = None
                elif value.text == "}":
                    if stack and stack[-1][0] == depth:
                        self.function = stack.pop()[1]
                    depth -= 1
            elif not words and not value.quoted and value.text == "case":
                self.scan_subs(value, offset)
                while i + 1 < n and not (tokens[i + 1][0] == "word" and tokens[i + 1][1].text == "in"):
                    i += 1
                    if tokens[i][0] == "word":
                        self.scan_subs(tokens[i][1], offset)
                i += 1
                case_pattern = True
            elif not words and not value.quoted and value.text in ("for", "select"):
                name = tokens[i + 1][1].text if i + 1 < n and tokens[i + 1][0] == "word" else ""
                i += 1
                items = []
                if i + 1 < n and tokens[i + 1][0] == "word" and tokens[i + 1][1].text == "in":
                    i += 1
                    while i + 1 < n and tokens[i + 1][0] == "word":
                        i += 1
                        items.append(tokens[i][1])
                        self.scan_subs(tokens[i][1], offset)
                for item in items:
                    self.assign(name, item.text)
            elif not words and not value.quoted and value.text == "function":
                if i + 1 < n and tokens[i + 1][0] == "word":
                    i += 1
                    pending_function = tokens[i][1].text
                    self.define(pending_function)
                    if i + 2 < n and tokens[i + 1][:2] == ("op", "(") and tokens[i + 2][:2] == ("op", ")"):
                        i += 2
            elif not words and not value.quoted and value.text == "[[":
                while i < n and not (tokens[i][0] == "word" and tokens[i][1].text == "]]"):
                    if tokens[i][0] == "word":
                        self.scan_subs(tokens[i][1], offset)
                    i += 1
            elif not words and not value.quoted and value.text == "coproc":
                if (i + 2 < n and tokens[i + 1][0] == "word"
                        and (tokens[i + 2][:2] == ("op", "(")
                             or (tokens[i + 2][0] == "word" and tokens[i + 2][1].text == "{"))):
                    i += 1                                      # coproc NAME { ...; }
            else:
                words.append(value)
            i += 1
        flush()

    def scan_subs(self, word, offset):
        if not isinstance(word, Word):
            return
        for sub in word.subs:
            self.scan_tokens(sub, offset)
        for element in word.array or []:
            self.scan_subs(element, offset)

    def scan_code(self, code, line, same_process=False):
        """CODE (a string bash parses again: -c, eval, trap) as a script."""
        saved = self.function
        if not same_process:
            self.function = None
        lexer = Lexer(code)
        self.scan_tokens(lexer.tokens(), line - 1)
        self.function = saved

    def define(self, name):
        if name and "$" not in name:
            self.found.functions.setdefault(name, set()).add(self.file)

    def assign(self, name, value):
        if name:
            values = self.found.values.setdefault((self.file, name), [])
            if value not in values:
                values.append(value)

    def values(self, name):
        """What $NAME may hold: this file's assignments, else any file's."""
        own = self.found.values.get((self.file, name))
        if own is not None:
            return own
        return [v for (f, n), vs in sorted(self.found.values.items()) if n == name for v in vs]

    def record_assignment(self, w):
        text = word_text(w)
        m = ASSIGNMENT.match(text)
        name = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text).group(0)
        if isinstance(w, Word) and w.array is not None:
            self.assign(name, [e.text for e in w.array])
        else:
            self.assign(name, text[m.end():])

    # ---- one simple command ---------------------------------------------------

    def command(self, words, offset):
        for w in words:
            self.scan_subs(w, offset)
        self.run(words, offset, words[0].line, False, 0)

    def run(self, words, offset, line, external, depth):
        """WORDS in command position: the first is run, unless it is an
        assignment, a builtin, a function or an expansion."""
        if depth > 12:
            return
        i = 0
        while i < len(words) and ASSIGNMENT.match(word_text(words[i])):
            if isinstance(words[i], Word):
                self.record_assignment(words[i])
            i += 1
        if i >= len(words):
            return
        w, rest = words[i], words[i + 1:]
        if isinstance(w, Word):
            line = w.line
        param = word_param(w)
        if param:
            name, index, op, arg, quoted = param
            if name in ("@", "*"):
                if self.function is not None:
                    key = (self.file, self.function[0])
                    self.found.wrappers.setdefault(key, ("args", self.function[1], external))
                self.run(rest, offset, line, external, depth + 1)
                return
            if op in (":+", "+"):
                self.run(arg.split() + rest, offset, line, external, depth + 1)
                self.run(rest, offset, line, external, depth + 1)
                return
            if not re.match(r"[A-Za-z_]", name):
                return                              # $1, $0, $?: nothing the scripts assign
            values = self.values(name)
            maybe_empty = index in ("@", "*") or op in (":-", "-") or not values
            for value in values:
                if isinstance(value, list) or not quoted:
                    parts = split_value(value)
                else:
                    parts = [value] if value else []
                if not parts:
                    maybe_empty = True
                elif not quoted and all(word_expanded(p) for p in parts):
                    maybe_empty = True
                self.run(parts + rest, offset, line, external, depth + 1)
            if maybe_empty and not (quoted and index not in ("@", "*")):
                self.run(rest, offset, line, external, depth + 1)
            return
        text = word_text(w)
        if word_expanded(w) or not text or "$" in text:
            return                                  # a path in a variable, $(...)/x, ...
        if text == "--":
            self.run(rest, offset, line, external, depth + 1)
            return
        if "/" in text:
            if not text.startswith("/") or "pingate" in text:
                return                              # the project's own programs
            text = os.path.basename(text)
        if not external and text in self.found.functions:
            self.call(text, rest, offset, line, depth)
            return
        if not external and (text in BUILTINS or text in KEYWORDS):
            self.builtin(text, rest, offset, line, depth)
            return
        if self.final:
            self.found.commands.setdefault(text, []).append((self.file, line + offset))
        self.wrapped(text, rest, offset, line, depth)

    def call(self, name, args, offset, line, depth):
        spec = EXTRA_WRAPPERS.get(name)
        if spec is None:
            files = self.found.functions[name]
            origin = self.file if self.file in files else sorted(files)[0]
            spec = self.found.wrappers.get((origin, name))
        if spec is None:
            return
        kind, where = spec[0], spec[1]
        if kind == "after":
            texts = [word_text(a) for a in args]
            if where in texts:
                self.run(args[texts.index(where) + 1:], offset, line, True, depth + 1)
        elif kind == "code":
            if len(args) > where:
                for code in self.code_of(args[where]):
                    self.scan_code(code, line + offset)
        elif kind == "program":
            if len(args) > where:
                self.run([args[where]], offset, line, True, depth + 1)
        else:
            self.run(args[where:], offset, line, spec[2], depth + 1)

    def code_of(self, w):
        """The shell code an argument holds (a -c string, an eval string)."""
        param = word_param(w)
        if param and param[0] not in ("@", "*") and not param[2]:
            return [v if isinstance(v, str) else " ".join(v) for v in self.values(param[0])]
        return [word_text(w)]

    def builtin(self, name, args, offset, line, depth):
        texts = [word_text(a) for a in args]
        if name == "shift" and self.function is not None:
            count = texts[0] if texts else "1"
            self.function[1] += int(count) if count.isdigit() else 1
        elif name in ("local", "export", "declare", "typeset", "readonly"):
            for a in args:
                if isinstance(a, Word) and ASSIGNMENT.match(a.text):
                    self.record_assignment(a)
        elif name == "exec":
            k = 0
            while k < len(args) and texts[k].startswith("-"):
                k += 2 if texts[k] == "-a" else 1
            self.run(args[k:], offset, line, True, depth + 1)
        elif name == "command":
            if texts and texts[0].startswith("-") and ("v" in texts[0] or "V" in texts[0]):
                return                              # command -v: a lookup, nothing runs
            k = 1 if texts and texts[0] == "-p" else 0
            self.run(args[k:], offset, line, False, depth + 1)
        elif name in ("time", "!"):
            k = 1 if texts and texts[0] == "-p" else 0
            self.run(args[k:], offset, line, False, depth + 1)
        elif name == "eval":
            if len(args) == 1:
                codes = self.code_of(args[0])
            else:
                codes = [" ".join(texts)]
            for code in codes:
                self.scan_code(code, line + offset, same_process=True)
        elif name == "trap":
            if args and not texts[0].startswith("-"):
                for code in self.code_of(args[0]):
                    self.scan_code(code, line + offset)

    def wrapped(self, name, args, offset, line, depth):
        """The command an external command runs in turn, if any."""
        texts = [word_text(a) for a in args]

        def after_options(taking_argument, start=0):
            k = start
            while k < len(texts):
                t = texts[k]
                if t == "--":
                    return k + 1
                if not t.startswith("-") or t == "-":
                    return k
                k += 2 if t in taking_argument else 1
            return k

        def then_run(k, external=True):
            self.run(args[k:], offset, line, external, depth + 1)

        def code_after_c():
            """-c CODE, --command CODE, or -c last in a group of flags (script -qec CODE)."""
            for k, t in enumerate(texts[:-1]):
                if t == "--command" or re.fullmatch(r"-[A-Za-z]*c", t):
                    for code in self.code_of(args[k + 1]):
                        self.scan_code(code, line + offset)
                    return True
            return False

        if name == "timeout":
            k = after_options({"-s", "-k", "--signal", "--kill-after"})
            then_run(k + 1)                         # past DURATION
        elif name == "setpriv":
            then_run(after_options({"--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid",
                                    "--groups", "--inh-caps", "--ambient-caps", "--bounding-set",
                                    "--securebits", "--pdeathsig", "--selinux-label",
                                    "--apparmor-profile", "--landlock-access", "--landlock-rule",
                                    "--seccomp-filter"}))
        elif name == "env":
            then_run(after_options({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}))
        elif name in ("nohup", "valgrind", "stdbuf", "setsid", "fakeroot", "dbus-run-session"):
            then_run(after_options({"-i", "-o", "-e"} if name == "stdbuf" else set()))
        elif name == "nice":
            then_run(after_options({"-n", "--adjustment"}))
        elif name == "sudo":
            then_run(after_options({"-u", "--user", "-g", "--group", "-p", "--prompt", "-C",
                                    "--close-from", "-D", "--chdir", "-h", "--host", "-R",
                                    "--chroot", "-r", "--role", "-t", "--type", "-T",
                                    "--command-timeout", "-U", "--other-user"}))
        elif name == "pkexec":
            then_run(after_options({"--user", "-u"}))
        elif name in ("unshare", "nsenter"):
            then_run(after_options({"--propagation", "--setgroups", "--map-user", "--map-group",
                                    "--map-users", "--map-groups", "-S", "--setuid", "-G",
                                    "--setgid", "-R", "--root", "-w", "--wd", "-t", "--target"}))
        elif name == "xargs":
            then_run(after_options({"-n", "--max-args", "-I", "-P", "--max-procs", "-d",
                                    "--delimiter", "-L", "--max-lines", "-s", "--max-chars",
                                    "-a", "--arg-file", "-E"}))
        elif name == "chroot":
            then_run(after_options(set()) + 1)
        elif name == "flock":
            if not code_after_c():
                k = after_options({"-w", "--timeout", "-E", "--conflict-exit-code"})
                if k + 1 < len(args):
                    then_run(k + 1)                 # flock FILE COMMAND...
        elif name in ("su", "runuser", "script"):
            code_after_c()
        elif name in ("sh", "bash", "dash"):
            k = 0
            has_c = False
            while k < len(texts) and (texts[k].startswith("-") or texts[k].startswith("+")) and texts[k] != "--":
                if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", texts[k]):
                    has_c = True
                k += 2 if texts[k] in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
            if texts[k:k + 1] == ["--"]:
                k += 1
            if has_c and k < len(args):
                for code in self.code_of(args[k]):
                    self.scan_code(code, line + offset)
        elif name == "find":
            k = 0
            while k < len(texts):
                if texts[k] in ("-exec", "-execdir", "-ok", "-okdir"):
                    end = k + 1
                    while end < len(texts) and texts[end] not in (";", "+"):
                        end += 1
                    self.run(args[k + 1:end], offset, line, True, depth + 1)
                    k = end
                k += 1
        elif name.startswith("python"):
            # pty_drive.py STEPS... -- COMMAND...: runs COMMAND on a pseudo-terminal.
            if any(t.endswith("pty_drive.py") for t in texts) and "--" in texts:
                then_run(texts.index("--") + 1)


def script_files(root):
    """The scripts to scan, relative to ROOT."""
    files = [f for f in SCRIPT_FILES if os.path.isfile(os.path.join(root, f))]
    for folder in SCRIPT_FOLDERS:
        path = os.path.join(root, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            if name.endswith(".sh") and os.path.isfile(os.path.join(path, name)):
                files.append(f"{folder}/{name}")
    return files


def scan(root, files=None):
    """Found: every command in command position in the scripts, where."""
    files = script_files(root) if files is None else files
    sources = {}
    for relpath in files:
        with open(os.path.join(root, relpath), encoding="utf-8") as f:
            sources[relpath] = f.read()
    found = Found()
    before = None
    for _ in range(8):                             # until functions, wrappers and values settle
        final = before is not None and found.snapshot() == before
        before = found.snapshot()
        found.commands = {}
        for relpath, text in sources.items():
            scanner = Scanner(found, relpath, final)
            lexer = Lexer(text)
            tokens = lexer.tokens()
            scanner.scan_tokens(tokens, 0)
            # A heredoc a test writes as a shell script and runs (#!/bin/sh, #!/bin/bash).
            for first, body in lexer.heredocs:
                if re.match(r"#!\s*/(usr/)?bin/(env\s+)?(ba|da)?sh\b", body):
                    scanner.function = None
                    scanner.scan_tokens(Lexer(body).tokens(), first - 1)
        if final:
            return found
    raise RuntimeError("the scan did not settle")


# --- the table and APT_PACKAGES -------------------------------------------------

def read_apt_packages(root):
    with open(os.path.join(root, RUN_ALL), encoding="utf-8") as f:
        tokens = Lexer(f.read()).tokens()
    for kind, value, _ in tokens:
        if kind == "word" and value.text.startswith("APT_PACKAGES=") and value.array is not None:
            return [w.text for w in value.array]
    return []


def read_table(root):
    """[(command, package, line)], [problems]"""
    entries, problems = [], []
    with open(os.path.join(root, TABLE), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 2:
                problems.append(f"{TABLE}:{number}: expected 'COMMAND PACKAGE', got {line.strip()!r}")
                continue
            entries.append((fields[0], fields[1], number))
    seen = {}
    for command, _, number in entries:
        if command in seen:
            problems.append(f"{TABLE}:{number}: {command} is listed twice (also line {seen[command]})")
        seen.setdefault(command, number)
    return entries, problems


class Report:
    def __init__(self, root):
        self.apt = read_apt_packages(root)
        self.entries, self.table_problems = read_table(root)
        self.found = scan(root)
        table = {c for c, _, _ in self.entries}
        allowed = set(self.apt) | BASE_PACKAGES | set(NOT_FROM_APT)
        self.unlisted = {c: locs for c, locs in sorted(self.found.commands.items()) if c not in table}
        self.stale = [(c, n) for c, _, n in self.entries if c not in self.found.commands]
        self.not_installed = [(c, p, n) for c, p, n in self.entries if p not in allowed]


def where(locations, limit=4):
    shown = ", ".join(f"{f}:{n}" for f, n in locations[:limit])
    return shown + (f" and {len(locations) - limit} more" if len(locations) > limit else "")


# --- the checks -----------------------------------------------------------------

class CommandTableTest(unittest.TestCase):
    report = None

    @classmethod
    def setUpClass(cls):
        if CommandTableTest.report is None:
            CommandTableTest.report = Report(ROOT)

    def test_apt_packages_are_read_from_run_all(self):
        apt = self.report.apt
        self.assertGreater(len(apt), 10, f"APT_PACKAGES in {RUN_ALL}: {apt}")
        self.assertIn("python3", apt)

    def test_table_lines_are_command_and_package(self):
        self.assertEqual([], self.report.table_problems)
        self.assertGreater(len(self.report.entries), 0)

    def test_every_package_in_the_table_is_installed_by_run_all_or_base(self):
        problems = [f"{TABLE}:{n}: {c} comes from {p}, which is not in APT_PACKAGES ({RUN_ALL}) "
                    f"nor in Debian's base system: add {p} to APT_PACKAGES"
                    for c, p, n in self.report.not_installed]
        if problems:
            self.fail("\n" + "\n".join(problems))

    def test_every_command_the_scripts_run_is_in_the_table(self):
        problems = [f"{c} (run at {where(locs)}) is not in {TABLE}: add '{c} PACKAGE' "
                    f"(dpkg -S \"$(command -v {c})\") and make sure PACKAGE is installed"
                    for c, locs in self.report.unlisted.items()]
        if problems:
            self.fail("\n" + "\n".join(problems))

    def test_every_table_entry_is_run_by_some_script(self):
        problems = [f"{TABLE}:{n}: no test script runs {c} any more: remove the line"
                    for c, n in self.report.stale]
        if problems:
            self.fail("\n" + "\n".join(problems))

    def test_base_packages_are_required_or_essential(self):
        used = sorted(BASE_PACKAGES)
        if not shutil.which("dpkg-query"):
            self.fail("dpkg-query not found: this check needs Debian's dpkg")
        output = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Priority} ${Essential}\n"] + used,
                                capture_output=True, text=True).stdout
        state = {line.split()[0]: line.split()[1:] for line in output.splitlines() if line.split()}
        problems = [f"{p}: {' '.join(state.get(p, ['not installed']))}" for p in used
                    if p not in state or not ("required" in state[p] or state[p][-1:] == ["yes"])]
        if problems:
            self.fail("BASE_PACKAGES that are neither Priority required nor Essential here: " + ", ".join(problems))


class CheckCanFailTest(unittest.TestCase):
    """The check run on mutated copies of the repository must complain."""

    def setUp(self):
        self.copy = tempfile.mkdtemp(prefix="check-test-commands.")
        self.addCleanup(shutil.rmtree, self.copy)
        shutil.copytree(os.path.join(ROOT, "Tests"), os.path.join(self.copy, "Tests"),
                        ignore=shutil.ignore_patterns("*.swift", "corpus", "*.py", "*.c"))

    def edit(self, relpath, change):
        path = os.path.join(self.copy, relpath)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(change(text))

    def test_a_command_missing_from_the_table_is_reported_with_its_line(self):
        script = "Tests/IntegrationTests/sudo_test.sh"
        self.edit(TABLE, lambda t: re.sub(r"(?m)^xrdb\s.*\n", "", t))
        self.edit(script, lambda t: t.rstrip("\n") + "\nxrdb -query\n")
        with open(os.path.join(self.copy, script), encoding="utf-8") as f:
            added = len(f.read().splitlines())
        report = Report(self.copy)
        self.assertIn("xrdb", report.unlisted)
        self.assertIn((script, added), report.unlisted["xrdb"])

    def test_a_package_missing_from_apt_packages_is_reported(self):
        self.edit(RUN_ALL, lambda t: t.replace(" x11-xserver-utils ", " "))
        report = Report(self.copy)
        self.assertNotIn("x11-xserver-utils", report.apt)
        self.assertIn("x11-xserver-utils", {p for _, p, _ in report.not_installed})

    def test_a_table_entry_no_script_runs_is_reported(self):
        self.edit(TABLE, lambda t: t + "xeyes x11-apps\n")
        self.assertIn("xeyes", [c for c, _ in Report(self.copy).stale])


class ScannerTest(unittest.TestCase):
    """The scan on small pieces of bash: what is run, and what is not."""

    def commands(self, code):
        folder = tempfile.mkdtemp(prefix="check-test-commands.")
        self.addCleanup(shutil.rmtree, folder)
        with open(os.path.join(folder, "t.sh"), "w", encoding="utf-8") as f:
            f.write(code)
        return {c: [n for _, n in locs] for c, locs in scan(folder, ["t.sh"]).commands.items()}

    def test_wrappers_substitutions_and_pipelines(self):
        found = self.commands(
            'out=$(printf x | timeout -s KILL 10 setpriv --reuid=1 --clear-groups -- env A=1 "$X" 2>&1)\n'
            'as_user() { local u=$1; shift; setpriv --reuid="$u" -- "$@"; }\n'
            'as_user pgalice kill -SEGV 1 && flock -s "$gate" true\n'
            'diff <(sort a) b; find . -type f -exec sha256sum {} \\; | wc -l\n'
            "bash -c 'stty -g; exec \"$0\"' x; sudo -S -k -u bob id -un\n")
        self.assertEqual({"timeout": [1], "setpriv": [1, 2], "env": [1], "kill": [3], "flock": [3],
                          "true": [3], "diff": [4], "sort": [4], "find": [4], "sha256sum": [4],
                          "wc": [4], "bash": [5], "stty": [5], "sudo": [5], "id": [5]}, found)

    def test_what_is_not_run(self):
        found = self.commands(
            "# xrdb in a comment\n"
            'echo "xrdb in a string"; command -v xrandr >/dev/null\n'
            "python3 - <<'PY'\nimport os\nxrdb = 1\nPY\n"
            'case "$1" in xrdb|--x) ;; *) ;; esac\n'
            'FOO=bar "$PINGATE" status; .build/debug/tool; /usr/sbin/pingate x; helper() { :; }; helper\n')
        self.assertEqual({"python3": [3]}, found)

    def test_variables_in_command_position_stand_for_their_values(self):
        found = self.commands(
            'PTY="python3 pty_drive.py"\n'
            'pty() { out=$($PTY "$@"); }\n'
            'WRAPPER="valgrind -q" run_it\n'
            'run_it() { ${WRAPPER:-} "$harness"; }\n'
            "for attempt in 'rm -f x' 'ln -s a b'; do sh -c \"$attempt\"; done\n")
        self.assertEqual({"python3": [2], "valgrind": [4], "sh": [5], "rm": [5], "ln": [5]}, found)


def list_commands(root):
    found = scan(root)
    for command, locations in sorted(found.commands.items()):
        print(f"{command:24} {where(sorted(set(locations)), 6)}")


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", help="the repository to check (default: this one)")
    parser.add_argument("--list", action="store_true", help="print every command the scripts run, and where")
    parser.add_argument("-q", "--quiet", action="store_true", help="one line per test only on failure")
    args = parser.parse_args()
    if args.root:
        ROOT = os.path.abspath(args.root)
    if args.list:
        list_commands(ROOT)
        return 0
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for case in (CommandTableTest, CheckCanFailTest, ScannerTest):
        suite.addTests(loader.loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=1 if args.quiet else 2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
