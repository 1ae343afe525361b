"""SQLite persistence: checkpoints and the learning store, for Python/CLI use and for `langgraph dev`.

The server loads `checkpointer` and `store` from langgraph.json (it refuses graphs compiled with their own); Python
callers use `open_sqlite`. Both default to `$PAOR_HOME/paor.sqlite` (`PAOR_DB` overrides) so every interface sees
the same threads and the same learned strategies.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.sqlite import SqliteStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from graph.context import paor_home
from graph.errors import ConfigurationError


def database_path() -> Path:
    path = Path(os.environ.get("PAOR_DB") or paor_home() / "paor.sqlite")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def check_database(path: Path) -> None:
    """Refuse a file that is not SQLite before LangGraph touches it: a clear error, the file left as it was."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as handle:
        if handle.read(16) != b"SQLite format 3\x00":
            raise ConfigurationError(f"{path} is not an SQLite database; choose another file (PAOR_DB)")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise ConfigurationError(f"{path} is not a usable SQLite database: {exc}") from exc


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


@contextmanager
def open_sqlite(path: Path | str | None = None) -> Iterator[tuple[SqliteSaver, SqliteStore]]:
    """Checkpointer and store over one SQLite file (WAL, so a CLI and a server can share it)."""
    db = Path(path) if path else database_path()
    check_database(db)
    saver_conn, store_conn = _connect(db), _connect(db)
    try:
        saver = SqliteSaver(saver_conn)
        saver.setup()
        store = SqliteStore(store_conn)
        store.setup()
        yield saver, store
    finally:
        saver_conn.close()
        store_conn.close()


@asynccontextmanager
async def checkpointer() -> AsyncIterator[AsyncSqliteSaver]:
    """langgraph.json `checkpointer.path` factory."""
    db = database_path()
    check_database(db)
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        await saver.setup()
        yield saver


@asynccontextmanager
async def store() -> AsyncIterator[AsyncSqliteStore]:
    """langgraph.json `store.path` factory."""
    db = database_path()
    check_database(db)
    async with AsyncSqliteStore.from_conn_string(str(db)) as sqlite_store:
        await sqlite_store.setup()
        yield sqlite_store
