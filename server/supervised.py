"""A worker of `paor serve --workers N` ends with its supervisor.

uvicorn's workers are processes of their own: after a `kill -9` of the supervisor (the `paor serve` process, an OOM
kill) they went on serving on its port, unsupervised, so a restarted `paor serve` could not bind it and stopping
the service stopped nothing. Linux ends a process whose parent died with a signal it asked for
(`PR_SET_PDEATHSIG`): each worker asks for SIGTERM, Aegra's graceful stop, which hands its runs back to the queue
for another instance (the crash promise holds)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

#: Set by server/aegra_launch.py to its own pid: uvicorn's supervisor runs in that process.
SUPERVISOR_PID = "PAOR_SUPERVISOR_PID"
_PR_SET_PDEATHSIG = 1


def follow_supervisor() -> None:
    """In a worker of the supervisor (its parent), end with it; elsewhere nothing."""
    supervisor = os.environ.get(SUPERVISOR_PID)
    if not sys.platform.startswith("linux") or supervisor != str(os.getppid()):
        return
    if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        return  # refused: the worker outlives a killed supervisor, as uvicorn's do
    if str(os.getppid()) != supervisor:  # it died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)
