"""A throwaway redis-server on a loopback port (Debian's `redis-server`; .ci/run installs it)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from graph.processes import free_port
from tests.support import deadlines

REDIS_SERVER = shutil.which("redis-server")


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A new, empty Redis keeping nothing on disk; its URL."""
    assert REDIS_SERVER, "redis-server is not installed (apt-get install redis-server)"
    port = free_port()
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen([*command, "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + deadlines.PROCESS_S
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"redis-server did not start (exit {process.poll()})")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()
