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


class FrameReader:
    """Frames from a socket read with a timeout: a frame cut by the timeout is kept and completed by the next
    call, never lost (that would leave the reader in the middle of a payload)."""

    def __init__(self, sock: socket.socket, max_bytes: int) -> None:
        self.sock = sock
        self.max_bytes = max_bytes
        self.buffer = bytearray()

    def read(self) -> bytes | None:
        """The next frame; None when the socket's timeout passed first; EOFError, ValueError as `read_frame`."""
        while True:
            frame = self._complete_frame()
            if frame is not None:
                return frame
            try:
                chunk = self.sock.recv(1024 * 1024)
            except TimeoutError:
                return None
            if not chunk:
                raise EOFError("the peer closed the connection")
            self.buffer += chunk

    def _complete_frame(self) -> bytes | None:
        if len(self.buffer) < _LENGTH.size:
            return None
        length = _LENGTH.unpack_from(self.buffer)[0]
        if length > self.max_bytes:
            raise ValueError(f"a frame of {length} bytes, over the limit of {self.max_bytes}")
        end = _LENGTH.size + length
        if len(self.buffer) < end:
            return None
        frame = bytes(self.buffer[_LENGTH.size : end])
        del self.buffer[:end]
        return frame


def encode(message: dict[str, object]) -> bytes:
    """JSON, UTF-8, keeping the lone surrogates a decoded document may hold."""
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


def decode(payload: bytes) -> dict[str, object]:
    message = json.loads(payload.decode("utf-8", "surrogatepass"))
    if not isinstance(message, dict):
        raise ValueError("a frame that is not a JSON object")
    return message
