"""The server's own questions to its LangGraph API, asked in-process: which threads a client owns, how many runs it
has in flight. Used by the auth handler's quotas (server/auth.py), the routes (server/app.py) and the traffic
middleware (server/traffic.py).

They go through langgraph_sdk's in-process transport (`get_client(url=None)`, which LangGraph's auth lets through)
in a fresh context: the caller's auth context would otherwise filter them (a signed link's request has no owner),
so every question names its owner itself, as a metadata filter on what the auth handler stamped.

Under Aegra (`aegra.json`) there is no in-process LangGraph API: the same questions are asked in SQL of Aegra's own
tables (`thread`, `runs`, `assistant`, `crons`), whose `user_id` column is the auth handler's identity, and of its
store. `ask` itself stays langgraph-api's.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import httpx

from graph import history_store
from server.settings import api_keys

T = TypeVar("T")
#: Runs that hold a place: queued or running.
IN_FLIGHT = ("pending", "running")


def _aegra_engine() -> Any | None:
    """Aegra's SQLAlchemy engine when Aegra serves this process, else None (langgraph-api)."""
    database = sys.modules.get("aegra_api.core.database")
    return database.db_manager.get_engine() if database is not None else None


async def _sql(query: str, **params: Any) -> list[Any]:
    from sqlalchemy import text

    engine = _aegra_engine()
    assert engine is not None
    async with engine.connect() as conn:
        return list((await conn.execute(text(query), params)).all())


def _by_owner(owner: str) -> str:
    """The SQL condition for what `owner` created (every row while no key is set)."""
    return "user_id = :owner" if api_keys() else "true"


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
    if _aegra_engine() is not None:
        rows = await _sql(
            f"SELECT thread_id FROM thread WHERE thread_id = ANY(:ids) AND {_by_owner(owner)}", ids=ids, owner=owner
        )
        return {str(row[0]) for row in rows}
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
    if _aegra_engine() is not None:
        table = {"threads": "thread", "assistants": "assistant", "crons": "crons"}[resource]
        return int((await _sql(f"SELECT count(*) FROM {table} WHERE {_by_owner(owner)}", owner=owner))[0][0])

    async def counted(client: Any) -> int:
        counter = {"threads": client.threads, "assistants": client.assistants, "crons": client.crons}[resource]
        return int(await counter.count(metadata=owned(owner)))

    return await ask(counted)


async def runs_in_flight(owner: str, at_most: int) -> set[str]:
    """The ids of `owner`'s runs queued or running (the listing stops above `at_most`)."""
    if _aegra_engine() is not None:
        query = f"SELECT run_id FROM runs WHERE status = ANY(:busy) AND {_by_owner(owner)} LIMIT :most"
        return {str(row[0]) for row in await _sql(query, busy=list(IN_FLIGHT), owner=owner, most=at_most + 1)}

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
    if _aegra_engine() is not None:
        query = f"SELECT metadata_json FROM thread WHERE thread_id = :thread AND {_by_owner(owner)}"
        rows = await _sql(query, thread=thread_id, owner=owner)
        return dict(rows[0][0] or {}) if rows else None

    async def search(client: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await client.threads.search(
            ids=[thread_id], metadata=owned(owner), limit=1, select=["thread_id", "metadata"]
        )
        return result

    found = await ask(search)
    return dict(found[0].get("metadata") or {}) if found else None


async def operator_names() -> list[str]:
    """The names of the operator's assistants (the graphs of the server's configuration)."""
    if _aegra_engine() is not None:
        rows = await _sql(
            "SELECT name FROM assistant WHERE metadata @> CAST(:system AS jsonb)", system='{"created_by": "system"}'
        )
        return [str(row[0] or "") for row in rows]

    async def search(client: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await client.assistants.search(metadata={"created_by": "system"}, limit=1000)
        return found

    return [str(assistant.get("name") or "") for assistant in await ask(search)]


async def threads_of_assistant(owner: str, assistant_id: str) -> list[str]:
    """The ids of `owner`'s threads that ran `assistant_id`."""
    if _aegra_engine() is not None:
        query = f"SELECT thread_id FROM thread WHERE metadata_json->>'assistant_id' = :assistant AND {_by_owner(owner)}"
        return [str(row[0]) for row in await _sql(query, assistant=assistant_id, owner=owner)]

    async def search(client: Any) -> list[str]:
        found: list[str] = []
        while True:  # LangGraph answers at most 1000 a page
            page = await client.threads.search(
                metadata={**owned(owner), "assistant_id": assistant_id},
                limit=1000,
                offset=len(found),
                select=["thread_id"],
            )
            found += [str(thread["thread_id"]) for thread in page]
            if len(page) < 1000:
                return found

    return await ask(search)


async def store_items(owner: str) -> list[tuple[tuple[str, ...], str, Any]]:
    """(namespace, key, value) of every store item under `owner`'s namespaces, the namespaces as the client names
    them (Aegra keeps a client's items under ["users", identity, ...] and strips that for the client)."""
    items: list[tuple[tuple[str, ...], str, Any]] = []
    database = sys.modules.get("aegra_api.core.database")
    if database is not None:
        store, scope = database.db_manager.get_store(), ("users", owner)
        while page := await store.asearch((*scope, owner), limit=1000, offset=len(items)):
            items += [(tuple(item.namespace[len(scope) :]), item.key, item.value) for item in page]
            if len(page) < 1000:
                break
        return items

    async def scan(client: Any) -> None:
        while True:
            page = await client.store.search_items([owner], limit=1000, offset=len(items))
            items.extend((tuple(item["namespace"]), item["key"], item["value"]) for item in page["items"])
            if len(page["items"]) < 1000:
                return

    await ask(scan)
    return items


async def delete_history(thread: str) -> None:
    """A deleted thread's steps in the server's store (graph/history_store.py): a thread made again under its id,
    by anyone, starts without them (its runs' Stage 1 would read them, and an action they name would be refused as
    already run)."""
    namespace = list(history_store.namespace(thread))
    database = sys.modules.get("aegra_api.core.database")
    if database is not None:  # the graph's own store, not the API's (which prefixes ["users", identity])
        store = database.db_manager.get_store()
        while found := await store.asearch(tuple(namespace), limit=100):
            for item in found:
                await store.adelete(item.namespace, item.key)
        return

    async def deleted(client: Any) -> None:
        seen: set[str] = set()
        while found := [i["key"] for i in (await client.store.search_items(namespace, limit=100))["items"]]:
            if seen.issuperset(found):  # nothing was deleted: never loop
                return
            seen.update(found)
            for key in found:
                await client.store.delete_item(namespace, key)

    await ask(deleted)
