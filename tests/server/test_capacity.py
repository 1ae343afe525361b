"""One `langgraph dev` serves many runs at once, and keeps what it told its clients across a `kill -9` (issue 34).

Both through the real server (tests/support/langgraph_dev.py) and the scripted model of this process:

- the scripted model counts the requests it is answering at once (bench/server_load.py `HeldLLM`): with more runs
  started than Python's default thread pool has threads (6 on 2 cores), more requests than that are in flight —
  counted, never timed (server/capacity.py `serving`);
- a thread and a run created just before the server is killed are there when it starts again on the same folder
  (server/registry.py `DurableRegistry`), and a run that had finished makes no second model call.
"""

from __future__ import annotations

import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bench.server_load import ANSWER, PROMPT, HeldLLM
from tests.support import deadlines
from tests.support.langgraph_dev import langgraph_dev, make_project, scripted_env, served
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

ASSISTANT = "paor"
#: What every server loop had before the lifespan sized it: Python's own default pool on this machine.
DEFAULT_POOL = ThreadPoolExecutor()._max_workers
RUNS = DEFAULT_POOL + 10
#: A request is held until every run's request is in flight, or this long: the count decides, not the clock.
HOLD_S = 30.0
#: A run that waits this long in the queue is still pending when the server is killed.
LATER_S = 3600


def test_more_model_requests_are_in_flight_than_pythons_default_pool_has_threads(tmp_path: Path) -> None:
    with HeldLLM(HOLD_S, release_at=RUNS) as llm:
        llm.on("text", ANSWER)
        with langgraph_dev(tmp_path, scripted_env(llm.base_url, tmp_path / "home"), jobs_per_worker=RUNS) as url:
            client = langgraph_sdk.get_sync_client(url=url, timeout=deadlines.HTTP_S)
            threads = [client.threads.create()["thread_id"] for _ in range(RUNS)]
            runs = [client.runs.create(thread, ASSISTANT, input={"prompt": PROMPT}) for thread in threads]
            outs = [client.runs.join(run["thread_id"], run["run_id"]) for run in runs]

    assert [out.get("status") for out in outs] == ["completed"] * RUNS, outs
    assert len(llm.requests) == RUNS  # one model call a run: each request in flight is a run waiting on it
    assert llm.peak > DEFAULT_POOL, f"{llm.peak} of {RUNS} model requests in flight at once"


def _kill(process: subprocess.Popen[bytes]) -> None:
    """kill -9 to the server's whole process group: no shutdown, no last write."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=deadlines.PROCESS_S)


def test_a_thread_and_a_run_created_just_before_a_kill_are_there_after_the_restart(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    with ScriptedLLM() as llm:
        llm.on("text", ANSWER)
        env = scripted_env(llm.base_url, tmp_path / "home")
        with served(project, env) as (url, process):
            client = langgraph_sdk.get_sync_client(url=url, timeout=deadlines.HTTP_S)
            thread = client.threads.create(metadata={"test": "crash"})["thread_id"]
            run = client.runs.create(thread, ASSISTANT, input={"prompt": PROMPT}, after_seconds=LATER_S)
            answered = client.threads.create(metadata={"test": "answered"})["thread_id"]
            finished = client.runs.create(answered, ASSISTANT, input={"prompt": PROMPT})
            client.runs.join(answered, finished["run_id"])  # its end is on disk at the next periodic write
            _kill(process)

        with served(project, env) as (url, _):
            client = langgraph_sdk.get_sync_client(url=url, timeout=deadlines.HTTP_S)
            found: dict[str, Any] = client.threads.get(thread)
            queued: dict[str, Any] = client.runs.get(thread, run["run_id"])
            client.runs.join(answered, finished["run_id"])
            ended: dict[str, Any] = client.runs.get(answered, finished["run_id"])
            state = client.threads.get_state(answered)

    assert found["metadata"]["test"] == "crash"
    assert queued["status"] == "pending"
    # Found pending when its end was not yet written, the finished run runs again from its last checkpoint (paor's
    # SQLite), where nothing is left to do: no second model call.
    assert ended["status"] == "success" and state["values"]["answer"] == ANSWER
    assert len(llm.requests) == 1
