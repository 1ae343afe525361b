"""The persistence factories `langgraph dev` loads (langgraph.json `checkpointer` and `store`): async PostgreSQL on
PAOR_DATABASE_URL, else the SQLite file. (`paor serve` runs on Aegra's own, on the same PostgreSQL.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base.batch import AsyncBatchedBaseStore

from core.database import (
    database_errors,
    database_url,
    is_postgres,
    pool_options,
    require_postgres,
    sqlite_path,
    timeout_s,
)
from core.persistence import asetup_postgres, async_schema_lock, check_database
from core.sqlite_store import ImmediateAsyncSqliteStore


@asynccontextmanager
async def _async_pool(url: str) -> AsyncIterator[Any]:
    require_postgres()
    from psycopg_pool import AsyncConnectionPool

    with database_errors(url):
        await asetup_postgres(url)
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            url, check=AsyncConnectionPool.check_connection, **pool_options("paor-async")
        )
        await pool.open(wait=True, timeout=timeout_s())
    try:
        yield pool
    finally:
        await pool.close()


@asynccontextmanager
async def checkpointer() -> AsyncIterator[BaseCheckpointSaver]:
    """langgraph.json `checkpointer.path` factory: AsyncPostgresSaver with PAOR_DATABASE_URL, else SQLite."""
    url = database_url()
    if is_postgres(url):
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async with _async_pool(url) as pool:
            yield AsyncPostgresSaver(pool)
        return
    db = sqlite_path()
    check_database(db)
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        async with async_schema_lock(db):
            await saver.setup()
        yield saver


@asynccontextmanager
async def store() -> AsyncIterator[AsyncBatchedBaseStore]:
    """langgraph.json `store.path` factory: AsyncPostgresStore with PAOR_DATABASE_URL, else SQLite."""
    url = database_url()
    if is_postgres(url):
        from langgraph.store.postgres.aio import AsyncPostgresStore

        async with _async_pool(url) as pool:
            yield AsyncPostgresStore(pool)
        return
    db = sqlite_path()
    check_database(db)
    async with ImmediateAsyncSqliteStore.from_conn_string(str(db)) as sqlite_store:
        async with async_schema_lock(db):
            await sqlite_store.conn.execute("PRAGMA busy_timeout=10000")
            await sqlite_store.conn.execute("PRAGMA journal_mode=WAL")
            await sqlite_store.setup()
        yield sqlite_store
