#!/usr/bin/env python3
"""record_tool.py — read and rewrite PinGate records outside PinGate, for attacks.

The slot format is RecordCodec.swift's: two 512-byte slots, little-endian,
BLAKE2b-128 over bytes 0..<496 at 496. A reader takes the valid slot with the
higher sequence; this tool writes like the verifier does: the other slot, with
sequence + 1 and a correct checksum, in place (so owner and mode are kept).

  record_tool.py show FILE                     the current slot as key=value
  record_tool.py set FILE KEY=VALUE...         write the next slot with changes
  record_tool.py new FILE UID [KEY=VALUE...]   write a fresh two-slot file (seeds)

Keys: uid kind grid disabled failures last_failure created changed last_success
attempt_serial last_failure_boot_id last_failure_boot_clock hash sequence.
Wall-clock times are Unix seconds; "now+N" and "now-N" are accepted.
last_failure_boot_clock is CLOCK_BOOTTIME seconds; "boot+N" and "boot-N" are
accepted. last_failure_boot_id is a UUID, "this" (the running boot), "random"
(another boot) or "none" (no boot stamp, as in records from before them).
"""
import hashlib
import struct
import sys
import time
import uuid

SLOT = 512
FIELDS = [  # name, offset, struct format
    ("sequence", 8, "<Q"), ("uid", 16, "<I"), ("kind", 20, "<B"), ("grid", 21, "<B"),
    ("disabled", 22, "<B"), ("failures", 24, "<I"), ("last_failure", 32, "<q"),
    ("created", 40, "<q"), ("changed", 48, "<q"), ("last_success", 56, "<q"),
    ("attempt_serial", 192, "<Q"), ("last_failure_boot_clock", 216, "<q"),
]
BOOT_ID = 200  # 16 bytes of the boot id's UUID; all zero = no boot stamp
BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"


def checksum(body):
    return hashlib.blake2b(bytes(body[:496]), digest_size=16).digest()


def decode(slot):
    if len(slot) != SLOT or slot[0:4] != b"PGR1" or struct.unpack_from("<H", slot, 4)[0] != 1:
        return None
    if slot[496:512] != checksum(slot):
        return None
    record = {name: struct.unpack_from(fmt, slot, offset)[0] for name, offset, fmt in FIELDS}
    record["hash"] = bytes(slot[64:64 + slot[23]]).decode("utf-8", "replace")
    boot_id = bytes(slot[BOOT_ID:BOOT_ID + 16])
    record["last_failure_boot_id"] = str(uuid.UUID(bytes=boot_id)) if any(boot_id) else "none"
    return record


def encode(record):
    slot = bytearray(SLOT)
    slot[0:4] = b"PGR1"
    struct.pack_into("<H", slot, 4, 1)
    for name, offset, fmt in FIELDS:
        struct.pack_into(fmt, slot, offset, int(record[name]))
    hash_bytes = record["hash"].encode()[:127]
    slot[23] = len(hash_bytes)
    slot[64:64 + len(hash_bytes)] = hash_bytes
    if record["last_failure_boot_id"] != "none":
        slot[BOOT_ID:BOOT_ID + 16] = uuid.UUID(record["last_failure_boot_id"]).bytes
    slot[496:512] = checksum(slot)
    return bytes(slot)


def current(data):
    best = None
    for index in range(2):
        record = decode(data[index * SLOT:(index + 1) * SLOT])
        if record is not None and (best is None or record["sequence"] >= best[0]["sequence"]):
            best = (record, index)
    return best


def parse_value(key, text):
    if key == "hash":
        return text
    if key == "last_failure_boot_id":
        if text == "this":
            with open(BOOT_ID_PATH) as file:
                return str(uuid.UUID(file.read().strip()))
        if text == "random":
            return str(uuid.uuid4())
        return text if text == "none" else str(uuid.UUID(text))
    if text.startswith("now"):
        return int(time.time()) + int(text[3:] or 0)
    if text.startswith("boot"):
        return int(time.clock_gettime(time.CLOCK_BOOTTIME)) + int(text[4:] or 0)
    return int(text, 0)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    command, path = argv[1], argv[2]
    if command == "show":
        with open(path, "rb") as file:
            found = current(file.read())
        if found is None:
            sys.exit(f"{path}: no valid slot")
        for key, value in found[0].items():
            print(f"{key}={value}")
        print(f"slot={found[1]}")
    elif command == "set":
        with open(path, "r+b") as file:
            data = file.read()
            found = current(data)
            if found is None:
                sys.exit(f"{path}: no valid slot")
            record, index = found
            for assignment in argv[3:]:
                key, _, text = assignment.partition("=")
                record[key] = parse_value(key, text)
            record["sequence"] += 1
            file.seek((1 - index) * SLOT)
            file.write(encode(record))
    elif command == "new":
        record = {name: 0 for name, _, _ in FIELDS}
        record["last_failure_boot_id"] = "none"
        record.update(uid=int(argv[3]), kind=1, sequence=1, created=1700000000, changed=1700000000,
                      hash="$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g")
        for assignment in argv[4:]:
            key, _, text = assignment.partition("=")
            record[key] = parse_value(key, text)
        older = dict(record, sequence=record["sequence"] - 1)
        with open(path, "wb") as file:
            file.write(encode(older) + encode(record))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
