"""One run per thread at a time, across workers.

LangGraph's checkpoint versions do not stop two processes from running the same thread at once (both would append
checkpoints to it), so a run holds a per-thread lock:

- PostgreSQL: a session-level advisory lock `pg_try_advisory_lock(key)` (key: 64-bit hash of the thread id) on a
  dedicated connection, and the run's checkpoints are written *through that same connection*. If the session dies
  (worker killed, database restarted) the lock is released by the server and the run's next checkpoint write fails
  (`DatabaseUnavailable`), so a run can never write checkpoints without holding the lock; the thread resumes
  from its last checkpoint in whichever worker takes the lock next.
- SQLite: `fcntl.flock` on a lock file next to the database (`<db>.locks/<hash>.lock`); SQLite is single-machine.

`ThreadBusy` is raised when another worker holds the lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from core.database import (
    ThreadBusy,
    connection_kwargs,
    database_errors,
    database_url,
    is_postgres,
    lock_key,
    make_folder,
    require_postgres,
    sqlite_path,
)


class ThreadLease:
    """Proof that this process runs `thread_id`. With PostgreSQL, `checkpointer` writes through the session that
    holds the lock (use it for the run); with SQLite it is None and the shared checkpointer is fine."""

    def __init__(self, thread_id: str, checkpointer: BaseCheckpointSaver | None = None) -> None:
        self.thread_id = thread_id
        self.checkpointer = checkpointer


def _busy(thread_id: str) -> ThreadBusy:
    return ThreadBusy(f"thread {thread_id} is being run by another worker; try again once that run has finished")


@contextmanager
def thread_lock(url: str | os.PathLike[str] | None, thread_id: str, *, wait_s: float = 0.0) -> Iterator[ThreadLease]:
    """Hold the thread's lock for the duration of a run; `ThreadBusy` if another worker still holds it after
    `wait_s` seconds."""
    chosen = database_url(url)
    if is_postgres(chosen):
        with _postgres_lock(chosen, thread_id, wait_s) as lease:
            yield lease
    else:
        with _file_lock(sqlite_path(url), thread_id, wait_s) as lease:
            yield lease


def _poll(try_once: Any, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    while True:
        if try_once():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


@contextmanager
def _postgres_lock(url: str, thread_id: str, wait_s: float) -> Iterator[ThreadLease]:
    require_postgres()
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    key = lock_key(thread_id)
    with database_errors(url, thread_id):
        conn = psycopg.Connection.connect(url, **connection_kwargs())
    try:
        with database_errors(url, thread_id):

            def try_once() -> bool:
                row = conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (key,)).fetchone()
                return bool(row and row["locked"])

            if not _poll(try_once, wait_s):
                raise _busy(thread_id)
        yield ThreadLease(thread_id, PostgresSaver(conn))
    finally:
        with contextlib.suppress(psycopg.Error):  # closing the session releases the lock in any case
            conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        conn.close()


def locks_folder(db: Path) -> Path:
    folder = db.parent / f"{db.name}.locks"
    make_folder(folder)
    return folder


@contextmanager
def _file_lock(db: Path, thread_id: str, wait_s: float) -> Iterator[ThreadLease]:
    name = hashlib.sha256(thread_id.encode()).hexdigest()[:32]
    with (locks_folder(db) / f"{name}.lock").open("a+b") as handle:

        def try_once() -> bool:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

        if not _poll(try_once, wait_s):
            raise _busy(thread_id)
        try:
            yield ThreadLease(thread_id)
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
