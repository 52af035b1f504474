#!/usr/bin/env python3
"""timing.py CALLER HELPER REQUEST_FILE... — runs HELPER as CALLER (uid/gid,
no groups, empty environment) once per request file in turn, RUNS times
(default 30, env RUNS), and prints "median_ms answer|exit" per file, in order.
Interleaving the files keeps drift (caches, frequency) out of the comparison."""
import os
import pwd
import statistics
import subprocess
import sys
import time

caller, helper, files = sys.argv[1], sys.argv[2], sys.argv[3:]
entry = pwd.getpwnam(caller)
runs = int(os.environ.get("RUNS", "30"))


def become():
    os.setgroups([])
    os.setresgid(entry.pw_gid, entry.pw_gid, entry.pw_gid)
    os.setresuid(entry.pw_uid, entry.pw_uid, entry.pw_uid)


times = {name: [] for name in files}
answers = {name: set() for name in files}
requests = {name: open(name, "rb").read() for name in files}
for _ in range(runs):
    for name in files:
        start = time.perf_counter()
        done = subprocess.run([helper], input=requests[name], capture_output=True, env={}, preexec_fn=become)
        times[name].append((time.perf_counter() - start) * 1000)
        answers[name].add(f"{done.stdout.decode(errors='replace').strip()}|{done.returncode}")
for name in files:
    print(f"{statistics.median(times[name]):.2f} {' / '.join(sorted(answers[name]))}")
