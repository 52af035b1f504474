#!/usr/bin/env python3
"""fake_compositor.py SOCKET [--finish=WHEN] GLOBAL... — a Wayland
"compositor" that offers only the globals named (wl_compositor, wl_shm,
wl_seat, ...) and answers nothing but the registry and wl_display.sync: what
a client sees of a compositor without ext-session-lock-v1 (mutter, KWin)
before it asks for anything else. For lock_test.sh: pingate-lock must refuse
it, saying why. Serves one client, then exits.

With ext_session_lock_manager_v1 among the globals, a lock asked for gets
ext_session_lock_v1's `finished` (the compositor refused the lock, or took it
away) as --finish says: "locked" sends `locked`, then `finished` 0.5 s later;
"later" sends `finished` alone 0.5 s later. The client's requests on the lock
are printed ("lock request: unlock_and_destroy"): after `finished` a locker
must not ask to unlock.

The wire format (wayland's protocol, "Wire Format"): each message is the
object id (u32), then the size in bytes (high 16 bits) and opcode (low 16),
then the arguments; a string is its length with the NUL, then the bytes,
padded to 4."""
import os
import select
import socket
import struct
import sys
import time

path, names = sys.argv[1], sys.argv[2:]
finish = None
if names and names[0].startswith("--finish="):
    finish, names = names[0].split("=", 1)[1], names[1:]
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


LOCK_REQUESTS = {0: "destroy", 1: "get_lock_surface", 2: "unlock_and_destroy"}  # ext_session_lock_v1
bound = {}  # object id -> interface, from wl_registry.bind
registry = lock = None
finish_at = None
buffer = b""
while True:
    if finish_at is not None:
        ready, _, _ = select.select([client], [], [], max(finish_at - time.monotonic(), 0))
        if not ready:
            client.sendall(message(lock, 1))  # ext_session_lock_v1.finished
            print("sent finished", flush=True)
            finish_at = None
            continue
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
        elif obj == registry and opcode == 0:  # bind(name, interface, version, new_id)
            length = struct.unpack("<I", args[4:8])[0]
            interface = args[8:8 + length - 1].decode()
            bound[struct.unpack("<I", args[-4:])[0]] = interface
        elif bound.get(obj) == "ext_session_lock_manager_v1" and opcode == 1:  # lock(new_id)
            lock = struct.unpack("<I", args[:4])[0]
            print("lock asked for", flush=True)
            if finish == "locked":
                client.sendall(message(lock, 0))  # locked
                print("sent locked", flush=True)
            finish_at = time.monotonic() + 0.5
        elif lock is not None and obj == lock:
            print("lock request:", LOCK_REQUESTS.get(opcode, opcode), flush=True)
        # Anything else needs no answer here.
