"""Starts one child server and ends it, with everything it started, when its owner ends — however the owner ends.

paor runs `python -I -S lifeline.py <owner's pid> <command> <args…>` in a session of its own
(`core.processes.ended_with_this_process`): stdio MCP servers, llama.cpp's server. This process starts the command
in its process group (stdin, stdout and stderr are passed through) and waits. A signal (the owner closing the
session, `killpg` from the MCP SDK, a second Ctrl-C) or the end of the owner — SIGTERM, SIGHUP, a crash or SIGKILL,
noticed as a new parent within POLL_S — ends the whole group: SIGTERM, then SIGKILL after GRACE_S. No atexit hook
or signal handler inside paor can do that for a killed paor, and a server stuck in a call never reads the end of
its stdin. Standard library only: it runs isolated (-I -S) and starts in milliseconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

POLL_S = 0.2
GRACE_S = 2.0
_ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def main(argv: list[str]) -> int:
    parent, command = int(argv[0]), argv[1:]
    asked: list[int] = []
    for sig in _ENDING:
        signal.signal(sig, lambda signum, _frame: asked.append(signum))
    if os.getppid() != parent:  # paor ended before this process started
        return 0
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        print(f"cannot start {command[0]}: {exc}", file=sys.stderr, flush=True)
        return 127
    while True:
        try:
            code = child.wait(POLL_S)
        except subprocess.TimeoutExpired:
            if asked or os.getppid() != parent:
                return end_group(child)
            continue
        return code if code >= 0 else 128 - code


def end_group(child: subprocess.Popen[bytes]) -> int:
    """SIGTERM to the group (this process ignores it), SIGKILL to what is left after the grace period."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.killpg(0, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(0, signal.SIGKILL)  # the server's own children too; this process ends here
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
