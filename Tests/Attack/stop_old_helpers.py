#!/usr/bin/env python3
"""stop_old_helpers.py UID SECONDS LOG — what a user can do to their own
helpers: for SECONDS, SIGSTOP every pingate-verify process started by a PAM
client (pam_harness) whose real uid is UID, once it has run for more than 0.1 s (a status request ends in a few ms; a
verify with a slow KDF is then past its counting step and inside the KDF),
and append each stopped pid to LOG."""
import os, signal, sys, time

def status_field(pid, name):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return line.split()[1]
    return ""

def comm(pid):
    with open(f"/proc/{pid}/comm") as name:
        return name.read().strip()

def main():
    uid, seconds, log = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    ticks = os.sysconf("SC_CLK_TCK")
    end = time.monotonic() + seconds
    logged = set()
    while time.monotonic() < end:
        with open("/proc/uptime") as uptime:
            now = float(uptime.read().split()[0])
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    text = stat.read()
                if text[text.index("(") + 1:text.rindex(")")] != "pingate-verify":
                    continue
                fields = text[text.rindex(")") + 2:].split()
                started = int(fields[19]) / ticks
                # Only the helpers of a PAM client (the locker under test),
                # not those of other tests that may run meanwhile as the same uid.
                if fields[0] not in ("T", "t", "Z") and now - started > 0.1 and int(status_field(pid, "Uid")) == uid \
                        and comm(status_field(pid, "PPid")) == "pam_harness":
                    os.kill(int(pid), signal.SIGSTOP)
                    if pid not in logged:
                        logged.add(pid)
                        with open(log, "a") as stopped:
                            stopped.write(pid + "\n")
            except (OSError, ValueError):
                pass
        time.sleep(0.01)

main()
