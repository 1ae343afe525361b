"""`paor serve` instances for tests and benches: a new PostgreSQL database, a Redis, and N instances on them, as real
processes from the Python 3.12 venv of the `aegra` extra (.ci/run makes it and names it in PAOR_TEST_AEGRA_PYTHON)."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from core.processes import free_port
from tests.support import deadlines
from tests.support.langgraph_dev import scripted_env
from tests.support.redis_server import REDIS_SERVER, redis_server

AEGRA_PYTHON = os.environ.get("PAOR_TEST_AEGRA_PYTHON", "")
DATABASE = os.environ.get("PAOR_TEST_DATABASE_URL", "")
MISSING = (
    ""
    if AEGRA_PYTHON and DATABASE and REDIS_SERVER
    else "needs PAOR_TEST_AEGRA_PYTHON (a 3.12 venv with '.[aegra]'), PAOR_TEST_DATABASE_URL and redis-server "
    "(.ci/run provides all three)"
)
REPO = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def new_database(server: str = DATABASE) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server at `server` (the suite's), dropped at the end; its URL."""
    import psycopg

    name = f"paor_engine_{secrets.token_hex(4)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield server.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@dataclass
class Instance:
    """One `paor serve` process."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """`kill -9` of the instance and everything it started."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@dataclass
class Service:
    """Instances on one database and one Redis, and the environment they were started with."""

    database: str
    redis: str
    env: dict[str, str]
    root: Path
    instances: list[Instance] = field(default_factory=list)

    def start(self, count: int = 1, *, wait: bool = True, workers: int = 1, **extra: str) -> list[Instance]:
        """`count` more instances (each `paor serve --workers workers`), started at once; each answers `/ok` before
        this returns (`wait`)."""
        started = []
        for _ in range(count):
            port, n = free_port(), len(self.instances)
            log = self.root / f"instance-{n}.log"
            with log.open("wb") as out:
                process = subprocess.Popen(
                    [AEGRA_PYTHON, "-m", "cli.app", "serve", "--port", str(port), "--workers", str(workers)],
                    cwd=REPO,
                    env={**self.env, **extra},
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            self.instances.append(instance := Instance(f"http://127.0.0.1:{port}", process, log))
            started.append(instance)
        if wait:
            for instance in started:
                wait_ready(instance)
        return started


def wait_ready(instance: Instance) -> None:
    deadline = time.monotonic() + deadlines.PROCESS_S
    while time.monotonic() < deadline:
        if instance.process.poll() is not None:
            raise AssertionError(f"paor serve exited with {instance.process.returncode}:\n{tail(instance)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{instance.url}/ok", timeout=2).status_code == 200:
                return
        time.sleep(0.3)
    raise AssertionError(f"paor serve did not answer /ok:\n{tail(instance)}")


def tail(instance: Instance, size: int = 4000) -> str:
    return instance.log.read_text(errors="replace")[-size:]


@contextlib.contextmanager
def service(root: Path, model_url: str, keys: str, *, server: str = DATABASE, **extra: str) -> Iterator[Service]:
    """A new database (on the PostgreSQL at `server`) and Redis for `paor serve` instances using the model at
    `model_url`, with paor's data (its documents and records, shared by every instance) under `root`; the instances
    are killed at the end."""
    root.mkdir(parents=True, exist_ok=True)
    with new_database(server) as database, redis_server(root) as redis:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PAOR_", "OPENAI_", "VIRTUAL_ENV"))},
            **scripted_env(model_url, root / "paor-home"),
            "PAOR_SERVER_API_KEY": keys,
            "PAOR_DATABASE_URL": database,
            "PAOR_REDIS_URL": redis,
            "CRON_ENABLED": "false",
            "LANGSMITH_TRACING": "false",
            **extra,
        }
        running = Service(database, redis, env, root)
        try:
            yield running
        finally:
            for instance in running.instances:
                instance.kill()


def client(instance: Instance, key: str | None, headers: Mapping[str, str] | None = None) -> httpx.Client:
    return httpx.Client(
        base_url=instance.url,
        timeout=deadlines.HTTP_S,
        headers={**({"x-api-key": key} if key else {}), **(headers or {})},
    )
