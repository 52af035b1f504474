#!/usr/bin/env python3
"""fake_compositor.py SOCKET GLOBAL... — a Wayland "compositor" that offers
only the globals named (wl_compositor, wl_shm, wl_seat, ...) and answers
nothing but the registry and wl_display.sync: what a client sees of a
compositor without ext-session-lock-v1 (mutter, KWin) before it asks for
anything else. For lock_test.sh: pingate-lock must refuse it, saying why.
Serves one client, then exits.

The wire format (wayland's protocol, "Wire Format"): each message is the
object id (u32), then the size in bytes (high 16 bits) and opcode (low 16),
then the arguments; a string is its length with the NUL, then the bytes,
padded to 4."""
import os
import socket
import struct
import sys

path, names = sys.argv[1], sys.argv[2:]
if os.path.exists(path):
    os.unlink(path)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
os.chmod(path, 0o777)
server.listen(1)
print("listening", flush=True)
client, _ = server.accept()


def message(obj, opcode, payload=b""):
    return struct.pack("<II", obj, (8 + len(payload)) << 16 | opcode) + payload


def string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


buffer = b""
while True:
    data = client.recv(4096)
    if not data:
        break
    buffer += data
    while len(buffer) >= 8:
        obj, word = struct.unpack("<II", buffer[:8])
        size, opcode = word >> 16, word & 0xFFFF
        if len(buffer) < size:
            break
        args, buffer = buffer[8:size], buffer[size:]
        if obj == 1 and opcode == 1:  # wl_display.get_registry(new_id)
            registry = struct.unpack("<I", args[:4])[0]
            for number, name in enumerate(names, 1):
                client.sendall(message(registry, 0, struct.pack("<I", number) + string(name) + struct.pack("<I", 4)))
        elif obj == 1 and opcode == 0:  # wl_display.sync(new_id): done, then the id is free
            callback = struct.unpack("<I", args[:4])[0]
            client.sendall(message(callback, 0, struct.pack("<I", 0)) + message(1, 1, struct.pack("<I", callback)))
        # Anything else (a bind) needs no answer here.
