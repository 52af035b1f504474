#!/usr/bin/env python3
"""pty_drive.py — drive a command through a real pseudo-terminal (80x24, TERM=xterm).

usage: pty_drive.py STEP... -- COMMAND [ARG...]

  expect:TEXT       wait (up to 10 s) until TEXT appears in the output after
                    the point the previous expect matched
  send:TEXT         type TEXT; backslash escapes are decoded (\\r \\x1b \\x7f \\x03)
  reply:PROMPT=>TEXT  from here on, whenever PROMPT appears in the output (after
                    the point the previous expect matched), type TEXT (decoded as
                    for send): answers a prompt that may or may not come
  sleep:SECONDS     pause
  signal:FILE:NAME  send signal NAME (TERM, INT, ...) to the pid written in FILE

The whole transcript goes to stdout; the exit status is the command's
(128 + N if it died of signal N), or 99 if an expect timed out.
"""
import fcntl, os, pty, select, signal, struct, sys, termios, time

def main():
    args = sys.argv[1:]
    split = args.index("--")
    steps, command = args[:split], args[split + 1:]
    pid, master = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.execvp(command[0], command)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    output = bytearray()
    matched = 0
    replies = []  # [prompt, answer, where the next search starts]

    def type_text(text):
        time.sleep(0.05)  # let the program switch echo off (a TCSAFLUSH would drop it)
        os.write(master, text.encode().decode("unicode_escape").encode("latin-1"))

    def answer_prompts():
        for reply in replies:
            found = output.find(reply[0], reply[2])
            while found >= 0:
                reply[2] = found + len(reply[0])
                type_text(reply[1])
                found = output.find(reply[0], reply[2])

    def pump(timeout):
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(master, 4096)
        except OSError:
            return False
        if not data:
            return False
        output.extend(data)
        answer_prompts()
        return True

    for step in steps:
        kind, _, value = step.partition(":")
        if kind == "expect":
            needle = value.encode()
            deadline = time.time() + 10
            while output.find(needle, matched) < 0:
                if time.time() > deadline or not pump(0.1):
                    if output.find(needle, matched) >= 0:
                        break
                    sys.stdout.buffer.write(bytes(output))
                    sys.stderr.write("pty_drive: timed out waiting for %r\n" % value)
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    sys.exit(99)
            matched = output.find(needle, matched) + len(needle)
        elif kind == "send":
            type_text(value)
        elif kind == "reply":
            prompt, arrow, text = value.partition("=>")
            if not arrow:
                sys.exit("pty_drive: reply needs PROMPT=>TEXT: %r" % step)
            replies.append([prompt.encode(), text, matched])
            answer_prompts()
        elif kind == "sleep":
            deadline = time.time() + float(value)
            while time.time() < deadline:
                pump(0.05)
        elif kind == "signal":
            path, _, name = value.partition(":")
            with open(path) as handle:
                os.kill(int(handle.read().strip()), getattr(signal, "SIG" + name))
        else:
            sys.exit("pty_drive: unknown step %r" % step)
    deadline = time.time() + 20
    while pump(0.2):
        if time.time() > deadline:
            sys.stderr.write("pty_drive: the command did not finish; killing it\n")
            os.kill(pid, signal.SIGKILL)
            break
    _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(output))
    if os.WIFSIGNALED(status):
        sys.exit(128 + os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status))

main()
