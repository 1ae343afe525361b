"""`paor serve` (issue 44, first part): paor's graph on Aegra, two instances on one PostgreSQL and one Redis, started
together on a new database, through real processes in the Python 3.12 venv of the `aegra` extra (.ci/run makes it
and names it in PAOR_TEST_AEGRA_PYTHON). The key gate and tenancy hold on both instances, and a run created on one
is waited on from the other."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.fairness import script_one_step
from graph.processes import free_port
from tests.support import deadlines
from tests.support.langgraph_dev import scripted_env
from tests.support.scripted_llm import ScriptedLLM

AEGRA_PYTHON = os.environ.get("PAOR_TEST_AEGRA_PYTHON", "")
DATABASE = os.environ.get("PAOR_TEST_DATABASE_URL", "")
REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(
    not (AEGRA_PYTHON and DATABASE and REDIS),
    reason="needs PAOR_TEST_AEGRA_PYTHON (a 3.12 venv with '.[aegra]'), PAOR_TEST_DATABASE_URL and redis-server "
    "(.ci/run provides all three)",
)
REPO = Path(__file__).resolve().parents[2]
KEY_A, KEY_B = "engine-key-alice-4d1f", "engine-key-bob-93ae"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    """A new database of its own: both instances start on it together."""
    import psycopg

    name = f"paor_engine_{secrets.token_hex(4)}"
    with psycopg.connect(DATABASE, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield DATABASE.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(DATABASE, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [
            str(REDIS),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory, database: str, redis: str) -> Iterator[list[str]]:
    """Two `paor serve` processes, started at once on the new database, sharing one PAOR_HOME."""
    root = tmp_path_factory.mktemp("engine")
    with ScriptedLLM() as llm:
        script_one_step(llm, HAIKU)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PAOR_", "OPENAI_", "VIRTUAL_ENV"))},
            **scripted_env(llm.base_url, root / "paor-home", PAOR_MAX_STEPS="1"),
            "PAOR_SERVER_API_KEY": f"{KEY_A},{KEY_B}",
            "PAOR_DATABASE_URL": database,
            "PAOR_REDIS_URL": redis,
            "CRON_ENABLED": "false",
            "LANGSMITH_TRACING": "false",
            "WORKER_COUNT": "2",
        }
        ports = [free_port(), free_port()]
        logs = [(root / f"instance-{n}.log").open("wb") for n in range(2)]
        processes = [
            subprocess.Popen(
                [AEGRA_PYTHON, "-m", "cli.app", "serve", "--port", str(port)],
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            for port, log in zip(ports, logs, strict=True)
        ]
        try:
            urls = [f"http://127.0.0.1:{port}" for port in ports]
            for url, process, n in zip(urls, processes, range(2), strict=True):
                _wait_ready(url, process, root / f"instance-{n}.log")
            yield urls
        finally:
            for process in processes:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            for log in logs:
                log.close()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + deadlines.PROCESS_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"paor serve exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                return
        time.sleep(0.5)
    raise AssertionError(f"paor serve did not answer /ok:\n{log.read_text()[-4000:]}")


def _client(url: str, key: str | None) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=deadlines.HTTP_S, headers={"x-api-key": key} if key else {})


def test_two_instances_started_together_on_a_new_database_both_serve(instances: list[str]) -> None:
    """Aegra migrates at start without a lock: two started together on a new database failed one of them."""
    for url in instances:
        assert httpx.get(f"{url}/ok", timeout=deadlines.HTTP_S).status_code == 200


def test_a_run_made_on_one_instance_is_waited_on_from_the_other_and_is_its_owners_only(instances: list[str]) -> None:
    first, second = instances
    with _client(first, KEY_A) as alice_1, _client(second, KEY_A) as alice_2, _client(second, KEY_B) as bob_2:
        thread = alice_1.post("/threads", json={}).json()["thread_id"]
        run = alice_1.post(f"/threads/{thread}/runs", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
        assert run.status_code == 200, run.text
        joined = alice_2.get(f"/threads/{thread}/runs/{run.json()['run_id']}/join")
        assert joined.status_code == 200, joined.text
        assert HAIKU in joined.json()["answer"], joined.json()
        assert bob_2.get(f"/threads/{thread}").status_code == 404
        assert bob_2.get(f"/threads/{thread}/runs/{run.json()['run_id']}/join").status_code == 404


def test_every_route_needs_a_key_and_a_client_cannot_write_a_threads_state(instances: list[str]) -> None:
    """The key gate on Aegra's routes too; Aegra reports a state write with its body, which paor refuses as on
    langgraph dev (issue 44: a state write once passed there)."""
    first, _ = instances
    with _client(first, None) as anonymous, _client(first, KEY_A) as alice:
        for path in ("/threads/search", "/assistants/search"):
            assert anonymous.post(path, json={}).status_code == 401, path
        assert anonymous.get("/info").status_code == 401
        thread = alice.post("/threads", json={}).json()["thread_id"]
        ran = alice.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
        assert ran.status_code == 200, ran.text  # a thread with a graph: Aegra would write its state
        written = alice.post(f"/threads/{thread}/state", json={"values": {"documents": ["x"]}})
        assert written.status_code == 403, written.text
