"""What one server works on at once: its start-up and upkeep (the engine's), and the threads it waits on.

- **Threads for waiting.** LangGraph runs each synchronous node of a server run on the event loop's default thread
  pool, which nothing in langgraph-api sizes: Python's default, min(32, cores + 4), is 6 on 2 cores, so however many
  jobs `--n-jobs-per-worker` allowed, at most 6 model requests were in flight (issue 34). The lifespan gives the
  server's loop a pool sized for its jobs (core/capacity.py). It is not shut down when the lifespan ends:
  LangGraph's own teardown runs after and still uses it; the loop shuts it down when it closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from core.capacity import blocking_threads
from graph.builder import warm
from server import forgetting
from server.engine import Engine


@asynccontextmanager
async def serving(engine: Engine) -> AsyncIterator[None]:
    """Runs on the server's loop after LangGraph's own start-up, before the first request (server/assembly.py)."""
    pool = ThreadPoolExecutor(max_workers=blocking_threads(), thread_name_prefix="paor-node")
    asyncio.get_running_loop().set_default_executor(pool)
    engine.start()
    warm()
    sweeper = asyncio.create_task(forgetting.sweeping())  # threads deleted without a request paor sees
    upkeep = asyncio.create_task(engine.upkeep())
    try:
        yield
    finally:
        sweeper.cancel()
        upkeep.cancel()
