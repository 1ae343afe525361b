"""Child servers on loopback (llama.cpp here; `langgraph dev` in the tests): a free port, and a stop that
takes the whole process group down, so no grandchild outlives its owner."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HOST = "127.0.0.1"
LIFELINE = Path(__file__).with_name("lifeline.py")


def free_port() -> int:
    """A loopback port nobody listens on right now (never 2024: `langgraph dev` silently moves off it)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((HOST, 0))
            port = int(sock.getsockname()[1])
        if port != 2024:
            return port


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the child's process group (started with `start_new_session=True`), SIGKILL after a grace period."""
    if process.poll() is not None:
        return
    for sig, grace_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=grace_s)
            return
        except subprocess.TimeoutExpired:
            continue


def ended_with_this_process(command: Sequence[str]) -> list[str]:
    """`command` run through core/lifeline.py, which ends its process group when this process ends, however it
    ends (SIGKILL included). Start it with `start_new_session=True`: the lifeline ends its own group. POSIX only;
    elsewhere the command as it is."""
    if os.name != "posix":
        return list(command)
    return [sys.executable, "-I", "-S", str(LIFELINE), str(os.getpid()), *command]
