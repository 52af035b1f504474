#!/usr/bin/env python3
"""touch_compositor.py SOCKET CONTROL [--size=WxH] [--scale=N] — a Wayland
"compositor" with one output and a seat that has a touch screen and nothing
else, enough for a session locker (ext-session-lock-v1) to lock, draw and be
touched. For lock_test.sh: no real compositor here can have a touch screen
(headless wlroots makes no input devices, its virtual pointer protocol has
no touch, this kernel has no uinput), so this one sends wl_touch events
itself, on the wire, to the locker's lock surface — what a compositor sends
for a finger.

The output is WxH pixels (default 1280x800) at scale N (default 1): the lock
surface is configured at WxH / N and touch positions are in those surface
units. The locker's requests that matter are printed: "lock asked for",
"sent locked" (after the lock surface's first frame, as sway does),
"lock request: unlock_and_destroy".

CONTROL is a FIFO of commands, one per line:
    down ID X Y     a finger ID touches the lock surface at (X, Y)
    motion ID X Y   it slides there
    up ID           it lifts
    cancel          the compositor takes every touch back (a gesture of its own)
    shot PATH       the lock surface's last frame, as a PPM image at PATH
Each touch event is followed by wl_touch.frame, as compositors send them.
Serves one client, then exits. The wire format is wayland_wire.py's."""
import mmap
import os
import select
import struct
import sys
import time

from wayland_wire import Reader, bind_arguments, fixed, listen, message, string, uints

path, control_path = sys.argv[1], sys.argv[2]
options = dict(arg[2:].split("=", 1) for arg in sys.argv[3:])
width, height = (int(n) for n in options.get("size", "1280x800").split("x"))
scale = int(options.get("scale", "1"))

GLOBALS = [("wl_compositor", 4), ("wl_shm", 1), ("wl_seat", 5), ("wl_output", 2), ("ext_session_lock_manager_v1", 1)]
SEAT_TOUCH = 4  # wl_seat.capability.touch
XRGB8888 = 1

control = os.open(control_path, os.O_RDWR | os.O_NONBLOCK)  # RDWR: no EOF when a writer closes
server = listen(path)
print("listening", flush=True)
client, _ = server.accept()
reader = Reader(client)
started = time.monotonic()


def send(data):
    client.sendall(data)


def now_ms():
    return int((time.monotonic() - started) * 1000) & 0xFFFFFFFF


bound = {}                # object id -> interface, for globals and the objects they make
pools = {}                # wl_shm_pool id -> (fd, size)
buffers = {}              # wl_buffer id -> (pool, offset, width, height, stride)
attached, shown = {}, {}  # wl_surface id -> wl_buffer id: pending, committed
lock = lock_surface = locked_surface = touch = None
locked = False
serial = 0
registry = None


def next_serial():
    global serial
    serial += 1
    return serial


def request(obj, opcode, args):
    global registry, lock, lock_surface, locked_surface, touch, locked
    kind = bound.get(obj)
    if obj == 1 and opcode == 0:  # wl_display.sync(callback): done, then the id is free
        callback = struct.unpack("<I", args[:4])[0]
        send(message(callback, 0, uints(0)) + message(1, 1, uints(callback)))
    elif obj == 1 and opcode == 1:  # wl_display.get_registry(registry)
        registry = struct.unpack("<I", args[:4])[0]
        for number, (name, version) in enumerate(GLOBALS, 1):
            send(message(registry, 0, uints(number) + string(name) + uints(version)))
    elif obj == registry and opcode == 0:  # bind(name, interface, version, id)
        interface, new = bind_arguments(args)
        bound[new] = interface
        if interface == "wl_shm":
            send(message(new, 0, uints(0)) + message(new, 0, uints(XRGB8888)))  # format: argb, xrgb
        elif interface == "wl_seat":
            send(message(new, 0, uints(SEAT_TOUCH)) + message(new, 1, string("seat0")))  # capabilities, name
        elif interface == "wl_output":
            send(message(new, 0, struct.pack("<iiiii", 0, 0, 300, 190, 0) + string("PinGate") + string("touch") + uints(0))
                 + message(new, 1, uints(3, width, height, 60000))  # mode: current, preferred
                 + message(new, 3, struct.pack("<i", scale))       # scale
                 + message(new, 2))                                # done
    elif kind == "wl_compositor" and opcode == 0:  # create_surface(id)
        bound[struct.unpack("<I", args[:4])[0]] = "wl_surface"
    elif kind == "wl_shm" and opcode == 0:  # create_pool(id, fd, size): the fd came beside
        new, size = struct.unpack("<Ii", args[:8])
        bound[new] = "wl_shm_pool"
        pools[new] = (reader.fds.pop(0), size)
    elif kind == "wl_shm_pool" and opcode == 0:  # create_buffer(id, offset, width, height, stride, format)
        new, offset, w, h, stride, _ = struct.unpack("<IiiiiI", args[:24])
        bound[new] = "wl_buffer"
        buffers[new] = (obj, offset, w, h, stride)
    elif kind == "wl_shm_pool" and opcode == 2:  # resize(size)
        pools[obj] = (pools[obj][0], struct.unpack("<i", args[:4])[0])
    elif kind == "wl_surface" and opcode == 1:  # attach(buffer, x, y)
        attached[obj] = struct.unpack("<I", args[:4])[0]
    elif kind == "wl_surface" and opcode == 3:  # frame(callback): done at once
        callback = struct.unpack("<I", args[:4])[0]
        send(message(callback, 0, uints(now_ms())) + message(1, 1, uints(callback)))
    elif kind == "wl_surface" and opcode == 6:  # commit
        if obj in attached:
            shown[obj] = attached[obj]
        if obj == locked_surface and obj in shown and not locked:
            locked = True
            send(message(lock, 0))  # ext_session_lock_v1.locked
            print("sent locked", flush=True)
    elif kind == "wl_seat" and opcode == 2:  # get_touch(id)
        touch = struct.unpack("<I", args[:4])[0]
        bound[touch] = "wl_touch"
    elif kind == "ext_session_lock_manager_v1" and opcode == 1:  # lock(id)
        lock = struct.unpack("<I", args[:4])[0]
        bound[lock] = "ext_session_lock_v1"
        print("lock asked for", flush=True)
    elif kind == "ext_session_lock_v1" and opcode == 1:  # get_lock_surface(id, surface, output)
        lock_surface, locked_surface, _ = struct.unpack("<III", args[:12])
        bound[lock_surface] = "ext_session_lock_surface_v1"
        send(message(lock_surface, 0, uints(next_serial(), width // scale, height // scale)))  # configure
    elif kind == "ext_session_lock_v1":
        print("lock request:", {0: "destroy", 2: "unlock_and_destroy"}.get(opcode, opcode), flush=True)


def shot(target):
    """The lock surface's committed buffer, XRGB8888 rows, as a binary PPM."""
    pool, offset, w, h, stride = buffers[shown[locked_surface]]
    fd, size = pools[pool]
    with mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ) as image:
        rows = bytearray()
        for y in range(h):
            row = image[offset + y * stride:offset + y * stride + w * 4]
            rgb = bytearray(w * 3)
            rgb[0::3], rgb[1::3], rgb[2::3] = row[2::4], row[1::4], row[0::4]
            rows += rgb
    with open(target, "wb") as out:
        out.write(b"P6\n%d %d\n255\n" % (w, h) + rows)


def command(line):
    words = line.split()
    if not words:
        return
    if words[0] == "shot":
        shot(words[1])
    elif touch is None or locked_surface is None:
        print("no touch yet:", line, flush=True)
        return
    elif words[0] == "down":
        send(message(touch, 0, uints(next_serial(), now_ms(), locked_surface) + struct.pack("<i", int(words[1]))
                     + fixed(float(words[2])) + fixed(float(words[3]))))
    elif words[0] == "motion":
        send(message(touch, 2, uints(now_ms()) + struct.pack("<i", int(words[1])) + fixed(float(words[2])) + fixed(float(words[3]))))
    elif words[0] == "up":
        send(message(touch, 1, uints(next_serial(), now_ms()) + struct.pack("<i", int(words[1]))))
    elif words[0] == "cancel":
        send(message(touch, 4))
    if words[0] != "shot":
        send(message(touch, 3))  # frame
    print("did:", line, flush=True)


pending = b""
while True:
    ready, _, _ = select.select([client, control], [], [])
    if client in ready:
        if not reader.read():
            break
        for obj, opcode, args in reader.messages():
            request(obj, opcode, args)
    if control in ready:
        pending += os.read(control, 4096)
        *lines, pending = pending.split(b"\n")
        for line in lines:
            command(line.decode())
print("the client left", flush=True)
