"""PostgreSQL fixtures: the server from PAOR_TEST_DATABASE_URL (.ci/run starts one), a fresh database per test, a
server of a test's own for a test that restarts it, and worker processes.

Outside CI the tests skip (with the reason) when no server is available; with CI=true a missing server fails.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.support import deadlines
from tests.support.postgres_cluster import PgCtl, private_cluster, server_binaries
from tests.support.scenarios import DATA_PROMPT, ai_process
from tests.support.scripted_llm import RecordedRequest

REPO = Path(__file__).resolve().parents[2]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI=true but {reason}; .ci/run starts a throwaway PostgreSQL cluster", pytrace=False)
    pytest.skip(f"no PostgreSQL server for tests/postgres: {reason} (set PAOR_TEST_DATABASE_URL, see .ci/run)")


@pytest.fixture(scope="session")
def pg_server() -> str:
    url = os.environ.get("PAOR_TEST_DATABASE_URL", "").strip()
    if not url:
        _unavailable("PAOR_TEST_DATABASE_URL is not set")
    try:
        import psycopg
    except ImportError:
        _unavailable("psycopg is not installed (pip install -e '.[postgres]')")
    try:
        with psycopg.connect(url, connect_timeout=int(deadlines.HTTP_S)) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        _unavailable(f"the server at PAOR_TEST_DATABASE_URL does not answer ({type(exc).__name__})")
    return url


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server: no threads, no strategies."""
    import psycopg

    name = f"paor_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class RestartDuringStep2:
    """The primes scenario's tool answer, restarting the server (fast) once while step 2's action is in flight."""

    pg_ctl: PgCtl
    done: threading.Event = field(default_factory=threading.Event)

    def __call__(self, request: RecordedRequest) -> str:
        if DATA_PROMPT in request.text and not self.done.is_set():
            self.pg_ctl("restart", "-m", "fast")
            self.done.set()
        return ai_process(request)


@dataclass
class OwnServer:
    """A PostgreSQL server of the test's own, which it may stop and restart."""

    url: str  # a fresh database on it
    pg_ctl: PgCtl


@pytest.fixture
def own_server() -> Iterator[OwnServer]:
    """A new cluster for a test that stops or restarts its server (the shared one serves tests running beside it)."""
    binaries = server_binaries()
    if binaries is None:
        _unavailable("no PostgreSQL server binaries (apt-get install postgresql; .ci/run does)")
    assert binaries is not None
    with private_cluster(binaries) as (url, pg_ctl):
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute('CREATE DATABASE "paor_test"')
        yield OwnServer(with_database(url, "paor_test"), pg_ctl)


@dataclass
class PasswordLogin:
    """A role that must log in with its password (scram-sha-256), owning a fresh database."""

    right: str  # URL with the role's password
    wrong: str  # the same URL with a wrong password


def with_login(url: str, user: str, password: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{user}:{password}@{parts.netloc.rpartition('@')[2]}", *parts[2:]))


def _write_hba(conn: Any, hba_file: str, lines: list[str]) -> None:
    """Rewrite pg_hba.conf through the server (it owns the file) and make it reload the rules."""
    from psycopg import sql

    rows = sql.SQL("COPY (SELECT line FROM unnest({}::text[]) AS line) TO {}")
    conn.execute(rows.format(sql.Literal([line.replace("\t", " ") for line in lines]), sql.Literal(hba_file)))
    conn.execute("SELECT pg_reload_conf()")


@pytest.fixture
def password_login(own_server: OwnServer) -> Iterator[PasswordLogin]:
    """A role that must log in with its password: a rule in front of the trust rules of a server of the test's own
    (which trusts every loopback login), so the suite's shared server is never asked for passwords."""
    import psycopg
    from psycopg import sql

    role, password = f"paor_login_{uuid.uuid4().hex[:8]}", secrets.token_urlsafe(12)
    database = urlsplit(own_server.url).path.lstrip("/")
    with psycopg.connect(own_server.url, autocommit=True) as conn:
        hba_file = conn.execute("SHOW hba_file").fetchone()[0]  # type: ignore[index]
        original = conn.execute("SELECT pg_read_file(%s)", (hba_file,)).fetchone()[0]  # type: ignore[index]
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(database), sql.Identifier(role)))
        rules = [f"host all {role} {net} scram-sha-256" for net in ("127.0.0.1/32", "::1/128")]
        _write_hba(conn, hba_file, [*rules, *original.splitlines()])
    login = PasswordLogin(
        with_login(own_server.url, role, password), with_login(own_server.url, role, f"not-{password}")
    )
    deadline = time.monotonic() + deadlines.HTTP_S
    while True:  # the server reloads pg_hba.conf asynchronously
        try:
            psycopg.connect(login.wrong, connect_timeout=5).close()
        except psycopg.OperationalError:
            break
        assert time.monotonic() < deadline, "the server never applied the password rule"
        time.sleep(0.05)
    yield login


def worker_command(db: str, base_url: str, store_dir: Path, threads: list[str], *, claim: bool = False) -> list[str]:
    """A worker process (tests/postgres/worker.py) running `threads` against `db` and the scripted model."""
    command = [sys.executable, "-m", "tests.postgres.worker", "--db", db, "--base-url", base_url]
    command += ["--store-dir", str(store_dir), "--threads", ",".join(threads)]
    return [*command, "--claim"] if claim else command


def start_worker(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def start_together(commands: list[list[str]]) -> list[subprocess.Popen[str]]:
    """Workers that start their threads at once, when every one has imported paor and said so: on a loaded
    machine the first would otherwise run most threads before the last one has started. Their database waits are
    the test's deadlines, not the 10 s default: four workers colliding on every thread while other tests share the
    two cores are slow, not unavailable."""
    env = {**os.environ, "PAOR_DATABASE_TIMEOUT": str(int(deadlines.HTTP_S))}
    workers = [
        subprocess.Popen(
            [*command, "--gate"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline() == "ready\n", "a worker ended before starting"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    return workers


def results(process: subprocess.Popen[str], timeout: float = deadlines.PROCESS_S) -> list[dict[str, Any]]:
    """The worker's JSON lines, one per thread; fails with its stderr if it crashed."""
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, f"worker exited {process.returncode}\n{err[-3000:]}"
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]
