"""Persistence: checkpoints and the learning store, in SQLite (one machine) or PostgreSQL (many workers), their
schemas set up once, and opened for a run with its thread's lock held (core/thread_lock.py).

core/database.py says which database a setting names; `langgraph dev` loads its own factories
(core/server_persistence.py, named in langgraph.json); Python callers use `open_persistence` (or `open_sqlite`), so
every interface sees the same threads and strategies.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing, contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.base import BaseStore
from langgraph.store.sqlite import SqliteStore

from core.database import (
    connection_kwargs,
    database_errors,
    database_url,
    is_postgres,
    lock_key,
    make_folder,
    pool_options,
    require_postgres,
    sqlite_file,
    sqlite_path,
    timeout_s,
)
from core.errors import ConfigurationError
from core.sqlite_store import ImmediateSqliteStore
from core.thread_lock import locks_folder, thread_lock
from core.writable import database_problem

_SETUP_DONE: set[str] = set()
_SETUP_KEY = lock_key("\x00paor schema setup")


def database_path() -> Path:
    """The default SQLite file, its folder created."""
    path = sqlite_file()
    make_folder(path.parent)
    return path


# --- SQLite -----------------------------------------------------------------------------------------------------


# Tables LangGraph's SqliteSaver and SqliteStore create; a database holding none of them is not paor's.
_PAOR_TABLES = frozenset(
    {
        "checkpoints",
        "writes",
        "store",
        "store_vectors",
        "store_migrations",
        "vector_migrations",
        "checkpoint_migrations",
    }
)


def check_database(path: Path) -> None:
    """Refuse a file that is not SQLite before LangGraph touches it: a clear error, the file left as it was."""
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with path.open("rb") as handle:
            header = handle.read(16)
    except OSError as exc:
        raise _unwritable(path, f"cannot be read ({(exc.strerror or str(exc)).lower()})") from exc
    if header != b"SQLite format 3\x00":
        raise ConfigurationError(f"{path} is not an SQLite database; choose another file (PAOR_DB)")
    side_files = [path.with_name(f"{path.name}{suffix}") for suffix in ("-wal", "-shm")]
    absent = [side for side in side_files if not side.exists()]
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        for side in absent:  # a header that says WAL makes SQLite create these even for a file it then refuses
            side.unlink(missing_ok=True)
        denied = database_problem(path)  # SQLite says "unable to open" or "readonly" for a permission problem
        if denied:
            raise _unwritable(path, denied) from exc
        raise ConfigurationError(f"{path} is not a usable SQLite database: {exc}") from exc
    foreign = tables - _PAOR_TABLES
    if foreign and not tables & _PAOR_TABLES:
        raise ConfigurationError(
            f"{path} belongs to another application (tables {sorted(foreign)[:5]}); choose another file (PAOR_DB)"
        )


def _connect(path: Path, *, autocommit: bool) -> sqlite3.Connection:
    # SqliteSaver relies on implicit transactions (its cursor() commits once per put/put_writes), so all writes
    # of one task land atomically; SqliteStore issues its own BEGIN and needs autocommit.
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None if autocommit else "DEFERRED")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


@contextmanager
def open_sqlite(path: Path | str | None = None) -> Iterator[tuple[SqliteSaver, SqliteStore]]:
    """Checkpointer and store over one SQLite file (WAL, so a CLI and a server can share it)."""
    db = Path(path) if path else database_path()
    check_database(db)
    with contextlib.ExitStack() as connections:
        with _unwritable_explained(db), _schema_lock(db):  # a new file's first connection switches it to WAL
            saver = SqliteSaver(connections.enter_context(closing(_connect(db, autocommit=False))))
            store = ImmediateSqliteStore(connections.enter_context(closing(_connect(db, autocommit=True))))
            saver.setup()
            store.setup()
        yield saver, store


@contextmanager
def _unwritable_explained(db: Path) -> Iterator[None]:
    """A database (or its folder) paor cannot write fails as one ConfigurationError saying so, not as SQLite's
    "attempt to write a readonly database" or a PermissionError from deep inside the set-up."""
    try:
        yield
    except (OSError, sqlite3.OperationalError) as exc:
        denied = database_problem(db)
        if denied is None:
            raise
        raise _unwritable(db, denied) from exc


def _unwritable(db: Path, problem: str) -> ConfigurationError:
    return ConfigurationError(f"the database {db} {problem}; fix that or choose another file (PAOR_DB)")


@contextmanager
def _schema_lock(db: Path) -> Iterator[None]:
    """One process at a time sets a file's tables up: two opening a new file at once would both run the store's
    migrations (each a statement, then its version row, in autocommit), and the slower one fails on what the
    other has just done — a duplicate column or version row. Serialised, the second finds them done."""
    with (locks_folder(db) / "schema.lock").open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@asynccontextmanager
async def async_schema_lock(db: Path) -> AsyncIterator[None]:
    """`_schema_lock`, waited for off the event loop."""
    lock = _schema_lock(db)
    await asyncio.to_thread(lock.__enter__)
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


# --- PostgreSQL -------------------------------------------------------------------------------------------------


def _setup_postgres(url: str) -> None:
    """Run both schemas' migrations once per process, serialized across workers by an advisory lock."""
    if url in _SETUP_DONE:
        return
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore

    with psycopg.Connection.connect(url, **connection_kwargs()) as conn:
        # Poll rather than block in pg_advisory_lock: a waiting statement is an open transaction, and the
        # migrations' CREATE INDEX CONCURRENTLY waits for every open transaction (a deadlock with the holder).
        while True:
            row = conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (_SETUP_KEY,)).fetchone()
            if row and row["locked"]:
                break
            time.sleep(0.05)
        try:
            PostgresSaver(conn).setup()
            PostgresStore(conn).setup()
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_KEY,))
    _SETUP_DONE.add(url)


async def asetup_postgres(url: str) -> None:
    if url in _SETUP_DONE:
        return
    import psycopg
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres.aio import AsyncPostgresStore

    async with await psycopg.AsyncConnection.connect(url, **connection_kwargs()) as conn:
        while True:  # polled, not blocking: see _setup_postgres
            row = await (await conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (_SETUP_KEY,))).fetchone()
            if row and row["locked"]:
                break
            await asyncio.sleep(0.05)
        try:
            await AsyncPostgresSaver(conn).setup()
            await AsyncPostgresStore(conn).setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_KEY,))
    _SETUP_DONE.add(url)


@contextmanager
def open_postgres(url: str) -> Iterator[tuple[BaseCheckpointSaver, BaseStore]]:
    """PostgresSaver and PostgresStore sharing one connection pool; migrations applied first."""
    require_postgres()
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore
    from psycopg_pool import ConnectionPool

    with database_errors(url):
        _setup_postgres(url)
        # check_connection: a server restart leaves dead connections in the pool
        pool: ConnectionPool[Any] = ConnectionPool(url, check=ConnectionPool.check_connection, **pool_options("paor"))
        pool.open(wait=True, timeout=timeout_s())
    try:
        yield PostgresSaver(pool), PostgresStore(pool)
    finally:
        pool.close()


@contextmanager
def open_persistence(url: str | os.PathLike[str] | None = None) -> Iterator[tuple[BaseCheckpointSaver, BaseStore]]:
    """(checkpointer, store) for `url`, else `PAOR_DATABASE_URL`: PostgreSQL for postgresql:// URLs, else SQLite."""
    chosen = database_url(url)
    if is_postgres(chosen):
        with open_postgres(chosen) as pair:
            yield pair
    else:
        with open_sqlite(sqlite_path(url)) as (saver, store):
            yield saver, store


@contextmanager
def locked_persistence(
    thread_id: str, url: str | os.PathLike[str] | None = None, *, wait_s: float = 0.0
) -> Iterator[tuple[BaseCheckpointSaver, BaseStore]]:
    """(checkpointer, store) for running `thread_id` while holding its lock: what every worker should use to run or
    resume a thread. Database failures surface as `DatabaseUnavailable`, a held lock as `ThreadBusy`."""
    with (
        database_errors(url, thread_id),
        open_persistence(url) as (saver, store),
        thread_lock(url, thread_id, wait_s=wait_s) as lease,
    ):
        yield lease.checkpointer or saver, store
