#!/usr/bin/env python3
"""stats.py — small helpers for run.sh (stdlib only).

  stats.py samples FILE...          median and p95 (ms) of latency files (µs, one a line)
  stats.py kdf HASH OPS MEM N       in-process KDF times (ms): yescrypt HASH via
                                    libcrypt, Argon2id OPS/MEM via libsodium
  stats.py chart RESULTS PNG        optional chart (needs matplotlib)
"""
import ctypes
import statistics
import sys
import time


def percentile(values, fraction):
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(round(fraction * len(ordered) + 0.5)) - 1))
    return ordered[index]


def samples(paths):
    values = []
    for path in paths:
        with open(path) as handle:
            values += [float(line) for line in handle if line.strip()]
    print(f"n={len(values)} median={statistics.median(values) / 1000:.2f} "
          f"p95={percentile(values, 0.95) / 1000:.2f}")


def kdf(setting, operations, memory, count):
    crypt = ctypes.CDLL("libcrypt.so.1")
    crypt.crypt.restype = ctypes.c_char_p
    crypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    sodium = ctypes.CDLL("libsodium.so.23")
    sodium.sodium_init()
    stored = ctypes.create_string_buffer(128)
    secret = b"k" * 32
    if sodium.crypto_pwhash_str(stored, secret, ctypes.c_ulonglong(32), ctypes.c_ulonglong(operations),
                                ctypes.c_size_t(memory)) != 0:
        sys.exit("crypto_pwhash_str failed")

    def timed(call):
        times = []
        for _ in range(count):
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    yescrypt = timed(lambda: crypt.crypt(b"correct horse", setting.encode()))
    argon = timed(lambda: sodium.crypto_pwhash_str_verify(stored, secret, ctypes.c_ulonglong(32)))
    print(f"yescrypt={yescrypt:.1f} argon2id={argon:.1f}")


def chart(results, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plot
    rows = [line.split() for line in open(results) if line.startswith("concurrency ")]
    figure, (left, right) = plot.subplots(1, 2, figsize=(11, 4))
    for label, index in (("distinct users", 2), ("one user", 4)):
        points = [(int(r[1]), float(r[index])) for r in rows]
        left.plot([p for p, _ in points], [v for _, v in points], marker="o", label=label)
        latency = [(int(r[1]), float(r[index + 1])) for r in rows]
        right.plot([p for p, _ in latency], [v for _, v in latency], marker="o", label=label)
    for axis, title in ((left, "authentications/s"), (right, "median latency (ms)")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("simultaneous authentications")
        axis.set_title(title)
        axis.legend()
        axis.grid(True, alpha=0.3)
    figure.suptitle("PinGate, default KDF, real libpam")
    figure.tight_layout()
    figure.savefig(png, dpi=100)


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "samples":
        samples(arguments)
    elif command == "kdf":
        kdf(arguments[0], int(arguments[1]), int(arguments[2]), int(arguments[3]))
    elif command == "chart":
        chart(arguments[0], arguments[1])
    else:
        sys.exit(__doc__)
