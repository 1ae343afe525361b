"""A throwaway redis-server on a loopback port (Debian's `redis-server`; .ci/run installs it), which a test can take
away and bring back on the same port (`away`), or stop answering for a while (`hung`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from core.processes import free_port
from tests.support import deadlines

REDIS_SERVER = shutil.which("redis-server")
#: The running servers by URL: how each was started, its port and its process.
_RUNNING: dict[str, tuple[list[str], int, subprocess.Popen[bytes]]] = {}


def _start(command: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + deadlines.PROCESS_S
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return process
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"redis-server did not start (exit {process.poll()})")
        time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait()


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A new, empty Redis keeping nothing on disk; its URL."""
    assert REDIS_SERVER, "redis-server is not installed (apt-get install redis-server)"
    port = free_port()
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    url = f"redis://127.0.0.1:{port}/0"
    _RUNNING[url] = (command := [*command, "--dir", str(folder)], port, _start(command, port))
    try:
        yield url
    finally:
        _stop(_RUNNING.pop(url)[2])


@contextlib.contextmanager
def away(url: str) -> Iterator[None]:
    """The Redis at `url` killed (as a crash or a restart does: what it held is gone), and a new, empty one started
    on its port at the end."""
    command, port, process = _RUNNING[url]
    _stop(process)
    try:
        yield
    finally:
        _RUNNING[url] = (command, port, _start(command, port))


@contextlib.contextmanager
def hung(url: str) -> Iterator[None]:
    """The Redis at `url` stopped (SIGSTOP), as behind a network partition: its connections stay open and nothing
    answers; it goes on at the end (SIGCONT), with what it held."""
    process = _RUNNING[url][2]
    os.kill(process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(process.pid, signal.SIGCONT)
