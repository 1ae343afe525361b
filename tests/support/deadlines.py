"""How long the suite waits for a process, a server or an answer before it calls it hung.

A deadline bounds a hang; it never measures speed. A machine busy with other work slows a `paor` process (Python
start-up, imports, a whole run) ten- to twenty-fold, and every test here must pass there too, so the deadlines are
sized for that: a test that passes idle in seconds may wait minutes on a busy machine, and fails only when
something really hangs. Where a test needs something *not* to happen in time (a step that must time out), it holds
that something on an event instead of racing a clock.
"""

import time
from collections.abc import Callable

#: One `paor` process (or a child the tests start), from start-up to exit.
PROCESS_S = 600.0
#: `langgraph dev` answering /ok after its start.
SERVER_START_S = 300.0
#: One HTTP request to the test server, including a `runs.wait` that lasts a whole run.
HTTP_S = 300.0


def wait_until(condition: Callable[[], bool], deadline_s: float = PROCESS_S) -> bool:
    """Whether `condition` came true within `deadline_s`: a bound on a hang, never a measure of speed."""
    deadline = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
