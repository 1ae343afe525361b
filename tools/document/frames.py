"""Length-prefixed frames on a stream socket: how the asking side, the parse server and its children talk."""

from __future__ import annotations

import json
import socket
import struct

_LENGTH = struct.Struct(">Q")


def send_frame(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(_LENGTH.pack(len(payload)))
    sock.sendall(payload)


def read_frame(sock: socket.socket, max_bytes: int) -> bytes:
    """One frame; EOFError when the peer closed before it, ValueError when it announces more than `max_bytes`."""
    length = _LENGTH.unpack(_read_exactly(sock, _LENGTH.size))[0]
    if length > max_bytes:
        raise ValueError(f"a frame of {length} bytes, over the limit of {max_bytes}")
    return _read_exactly(sock, length)


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        count = sock.recv_into(view[got:], size - got)
        if count == 0:
            raise EOFError("the peer closed the connection")
        got += count
    return bytes(buffer)


def encode(message: dict[str, object]) -> bytes:
    """JSON, UTF-8, keeping the lone surrogates a decoded document may hold."""
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


def decode(payload: bytes) -> dict[str, object]:
    message = json.loads(payload.decode("utf-8", "surrogatepass"))
    if not isinstance(message, dict):
        raise ValueError("a frame that is not a JSON object")
    return message
