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

The wire format is wayland_wire.py's."""
import select
import struct
import sys
import time

from wayland_wire import Reader, bind_arguments, listen, message, string

path, names = sys.argv[1], sys.argv[2:]
finish = None
if names and names[0].startswith("--finish="):
    finish, names = names[0].split("=", 1)[1], names[1:]
server = listen(path)
print("listening", flush=True)
client, _ = server.accept()
reader = Reader(client)

LOCK_REQUESTS = {0: "destroy", 1: "get_lock_surface", 2: "unlock_and_destroy"}  # ext_session_lock_v1
bound = {}  # object id -> interface, from wl_registry.bind
registry = lock = None
finish_at = None
while True:
    if finish_at is not None:
        ready, _, _ = select.select([client], [], [], max(finish_at - time.monotonic(), 0))
        if not ready:
            client.sendall(message(lock, 1))  # ext_session_lock_v1.finished
            print("sent finished", flush=True)
            finish_at = None
            continue
    if not reader.read():
        break
    for obj, opcode, args in reader.messages():
        if obj == 1 and opcode == 1:  # wl_display.get_registry(new_id)
            registry = struct.unpack("<I", args[:4])[0]
            for number, name in enumerate(names, 1):
                client.sendall(message(registry, 0, struct.pack("<I", number) + string(name) + struct.pack("<I", 4)))
        elif obj == 1 and opcode == 0:  # wl_display.sync(new_id): done, then the id is free
            callback = struct.unpack("<I", args[:4])[0]
            client.sendall(message(callback, 0, struct.pack("<I", 0)) + message(1, 1, struct.pack("<I", callback)))
        elif obj == registry and opcode == 0:  # bind(name, interface, version, new_id)
            interface, new = bind_arguments(args)
            bound[new] = interface
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
