"""Persistence: checkpoints and the learning store, in SQLite (one machine) or PostgreSQL (many workers).

One setting picks the backend: `PAOR_DATABASE_URL=postgresql://…` (or `--db` on the CLI, or the `url` argument of
`open_persistence`) selects PostgreSQL; unset keeps the SQLite file `$PAOR_HOME/paor.sqlite` (`PAOR_DB` overrides).
The server loads `checkpointer` and `store` from langgraph.json (it refuses graphs compiled with their own); Python
callers use `open_persistence` (or `open_sqlite`), so every interface sees the same threads and strategies.

Several workers may share one PostgreSQL database. LangGraph's checkpoint versions do not stop two processes from
running the same thread at once (both would append checkpoints to it), so a run holds a per-thread lock:

- PostgreSQL: a session-level advisory lock `pg_try_advisory_lock(key)` (key: 64-bit hash of the thread id) on a
  dedicated connection, and the run's checkpoints are written *through that same connection*. If the session dies
  (worker killed, database restarted) the lock is released by the server and the run's next checkpoint write fails
  (`DatabaseUnavailable`), so a run can never write checkpoints without holding the lock; the thread resumes
  from its last checkpoint in whichever worker takes the lock next.
- SQLite: `fcntl.flock` on a lock file next to the database (`<db>.locks/<hash>.lock`); SQLite is single-machine.

`ThreadBusy` is raised when another worker holds the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, closing, contextmanager
from pathlib import Path
from typing import Any, TypeGuard
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base import BaseStore
from langgraph.store.base.batch import AsyncBatchedBaseStore
from langgraph.store.sqlite import SqliteStore

from core.context import paor_home
from core.errors import ConfigurationError, PaorError
from core.sqlite_store import ImmediateAsyncSqliteStore, ImmediateSqliteStore
from core.writable import database_problem

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"
#: Seconds to wait for a pooled connection (and for the pool to open) before the step fails.
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_POOL_SIZE = 10
#: The server drops a dead worker's session (and its thread locks) after ~10 + 5 * 3 s without keepalive answers.
_KEEPALIVE_OPTIONS = "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"
_SETUP_DONE: set[str] = set()


class ThreadBusy(PaorError):
    """Another worker is running this thread right now; try again once it has finished."""


class DatabaseUnavailable(PaorError):
    """The database cannot be reached or went away mid-run; the thread resumes from its last checkpoint later."""


# --- settings ---------------------------------------------------------------------------------------------------


def database_path() -> Path:
    path = sqlite_file()
    _make_folder(path.parent)
    return path


def _make_folder(folder: Path) -> None:
    """The folder, created if missing; a one-line ConfigurationError when it cannot be, never a traceback."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(f"cannot create the folder {folder}: {(exc.strerror or str(exc)).lower()}") from exc


def database_url(url: str | os.PathLike[str] | None = None) -> str | None:
    """The explicit setting, else `PAOR_DATABASE_URL`, else None (the default SQLite file)."""
    chosen = str(url) if url else os.environ.get("PAOR_DATABASE_URL", "").strip()
    return chosen or None


def is_postgres(url: str | None) -> TypeGuard[str]:
    return bool(url) and str(url).startswith(POSTGRES_SCHEMES)


def sqlite_path(url: str | os.PathLike[str] | None = None) -> Path:
    """`sqlite_file(url)`, its folder created."""
    path = sqlite_file(url)
    _make_folder(path.parent)
    return path


def sqlite_file(url: str | os.PathLike[str] | None = None) -> Path:
    """The SQLite file a non-PostgreSQL setting names: a path, `sqlite:///path`, or the default file (`PAOR_DB`,
    else `$PAOR_HOME/paor.sqlite`). Nothing is created."""
    chosen = database_url(url)
    if chosen is None:
        return Path(os.environ.get("PAOR_DB") or paor_home() / "paor.sqlite")
    if chosen.startswith(SQLITE_SCHEME):
        chosen = chosen.removeprefix("sqlite://")
    elif "://" in chosen:
        raise ConfigurationError(
            f"unsupported database URL {mask_url(chosen)}: use postgresql://…, sqlite:///path or a file path"
        )
    return Path(chosen).expanduser()


def mask_url(url: str) -> str:
    """The URL with its password (in the netloc or a `password=` parameter) replaced by ***: safe to print."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            userinfo, _, host = netloc.rpartition("@")
            netloc = f"{userinfo.partition(':')[0]}:***@{host}"
        query = parts.query
        if "password" in query.lower():
            pairs = [(k, "***" if k.lower() == "password" else v) for k, v in parse_qsl(query, keep_blank_values=True)]
            query = urlencode(pairs, safe="*")
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "(unparseable database URL)"


def describe_database(url: str | os.PathLike[str] | None = None) -> str:
    """What `doctor` and error messages show: the masked URL or the SQLite path."""
    chosen = database_url(url)
    return mask_url(chosen) if is_postgres(chosen) else str(sqlite_file(url))


def _secret_free(message: str, url: str | None) -> str:
    password = urlsplit(url).password if url else None
    return message.replace(password, "***") if password else message


def _timeout() -> float:
    try:
        return float(os.environ.get("PAOR_DATABASE_TIMEOUT") or DEFAULT_TIMEOUT_S)
    except ValueError as exc:
        raise ConfigurationError("PAOR_DATABASE_TIMEOUT must be a number of seconds") from exc


def _pool_size() -> int:
    try:
        return max(2, int(os.environ.get("PAOR_DATABASE_POOL_SIZE") or DEFAULT_POOL_SIZE))
    except ValueError as exc:
        raise ConfigurationError("PAOR_DATABASE_POOL_SIZE must be an integer") from exc


def _connection_kwargs() -> dict[str, Any]:
    """What langgraph-checkpoint-postgres requires of every connection, plus fast failure and dead-peer detection."""
    from psycopg.rows import dict_row

    return {
        "autocommit": True,
        "prepare_threshold": 0,
        "row_factory": dict_row,
        "connect_timeout": max(1, round(_timeout())),
        "options": _KEEPALIVE_OPTIONS,
    }


def _pool_options(name: str) -> dict[str, Any]:
    """What the sync and the async pool share; each is opened explicitly so a dead server fails fast."""
    return {
        "min_size": 1,
        "max_size": _pool_size(),
        "kwargs": _connection_kwargs(),
        "timeout": _timeout(),
        "open": False,
        "name": name,
    }


def _require_postgres() -> None:
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError(
            f"PostgreSQL support is not installed ({exc}); install it with: pip install 'paor[postgres]'"
        ) from exc


@contextmanager
def database_errors(url: str | os.PathLike[str] | None = None, thread_id: str | None = None) -> Iterator[None]:
    """Turn a lost or unreachable PostgreSQL server into `DatabaseUnavailable` with a clear, password-free reason."""
    chosen = database_url(url)
    if not is_postgres(chosen):
        yield
        return
    _require_postgres()
    import psycopg
    import psycopg_pool

    then = f"; the thread resumes with `paor resume {thread_id}` once it is back" if thread_id else ""
    try:
        yield
    except DatabaseUnavailable as exc:  # raised by an inner helper that did not know the thread
        if then and then not in str(exc):
            raise DatabaseUnavailable(f"{exc}{then}") from exc.__cause__
        raise
    except (psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout) as exc:
        reason = _secret_free(" ".join(str(exc).split()) or type(exc).__name__, chosen)
        if _refused_login(exc):
            raise ConfigurationError(
                f"the database {mask_url(str(chosen))} refused the login ({reason}); "
                "check the user, password and database name in PAOR_DATABASE_URL"
            ) from exc
        raise DatabaseUnavailable(f"the database {mask_url(str(chosen))} is unavailable ({reason}){then}") from exc


# What the server answers a login it will never accept. libpq gives failed connections no SQLSTATE, so the
# server's (English) message is all there is; everything else — refused, timed out, starting up, too many
# clients — may pass and stays "try again later".
_LOGIN_REFUSALS = (
    "password authentication failed",
    "no password supplied",
    "no pg_hba.conf entry",
    "is not permitted to log in",
    "permission denied for database",
    "does not exist",  # role "x" / database "x"
)


def _refused_login(exc: Exception) -> bool:
    """A connection attempt the server answered with a permanent refusal of these credentials or this database."""
    message = str(exc)
    return getattr(exc, "sqlstate", None) is None and any(refusal in message for refusal in _LOGIN_REFUSALS)


def lock_key(thread_id: str) -> int:
    """The advisory-lock key of a thread: a signed 64-bit hash (hashtext's 32 bits collide too easily)."""
    digest = hashlib.blake2b(thread_id.encode(), digest_size=8, person=b"paor-thread-lock").digest()
    return int.from_bytes(digest, "big", signed=True)


_SETUP_KEY = lock_key("\x00paor schema setup")


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
    with (_locks_folder(db) / "schema.lock").open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@asynccontextmanager
async def _async_schema_lock(db: Path) -> AsyncIterator[None]:
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

    with psycopg.Connection.connect(url, **_connection_kwargs()) as conn:
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


async def _asetup_postgres(url: str) -> None:
    if url in _SETUP_DONE:
        return
    import psycopg
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres.aio import AsyncPostgresStore

    async with await psycopg.AsyncConnection.connect(url, **_connection_kwargs()) as conn:
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
    _require_postgres()
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore
    from psycopg_pool import ConnectionPool

    with database_errors(url):
        _setup_postgres(url)
        # check_connection: a server restart leaves dead connections in the pool
        pool: ConnectionPool[Any] = ConnectionPool(url, check=ConnectionPool.check_connection, **_pool_options("paor"))
        pool.open(wait=True, timeout=_timeout())
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


# --- one run per thread at a time -------------------------------------------------------------------------------


class ThreadLease:
    """Proof that this process runs `thread_id`. With PostgreSQL, `checkpointer` writes through the session that
    holds the lock (use it for the run); with SQLite it is None and the shared checkpointer is fine.

    (A plain class: langgraph dev loads this file outside sys.modules, where @dataclass cannot resolve it.)"""

    def __init__(self, thread_id: str, checkpointer: BaseCheckpointSaver | None = None) -> None:
        self.thread_id = thread_id
        self.checkpointer = checkpointer


def _busy(thread_id: str) -> ThreadBusy:
    return ThreadBusy(f"thread {thread_id} is being run by another worker; try again once that run has finished")


@contextmanager
def thread_lock(url: str | os.PathLike[str] | None, thread_id: str, *, wait_s: float = 0.0) -> Iterator[ThreadLease]:
    """Hold the thread's lock for the duration of a run; `ThreadBusy` if another worker still holds it after
    `wait_s` seconds."""
    chosen = database_url(url)
    if is_postgres(chosen):
        with _postgres_lock(chosen, thread_id, wait_s) as lease:
            yield lease
    else:
        with _file_lock(sqlite_path(url), thread_id, wait_s) as lease:
            yield lease


def _poll(try_once: Any, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    while True:
        if try_once():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


@contextmanager
def _postgres_lock(url: str, thread_id: str, wait_s: float) -> Iterator[ThreadLease]:
    _require_postgres()
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    key = lock_key(thread_id)
    with database_errors(url, thread_id):
        conn = psycopg.Connection.connect(url, **_connection_kwargs())
    try:
        with database_errors(url, thread_id):

            def try_once() -> bool:
                row = conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (key,)).fetchone()
                return bool(row and row["locked"])

            if not _poll(try_once, wait_s):
                raise _busy(thread_id)
        yield ThreadLease(thread_id, PostgresSaver(conn))
    finally:
        with contextlib.suppress(psycopg.Error):  # closing the session releases the lock in any case
            conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        conn.close()


def _locks_folder(db: Path) -> Path:
    folder = db.parent / f"{db.name}.locks"
    _make_folder(folder)
    return folder


@contextmanager
def _file_lock(db: Path, thread_id: str, wait_s: float) -> Iterator[ThreadLease]:
    name = hashlib.sha256(thread_id.encode()).hexdigest()[:32]
    with (_locks_folder(db) / f"{name}.lock").open("a+b") as handle:

        def try_once() -> bool:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

        if not _poll(try_once, wait_s):
            raise _busy(thread_id)
        try:
            yield ThreadLease(thread_id)
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


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


# --- langgraph.json factories -----------------------------------------------------------------------------------


@asynccontextmanager
async def _async_pool(url: str) -> AsyncIterator[Any]:
    _require_postgres()
    from psycopg_pool import AsyncConnectionPool

    with database_errors(url):
        await _asetup_postgres(url)
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            url, check=AsyncConnectionPool.check_connection, **_pool_options("paor-async")
        )
        await pool.open(wait=True, timeout=_timeout())
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
        async with _async_schema_lock(db):
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
        async with _async_schema_lock(db):
            await sqlite_store.conn.execute("PRAGMA busy_timeout=10000")
            await sqlite_store.conn.execute("PRAGMA journal_mode=WAL")
            await sqlite_store.setup()
        yield sqlite_store
