"""Which database paor uses, and how it speaks of it: one setting picks the backend.

`PAOR_DATABASE_URL=postgresql://…` (or `--db` on the CLI, or the `url` argument of `open_persistence`) selects
PostgreSQL; unset keeps the SQLite file `$PAOR_HOME/paor.sqlite` (`PAOR_DB` overrides). A URL is shown only masked,
and a lost or unreachable server becomes `DatabaseUnavailable` with a password-free reason.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeGuard
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from core.context import paor_home
from core.errors import ConfigurationError, PaorError

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"
#: Seconds to wait for a pooled connection (and for the pool to open) before the step fails.
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_POOL_SIZE = 10
#: The server drops a dead worker's session (and its thread locks) after ~10 + 5 * 3 s without keepalive answers.
_KEEPALIVE_OPTIONS = "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"


class ThreadBusy(PaorError):
    """Another worker is running this thread right now; try again once it has finished."""


class DatabaseUnavailable(PaorError):
    """The database cannot be reached or went away mid-run; the thread resumes from its last checkpoint later."""


def make_folder(folder: Path) -> None:
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
    make_folder(path.parent)
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


def timeout_s() -> float:
    try:
        return float(os.environ.get("PAOR_DATABASE_TIMEOUT") or DEFAULT_TIMEOUT_S)
    except ValueError as exc:
        raise ConfigurationError("PAOR_DATABASE_TIMEOUT must be a number of seconds") from exc


def pool_size() -> int:
    try:
        return max(2, int(os.environ.get("PAOR_DATABASE_POOL_SIZE") or DEFAULT_POOL_SIZE))
    except ValueError as exc:
        raise ConfigurationError("PAOR_DATABASE_POOL_SIZE must be an integer") from exc


def connection_kwargs() -> dict[str, Any]:
    """What langgraph-checkpoint-postgres requires of every connection, plus fast failure and dead-peer detection."""
    from psycopg.rows import dict_row

    return {
        "autocommit": True,
        "prepare_threshold": 0,
        "row_factory": dict_row,
        "connect_timeout": max(1, round(timeout_s())),
        "options": _KEEPALIVE_OPTIONS,
    }


def pool_options(name: str) -> dict[str, Any]:
    """What the sync and the async pool share; each is opened explicitly so a dead server fails fast."""
    return {
        "min_size": 1,
        "max_size": pool_size(),
        "kwargs": connection_kwargs(),
        "timeout": timeout_s(),
        "open": False,
        "name": name,
    }


def require_postgres() -> None:
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
    require_postgres()
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
