"""Tight limits so hostile programs are stopped in about a second, and a loopback server that counts visitors."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from tools.code import isolation
from tools.code.limits import Limits

#: Small enough that a fork bomb, a loop or a flood ends fast; large enough for Python plus sympy.
TIGHT = Limits(cpu_s=1, wall_s=2.5, memory_mb=512, file_mb=4, open_files=32, processes=4)


class LoopbackServer:
    """A TCP server on 127.0.0.1 that records every connection it accepts."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.1)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.socket.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.socket.close()


@pytest.fixture
def loopback_server() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    yield server
    server.close()


@pytest.fixture
def canary(monkeypatch: pytest.MonkeyPatch) -> str:
    """A secret in paor's own environment that no program may see."""
    value = "sk-canary-7f3a9c"
    monkeypatch.setenv("OPENAI_API_KEY", value)
    monkeypatch.setenv("PAOR_CANARY", value)
    return value


#: Every namespace tool that works on this machine: the isolation tests run under each.
KINDS = [kind for kind in ("bubblewrap", "unshare") if isolation.probe(kind) is None]
