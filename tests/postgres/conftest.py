"""PostgreSQL fixtures: the server from PAOR_TEST_DATABASE_URL (.ci/run starts one), a fresh database per test,
pg_ctl to restart it, and worker processes.

Outside CI the tests skip (with the reason) when no server is available; with CI=true a missing server fails.
"""

from __future__ import annotations

import json
import os
import pwd
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

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
        with psycopg.connect(url, connect_timeout=5) as conn:
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
class PgCtl:
    """pg_ctl of the test cluster, run as the data directory's owner (pg_ctl refuses to run as root)."""

    binary: str
    data: str
    options: str = ""  # the running server's command-line options: `pg_ctl start` would not reuse them

    def __call__(self, action: str, *args: str, timeout: float = 60) -> None:
        """`pg_ctl ACTION -w`; a (re)started server logs next to the data dir, so it holds none of our pipes."""
        log = str(Path(self.data).parent / "server.log")
        command = [self.binary, "-D", self.data, "-w", action, *args, *(["-l", log] if action != "stop" else [])]
        if action == "start" and self.options:
            command += ["-o", self.options]
        if os.geteuid() == 0:
            owner = pwd.getpwuid(Path(self.data).stat().st_uid).pw_name
            command = ["runuser", "-u", owner, "--", *command]
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"pg_ctl {action} failed: {done.stdout}{done.stderr}"


@pytest.fixture
def pg_ctl(pg_server: str) -> PgCtl:
    binary, data = os.environ.get("PAOR_TEST_PGCTL", ""), os.environ.get("PAOR_TEST_PGDATA", "")
    if not binary or not data:
        _unavailable("PAOR_TEST_PGCTL / PAOR_TEST_PGDATA are not set (needed to restart the server)")
    opts = shlex.split((Path(data) / "postmaster.opts").read_text())  # postgres "-D" DATA "-p" PORT …
    options = shlex.join(arg for i, arg in enumerate(opts[1:]) if arg != "-D" and (i == 0 or opts[i] != "-D"))
    return PgCtl(binary, data, options)


def worker_command(db: str, base_url: str, store_dir: Path, threads: list[str], *, claim: bool = False) -> list[str]:
    """A worker process (tests/postgres/worker.py) running `threads` against `db` and the scripted model."""
    command = [sys.executable, "-m", "tests.postgres.worker", "--db", db, "--base-url", base_url]
    command += ["--store-dir", str(store_dir), "--threads", ",".join(threads)]
    return [*command, "--claim"] if claim else command


def start_worker(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def results(process: subprocess.Popen[str], timeout: float = 120) -> list[dict[str, Any]]:
    """The worker's JSON lines, one per thread; fails with its stderr if it crashed."""
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, f"worker exited {process.returncode}\n{err[-3000:]}"
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]
