"""`langgraph dev` with PAOR_DATABASE_URL: the langgraph.json factories put checkpoints and strategies in PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graph.persistence import open_persistence
from nodes.strategies import NAMESPACE
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]")
from tests.server.test_langgraph_dev import _project, _stop, _wait_ready, free_port  # noqa: E402


def test_langgraph_dev_persists_to_postgres(scripted_llm: ScriptedLLM, pg_url: str, tmp_path: Path) -> None:
    script_primes(scripted_llm)
    project = _project(tmp_path / "project")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAOR_") and k != "OPENAI_BASE_URL"}
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_TRACING="false",
        PAOR_HOME=str(tmp_path / "home"),
        PAOR_DATABASE_URL=pg_url,
        OPENAI_API_KEY="sk-test-not-a-real-key",
    )
    command = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--config", str(project / "langgraph.json")]
    stdout, stderr = tmp_path / "server.stdout", tmp_path / "server.stderr"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            command, cwd=project, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(url, process, stderr, stdout)
        client = langgraph_sdk.get_sync_client(url=url, timeout=60)
        thread = client.threads.create()["thread_id"]
        context = {"model": "scripted", "base_url": scripted_llm.base_url, "max_retries": 0}
        out = client.runs.wait(thread, "paor", input={"prompt": PRIMES_PROMPT}, context=context, raise_error=True)
        assert isinstance(out, dict) and out["status"] == "completed", out
    finally:
        _stop(process)
    assert not (tmp_path / "home" / "paor.sqlite").exists(), "nothing went to SQLite"
    with open_persistence(pg_url) as (saver, store):
        assert saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}) is not None
        assert store.search(NAMESPACE, limit=10), "the strategy learned by the server is in PostgreSQL"
