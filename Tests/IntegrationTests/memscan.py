#!/usr/bin/env python3
"""memscan.py — is a typed secret still in a process's memory?

  memscan.py --control TEXT --secret TEXT [--secret TEXT...] PID...

Reads every readable mapping of each PID through /proc/PID/mem (root, or a
ptrace-capable caller) and looks for each secret and for the control. Exit
0 when no secret is found and the control is (so that a scan that read
nothing cannot pass); 1 with the places otherwise; 2 on bad usage.
"""
import argparse
import sys


def mappings(pid):
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            start, end = (int(part, 16) for part in fields[0].split("-"))
            perms, name = fields[1], (fields[5] if len(fields) > 5 else "[anonymous]")
            if perms[0] == "r" and name not in ("[vvar]", "[vsyscall]", "[vvar_vclock]"):
                yield start, end, perms, name


def scan(pid, needles):
    found = {needle: [] for needle in needles}
    read = 0
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for start, end, perms, name in mappings(pid):
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            read += len(data)
            for needle in needles:
                at = data.find(needle)
                while at >= 0:
                    found[needle].append(f"pid {pid} {perms} {name} +0x{at:x}")
                    at = data.find(needle, at + 1)
    return found, read


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--control", required=True)
    parser.add_argument("--secret", action="append", required=True)
    parser.add_argument("pids", nargs="+", type=int)
    args = parser.parse_args()
    needles = [text.encode() for text in args.secret] + [args.control.encode()]
    status, control_seen, total = 0, False, 0
    for pid in args.pids:
        found, read = scan(pid, needles)
        total += read
        control_seen = control_seen or bool(found[needles[-1]])
        for secret in needles[:-1]:
            for place in found[secret]:
                print(f"secret {secret.decode()!r} found: {place}")
                status = 1
    if not control_seen:
        print(f"control {args.control!r} not found in {total} bytes: the scan read nothing useful")
        status = 1
    else:
        print(f"scanned {total} bytes of {len(args.pids)} processes; control found")
    return status


if __name__ == "__main__":
    sys.exit(main())
