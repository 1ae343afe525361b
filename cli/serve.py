"""`paor serve`: paor's graph on Aegra, with PostgreSQL and Redis — the production engine, several processes on one
or more machines acting as one service (`langgraph dev` stays the development server, for Studio).

The operator's settings are paor's: `PAOR_DATABASE_URL` (PostgreSQL: threads, runs, checkpoints, store),
`PAOR_REDIS_URL` (the run queue, leases and streams), `PAOR_SERVER_API_KEY`, `PAOR_STORE_DIR`. They become Aegra's
(`DATABASE_URL`, `REDIS_URL` with its broker on) for the launcher (server/aegra_launch.py), which sets the schema up
once under an advisory lock however many instances start together, then serves `aegra.json`.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from core.errors import ConfigurationError

DATABASE_ENV, REDIS_ENV = "PAOR_DATABASE_URL", "PAOR_REDIS_URL"
CONFIG = Path(__file__).resolve().parents[1] / "aegra.json"
#: Seconds to wait for PostgreSQL or Redis at start before saying which one does not answer.
CONNECT_S = 5


def engine_environment(environ: dict[str, str], *, to_terminal: bool = True) -> dict[str, str]:
    """The environment Aegra runs in, from paor's settings; ConfigurationError naming what is missing. Logs that go
    to a file or a collector are JSON lines (Aegra's `ENV_MODE=PRODUCTION`): its console format kept its colour codes
    in every file; in a terminal they stay readable. An operator's own `ENV_MODE` wins."""
    if sys.version_info < (3, 12) or importlib.util.find_spec("aegra_api") is None:
        raise ConfigurationError(
            "paor serve runs on Aegra, which needs Python 3.12 or later: in a 3.12 venv, "
            "pip install -c constraints.txt -e '.[aegra]'"
        )
    database, redis = environ.get(DATABASE_ENV, "").strip(), environ.get(REDIS_ENV, "").strip()
    missing = [name for name, value in ((DATABASE_ENV, database), (REDIS_ENV, redis)) if not value]
    if missing:
        raise ConfigurationError(f"paor serve needs {' and '.join(missing)} (postgresql://… and redis://…)")
    if not database.startswith(("postgres://", "postgresql://", "postgresql+")):
        raise ConfigurationError(f"{DATABASE_ENV} must be a PostgreSQL URL (postgresql://…)")
    from cli.preflight import KEYS, key_problem

    if problem := next((found for name in KEYS if (found := key_problem(name, environ))), None):
        raise ConfigurationError(problem)  # a pasted `sk-…`, as `paor run` refuses it: every run would fail
    return {
        **environ,
        "DATABASE_URL": database,
        "REDIS_URL": redis,
        "REDIS_BROKER_ENABLED": "true",
        "AEGRA_CONFIG": str(CONFIG),
        "RUN_MIGRATIONS_ON_STARTUP": "false",
        "ENV_MODE": environ.get("ENV_MODE") or ("LOCAL" if to_terminal else "PRODUCTION"),
    }


def masked(url: str) -> str:
    """`url` without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def reachable(environment: dict[str, str]) -> None:
    """Both services answer and take the login, or ConfigurationError naming which one and why (password masked)."""
    import psycopg
    import redis

    database, cache = environment["DATABASE_URL"], environment["REDIS_URL"]
    try:
        psycopg.connect(database, connect_timeout=CONNECT_S).close()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise ConfigurationError(f"PostgreSQL at {masked(database)} ({DATABASE_ENV}): {reason}") from None
    try:
        client = redis.Redis.from_url(cache, socket_connect_timeout=CONNECT_S, socket_timeout=CONNECT_S)
        client.ping()
        client.close()
    except (redis.RedisError, ValueError) as exc:
        raise ConfigurationError(f"Redis at {masked(cache)} ({REDIS_ENV}): {exc}") from None


#: The Redis key naming the document folder every instance of the service shares, and the file in it that says so.
STORE_KEY, STORE_MARK = "paor:store-id", ".paor-service"


def folder_mark(folder: Path) -> str:
    """The mark of the documents folder, made by the first instance that finds none. Made whole and linked in place
    (atomic, also on NFS): instances starting together on a new folder each wrote a mark of their own, and all but
    the one Redis names were refused — and so, for good, was every later start, the folder's mark not Redis's."""
    folder.mkdir(parents=True, exist_ok=True)
    mark = folder / STORE_MARK
    if not mark.is_file():
        draft = folder / f"{STORE_MARK}.{secrets.token_hex(8)}"
        draft.write_text(secrets.token_hex(16), encoding="utf-8")
        try:
            os.link(draft, mark)
        except FileExistsError:  # another instance's came first: it is the folder's
            pass
        finally:
            draft.unlink()
    return mark.read_text(encoding="utf-8").strip()


def same_store(environment: dict[str, str], folder: Path) -> None:
    """The documents folder is the one the service's other instances use (on another machine: a shared mount), or
    ConfigurationError: uploads and links made on one instance would not open on this one. The first instance marks
    its folder and names the mark in Redis; the others find it there."""
    import redis

    ours = folder_mark(folder)
    with redis.Redis.from_url(environment["REDIS_URL"], socket_timeout=CONNECT_S, decode_responses=True) as client:
        client.set(STORE_KEY, ours, nx=True)
        theirs = client.get(STORE_KEY)
    if theirs != ours:
        named = environment.get("PAOR_STORE_DIR") or str(folder.parent)  # the value set, not paor's subfolder of it
        raise ConfigurationError(
            f"the documents folder {named} (PAOR_STORE_DIR) is not the one the service's other instances use: "
            "mount their folder there (on another machine, a shared file system), or, to start the service on "
            f"a new folder, delete the Redis key {STORE_KEY}"
        )


def serve(host: str, port: int, workers: int = 1) -> None:
    """Become the launcher: schema once, then Aegra serving paor (this process is replaced)."""
    environment = engine_environment(dict(os.environ), to_terminal=sys.stdout.isatty())
    reachable(environment)
    from server.settings import server_store

    same_store(environment, server_store())
    os.chdir(CONFIG.parent)  # Aegra resolves the configuration's paths from there
    launcher = [sys.executable, "-m", "server.aegra_launch", "--host", host, "--port", str(port)]
    os.execve(sys.executable, [*launcher, "--workers", str(workers)], environment)
