"""A TCP listener on loopback that counts connections: proof that a sandboxed program reached nothing."""

from __future__ import annotations

import socket


class LoopbackServer:
    """Listens on 127.0.0.1; the kernel completes connections into the backlog, so counting needs no thread and
    has no race: `connections` accepts whatever is queued at the moment it is read."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.socket.setblocking(False)
        self.port = self.socket.getsockname()[1]
        self._accepted = 0

    @property
    def connections(self) -> int:
        while True:
            try:
                conn, _ = self.socket.accept()
            except BlockingIOError:
                return self._accepted
            self._accepted += 1
            conn.close()

    def close(self) -> None:
        self.socket.close()
