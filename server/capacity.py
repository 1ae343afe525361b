"""What one server works on at once, and what it keeps when it is killed.

- **Threads for waiting.** LangGraph runs each synchronous node of a server run on the event loop's default thread
  pool, which nothing in langgraph-api sizes: Python's default, min(32, cores + 4), is 6 on 2 cores, so however many
  jobs `--n-jobs-per-worker` allowed, at most 6 model requests were in flight (issue 34). The lifespan gives the
  server's loop a pool sized for its jobs (core/capacity.py). It is not shut down when the lifespan ends:
  LangGraph's own teardown runs after and still uses it; the loop shuts it down when it closes.
- **The registry on disk before the client hears of it.** `langgraph dev`'s in-memory runtime keeps threads, runs,
  assistants and crons in memory and writes them to `.langgraph_api/` every 10 s, so a `kill -9` lost the threads and
  runs of those seconds while paor's SQLite still held their checkpoints. `DurableRegistry` journals what a request
  created before the answer to it starts (server/registry.py: only the new records, so no client's volume makes
  another's creations slower); the periodic writer writes the whole registry on its own thread and starts a new
  journal, and the journal is replayed at start.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.capacity import blocking_threads
from graph.builder import warm
from server import engine, forgetting
from server.registry import Journal

#: Requests that create what a client then refers to: a thread, a run, an assistant, a cron.
_CREATES = re.compile(
    r"^/(threads(/[^/]+/(copy|runs(/(stream|wait|crons))?))?|runs(/(stream|wait|batch|crons))?|assistants)/?$"
)
_WRITE_LOCK = threading.Lock()
log = logging.getLogger("paor.server")


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """Runs on the server's loop after LangGraph's own start-up, before the first request."""
    pool = ThreadPoolExecutor(max_workers=blocking_threads(), thread_name_prefix="paor-node")
    asyncio.get_running_loop().set_default_executor(pool)
    engine.current().start()
    warm()
    sweeper = asyncio.create_task(forgetting.sweeping())  # threads deleted without a request paor sees
    upkeep = asyncio.create_task(engine.current().upkeep())
    try:
        yield
    finally:
        sweeper.cancel()
        upkeep.cancel()


_JOURNAL: Journal | None = None


def _journal() -> Journal | None:
    """The journal of the in-memory runtime's registry; None where that runtime does not serve this process (another
    runtime keeps its own records) or keeps no files (LANGGRAPH_DISABLE_FILE_PERSISTENCE)."""
    runtime = sys.modules.get("langgraph_runtime_inmem.database")
    persistence = sys.modules.get("langgraph_runtime_inmem._persistence")
    if runtime is None or getattr(persistence, "DISABLE_FILE_PERSISTENCE", False):
        return None
    return _JOURNAL


def journal_creations() -> None:
    """Put back what the journal holds, then let the periodic writer compact it (same method, under one lock)."""
    global _JOURNAL
    runtime = sys.modules.get("langgraph_runtime_inmem.database")
    if runtime is None or _JOURNAL is not None:
        return
    registry = runtime.GLOBAL_STORE
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
        journal = _journal()
        creates = scope["type"] == "http" and scope.get("method") == "POST" and _CREATES.match(scope["path"])
        if journal is None or not creates:
            await self.app(scope, receive, send)
            return

        async def written_first(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= int(message["status"]) < 300:
                journal.record_new()  # on the loop's thread: nothing changes the registry while it is read
            await send(message)

        await self.app(scope, receive, written_first)
