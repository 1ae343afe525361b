"""`langgraph dev`'s registry of threads, runs, assistants and crons on disk, at a cost no client sets for another.

The in-memory runtime keeps its registry in one dict and writes all of it, pickled, every 10 s. A server that
promises what it told a client survives a `kill -9` must write sooner: it once wrote the whole registry, on the
event loop, after every creation — so one client's 49 runs of 9 MB made every other client's `POST /threads` take
half a second (issue 45). Now:

- **After a creation, only what is new** is appended to a journal beside the registry's file (`record_new`): the
  records at the end of each list that were never written. Its cost is the size of the new records, bounded by
  the run-request caps, whatever the registry holds.
- **The whole registry is written by the periodic writer only**, on its own thread, as before; each such write
  starts a new journal, and the old one goes once the snapshot that holds its records is on disk.
- **A finished run keeps no input**: its `input` and `command` stay in its thread's checkpoints, where every reader
  of a run's result looks, and leave the run's record when the writer next passes (`trim_finished_runs`). What
  the registry holds per run is its settings and status, not what a client sent it.
- **At start**, journaled records the snapshot lacks are put back (`replay`).

Applied by `langgraph dev`'s engine where the in-memory runtime serves (server/engine_langgraph.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("paor.server")

#: Each list of the registry and what identifies one of its records.
COLLECTIONS: dict[str, tuple[str, ...]] = {
    "threads": ("thread_id",),
    "runs": ("run_id",),
    "assistants": ("assistant_id",),
    "assistant_versions": ("assistant_id", "version"),
    "crons": ("cron_id",),
}
#: Run statuses after which nothing reads a run's input from its record.
FINISHED = frozenset({"success", "error", "timeout", "interrupted"})
#: What a finished run's record gives up (the run's checkpoints keep both).
TRIMMED = ("input", "command")


def _identity(collection: str, record: Any) -> tuple[str, ...] | None:
    if not isinstance(record, dict):
        return None
    return (collection, *(str(record.get(field)) for field in COLLECTIONS[collection]))


class Journal:
    """What was created since the registry's last full write, appended record by record."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self.path = Path(str(registry.filename) + ".journal")
        self.old = Path(str(registry.filename) + ".journal.old")
        self.written: set[tuple[str, ...]] = set()
        self.lock = threading.Lock()

    def record_new(self) -> int:
        """Append the records created since the last call; how many. Runs on the event loop's thread, which alone
        changes the registry: the lists cannot change while they are read."""
        new: list[tuple[str, Any]] = []
        for collection in COLLECTIONS:
            for record in reversed(self.registry.get(collection) or []):  # the runtime appends what it creates
                identity = _identity(collection, record)
                if identity is None or identity in self.written:
                    break
                new.append((collection, record))
        if not new:
            return 0
        frame = pickle.dumps(list(reversed(new)), protocol=pickle.HIGHEST_PROTOCOL)
        with self.lock, open(self.path, "ab") as journal:
            journal.write(len(frame).to_bytes(8, "big") + frame)
            journal.flush()
        self.written.update(identity for collection, record in new if (identity := _identity(collection, record)))
        return len(new)

    def replay(self) -> int:
        """Put back journaled records the registry lacks (it was killed before its next full write); how many.
        Then every record the registry holds counts as written."""
        present = {identity for collection, record in self._all() if (identity := _identity(collection, record))}
        restored = 0
        for path in (self.old, self.path):
            for collection, record in _frames(path):
                identity = _identity(collection, record)
                if identity is not None and identity not in present:
                    self.registry.setdefault(collection, []).append(record)
                    present.add(identity)
                    restored += 1
        self.written = present
        return restored

    def compacting(self, write_all: Callable[[], None]) -> Callable[[], None]:
        """The registry's full write, wrapped: finished runs trimmed first, a new journal started, and the old one
        removed once the snapshot holding its records is on disk."""

        def sync() -> None:
            trim_finished_runs(self.registry)
            with self.lock:
                if self.path.exists():
                    os.replace(self.path, self.old)
            write_all()
            with contextlib.suppress(FileNotFoundError):
                self.old.unlink()

        return sync

    def _all(self) -> Iterator[tuple[str, Any]]:
        for collection in COLLECTIONS:
            for record in list(self.registry.get(collection) or []):
                yield collection, record


def trim_finished_runs(registry: Any) -> int:
    """Drop the input and command of runs that ended; how many records changed. A run's `kwargs` is replaced, not
    edited, so a reader on another thread sees the old or the new one whole."""
    trimmed = 0
    for run in list(registry.get("runs") or []):
        kwargs = run.get("kwargs") if isinstance(run, dict) else None
        if run.get("status") in FINISHED and isinstance(kwargs, dict) and any(kwargs.get(k) for k in TRIMMED):
            run["kwargs"] = {**kwargs, **dict.fromkeys(TRIMMED)}
            trimmed += 1
    return trimmed


def _frames(path: Path) -> Iterator[tuple[str, Any]]:
    """The records of one journal; a frame cut short by a kill ends it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    at = 0
    while at + 8 <= len(data):
        size = int.from_bytes(data[at : at + 8], "big")
        frame = data[at + 8 : at + 8 + size]
        if len(frame) < size:
            log.warning("the registry journal %s ends in a record cut short; the records before it are restored", path)
            return
        at += 8 + size
        try:
            yield from pickle.loads(frame)
        except Exception:  # a damaged frame: the journal is the runtime's own file, but a disk can fail
            log.warning("the registry journal %s holds an unreadable record; it is skipped", path)


#: Requests that create what a client then refers to: a thread, a run, an assistant, a cron.
_CREATES = re.compile(
    r"^/(threads(/[^/]+/(copy|runs(/(stream|wait|crons))?))?|runs(/(stream|wait|batch|crons))?|assistants)/?$"
)
_WRITE_LOCK = threading.Lock()


_JOURNAL: Journal | None = None


def journal_creations() -> None:
    """Put back what the journal holds, then let the periodic writer compact it (same method, under one lock). Run
    by `langgraph dev`'s engine where the in-memory runtime serves (server/engine_langgraph.py); nothing where that
    runtime keeps no files (LANGGRAPH_DISABLE_FILE_PERSISTENCE)."""
    global _JOURNAL
    from langgraph_runtime_inmem import _persistence, database

    if _JOURNAL is not None or _persistence.DISABLE_FILE_PERSISTENCE:
        return
    registry = database.GLOBAL_STORE
    journal = Journal(registry)
    if restored := journal.replay():
        log.info("restored %d records the registry's last full write had not reached", restored)
    compacting: Callable[[], None] = journal.compacting(registry.sync)

    def sync() -> None:
        with _WRITE_LOCK:
            compacting()

    registry.sync = sync
    _JOURNAL = journal


class DurableRegistry:
    """ASGI middleware: after a request created a thread, run, assistant or cron, what it created is on disk
    before the response starts."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        journal = _JOURNAL
        creates = scope["type"] == "http" and scope.get("method") == "POST" and _CREATES.match(scope["path"])
        if journal is None or not creates:
            await self.app(scope, receive, send)
            return

        async def written_first(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= int(message["status"]) < 300:
                journal.record_new()  # on the loop's thread: nothing changes the registry while it is read
            await send(message)

        await self.app(scope, receive, written_first)
