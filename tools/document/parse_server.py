"""The parse server: a long-lived process with every reader loaded that forks one child per document and holds it
to its limits, so a hostile document costs a child, never the process that asked.

`parsing` (the asking side) starts it with one end of a control socket. A request is a JSON header on that socket
with the document's own socket passed alongside. For each, the server forks a child that confines itself
(tools/document/confine.py: code.execute's namespaces and a read-only view where the machine has them, so no
network and none of paor's files; `no_new_privs`; rlimits on its address space — the server's own plus the
request's budget — CPU time, file size, open files and processes), reads the document from its socket, extracts
it and writes the result back as JSON — never pickle: the asking side must not trust what a
parser that read hostile bytes sends. The server kills the child when its wall time is up or the asking side
cancels, reaps it, and then writes how it ended on the same socket: the asking side's read ends only once the
child is gone. When the asking side goes, the control socket closes; the server kills its children and exits.

Forking from a process that already holds the readers costs tens of milliseconds; starting Python and importing
them costs seconds. The server loads a reader the first time a request declares its kind.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import math
import os
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from core.errors import DocumentRejected
from tools.code import syscalls
from tools.document import confine, limits, readers
from tools.document.detect import Kind
from tools.document.frames import decode, encode, read_frame, send_frame

MB = 1024 * 1024
#: Read once by the server before the first child of their kind: the text readers import and initialise lazily
#: (trafilatura for HTML takes a second), and each child would do it again.
SAMPLES: dict[str, tuple[bytes, str]] = {
    "text": (b"warm", "warm.txt"),
    "markdown": (b"# Warm\n\nup\n", "warm.md"),
    "json": (b'{"warm": 1}', "warm.json"),
    "csv": (b"a,b\n1,2\n", "warm.csv"),
    "html": (b"<html><body><h1>Warm</h1><p>up</p></body></html>", "warm.html"),
}
#: Largest document the asking side (trusted) may send; `limits.MAX_INPUT_BYTES` decides what is read.
TRANSPORT_BYTES = 2**31
#: The child's answer when it came close enough to its address-space limit that an allocation may have failed.
MEMORY_MARGIN = 32 * MB


@dataclass
class Job:
    id: int
    document: socket.socket
    deadline: float
    ending: dict[str, Any] = field(default_factory=dict)


def main(control_fd: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the asking side decides; Ctrl-C reaches it, not us
    Server(socket.socket(fileno=control_fd)).serve()


def load_reader(kind: Kind | None, loaded: set[str]) -> None:
    """Load the reader a request declares here in the server, once, so this child and every later one start with
    it (a content-detected kind that differs is loaded by its child)."""
    if kind is None or kind in loaded:
        return
    loaded.add(kind)
    with contextlib.suppress(Exception):  # a reader that cannot load fails its own documents, in the child
        importlib.import_module(readers.reader_module(kind))
        if kind in SAMPLES:
            readers.extract_text(*SAMPLES[kind])
    gc.freeze()  # the collector leaves the loaded modules' objects alone: children copy fewer pages


class Server:
    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.mount_point, self.view = _prepare_view()
        self.jobs: dict[int, Job] = {}  # by child PID
        self.loaded: set[str] = set()  # kinds whose reader this process holds
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a child's end wakes the loop through the pipe
        self.selector = selectors.DefaultSelector()
        self.selector.register(control, selectors.EVENT_READ)
        self.selector.register(self.wake_read, selectors.EVENT_READ)

    def serve(self) -> None:
        while True:
            deadlines = [job.deadline for job in self.jobs.values()]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            for key, _ in self.selector.select(timeout):
                if key.fileobj is self.control:
                    self._take_request()
                else:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self.wake_read, 4096)
            self._reap()
            self._enforce_deadlines()

    def _take_request(self) -> None:
        try:
            message, fds, _, _ = socket.recv_fds(self.control, 4096, 1)
        except OSError:
            message, fds = b"", []
        if not message:  # the asking side is gone
            self._stop_all()
            if self.mount_point is not None:
                shutil.rmtree(self.mount_point, ignore_errors=True)
            os._exit(0)
        request = json.loads(message)
        if request["op"] == "cancel":
            self._kill(request["id"], "cancelled")
            return
        document = socket.socket(fileno=fds[0])
        load_reader(request.get("kind"), self.loaded)
        server = os.getpid()
        pid = os.fork()
        if pid == 0:
            self._become_child(document, request, server)
        self.jobs[pid] = Job(request["id"], document, time.monotonic() + float(request["wall_s"]))

    def _become_child(self, document: socket.socket, request: dict[str, Any], server: int) -> None:
        try:
            self.selector.close()
            self.control.close()
            os.close(self.wake_read)
            os.close(signal.set_wakeup_fd(-1))
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for job in self.jobs.values():
                job.document.close()
            syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != server:  # the server died before the line above: nobody would stop this child
                os._exit(1)
            _STATUS.append(os.open("/proc/self/status", os.O_RDONLY))  # the view has no /proc: read it through this
            ceiling = _address_space() + int(request["memory_mb"]) * MB
            cpu = max(1, math.ceil(float(request["cpu_s"])))
            confine.confine(ceiling, cpu, self.mount_point, self.view)  # namespaces, view, rlimits, no privileges
            # Becoming another user (paor as root) cleared the parent-death signal: the kernel drops it when the user
            # changes. Without it, a child whose server was killed ran on, orphaned, until its CPU limit.
            syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != server:  # the server died while this child confined itself
                os._exit(1)
            send_frame(document, encode(_extract(document, ceiling)))
        except BaseException:  # whatever happened, the server reports how this process ended
            pass
        os._exit(0)

    def _reap(self) -> None:
        while self.jobs:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs.pop(pid, None)
            if job is None:
                continue
            ending = {"ended": True, **job.ending}
            if os.WIFSIGNALED(status):
                ending["signal"] = signal.Signals(os.WTERMSIG(status)).name
            with contextlib.suppress(OSError):
                send_frame(job.document, encode(ending))
            job.document.close()

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for job in list(self.jobs.values()):
            if job.deadline <= now and not job.ending:
                self._kill(job.id, "timed_out")

    def _kill(self, job_id: int, why: str) -> None:
        for pid, job in self.jobs.items():
            if job.id == job_id and not job.ending:
                job.ending[why] = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)  # not yet reaped: the PID is still this child's

    def _stop_all(self) -> None:
        for pid in list(self.jobs):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in list(self.jobs):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _extract(document: socket.socket, ceiling: int) -> dict[str, object]:
    """The child's work: read the request, extract, and say what came of it."""
    header = decode(read_frame(document, MB))
    data = read_frame(document, TRANSPORT_BYTES)
    settings = header["limits"]
    assert isinstance(settings, dict)
    for setting, value in settings.items():
        setattr(limits, setting, value)  # the asking side's limits, as a deployment or a test set them
    try:
        extracted = readers.extract_text(data, str(header["name"]), str(header["mime"]))
    except DocumentRejected as exc:
        return {"memory": True} if _ran_out_of_memory(exc, ceiling) else {"rejected": str(exc)}
    except Exception as exc:  # a reader bug on a strange document: a rejection, never a crash of the caller
        if _ran_out_of_memory(exc, ceiling):
            return {"memory": True}
        return {"rejected": f"{header['name']} could not be read ({type(exc).__name__}: {exc})"}
    fields = dict(vars(extracted))
    if _peak_address_space() + MEMORY_MARGIN >= ceiling:
        note = f"{header['name']}: reading it reached the memory limit; parts may be missing"
        fields["notes"] = [*extracted.notes, note]
    return {"extracted": fields}


def _ran_out_of_memory(exc: BaseException, ceiling: int) -> bool:
    """A MemoryError anywhere in the chain (readers wrap errors in DocumentRejected), or a peak at the limit."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, MemoryError):
            return True
        seen = seen.__cause__ or seen.__context__
    return _peak_address_space() + MEMORY_MARGIN >= ceiling


def _address_space() -> int:
    return _status_kb("VmSize") * 1024


def _peak_address_space() -> int:
    return _status_kb("VmPeak") * 1024


#: A child's own /proc/self/status, opened before its view hid /proc.
_STATUS: list[int] = []


def _status_kb(field_name: str) -> int:
    if _STATUS:
        text = os.pread(_STATUS[0], 64 * 1024, 0).decode("ascii", errors="replace")
    else:
        with open("/proc/self/status", encoding="ascii") as status:
            text = status.read()
    for line in text.splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def _prepare_view() -> tuple[str | None, list[Any] | None]:
    """An empty folder the children build their view on, and the view (tools/document/confine.py); (None, None)
    when it cannot be made: the children then keep their rlimits only."""
    try:
        return tempfile.mkdtemp(prefix="paor-parse-root-"), confine.view()
    except Exception:  # a library of the view missing: confine without namespaces rather than not at all
        return None, None


if __name__ == "__main__":  # pragma: no cover - started by `parsing`
    main(int(sys.argv[1]))
