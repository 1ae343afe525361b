"""Ctrl-C during a run, however often it is pressed.

The first press raises KeyboardInterrupt in the main thread: LangGraph lets the step in flight finish and saves
it, and the run ends with exit 130; the thread resumes after that step. That wait can last as long as a model
call, so a second press leaves at once: the outcome is reported, the child processes paor started are told to
stop, and the process exits with 130 without waiting for the step (its result is dropped and it runs again on
resume; every finished step is already in the database). Later presses change nothing.

The second press is not handled in the main thread: that thread may sit in LangGraph's wait for the step, which a
signal delivered to another thread does not wake, or in clean-up code that defers exceptions until it is done —
that is how a second KeyboardInterrupt used to end in a "cannot schedule new futures after shutdown" traceback.
Every SIGINT, whichever thread the kernel hands it to, writes a byte to Python's signal wake-up pipe; a watcher
thread reads them and acts on the second.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType

from cli.exits import EXIT_INTERRUPTED

FIRST_PRESS_NOTE = "stopping after the running step; press Ctrl-C again to stop now (the step then runs again)"


class Outcome:
    """Reports an interrupted run exactly once, whether the main thread (first press) or the watcher (second
    press) gets there first."""

    def __init__(self, report: Callable[[], None]) -> None:
        self._report = report
        self._lock = threading.Lock()
        self._done = False

    def report(self) -> None:
        with self._lock:
            if not self._done:
                self._done = True
                self._report()


@contextmanager
def ctrl_c_stops_the_run(outcome: Outcome) -> Iterator[None]:
    """While a run streams: the first Ctrl-C raises KeyboardInterrupt here, the second reports `outcome` and exits
    with 130 at once. Once pressed, Ctrl-C stays ignored after the block, so nothing interrupts the outcome and the
    exit. Off the main thread (no signal handler can be set there) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = threading.Event()

    def on_ctrl_c(signum: int, frame: FrameType | None) -> None:
        if pressed.is_set():
            return  # the watcher thread handles the second press
        pressed.set()
        _note(FIRST_PRESS_NOTE)
        # LangGraph lets the interrupt through only once the running node has returned: a tool waiting on a
        # document parse returns at once when the parses under way are stopped, instead of at its deadline.
        from tools.document.parsing import stop_parses

        stop_parses()
        raise KeyboardInterrupt

    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # set_wakeup_fd requires it: a signal handler must never block
    watcher = threading.Thread(target=_watch, args=(read_end, outcome), name="paor-ctrl-c", daemon=True)
    previous_handler = signal.signal(signal.SIGINT, on_ctrl_c)
    previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    watcher.start()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN if pressed.is_set() else previous_handler)
        signal.set_wakeup_fd(previous_fd)
        os.close(write_end)  # the watcher reads end-of-file and returns
        watcher.join()
        os.close(read_end)


def _watch(read_end: int, outcome: Outcome) -> None:
    """Count SIGINTs in the wake-up bytes (other signals write theirs too); on the second, leave."""
    presses = 0
    while chunk := os.read(read_end, 64):
        presses += chunk.count(signal.SIGINT)
        if presses >= 2:
            leave_now(outcome)


def leave_now(outcome: Outcome) -> None:
    """Report, stop the children paor started (a local model server lives in its own session: Ctrl-C does not
    reach it), and exit 130 without waiting for any thread."""
    with suppress(Exception):  # whatever fails here, the user asked to leave
        outcome.report()
    _stop_children()
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):
            stream.flush()
    os._exit(EXIT_INTERRUPTED)


def _stop_children() -> None:
    """SIGTERM to each child process, to its whole group when it leads one (Linux: /proc lists the children)."""
    for pid in _children():
        with suppress(OSError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGTERM)
            else:
                os.kill(pid, signal.SIGTERM)


def _children() -> set[int]:
    found: set[int] = set()
    with suppress(OSError):
        for task in Path("/proc/self/task").iterdir():
            with suppress(OSError):
                found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


def _note(line: str) -> None:
    """Written straight to the stderr file descriptor: the handler may run while the main thread is inside a
    write to sys.stderr, and the buffered stream refuses a reentrant call."""
    with suppress(OSError, ValueError, AttributeError):  # no real stderr (a test runner's capture): no note
        os.write(sys.stderr.fileno(), f"\n{line}\n".encode())
