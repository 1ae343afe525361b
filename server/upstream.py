"""Fixes for LangGraph's in-memory runtime (`langgraph dev`): a race a shared server cannot do without, and a poll
that made every run start a second late.

`langgraph_runtime_inmem.ops.Threads.delete` (0.36.7) finds the thread's index in the thread list, then awaits the
auth handler and the checkpointer's deletion, then pops that index. Whatever was appended or removed in between —
another client's thread created or deleted, a stateless run's thread removed by the worker — shifts the list: the
pop removes another thread (another client's, possibly) or fails with IndexError, and the thread asked for stays.
Found by bench/fairness.py (two clients, concurrent deletions); tests/server/test_tenancy.py holds it.

`apply()` replaces the method with the same code that looks the thread up again just before removing it. It does so
only when the installed method is exactly the one this fix was written against (its source's hash), so an upgraded
LangGraph keeps its own method, and the log says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import logging
from collections.abc import AsyncIterator
from typing import Any

log = logging.getLogger("paor.server")

#: sha256 of `inspect.getsource(Threads.delete)` in langgraph-runtime-inmem 0.36.7.
KNOWN_DELETE = "7fb5ec4a09231d2f9f7fae7d4d50c6d819f68b0ed25dc32ab93dd56ac7ddf139"


def apply() -> bool:
    """Patch `Threads.delete` of the in-memory runtime; False when it is not in use or not the known version."""
    try:
        from langgraph_runtime_inmem import ops
    except ImportError:  # another runtime (LangGraph Platform, PostgreSQL): none of this applies
        return False
    original = ops.Threads.__dict__.get("delete")
    function = getattr(original, "__func__", original)
    if getattr(function, "__paor_fixed__", False):
        return True
    try:
        digest = hashlib.sha256(inspect.getsource(function).encode()).hexdigest()
    except (OSError, TypeError):
        return False
    if digest != KNOWN_DELETE:
        log.warning("langgraph_runtime_inmem Threads.delete is not the known version: the deletion-race fix is off")
        return False
    ops.Threads.delete = staticmethod(_make_delete(ops))
    return True


def _make_delete(ops: Any) -> Any:
    async def delete(conn: Any, thread_id: Any, ctx: Any = None) -> AsyncIterator[Any]:
        """`Threads.delete` of langgraph-runtime-inmem 0.36.7, removing the thread by its id, not a stale index."""
        thread_id = ops._ensure_uuid(thread_id)
        thread = next((t for t in conn.store["threads"] if t["thread_id"] == thread_id), None)
        filters = await ops.Threads.handle_event(ctx, "delete", ops.Auth.types.ThreadsDelete(thread_id=thread_id))
        if thread is None or (filters and not ops._check_filter_match(thread["metadata"], filters)):
            raise ops.HTTPException(status_code=404, detail=f"Thread with ID {thread_id} not found")
        conn.store["runs"] = [run for run in conn.store["runs"] if run["thread_id"] != thread_id]
        conn.store["crons"] = [c for c in conn.store["crons"] if str(c.get("thread_id")) != str(thread_id)]
        await ops._delete_checkpoints_for_thread(thread_id, conn)
        threads = conn.store["threads"]
        index = next((i for i, t in enumerate(threads) if t["thread_id"] == thread_id), None)
        if index is None:  # deleted meanwhile by another request: nothing left to remove

            async def nothing() -> AsyncIterator[Any]:
                return
                yield

            return nothing()
        deleted = threads.pop(index)

        async def deleted_id() -> AsyncIterator[Any]:
            yield deleted["thread_id"]

        return deleted_id()

    delete.__paor_fixed__ = True  # type: ignore[attr-defined]
    return delete


#: How long langgraph-runtime-inmem's scheduler waits between looks for a new run (`Runs.next(wait=True)`).
POLL_S = 0.5


class _NewRuns:
    """Wakes the in-memory runtime's scheduler when a run is created. It looked for new runs every 0.5 s, and a run
    created during the wait was not yet due at the next look (`Runs.next` takes the time before it waits), so each
    run started up to a second late: a chat's first sign of life took 1.0 s with a model that answers at once."""

    def __init__(self) -> None:
        self.created: asyncio.Event | None = None

    async def wait(self) -> None:
        created = self.created = self.created or asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(created.wait(), POLL_S)
        created.clear()

    def wake(self) -> None:
        if self.created is not None:
            self.created.set()


def wake_on_new_runs(*, isolated_loops: bool = False) -> bool:
    """`Runs.put` wakes `Runs.next`, which looks right after (its own wait skipped); False when the in-memory
    runtime is not in use, or its scheduler runs on loops of its own (`isolated_loops`, langgraph-api's
    BG_JOB_ISOLATED_LOOPS: the event would belong to another loop)."""
    try:
        from langgraph_runtime_inmem import ops
    except ImportError:
        return False
    put, look = ops.Runs.__dict__["put"].__func__, ops.Runs.__dict__["next"].__func__
    if getattr(look, "__paor_fixed__", False):
        return True
    if isolated_loops:
        return False
    new_runs = _NewRuns()

    async def woken_put(*args: Any, **kwargs: Any) -> Any:
        created = await put(*args, **kwargs)
        new_runs.wake()
        return created

    async def next_run(wait: bool, limit: int = 1) -> AsyncIterator[Any]:
        if wait:
            await new_runs.wait()
        async for found in look(False, limit):
            yield found

    next_run.__paor_fixed__ = True  # type: ignore[attr-defined]
    ops.Runs.put = staticmethod(woken_put)
    ops.Runs.next = staticmethod(next_run)
    return True
