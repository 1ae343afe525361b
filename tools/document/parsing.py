"""`read_document`: extract a document in a child process of the parse server, under memory and CPU limits, killed
when its time is up — the tools' way to parse untrusted bytes (`readers.extract_text` is the in-process work).

A thread cannot be killed; a process can. A decompression bomb that grew a server by gigabytes and kept a core
busy after the tool timeout now costs a child that dies at its address-space limit or its deadline, freeing
everything at once; the asking process holds only the document and the markdown. The wait also ends, and the
child is killed, when the interpreter is shutting down, so the CLI exits promptly in the middle of a parse.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from core.errors import DocumentRejected
from tools.document import limits
from tools.document.detect import declared_kind
from tools.document.extracted import ExtractedText
from tools.document.frames import FrameReader, decode, send_frame

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from tools.document.parse_server import main; main(int(sys.argv[2]))"
)
#: The limits a child applies as the asking side has them (a deployment or a test may change them).
FORWARDED_LIMITS = (
    "MAX_INPUT_BYTES",
    "MAX_UNCOMPRESSED_BYTES",
    "MAX_COMPRESSION_RATIO",
    "RATIO_CHECK_MIN_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_TABLE_ROWS",
    "MAX_TABLE_COLS",
    "MAX_SHEETS",
    "MAX_TEXT_CHARS",
)
#: The only variables of this process's environment the parse server gets: no API keys for a parser that read
#: hostile bytes to find.
ENVIRONMENT = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "PYTHONHOME")
#: How often a waiting thread looks whether the interpreter is shutting down.
POLL_S = 0.1
#: How long after its deadline the server has to report a child's end before the asking side gives up on it.
GRACE_S = 10.0
#: Largest answer a child may send: the markdown is cut at MAX_TEXT_CHARS, a few bytes each.
MAX_ANSWER_BYTES = 64 * 1024 * 1024


def tool_deadline(tool_timeout_s: float) -> float:
    """When a tool's parses must be over: a second before the step's own timeout, so the children are killed
    and the step fails with their reason rather than abandoning them."""
    return time.monotonic() + max(1.0, tool_timeout_s - 1)


class ParseLimitExceeded(DocumentRejected):
    """Reading a document needed more memory or time than a parse may use; the child doing it was killed."""


def read_document(data: bytes, name: str, mime: str = "", *, timeout_s: float) -> ExtractedText:
    """The document as markdown, read by a child within `timeout_s` and `limits.PARSE_MEMORY_MB`;
    DocumentRejected (ParseLimitExceeded past a limit) when it cannot be read."""
    if timeout_s <= 0:
        raise ParseLimitExceeded(f"{name} was not read: no time was left (tool_timeout_s)")
    wall = timeout_s
    request = {
        "memory_mb": limits.PARSE_MEMORY_MB,
        "wall_s": wall,
        "cpu_s": math.ceil(wall),
        "kind": declared_kind(name, mime),
    }
    header = {"name": name, "mime": mime, "limits": {key: getattr(limits, key) for key in FORWARDED_LIMITS}}
    answer, ending = _server().run(request, json.dumps(header).encode(), data, wall + GRACE_S, name)
    if "extracted" in answer:
        known = {field.name for field in fields(ExtractedText)}
        return ExtractedText(**{key: value for key, value in answer["extracted"].items() if key in known})
    if "rejected" in answer:
        raise DocumentRejected(str(answer["rejected"]))
    if answer.get("memory"):
        raise ParseLimitExceeded(
            f"{name} needs more than {limits.PARSE_MEMORY_MB} MB of memory to read (the limit for parsing one "
            "document; a decompression bomb?)"
        )
    if ending.get("timed_out"):
        raise ParseLimitExceeded(f"{name} took longer than {wall:.1f}s to read and was stopped (tool_timeout_s)")
    if ending.get("cancelled"):
        raise DocumentRejected(f"reading {name} was stopped: paor is stopping")
    if ending.get("signal") in ("SIGXCPU", "SIGKILL"):
        raise ParseLimitExceeded(
            f"{name} was stopped after {math.ceil(wall)}s of CPU time (or the machine ran out of memory)"
        )
    why = f"killed by {ending['signal']}" if ending.get("signal") else "it ended without an answer"
    raise DocumentRejected(f"{name} could not be read: its parser failed ({why})")


class _ParseServer:
    """The asking side of one parse server: its process and the control socket (a SOCK_SEQPACKET socket: each
    request is one record, so threads may send at once)."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOOT, str(PACKAGE_ROOT), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env={name: os.environ[name] for name in ENVIRONMENT if name in os.environ},
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C goes to the CLI, which decides; the server ends when it does
            )
        self.ids = itertools.count(1)
        self.stopped = False

    def alive(self) -> bool:
        return self.owner == os.getpid() and not self.stopped and self.process.poll() is None

    def run(
        self, request: dict[str, Any], header: bytes, data: bytes, give_up_s: float, name: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the child's answer, how it ended); the child is gone when this returns."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with mine:
            with theirs:
                job = next(self.ids)
                message = json.dumps({"op": "run", "id": job, **request}).encode()
                socket.send_fds(self.control, [message], [theirs.fileno()])
            try:
                try:
                    send_frame(mine, header)
                    send_frame(mine, data)
                except OSError:  # the child is already gone: its ending says why
                    pass
                return self._collect(mine, job, time.monotonic() + give_up_s, name)
            except BaseException:  # KeyboardInterrupt in the thread that asked: the child must not run on
                self.cancel(job)
                raise

    def _collect(
        self, document: socket.socket, job: int, give_up: float, name: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Read the child's answer and the server's report of its end, until both have closed the socket (so the
        child is gone, whatever it wrote); cancel the child when the interpreter is shutting down (the main thread
        has ended: the CLI is exiting) or the server stays silent."""
        answer: dict[str, Any] = {}
        ending: dict[str, Any] = {}
        cancelled = False
        document.settimeout(POLL_S)
        frames = FrameReader(document, MAX_ANSWER_BYTES)
        while True:
            try:
                payload = frames.read()
            except EOFError:  # the child and the server have both let go: the child is gone
                return answer, ending or ({"cancelled": True} if self.stopped else {})
            except (ValueError, OSError):  # an answer out of bounds: the child must not run on
                self.cancel(job)
                return answer, {"cancelled": True} if self.stopped else {}
            if payload is None:  # nothing yet
                now = time.monotonic()
                if now > give_up:
                    self.cancel(job)
                    raise DocumentRejected(f"{name} could not be read: the parse server did not answer")
                if not cancelled and not threading.main_thread().is_alive():
                    self.cancel(job)
                    cancelled, give_up = True, min(give_up, now + GRACE_S)
                continue
            try:
                frame = decode(payload)
            except ValueError:
                continue
            if frame.get("ended"):
                ending = frame  # the server's report comes last, after it reaped the child
            elif not answer:
                answer = frame

    def cancel(self, job: int) -> None:
        with contextlib.suppress(OSError):
            self.control.send(json.dumps({"op": "cancel", "id": job}).encode())

    def stop(self) -> None:
        """Kill the server and its children at once (they share its process group, and each also dies with it:
        PR_SET_PDEATHSIG), and every wait for one ends."""
        self.stopped = True
        if self.process.returncode is None:  # not reaped: its PID, and so its group, are still this server's
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=GRACE_S)


_SERVER: _ParseServer | None = None
_STARTING = threading.Lock()


def _server() -> _ParseServer:
    """The parse server of this process, started on first use (and again if it died or the process forked)."""
    global _SERVER
    with _STARTING:
        if _SERVER is None or not _SERVER.alive():
            _SERVER = _ParseServer()
        return _SERVER


def stop_parses() -> None:
    """End every parse under way at once (each fails as stopped); the next document starts a new server. For a
    Ctrl-C handler: LangGraph lets an interrupt through only once the running node has returned."""
    server = _SERVER
    if server is not None and server.alive():
        server.stop()


def server_pid() -> int | None:
    """The running parse server's PID (tests look at its children)."""
    return _SERVER.process.pid if _SERVER is not None and _SERVER.alive() else None
