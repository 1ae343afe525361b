"""A stdio server's stderr: into its own log file, never over the CLI's progress, and never without bound.

The server writes into a pipe; a reader thread copies at most `cap` bytes per start into the log and keeps the
last lines for error messages ("could not start: … <its last words>"). The pipe is always drained, so a server
that floods its stderr neither blocks on a full pipe nor fills the disk.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from pathlib import Path
from typing import TextIO

LOG_CAP_BYTES = 1024 * 1024
TAIL_CHARS = 600
_CHUNK = 65536


class StderrLog:
    """One start of one server: `writer` goes to the child as its stderr; `close_writer()` once it is spawned."""

    def __init__(self, path: Path, cap: int = LOG_CAP_BYTES) -> None:
        self.path = path
        self.cap = cap
        self.written = 0
        self.dropped = 0
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > cap:  # one earlier log is kept: the file never grows past 2 caps
            path.replace(path.with_name(path.name + ".1"))
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w")
        self._reader = threading.Thread(target=self._drain, args=(read_fd,), name="paor-mcp-stderr", daemon=True)
        self._reader.start()

    def close_writer(self) -> None:
        """Drop this process's copy of the pipe's write end: the reader ends when the server (and its children)
        close theirs."""
        if not self.writer.closed:
            self.writer.close()

    def tail(self) -> str:
        """The server's last words (at most TAIL_CHARS), for the reason it is unavailable."""
        with self._lock:
            text = b"".join(self._tail).decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(lines)[-TAIL_CHARS:]

    def wait(self, timeout: float) -> None:
        self._reader.join(timeout)

    def _drain(self, read_fd: int) -> None:
        with open(read_fd, "rb", buffering=0) as pipe, self.path.open("ab") as log:
            while chunk := pipe.read(_CHUNK):
                self._keep(chunk)
                room = max(0, self.cap - self.written)
                if room:
                    log.write(chunk[:room])
                    log.flush()
                    self.written += min(room, len(chunk))
                self.dropped += max(0, len(chunk) - room)
            if self.dropped:
                log.write(
                    f"\n[paor: {self.dropped} more bytes of stderr dropped at the {self.cap}-byte cap]\n".encode()
                )

    def _keep(self, chunk: bytes) -> None:
        with self._lock:
            self._tail.append(chunk[-TAIL_CHARS * 2 :])
            self._tail_size += len(self._tail[-1])
            while self._tail_size > TAIL_CHARS * 2 and len(self._tail) > 1:
                self._tail_size -= len(self._tail.popleft())
