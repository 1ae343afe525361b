"""`langgraph dev`'s engine (server/engine.py): the server layer's questions asked of langgraph-api in-process, its
counters in this process's memory, the in-memory runtime's fixes and registry journal where that runtime serves, and
langgraph-api's CORS on paor's refusals.

The questions go through langgraph_sdk's in-process transport (`get_client(url=None)`, which LangGraph's auth lets
through) in a fresh context: the caller's auth context would otherwise filter them (a signed link's request has no
owner), so every question names its owner itself, as a metadata filter on what the auth handler stamped.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

import httpx
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

from core import history_store
from server import upstream
from server.counters import MemoryCounters
from server.engine import StoreSizes, item_size
from server.keys import HEADER
from server.registry import DurableRegistry, journal_creations
from server.route_classes import LANGGRAPH_DEV
from server.run_sizes import size_of
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


class LangGraphDev:
    """One langgraph-api process (server/engine.py `Engine`). `serving`: this process is langgraph-api's server
    (server/app.py, the app langgraph.json loads, says so); a test's engine is not, and touches no runtime."""

    one_process = True
    checks_runs_where_prepared = False  # every run-starting route authorises as threads.create_run
    route_table = LANGGRAPH_DEV

    def __init__(self, *, serving: bool = False) -> None:
        self.counters = MemoryCounters()
        self.serving = serving

    def middleware(self) -> list[Middleware]:
        """What a client is told exists is written to disk first (server/registry.py)."""
        return [Middleware(DurableRegistry)]

    def answering(self, app: ASGIApp) -> ASGIApp:
        """`app` behind langgraph-api's own CORS middleware, which it puts outside paor's (same class, same options)."""
        if not self.serving:
            return app
        from langgraph_api.server import global_middleware  # imported in full before the first request

        for middleware in global_middleware:
            if middleware.cls is CORSMiddleware:
                return CORSMiddleware(app, *middleware.args, **middleware.kwargs)
        return app

    def client_key(self, headers: Mapping[Any, Any]) -> str | bytes | None:
        """langgraph-api gives the auth handler the request's raw headers: bytes keys and values."""
        value: str | bytes | None = headers.get(HEADER.encode())
        return value

    def run_request(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """langgraph-api nests what a run asks for under `kwargs` (where it does not, the value itself is checked)."""
        kwargs = value.get("kwargs")
        return kwargs if isinstance(kwargs, Mapping) else value

    def cron_run(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """langgraph-api gives a cron's run request as its `payload` (without one, the value itself is checked)."""
        payload = value.get("payload")
        return payload if isinstance(payload, Mapping) else value

    def writes_state(self, value: Mapping[str, Any]) -> bool:
        """langgraph-api reports `POST /threads/{id}/state` as an update carrying the thread id alone (a patch carries
        `metadata`, a cancellation its `action`)."""
        return not value.keys() - {"thread_id"}

    def start(self) -> None:
        """The in-memory runtime's fixes and registry journal, where that runtime serves this process."""
        if not self.serving:
            return
        from langgraph_api import config
        from langgraph_runtime import RUNTIME_EDITION  # the runtime langgraph-api serves with (its setting)

        if RUNTIME_EDITION != "inmem":
            return
        upstream.apply()  # it removed the wrong thread under concurrent deletions
        upstream.wake_on_new_runs(isolated_loops=bool(config.BG_JOB_ISOLATED_LOOPS))  # and started runs up to 1 s late
        journal_creations()

    async def upkeep(self) -> None:
        """Nothing: the in-memory runtime has no connections to keep."""

    async def existing_threads(self, owner: str, thread_ids: Iterable[str]) -> set[str]:
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

    async def count(self, owner: str, resource: str) -> int:
        async def counted(client: Any) -> int:
            counter = {"threads": client.threads, "assistants": client.assistants, "crons": client.crons}[resource]
            return int(await counter.count(metadata=owned(owner)))

        return await ask(counted)

    async def runs_in_flight(self, owner: str, at_most: int) -> set[str]:
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

    async def thread_metadata(self, owner: str, thread_id: str) -> dict[str, object] | None:
        async def search(client: Any) -> list[dict[str, Any]]:
            result: list[dict[str, Any]] = await client.threads.search(
                ids=[thread_id], metadata=owned(owner), limit=1, select=["thread_id", "metadata"]
            )
            return result

        found = await ask(search)
        return dict(found[0].get("metadata") or {}) if found else None

    async def operator_names(self) -> list[str]:
        async def search(client: Any) -> list[dict[str, Any]]:
            found: list[dict[str, Any]] = await client.assistants.search(metadata={"created_by": "system"}, limit=1000)
            return found

        return [str(assistant.get("name") or "") for assistant in await ask(search)]

    async def threads_of_assistant(self, owner: str, assistant_id: str) -> list[str]:
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

    async def store_sizes(self, owner: str) -> StoreSizes:
        sizes: StoreSizes = {}

        async def scan(client: Any) -> None:
            offset = 0
            while True:
                page = (await client.store.search_items([owner], limit=1000, offset=offset))["items"]
                for item in page:
                    namespace, key = tuple(item["namespace"]), item["key"]
                    sizes[(namespace, key)] = item_size(namespace, key, size_of(item["value"]))
                offset += len(page)
                if len(page) < 1000:
                    return

        await ask(scan)
        return sizes

    async def delete_history(self, thread: str) -> None:
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
