"""`paor serve`'s engine (server/engine.py): the server layer's questions in SQL of Aegra's own tables (`thread`,
`runs`, `assistant`, `crons`, whose `user_id` is the auth handler's identity) and its store, and its counters in
the Redis every instance shares (server/counters.py), so a client's rates and runs in flight hold across instances.

Aegra keeps a client's store items under ["users", identity, …] and strips that for the client: a client names its
namespaces as on `langgraph dev` (they start with its identity), so the table holds ["users", identity, identity, …].
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from starlette.middleware import Middleware
from starlette.types import ASGIApp

from core import history_store
from server.counters import MemoryCounters, RedisCounters
from server.engine import Counters, StoreSizes, item_size
from server.keys import HEADER
from server.route_classes import PAOR_SERVE
from server.settings import api_keys

#: Runs that hold a place: queued or running.
IN_FLIGHT = ("pending", "running")
_TABLES = {"threads": "thread", "assistants": "assistant", "crons": "crons"}
#: Connections paor's questions keep open per instance (as many again while busy).
POOL_SIZE = 4
#: Seconds between checks of the checkpointer pool's idle connections (`Aegra.upkeep`).
POOL_CHECK_S = 5.0

log = logging.getLogger(__name__)


def _by_owner() -> str:
    """The SQL condition for what `:owner` created (every row while no key is set: one client)."""
    return "user_id = :owner" if api_keys() else "true"


class Aegra:
    """Aegra on PostgreSQL and Redis (server/engine.py `Engine`)."""

    one_process = False
    checks_runs_where_prepared = True  # server/aegra_runs.py
    route_table = PAOR_SERVE

    def __init__(self) -> None:
        self._counters: Counters | None = None
        self._engine: Any = None

    def middleware(self) -> list[Middleware]:
        """None: Aegra keeps its records in PostgreSQL, written before it answers."""
        return []

    def answering(self, app: ASGIApp) -> ASGIApp:
        """`app` as it is: Aegra's CORS middleware stands outside paor's and adds its headers to every answer."""
        return app

    def client_key(self, headers: Mapping[Any, Any]) -> str | bytes | None:
        """Aegra calls the auth handler with one dict of lower-case str headers."""
        value: str | bytes | None = headers.get(HEADER)
        return value

    def run_request(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """Aegra gives the auth handler a run's request body itself."""
        return value

    def cron_run(self, value: Mapping[str, Any]) -> Mapping[str, Any]:
        """Aegra gives the auth handler a cron's request body, which is the run each firing makes."""
        return value

    def writes_state(self, value: Mapping[str, Any]) -> bool:
        """Aegra reports `POST /threads/{id}/state` as an update carrying the request's body: `values` or `as_node`
        write, and so does a `checkpoint` or `checkpoint_id` (a state written again from an earlier checkpoint)."""
        return any(value.get(key) is not None for key in ("values", "as_node", "checkpoint", "checkpoint_id"))

    @property
    def counters(self) -> Counters:
        """Redis's once Aegra has connected to it (its lifespan; the broker `paor serve` always turns on); memory's
        for an Aegra started without Redis (then one process)."""
        if self._counters is None:
            from aegra_api.core.redis_manager import redis_manager
            from aegra_api.settings import settings

            if settings.redis.REDIS_BROKER_ENABLED:
                self._counters = RedisCounters(redis_manager.get_client())
            else:
                self._counters = MemoryCounters()
        return self._counters

    def start(self) -> None:
        """paor's door in front of Aegra's run preparation (server/aegra_runs.py), and Aegra's v2 event streaming
        (`/threads/{id}/commands`, `/threads/{id}/stream/events`) off: its runs would pass the door, but not paor's
        attachment and pinned-resume handling, which read the run routes' bodies (docs/deployment.md)."""
        from aegra_api.settings import settings

        from server import aegra_attempts, aegra_errors, aegra_runs

        aegra_runs.install()
        aegra_attempts.install()  # a run taken over after its instance died says so (nodes/takeover.py)
        aegra_errors.install()  # a failed run's error event shows paor's message written for the client
        log.info(  # Aegra warned at start that its route auth does not cover these: paor's key gate does
            "paor's own routes (/ok, /health, /ready, /mcp, /paor/…) are behind paor's key gate (server/gate.py): "
            "Aegra's warning that enable_custom_route_auth does not cover them is about Aegra's route auth only"
        )
        settings.event_streaming.FF_V2_EVENT_STREAMING = False

    async def upkeep(self) -> None:
        """Every `POOL_CHECK_S`, the idle connections of the checkpointer's pool are checked and the broken ones
        replaced. After a PostgreSQL restart (maintenance, a failover) every idle connection is broken, and psycopg's
        pool, which checks one per attempt with a backoff of 1, 2, 4, 8… s, handed the next run its first working
        connection after its 30 s timeout: the run failed ("couldn't get a connection after 30.00 sec"). Aegra's
        SQLAlchemy pools ping before each use."""
        from aegra_api.core.database import db_manager

        while True:
            await asyncio.sleep(POOL_CHECK_S)
            if (pool := db_manager.lg_pool) is not None:
                try:
                    await pool.check()
                except Exception:  # the database is away: the next check tries again
                    log.debug("checking the checkpointer's connections failed", exc_info=True)

    async def health(self, within: float) -> dict[str, str]:
        """Each service this instance needs → "ok", or what is wrong with it, each asked at most `within` seconds
        (a PostgreSQL that is down held Aegra's own `/health` for 20 s)."""
        from aegra_api.core.redis_manager import redis_manager

        async def probe(check: Any) -> str:
            try:
                async with asyncio.timeout(within):
                    await check()
            except TimeoutError:
                return f"no answer within {within:g} s"
            except Exception as exc:  # its message may name the URL, and with it a password
                return f"unreachable ({type(exc).__name__})"
            return "ok"

        async def database() -> None:
            await self._sql("SELECT 1")

        async def redis() -> None:
            await redis_manager.get_client().ping()

        postgresql, cache = await asyncio.gather(probe(database), probe(redis))
        return {"PostgreSQL": postgresql, "Redis": cache}

    async def _sql(self, query: str, **params: Any) -> list[Any]:
        from sqlalchemy import text

        async with self._pool().connect() as conn:
            return list((await conn.execute(text(query), params)).all())

    def _pool(self) -> Any:
        """Connections of paor's own: a quota check runs inside the auth handler, while Aegra's request holds one of
        its pool's connections and, at a client's turn (`Counters.turn`), others wait holding theirs; asked of that
        pool, 40 runs created at once starved it and 38 got 500 after its 30 s timeout."""
        if self._engine is None:
            from aegra_api.settings import settings
            from sqlalchemy.ext.asyncio import create_async_engine

            self._engine = create_async_engine(
                settings.db.database_url,
                pool_size=POOL_SIZE,
                max_overflow=POOL_SIZE,
                pool_pre_ping=True,
                connect_args={"prepared_statement_cache_size": 0},  # as Aegra's (PgBouncer)
            )
        return self._engine

    async def existing_threads(self, owner: str, thread_ids: Iterable[str]) -> set[str]:
        query = f"SELECT thread_id FROM thread WHERE thread_id = ANY(:ids) AND {_by_owner()}"
        return {str(row[0]) for row in await self._sql(query, ids=list(dict.fromkeys(thread_ids)), owner=owner)}

    async def count(self, owner: str, resource: str) -> int:
        rows = await self._sql(f"SELECT count(*) FROM {_TABLES[resource]} WHERE {_by_owner()}", owner=owner)
        return int(rows[0][0])

    async def runs_in_flight(self, owner: str, at_most: int) -> set[str]:
        query = f"SELECT run_id FROM runs WHERE status = ANY(:busy) AND {_by_owner()} LIMIT :most"
        rows = await self._sql(query, busy=list(IN_FLIGHT), owner=owner, most=at_most + 1)
        return {str(row[0]) for row in rows}

    async def thread_metadata(self, owner: str, thread_id: str) -> dict[str, object] | None:
        query = f"SELECT metadata_json FROM thread WHERE thread_id = :thread AND {_by_owner()}"
        rows = await self._sql(query, thread=thread_id, owner=owner)
        return dict(rows[0][0] or {}) if rows else None

    async def operator_names(self) -> list[str]:
        query = "SELECT name FROM assistant WHERE metadata @> CAST(:system AS jsonb)"
        return [str(row[0] or "") for row in await self._sql(query, system='{"created_by": "system"}')]

    async def threads_of_assistant(self, owner: str, assistant_id: str) -> list[str]:
        query = f"SELECT thread_id FROM thread WHERE metadata_json->>'assistant_id' = :assistant AND {_by_owner()}"
        return [str(row[0]) for row in await self._sql(query, assistant=assistant_id, owner=owner)]

    async def store_sizes(self, owner: str) -> StoreSizes:
        """Summed in PostgreSQL: a value's size is its stored JSON's, which every instance reads alike."""
        scope = f"users.{owner}.{owner}"
        query = (
            "SELECT prefix, key, octet_length(value::text) FROM store "
            "WHERE prefix = :scope OR starts_with(prefix, :below)"
        )
        sizes: StoreSizes = {}
        for prefix, key, value_size in await self._sql(query, scope=scope, below=scope + "."):
            namespace = tuple(str(prefix).split("."))[2:]
            sizes[(namespace, str(key))] = item_size(namespace, str(key), int(value_size))
        return sizes

    async def delete_history(self, thread: str) -> None:
        """From the graph's own store, which Aegra's API would prefix with ["users", identity]."""
        from aegra_api.core.database import db_manager

        namespace = history_store.namespace(thread)
        store = db_manager.get_store()
        while found := await store.asearch(tuple(namespace), limit=100):
            for item in found:
                await store.adelete(item.namespace, item.key)
