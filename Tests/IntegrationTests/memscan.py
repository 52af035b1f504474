#!/usr/bin/env python3
"""memscan.py — is a typed secret, or any piece of it, in a process's memory?

  memscan.py [--secret TEXT]... [--cells 1-2-3...]... [--present TEXT]... PID...

Reads every readable mapping of each PID through /proc/PID/mem (root, or a
ptrace-capable caller), page by page so that one unreadable page costs only
itself, and reports

  - each --secret found whole or in part: any run of --piece (default 8)
    consecutive bytes of it. A freed copy is soon partly overwritten (malloc
    writes its list pointers over the first bytes, and reuse writes more), so
    a scan for the whole text misses the copies that matter;
  - each --cells pattern (cell numbers, "1-2-3-6") found as the text the
    module is sent, as one byte per cell, or as one 8-byte integer per cell
    (Swift's [Int]), whole or in part (--piece cells at least);
  - each --present text (or --present-cells pattern, in any of the forms
    above) NOT found whole. A control: the scan must see what a
    process does hold, so that it cannot pass by reading nothing or by
    looking in the wrong places. Give one it holds the way the secret was held.

Exit 0 when nothing secret is found and every control is; 1 with the places
otherwise; 2 on bad usage.
"""
import argparse
import sys

PAGE = 4096


def mappings(pid):
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            start, end = (int(part, 16) for part in fields[0].split("-"))
            perms, name = fields[1], (fields[5] if len(fields) > 5 else "[anonymous]")
            if perms[0] == "r" and name not in ("[vvar]", "[vsyscall]", "[vvar_vclock]"):
                yield start, end, perms, name


def read_at(mem, address, size):
    try:
        mem.seek(address)
        return mem.read(size)
    except (OSError, OverflowError, ValueError):
        return b""


def read_mapping(mem, start, end):
    """The mapping's bytes and how many of its pages could not be read
    (given as zeroes): one bad page never hides the rest of the mapping."""
    chunks, unreadable = [], 0
    for address in range(start, end, 256 * PAGE):
        size = min(end - address, 256 * PAGE)
        data = read_at(mem, address, size)
        if len(data) < size:  # a page in this stretch failed: go page by page
            pages = []
            for page_address in range(address, address + size, PAGE):
                page = read_at(mem, page_address, PAGE)
                if len(page) < PAGE:
                    unreadable += 1
                    page = b"\0" * PAGE
                pages.append(page)
            data = b"".join(pages)
        chunks.append(data)
    return b"".join(chunks), unreadable


def pieces(units, length):
    """All of `units` joined, and every run of `length` consecutive ones."""
    found = {b"".join(units)}
    for index in range(len(units) - length + 1):
        found.add(b"".join(units[index:index + length]))
    return found


def secret_needles(args):
    """Every piece to look for, mapped to what it is a piece of."""
    needles = {}
    for text in args.secret:
        for piece in pieces([bytes([byte]) for byte in text.encode()], args.piece):
            needles[piece] = f"secret {text!r}"
    for pattern in args.cells:
        cells = [int(cell) for cell in pattern.split("-")]
        # The text in characters; the others in whole cells: 4 integers are
        # 32 distinctive bytes, but small single bytes are common, so a run
        # of them must be longer.
        encodings = {
            "text": ([bytes([byte]) for byte in pattern.encode()], args.piece),
            "bytes": ([bytes([cell]) for cell in cells], 6),
            "Int": ([cell.to_bytes(8, "little") for cell in cells], 4),
        }
        for name, (units, length) in encodings.items():
            for piece in pieces(units, length):
                needles[piece] = f"pattern {pattern} as {name}"
    return needles


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", action="append", default=[])
    parser.add_argument("--cells", action="append", default=[])
    parser.add_argument("--present", "--control", action="append", default=[], dest="present")
    parser.add_argument("--present-cells", action="append", default=[])
    parser.add_argument("--piece", type=int, default=8)
    parser.add_argument("--context", type=int, default=0, help="show this many bytes around each find")
    parser.add_argument("pids", nargs="+", type=int)
    args = parser.parse_args()
    if not args.secret and not args.cells and not args.present and not args.present_cells:
        parser.error("nothing to look for")
    needles = secret_needles(args)
    status, total, unreadable = 0, 0, 0
    # A control is a tuple of forms, any of which counts as found.
    controls = [(text.encode(),) for text in args.present]
    for pattern in args.present_cells:
        cells = [int(cell) for cell in pattern.split("-")]
        controls.append((bytes(cells), b"".join(cell.to_bytes(8, "little") for cell in cells), pattern.encode()))
    seen_present = {control: False for control in controls}
    places = {}
    for pid in args.pids:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
            for start, end, perms, name in mappings(pid):
                data, bad = read_mapping(mem, start, end)
                total += len(data) - bad * PAGE
                unreadable += bad
                for text in seen_present:
                    seen_present[text] = seen_present[text] or any(form in data for form in text)
                for needle, what in needles.items():
                    at = data.find(needle)
                    while at >= 0:
                        place = f"pid {pid} {perms} {name} +0x{at:x}"
                        if args.context:
                            place += " [" + data[max(0, at - args.context):at + len(needle) + args.context].hex(" ", 8) + "]"
                        places.setdefault(what, {}).setdefault(needle, []).append(place)
                        at = data.find(needle, at + 1)
    for what, found in sorted(places.items()):
        longest = max(found, key=len)
        where = found[longest]
        print(f"found {what}: {longest!r} ({len(found)} pieces) at {', '.join(where[:4])}{' …' if len(where) > 4 else ''}")
        status = 1
    for text, seen in seen_present.items():
        if not seen:
            print(f"control {text[0]!r} not found in {total} bytes: the scan does not see what the process holds")
            status = 1
    if status == 0:
        found = f"{len(needles)} pieces of secrets absent" if needles else f"{len(seen_present)} controls found"
        print(f"scanned {total} bytes of {len(args.pids)} processes ({unreadable} pages unreadable); {found}")
    return status


if __name__ == "__main__":
    sys.exit(main())
