"""The server under paor's server layer, behind one small interface with one implementation per server.

The key gate, tenancy, quotas and rates (server/auth.py, quotas.py, traffic.py) ask the server a few questions
(which threads a client owns, how many runs it has in flight…) and keep a few counters (each client's rate, the run
places a request holds). Where they are answered differs:

- `langgraph dev` (langgraph.json → server/app.py): `LangGraphDev` (server/engine_langgraph.py) — one process; the
  questions asked of langgraph-api in-process; counters in memory; the in-memory runtime's fixes
  (server/upstream.py) and its registry's journal (server/registry.py) where that runtime serves; langgraph-api's
  CORS on paor's refusals.
- `paor serve` (aegra.json → server/aegra_app.py): `Aegra` (server/engine_aegra.py) — several processes on one
  PostgreSQL and one Redis; the questions in SQL of Aegra's tables and store; counters in Redis, so a client's
  rates and runs in flight are the service's, not each instance's.

Each server's app is assembled with its engine (server/assembly.py), which also supplies what only its server needs:
the classes of its routes, middleware of its own, and how its server hands the auth handler a request (the key's
header, a run's request, a cron's, a write of a thread's state), so the auth handler reads one shape. Nothing is
decided by whether a module happens to import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from starlette.middleware import Middleware
from starlette.types import ASGIApp

from server.run_sizes import size_of

#: (namespace, key) of a store item → its size in bytes.
StoreSizes = dict[tuple[tuple[str, ...], str], int]


def item_size(namespace: tuple[str, ...], key: str, value_bytes: int) -> int:
    """A store item's size as its quota counts it: its value, namespace and key (a 9 MB key is kept too)."""
    return value_bytes + size_of(list(namespace)) + size_of(key)


class Rate(Protocol):
    """A token bucket: `per_s` tokens a second, at most `burst` saved up."""

    async def take(self, amount: float, within: float = float("inf")) -> float:
        """Take `amount` tokens and answer how long to wait until they would have been there (a debt the next
        callers wait behind); when that is longer than `within`, take nothing and answer the wait."""
        ...

    def rested(self) -> bool:
        """Whether this process may forget the bucket (it is full again, or kept elsewhere)."""
        ...


class Counters(Protocol):
    """What the server layer counts across the whole service."""

    def rate(self, name: str, per_s: float, burst: float) -> Rate: ...

    def turn(self, name: str) -> AbstractAsyncContextManager[None]:
        """One holder at a time of `name`, across every process of the service."""
        ...

    async def reserved(self, owner: str) -> set[str]:
        """The run places `owner` holds that have not expired."""
        ...

    async def reserve(self, owner: str, run: str, seconds: float) -> None: ...

    async def unreserve(self, owner: str, runs: Iterable[str]) -> None: ...


class Engine(Protocol):
    """The questions the server layer asks its server, and where it counts."""

    @property
    def counters(self) -> Counters:
        """Where this server counts."""
        ...

    #: Whether one process serves every request (a cache of per-client sizes then stays true).
    one_process: bool
    #: Whether the server passes every run it prepares through server/run_door.py itself (the auth handler is the
    #: door elsewhere).
    checks_runs_where_prepared: bool

    @property
    def route_table(self) -> Mapping[tuple[str, str], str]:
        """The class of each of its server's routes, by (method, path template) (server/route_classes.py `Kind`)."""
        ...

    def middleware(self) -> list[Middleware]:
        """Middleware only this server needs, inside paor's own (server/assembly.py)."""
        ...

    def answering(self, app: ASGIApp) -> ASGIApp:
        """`app` (a refusal of paor's middleware) answering as the server's own routes do: behind its CORS where
        the server puts that inside paor's middleware (server/refusals.py)."""
        ...

    def client_key(self, headers: Mapping[Any, Any]) -> str | bytes | None:
        """The API key header of the headers the server gives the auth handler."""
        ...

    def run_request(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """What a run asks for (input, config, metadata…), from what the server gives the auth handler for it."""
        ...

    def cron_run(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """The run request a cron makes at each firing, from what the server gives the auth handler for it."""
        ...

    def writes_state(self, value: Mapping[str, Any]) -> bool:
        """Whether a thread update the auth handler is given is a direct write of the thread's state."""
        ...

    def start(self) -> None:
        """What the server needs before its first request (in the app's lifespan)."""
        ...

    async def upkeep(self) -> None:
        """What the server needs done while it serves (a task of the app's lifespan, cancelled at its end)."""
        ...

    async def existing_threads(self, owner: str, thread_ids: Iterable[str]) -> set[str]:
        """Which of these threads exist and belong to `owner`."""
        ...

    async def count(self, owner: str, resource: str) -> int:
        """How many threads, assistants or crons `owner` has."""
        ...

    async def runs_in_flight(self, owner: str, at_most: int) -> set[str]:
        """The ids of `owner`'s runs queued or running (the listing may stop above `at_most`)."""
        ...

    async def thread_metadata(self, owner: str, thread_id: str) -> dict[str, object] | None:
        """The metadata of `owner`'s thread; None if it has no such thread."""
        ...

    async def operator_names(self) -> list[str]:
        """The names of the operator's assistants (the graphs of the server's configuration)."""
        ...

    async def threads_of_assistant(self, owner: str, assistant_id: str) -> list[str]:
        """The ids of `owner`'s threads that ran `assistant_id`."""
        ...

    async def store_sizes(self, owner: str) -> StoreSizes:
        """The size of every store item under `owner`'s namespaces, the namespaces as the client names them."""
        ...

    async def delete_history(self, thread: str) -> None:
        """A deleted thread's steps in the server's store (core/history_store.py): a thread made again under its
        id, by anyone, starts without them (its runs' Stage 1 would read them, and an action they name would be
        refused as already run)."""
        ...


_CURRENT: Engine | None = None


def use(engine: Engine | None) -> None:
    """The engine of this process (the app the server loads is assembled with it; None: none)."""
    global _CURRENT
    _CURRENT = engine


def current() -> Engine:
    """The engine of this process, which the app the server loads was assembled with (server/app.py: `langgraph
    dev`'s, server/aegra_app.py: Aegra's)."""
    if _CURRENT is None:
        raise RuntimeError("no server engine is installed: the server's app installs one (server/assembly.py)")
    return _CURRENT
