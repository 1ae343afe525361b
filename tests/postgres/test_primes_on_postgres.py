"""The primes scenario on PostgreSQL: Python API, CLI (`--db`, PAOR_DATABASE_URL) and the langgraph.json factories."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.store.postgres import PostgresStore

from core import persistence
from core.context import Context
from core.database import DatabaseUnavailable, describe_database, mask_url
from core.persistence import locked_persistence, open_persistence
from core.schemas import DocumentRef, HistoryEntry, Strategy
from core.server_persistence import checkpointer, store
from graph.builder import build_graph, make_builder
from nodes.strategies import KEY, NAMESPACE
from tests.postgres.conftest import REPO
from tests.support import deadlines
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, FIRST_1000_PRIMES, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM
from tools.documents import DocumentStore


def _run(url: str, context: Context, thread: str) -> dict[str, Any]:
    with locked_persistence(thread, url) as (saver, pg_store):
        graph = build_graph(checkpointer=saver, store=pg_store)
        return graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": thread}}, context=context)


def test_primes_scenario_on_postgres(scripted_llm: ScriptedLLM, context: Context, pg_url: str) -> None:
    script_primes(scripted_llm)
    out = _run(pg_url, context, "primes-1")

    assert out["status"] == "completed" and "criteria met" in out["stop_reason"]
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert [h.step for h in history] == [1, 2]
    assert not history[0].success and history[0].parameters["aiPrompt"] == CODE_PROMPT
    assert history[1].success and history[1].parameters["aiPrompt"] == DATA_PROMPT
    text = DocumentStore(context.store_path).read_text(DocumentRef.model_validate(out["deliverables"][0]))
    assert [int(n) for n in text.split(":", 1)[1].split(",")] == FIRST_1000_PRIMES

    with open_persistence(pg_url) as (saver, pg_store):
        assert isinstance(saver, PostgresSaver) and isinstance(pg_store, PostgresStore)
        learned = Strategy.model_validate(pg_store.get((*NAMESPACE, "numbers-raw_data-prime"), KEY).value)
        state = build_graph(checkpointer=saver, store=pg_store).get_state({"configurable": {"thread_id": "primes-1"}})
    assert learned.successfulAction == "ai.process" and learned.attempts == 2 and learned.successes == 1
    assert state.values["history"] == out["history"] and not state.next

    before = len(scripted_llm.requests_for("text"))
    out2 = _run(pg_url, context, "primes-2")  # the learned strategy: data on the first action
    assert [h["step"] for h in out2["history"]] == [1]
    assert [DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")[before:]] == [True]


def test_env_var_selects_postgres_and_unset_keeps_sqlite(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAOR_DATABASE_URL", raising=False)
    with open_persistence() as (saver, _):
        assert type(saver).__name__ == "SqliteSaver"
    monkeypatch.setenv("PAOR_DATABASE_URL", pg_url)
    with open_persistence() as (saver, pg_store):
        assert isinstance(saver, PostgresSaver) and isinstance(pg_store, PostgresStore)


def test_setup_is_idempotent_and_safe_when_workers_start_together(pg_url: str) -> None:
    code = "import sys; from core.persistence import open_persistence\nwith open_persistence(sys.argv[1]): pass"
    command = [sys.executable, "-c", code, pg_url]
    starts = [subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE) for _ in range(4)]
    for process in starts:
        _, err = process.communicate(timeout=deadlines.PROCESS_S)
        assert process.returncode == 0, err.decode()[-2000:]
    persistence._SETUP_DONE.discard(pg_url)
    with open_persistence(pg_url) as (saver, _):  # once more in this process: nothing to migrate, no error
        assert saver.get_tuple({"configurable": {"thread_id": "none", "checkpoint_ns": ""}}) is None


def test_password_is_masked_and_an_unreachable_server_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql://paor:s3cret-pw@127.0.0.1:1/paor?sslmode=disable&password=other-secret"
    assert "s3cret-pw" not in mask_url(url) and "other-secret" not in mask_url(url)
    assert mask_url(url).startswith("postgresql://paor:***@127.0.0.1:1/paor")
    assert describe_database(url) == mask_url(url)
    monkeypatch.setenv("PAOR_DATABASE_TIMEOUT", "1")
    with pytest.raises(DatabaseUnavailable) as caught, open_persistence(url):
        pass
    message = str(caught.value)
    assert "is unavailable" in message and "127.0.0.1:1" in message
    assert "s3cret-pw" not in message and "other-secret" not in message


def test_cli_runs_shows_history_and_strategies_with_db_option(
    scripted_llm: ScriptedLLM, pg_url: str, tmp_path: Path
) -> None:
    script_primes(scripted_llm)
    env = {
        **os.environ,
        "OPENAI_BASE_URL": scripted_llm.base_url,
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        "PAOR_STORE_DIR": str(tmp_path / "store"),
    }
    env.pop("PAOR_DATABASE_URL", None)

    def paor(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "cli", *args]
        return subprocess.run(
            command, cwd=tmp_path, env={**env, **extra_env}, capture_output=True, text=True, timeout=deadlines.PROCESS_S
        )

    run = paor("run", PRIMES_PROMPT, "--thread", "cli-1", "--db", pg_url, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "completed"
    shown = paor("history", "cli-1", PAOR_DATABASE_URL=pg_url)  # the env var instead of --db
    assert shown.returncode == 0, shown.stderr
    assert "2 steps" in shown.stdout and "round1_task1_action2_process" in shown.stdout
    learned = paor("strategies", "--db", pg_url)
    assert learned.returncode == 0 and "numbers-raw_data-prime" in learned.stdout
    assert paor("history", "cli-1").returncode == 2  # the default SQLite file does not know the thread
    doctor = paor("doctor", "--db", pg_url)
    assert "ok (PostgreSQL)" in doctor.stdout


def test_langgraph_json_factories_use_postgres(
    scripted_llm: ScriptedLLM, context: Context, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_primes(scripted_llm)
    monkeypatch.setenv("PAOR_DATABASE_URL", pg_url)

    async def run() -> tuple[str, str, dict[str, Any]]:
        async with checkpointer() as saver, store() as pg_store:
            graph = make_builder().compile(checkpointer=saver, store=pg_store)
            config: Any = {"configurable": {"thread_id": "server-1"}, "recursion_limit": 100}
            out = await graph.ainvoke({"prompt": PRIMES_PROMPT}, config, context=context)
            return type(saver).__name__, type(pg_store).__name__, out

    saver_type, store_type, out = asyncio.run(run())
    assert (saver_type, store_type) == ("AsyncPostgresSaver", "AsyncPostgresStore")
    assert out["status"] == "completed"
    with open_persistence(pg_url) as (saver, _):
        assert saver.get_tuple({"configurable": {"thread_id": "server-1", "checkpoint_ns": ""}}) is not None
