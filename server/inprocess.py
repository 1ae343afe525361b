"""The server's own questions to its LangGraph API, asked in-process: which threads a client owns, how many runs it
has in flight. Used by the auth handler's quotas (server/auth.py), the routes (server/app.py) and the traffic
middleware (server/traffic.py).

They go through langgraph_sdk's in-process transport (`get_client(url=None)`, which LangGraph's auth lets through)
in a fresh context: the caller's auth context would otherwise filter them (a signed link's request has no owner),
so every question names its owner itself, as a metadata filter on what the auth handler stamped.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import httpx

from graph import history_store
from server.settings import api_keys

T = TypeVar("T")
#: Runs that hold a place: queued or running.
IN_FLIGHT = ("pending", "running")


async def ask(question: Callable[[Any], Awaitable[T]]) -> T:
    """`question(client)` with an in-process client, outside any request's auth context."""

    async def asked() -> T:
        from langgraph_sdk import get_client  # the server extra

        client = get_client(url=None)
        try:
            return await question(client)
        finally:
            await client.aclose()

    return await asyncio.create_task(asked(), context=contextvars.Context())


def owned(owner: str) -> dict[str, str]:
    """The metadata filter for what `owner` created (nothing to filter while no key is set: one owner)."""
    return {"owner": owner} if api_keys() else {}


async def existing_threads(owner: str, thread_ids: Iterable[str]) -> set[str]:
    """Which of these threads exist and belong to `owner`."""
    ids = list(dict.fromkeys(thread_ids))
    found: set[str] = set()
    for start in range(0, len(ids), 100):
        chunk = ids[start : start + 100]

        async def search(client: Any, chunk: list[str] = chunk) -> list[dict[str, Any]]:
            result: list[dict[str, Any]] = await client.threads.search(
                ids=chunk, metadata=owned(owner), limit=len(chunk), select=["thread_id"]
            )
            return result

        found.update(str(thread["thread_id"]) for thread in await ask(search))
    return found


async def count(owner: str, resource: str) -> int:
    """How many threads, assistants or crons `owner` has."""

    async def counted(client: Any) -> int:
        counter = {"threads": client.threads, "assistants": client.assistants, "crons": client.crons}[resource]
        return int(await counter.count(metadata=owned(owner)))

    return await ask(counted)


async def runs_in_flight(owner: str, at_most: int) -> set[str]:
    """The ids of `owner`'s runs queued or running (the listing stops above `at_most`)."""

    async def listed(client: Any) -> set[str]:
        busy = await client.threads.search(
            metadata=owned(owner), status="busy", limit=at_most + 1, select=["thread_id"]
        )
        found: set[str] = set()
        for thread in busy:
            for status in IN_FLIGHT:
                try:
                    runs = await client.runs.list(
                        thread["thread_id"], status=status, limit=at_most + 1, select=["run_id"]
                    )
                except httpx.HTTPStatusError as exc:  # the thread ended meanwhile (a stateless run's)
                    if exc.response.status_code != 404:
                        raise
                    runs = []
                found.update(str(run["run_id"]) for run in runs)
            if len(found) > at_most:
                break
        return found

    return await ask(listed)


async def thread_metadata(owner: str, thread_id: str) -> dict[str, Any] | None:
    """The metadata of `owner`'s thread; None if it has no such thread."""

    async def search(client: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await client.threads.search(
            ids=[thread_id], metadata=owned(owner), limit=1, select=["thread_id", "metadata"]
        )
        return result

    found = await ask(search)
    return dict(found[0].get("metadata") or {}) if found else None


async def delete_history(thread: str) -> None:
    """A deleted thread's steps in the server's store (graph/history_store.py): a thread made again under its id,
    by anyone, starts without them (its runs' Stage 1 would read them, and an action they name would be refused as
    already run)."""
    namespace = list(history_store.namespace(thread))

    async def deleted(client: Any) -> None:
        seen: set[str] = set()
        while found := [i["key"] for i in (await client.store.search_items(namespace, limit=100))["items"]]:
            if seen.issuperset(found):  # nothing was deleted: never loop
                return
            seen.update(found)
            for key in found:
                await client.store.delete_item(namespace, key)

    await ask(deleted)
