"""What one server works on at once, and what it keeps when it is killed.

- **Threads for waiting.** LangGraph runs each synchronous node of a server run on the event loop's default thread
  pool, which nothing in langgraph-api sizes: Python's default, min(32, cores + 4), is 6 on 2 cores, so however many
  jobs `--n-jobs-per-worker` allowed, at most 6 model requests were in flight (issue 34). The lifespan gives the
  server's loop a pool sized for its jobs (graph/capacity.py). It is not shut down when the lifespan ends:
  LangGraph's own teardown runs after and still uses it; the loop shuts it down when it closes.
- **The registry on disk before the client hears of it.** `langgraph dev`'s in-memory runtime keeps threads, runs,
  assistants and crons in memory and writes them to `.langgraph_api/` every 10 s, so a `kill -9` lost the threads and
  runs of those seconds while paor's SQLite still held their checkpoints. `DurableRegistry` writes the registry
  before the answer to a request that created one starts: what a client was told exists survives a crash. The
  periodic writer and this one take turns (both write the same temporary file).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.builder import warm
from graph.capacity import blocking_threads

#: Requests that create what a client then refers to: a thread, a run, an assistant, a cron.
_CREATES = re.compile(
    r"^/(threads(/[^/]+/(copy|runs(/(stream|wait|crons))?))?|runs(/(stream|wait|batch|crons))?|assistants)/?$"
)
_WRITE_LOCK = threading.Lock()


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """Runs on the server's loop after LangGraph's own start-up, before the first request."""
    pool = ThreadPoolExecutor(max_workers=blocking_threads(), thread_name_prefix="paor-node")
    asyncio.get_running_loop().set_default_executor(pool)
    _take_turns_writing()
    warm()
    yield


def _registry() -> Any | None:
    """The in-memory runtime's registry (None under another runtime: PostgreSQL-backed serving keeps its own)."""
    try:
        from langgraph_runtime_inmem import database
    except ImportError:
        return None
    return database.GLOBAL_STORE


def _take_turns_writing() -> None:
    """The periodic writer calls the registry's `sync` from its thread: the same method, under one lock."""
    registry = _registry()
    if registry is None or getattr(registry.sync, "__paor_locked__", False):
        return
    unlocked: Callable[[], None] = registry.sync

    def sync() -> None:
        with _WRITE_LOCK:
            unlocked()

    sync.__paor_locked__ = True  # type: ignore[attr-defined]
    registry.sync = sync


class DurableRegistry:
    """ASGI middleware: after a request created a thread, run, assistant or cron, the registry is on disk before
    the response starts."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        registry = _registry()
        creates = scope["type"] == "http" and scope.get("method") == "POST" and _CREATES.match(scope["path"])
        if registry is None or not creates:
            await self.app(scope, receive, send)
            return

        async def written_first(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= int(message["status"]) < 300:
                registry.sync()  # on the loop's thread: nothing changes the registry while it is written
            await send(message)

        await self.app(scope, receive, written_first)
