"""wayland_wire.py — the Wayland wire format, for the test suite's stand-in
compositors (fake_compositor.py, touch_compositor.py).

Each message is the object id (u32), then the size in bytes (high 16 bits)
and opcode (low 16), then the arguments: int and uint are 4 bytes, fixed is
24.8 in 4 bytes, a string is its length with the NUL, then the bytes, padded
to 4. File descriptors travel beside the bytes (SCM_RIGHTS), in order."""
import array
import socket
import struct


def message(obj, opcode, payload=b""):
    return struct.pack("<II", obj, (8 + len(payload)) << 16 | opcode) + payload


def string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def uints(*values):
    return struct.pack("<%dI" % len(values), *values)


def fixed(value):
    return struct.pack("<i", round(value * 256))


def listen(path):
    """A listening socket at `path`, open to every user."""
    import os
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen(1)
    return server


class Reader:
    """Splits what a client sends into (object, opcode, arguments), and keeps
    the file descriptors that came with it, in order."""

    def __init__(self, client):
        self.client, self.buffer, self.fds = client, b"", []

    def read(self):
        """Reads what is there; False once the client is gone."""
        fds = array.array("i")
        data, ancillary, _, _ = self.client.recvmsg(65536, socket.CMSG_SPACE(28 * fds.itemsize))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        self.fds.extend(fds)
        self.buffer += data
        return bool(data)

    def messages(self):
        while len(self.buffer) >= 8:
            obj, word = struct.unpack("<II", self.buffer[:8])
            size, opcode = word >> 16, word & 0xFFFF
            if len(self.buffer) < size:
                return
            args, self.buffer = self.buffer[8:size], self.buffer[size:]
            yield obj, opcode, args


def bind_arguments(args):
    """wl_registry.bind(name, interface, version, new_id): (interface, id)."""
    length = struct.unpack("<I", args[4:8])[0]
    return args[8:8 + length - 1].decode(), struct.unpack("<I", args[-4:])[0]
