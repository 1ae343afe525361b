"""A fix for LangGraph's in-memory runtime (`langgraph dev`) that a shared server cannot do without.

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
