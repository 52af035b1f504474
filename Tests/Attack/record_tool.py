#!/usr/bin/env python3
"""record_tool.py — read and rewrite PinGate records outside PinGate, for attacks.

The slot layout is the record table in docs/design.md (section 4), read at
start-up; RecordLayoutTests keeps that table equal to Store/RecordLayout.swift.
A record is two slots, each sealed by the checksum field over the bytes before
it. A reader takes the valid slot with the higher sequence; this tool writes
like the verifier's synced writes do: the other slot, with sequence + 1,
unsynced=0 unless it is set, and a correct checksum, in place (so owner and
mode are kept).

  record_tool.py show FILE                     the current slot as key=value
  record_tool.py set FILE KEY=VALUE...         write the next slot with changes
  record_tool.py new FILE UID [KEY=VALUE...]   write a fresh two-slot file (seeds)
  record_tool.py old FILE                      rewrite both slots in format 1, as
                                               before records named their account
  record_tool.py selftest                      check this tool against the table

Keys: the fields of the table but magic, format_version, checksum, the
reserved gaps and a text field's length (written with the text); the usage
message lists them. Integers: wall-clock times are Unix seconds, "now+N" and
"now-N" are accepted; last_failure_boot_clock is CLOCK_BOOTTIME seconds,
"boot+N" and "boot-N" are accepted. A uuid field (last_failure_boot_id) takes
a UUID, "this" (the running boot), "random" (another boot) or "none" (all
zero: no boot stamp, as in records from before them). A bytes field takes hex.
user_name is the account the record was made for; `new` takes the uid's name
now (empty: none, an orphan). A slot of format 1 (before user_name) is read
too, shown with format_version=1, and `set` keeps its format.
"""
import pwd
import hashlib
import os
import re
import struct
import sys
import tempfile
import time
import unittest
import uuid
from typing import NamedTuple

DESIGN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "design.md")
HEADER = "| offset | size | field | type | meaning |"
INTEGERS = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q", "i64": "<q"}
OTHER_TYPES = {"bytes", "text", "uuid", "blake2b", "zero"}
BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"
SLOTS = 2
# Format 1 is format 2 without these fields (zero there): what `old` writes,
# and what `pingate init --upgrade` migrates.
FORMAT_1 = 1
FORMAT_1_LACKS = ("user_name",)


class LayoutError(Exception):
    """docs/design.md has no record table this tool can use."""


class Field(NamedTuple):
    name: str
    offset: int
    size: int
    type: str
    meaning: str


class Layout:
    """The slot's fields, from the record table of docs/design.md."""

    def __init__(self, markdown):
        rows = self.table_rows(markdown)
        self.fields = {}
        end = 0
        for number, row in enumerate(rows, 1):
            field = self.parse_row(row, number)
            if field.offset != end:
                raise LayoutError(f"table row {number} ({field.name}) starts at {field.offset}, not at {end} where the row before ends")
            end = field.offset + field.size
            if field.type != "zero":
                if field.name in self.fields:
                    raise LayoutError(f"table row {number}: a second field {field.name}")
                self.fields[field.name] = field
        self.slot_size = end
        for name in ("magic", "format_version", "sequence", "checksum"):
            if name not in self.fields:
                raise LayoutError(f"the table has no field {name}")
        self.checksum = self.fields["checksum"]
        if self.checksum.type != "blake2b" or self.checksum.offset + self.checksum.size != self.slot_size:
            raise LayoutError("the checksum is not a blake2b field at the end of the slot")
        self.magic = self.value_in_meaning("magic", r'"([^"]+)"').encode()
        self.version = int(self.value_in_meaning("format_version", r"(\d+)"))
        for field in self.fields.values():
            if field.type == "text" and self.fields.get(field.name + "_length", Field("", 0, 0, "", "")).type != "u8":
                raise LayoutError(f"the text field {field.name} has no u8 field {field.name}_length")
        self.lengths = {field.name + "_length" for field in self.fields.values() if field.type == "text"}
        derived = {"magic", "format_version", "checksum"} | self.lengths
        self.keys = [name for name in self.fields if name not in derived]

    @staticmethod
    def table_rows(markdown):
        lines = markdown.split("\n")
        if HEADER not in lines:
            raise LayoutError(f'no record table (a line "{HEADER}")')
        start = lines.index(HEADER) + 2
        rows = []
        for line in lines[start:]:
            if not line.startswith("|"):
                break
            rows.append(line)
        if not rows:
            raise LayoutError("the record table has no rows")
        return rows

    @staticmethod
    def parse_row(row, number):
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) != 5:
            raise LayoutError(f"table row {number} has {len(cells)} cells, not 5: {row}")
        offset, size, name, kind, meaning = cells
        if not (offset.isdigit() and size.isdigit() and re.fullmatch(r"`[a-z0-9_]+`", name)):
            raise LayoutError(f"table row {number} is not | offset | size | `field` | type | meaning |: {row}")
        if kind not in INTEGERS and kind not in OTHER_TYPES:
            raise LayoutError(f"table row {number}: unknown type {kind}")
        if kind in INTEGERS and struct.calcsize(INTEGERS[kind]) != int(size):
            raise LayoutError(f"table row {number}: a {kind} is not {size} bytes")
        if kind == "uuid" and int(size) != 16:
            raise LayoutError(f"table row {number}: a uuid is 16 bytes, not {size}")
        return Field(name.strip("`"), int(offset), int(size), kind, meaning)

    def value_in_meaning(self, name, pattern):
        found = re.match(pattern, self.fields[name].meaning)
        if not found:
            raise LayoutError(f"the meaning of {name} does not start with its value ({pattern})")
        return found.group(1)

    def checksum_of(self, slot):
        return hashlib.blake2b(bytes(slot[:self.checksum.offset]), digest_size=self.checksum.size).digest()

    def span(self, name):
        field = self.fields[name]
        return slice(field.offset, field.offset + field.size)

    def decode(self, slot):
        if len(slot) != self.slot_size or slot[self.span("magic")] != self.magic:
            return None
        version = self.integer(slot, "format_version")
        if version not in (self.version, FORMAT_1) or slot[self.span("checksum")] != self.checksum_of(slot):
            return None
        record = {"format_version": version}
        for name in self.keys:
            if version == FORMAT_1 and name in FORMAT_1_LACKS:
                continue
            field, raw = self.fields[name], bytes(slot[self.span(name)])
            if field.type in INTEGERS:
                record[name] = self.integer(slot, name)
            elif field.type == "text":
                record[name] = raw[:slot[self.fields[name + "_length"].offset]].decode("utf-8", "replace")
            elif field.type == "uuid":
                record[name] = str(uuid.UUID(bytes=raw)) if any(raw) else "none"
            else:
                record[name] = raw.hex()
        return record

    def integer(self, slot, name):
        field = self.fields[name]
        return struct.unpack_from(INTEGERS[field.type], slot, field.offset)[0]

    def encode(self, record):
        slot = bytearray(self.slot_size)
        slot[self.fields["magic"].offset:self.fields["magic"].offset + len(self.magic)] = self.magic
        version = record.get("format_version", self.version)
        struct.pack_into(INTEGERS[self.fields["format_version"].type], slot, self.fields["format_version"].offset, version)
        for name in self.keys:
            if version == FORMAT_1 and name in FORMAT_1_LACKS:
                continue
            field, value = self.fields[name], record[name]
            if field.type in INTEGERS:
                struct.pack_into(INTEGERS[field.type], slot, field.offset, int(value))
                continue
            if field.type == "text":
                raw = value.encode()[:field.size - 1]
                slot[self.fields[name + "_length"].offset] = len(raw)
            elif field.type == "uuid":
                raw = b"" if value == "none" else uuid.UUID(value).bytes
            else:
                raw = bytes.fromhex(value)[:field.size]
            slot[field.offset:field.offset + len(raw)] = raw
        slot[self.span("checksum")] = self.checksum_of(slot)
        return bytes(slot)

    def current(self, data):
        best = None
        for index in range(SLOTS):
            record = self.decode(data[index * self.slot_size:(index + 1) * self.slot_size])
            if record is not None and (best is None or record["sequence"] >= best[0]["sequence"]):
                best = (record, index)
        return best

    def blank(self):
        """A record with every key at zero (no boot stamp)."""
        zero = {"text": "", "uuid": "none", "bytes": ""}
        return {name: zero.get(self.fields[name].type, 0) for name in self.keys}

    def parse_value(self, key, text):
        if key not in self.keys:
            sys.exit(f"record_tool.py: unknown key {key} (keys: {' '.join(self.keys)})")
        kind = self.fields[key].type
        if kind == "text":
            return text
        if kind == "uuid":
            if text == "this":
                with open(BOOT_ID_PATH) as file:
                    return str(uuid.UUID(file.read().strip()))
            if text == "random":
                return str(uuid.uuid4())
            return text if text == "none" else str(uuid.UUID(text))
        if kind not in INTEGERS:
            return bytes.fromhex(text).hex()
        if text.startswith("now"):
            return int(time.time()) + int(text[3:] or 0)
        if text.startswith("boot"):
            return int(time.clock_gettime(time.CLOCK_BOOTTIME)) + int(text[4:] or 0)
        return int(text, 0)


def load_layout(path=DESIGN):
    """The layout of docs/design.md's record table; stops the tool if there is none."""
    try:
        with open(path, encoding="utf-8") as file:
            return Layout(file.read())
    except (OSError, LayoutError) as error:
        sys.exit(f"record_tool.py: cannot take the record layout from {os.path.normpath(path)}: {error}")


def usage(layout):
    sys.exit(f"{__doc__}\nKeys: {' '.join(layout.keys)}")


def main(argv, layout):
    if len(argv) < 3:
        usage(layout)
    command, path = argv[1], argv[2]
    if command == "show":
        with open(path, "rb") as file:
            found = layout.current(file.read())
        if found is None:
            sys.exit(f"{path}: no valid slot")
        for key, value in found[0].items():
            print(f"{key}={value}")
        print(f"slot={found[1]}")
    elif command == "set":
        with open(path, "r+b") as file:
            data = file.read()
            found = layout.current(data)
            if found is None:
                sys.exit(f"{path}: no valid slot")
            record, index = found
            record["unsynced"] = 0
            for assignment in argv[3:]:
                key, _, text = assignment.partition("=")
                record[key] = layout.parse_value(key, text)
            record["sequence"] += 1
            file.seek((1 - index) * layout.slot_size)
            file.write(layout.encode(record))
    elif command == "old":
        with open(path, "r+b") as file:
            found = layout.current(file.read())
            if found is None:
                sys.exit(f"{path}: no valid slot")
            record = dict(found[0], format_version=FORMAT_1, unsynced=0)
            file.seek(0)
            file.write(layout.encode(dict(record, sequence=record["sequence"] - 1)) + layout.encode(record))
    elif command == "new":
        record = layout.blank()
        try:
            name = pwd.getpwuid(int(argv[3])).pw_name
        except KeyError:
            name = ""
        record.update(uid=int(argv[3]), user_name=name, kind=1, sequence=1, created=1700000000, changed=1700000000,
                      hash="$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g")
        for assignment in argv[4:]:
            key, _, text = assignment.partition("=")
            record[key] = layout.parse_value(key, text)
        older = dict(record, sequence=record["sequence"] - 1)
        with open(path, "wb") as file:
            file.write(layout.encode(older) + layout.encode(record))
    else:
        usage(layout)


class SelfTest(unittest.TestCase):
    """This tool against docs/design.md's table, which RecordLayoutTests checks against the Swift codec."""

    layout = None

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.directory.name, "1234.record")

    def tearDown(self):
        self.directory.cleanup()

    def run_tool(self, *arguments):
        main(["record_tool.py", *arguments], self.layout)

    def test_new_writes_each_value_at_its_table_offset(self):
        self.run_tool("new", self.path, "1234", "pin_length=6", "failures=3", "last_failure=-5",
                      "attempt_serial=0x0102030405060708", "last_failure_boot_id=random", "last_failure_boot_clock=77")
        with open(self.path, "rb") as file:
            data = file.read()
        fields, size = self.layout.fields, self.layout.slot_size
        self.assertEqual(len(data), SLOTS * size)
        newer = data[size:]
        expected = {"sequence": 1, "uid": 1234, "kind": 1, "pin_length": 6, "failures": 3, "last_failure": -5,
                    "attempt_serial": 0x0102030405060708, "last_failure_boot_clock": 77, "grid": 0, "disabled": 0}
        for name, value in expected.items():
            self.assertEqual(struct.unpack_from(INTEGERS[fields[name].type], newer, fields[name].offset)[0], value, name)
        self.assertEqual(newer[fields["magic"].offset:][:4], b"PGR1")
        hash_text = newer[fields["hash"].offset:][:newer[fields["hash_length"].offset]].decode()
        self.assertTrue(hash_text.startswith("$argon2id$"))
        self.assertTrue(any(newer[fields["last_failure_boot_id"].offset:][:16]))
        self.assertEqual(newer[fields["checksum"].offset:], hashlib.blake2b(newer[:fields["checksum"].offset], digest_size=16).digest())
        self.assertEqual(self.layout.decode(data[:size])["sequence"], 0, "the older slot is valid too")

    def test_set_writes_the_other_slot_and_show_reads_it(self):
        self.run_tool("new", self.path, "1234")
        self.run_tool("set", self.path, "pin_length=8", "failures=2", "last_failure_boot_id=none")
        with open(self.path, "rb") as file:
            record, index = self.layout.current(file.read())
        self.assertEqual((index, record["sequence"], record["pin_length"], record["failures"]), (0, 2, 8, 2))
        self.assertEqual(record["last_failure_boot_id"], "none")

    def test_new_binds_the_record_to_the_uids_account_and_old_writes_format_1(self):
        self.run_tool("new", self.path, "0")
        with open(self.path, "rb") as file:
            record, _ = self.layout.current(file.read())
        self.assertEqual((record["format_version"], record["user_name"]), (self.layout.version, "root"))
        self.run_tool("old", self.path)
        with open(self.path, "rb") as file:
            data = file.read()
        size = self.layout.slot_size
        for index in range(SLOTS):
            slot = self.layout.decode(data[index * size:(index + 1) * size])
            self.assertEqual(slot["format_version"], FORMAT_1, f"slot {index}")
            self.assertNotIn("user_name", slot)
            self.assertFalse(any(data[index * size + self.layout.fields["user_name"].offset:][:self.layout.fields["user_name"].size]))
            self.assertEqual(data[index * size + self.layout.fields["user_name_length"].offset], 0)
        self.run_tool("set", self.path, "failures=1")
        with open(self.path, "rb") as file:
            record, _ = self.layout.current(file.read())
        self.assertEqual((record["format_version"], record["failures"]), (FORMAT_1, 1), "set keeps format 1")

    def test_every_key_of_the_old_fields_table_is_still_a_key(self):
        for key in ("sequence", "uid", "kind", "grid", "disabled", "failures", "pin_length", "last_failure", "created",
                    "changed", "last_success", "hash", "attempt_serial", "last_failure_boot_id", "last_failure_boot_clock"):
            self.assertIn(key, self.layout.keys)

    def test_a_table_it_cannot_use_stops_the_tool(self):
        with open(DESIGN, encoding="utf-8") as file:
            markdown = file.read()
        broken = {
            "no table": markdown.replace(HEADER, "| offset | size |"),
            "a gap": markdown.replace("| 28 | 1 | `pin_length` | u8 |", "| 28 | 2 | `pin_length` | u16 |"),
            "a wrong size": markdown.replace("| 16 | 4 | `uid` | u32 |", "| 16 | 4 | `uid` | u64 |"),
            "an unknown type": markdown.replace("| `kind` | u8 |", "| `kind` | byte |"),
        }
        for what, text in broken.items():
            self.assertNotEqual(text, markdown, what)
            with self.assertRaises(LayoutError, msg=what):
                Layout(text)


def selftest(layout):
    SelfTest.layout = layout
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(unittest.TestLoader().loadTestsFromTestCase(SelfTest))
    failed = len(result.failures) + len(result.errors)
    sys.stdout.flush()
    print(f"{result.testsRun - failed} passed, {failed} failed")
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    LAYOUT = load_layout()
    if sys.argv[1:] == ["selftest"]:
        sys.exit(selftest(LAYOUT))
    main(sys.argv, LAYOUT)
