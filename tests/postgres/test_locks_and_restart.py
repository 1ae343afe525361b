"""The per-thread lock refuses a second concurrent run (PostgreSQL advisory lock; SQLite file lock), and a
database restarted mid-run fails the step with a clear reason, after which the thread resumes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.context import Context
from core.database import DatabaseUnavailable, ThreadBusy
from core.persistence import locked_persistence
from core.thread_lock import thread_lock
from graph.builder import build_graph
from tests.postgres.conftest import REPO, OwnServer, RestartDuringStep2, results, start_worker, worker_command
from tests.support import deadlines
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, PRIMES_PROMPT, ai_process, script_primes
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM


def test_advisory_lock_refuses_a_second_run_of_the_same_thread(
    scripted_llm: ScriptedLLM, context: Context, pg_url: str, tmp_path: Path
) -> None:
    script_primes(scripted_llm)
    with thread_lock(pg_url, "busy") as lease:
        assert lease.checkpointer is not None  # the run writes through the session that holds the lock
        with pytest.raises(ThreadBusy, match="being run by another worker"), thread_lock(pg_url, "busy"):
            pass
        with thread_lock(pg_url, "other-thread"):  # other threads are not blocked
            pass
        # Another worker process skips the thread; the CLI refuses it with exit 75 and one clear line.
        [report] = results(
            start_worker(worker_command(pg_url, scripted_llm.base_url, context.store_path, ["busy"], claim=True))
        )
        assert report["outcome"] == "busy"
        env = {**os.environ, "OPENAI_BASE_URL": scripted_llm.base_url, "PAOR_MODEL": "scripted"}
        command = [sys.executable, "-m", "cli", "run", PRIMES_PROMPT, "--thread", "busy", "--db", pg_url]
        refused = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=deadlines.PROCESS_S
        )
        assert refused.returncode == 75 and "being run by another worker" in refused.stderr, refused.stderr
        assert not scripted_llm.requests_for("Intent")
    with thread_lock(pg_url, "busy"):  # released with the context
        pass


def test_a_run_holds_the_lock_for_its_whole_duration(scripted_llm: ScriptedLLM, context: Context, pg_url: str) -> None:
    attempts: list[str] = []

    def try_lock_during_act(request: RecordedRequest) -> str:
        try:
            with thread_lock(pg_url, "long-run"):
                attempts.append("acquired")
        except ThreadBusy:
            attempts.append("busy")
        return ai_process(request)

    script_primes(scripted_llm, tool_answer=try_lock_during_act)
    with locked_persistence("long-run", pg_url) as (saver, pg_store):
        out = build_graph(checkpointer=saver, store=pg_store).invoke(
            {"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "long-run"}}, context=context
        )
    assert out["status"] == "completed" and attempts == ["busy", "busy"]


def test_sqlite_file_lock_refuses_a_second_run(tmp_path: Path) -> None:
    db = tmp_path / "paor.sqlite"
    with thread_lock(db, "t1") as lease:
        assert lease.checkpointer is None
        with pytest.raises(ThreadBusy), thread_lock(db, "t1"):
            pass
        code = "import sys; from core.thread_lock import thread_lock\nwith thread_lock(sys.argv[1], 't1'): pass"
        other = subprocess.run([sys.executable, "-c", code, str(db)], cwd=REPO, capture_output=True, text=True)
        assert other.returncode == 1 and "ThreadBusy" in other.stderr
        with thread_lock(db, "t2"):
            pass
    with thread_lock(db, "t1"):
        pass


def test_database_restarted_mid_run_fails_the_step_clearly_and_the_thread_resumes(
    scripted_llm: ScriptedLLM, context: Context, own_server: OwnServer
) -> None:
    pg_url = own_server.url
    restart = RestartDuringStep2(own_server.pg_ctl)
    script_primes(scripted_llm, tool_answer=restart)
    [report] = results(start_worker(worker_command(pg_url, scripted_llm.base_url, context.store_path, ["restart"])))
    assert restart.done.is_set()
    assert report["outcome"] == "unavailable", report
    assert "is unavailable" in report["error"] and "paor resume restart" in report["error"], report["error"]

    [resumed] = results(start_worker(worker_command(pg_url, scripted_llm.base_url, context.store_path, ["restart"])))
    assert resumed["outcome"] == "resumed" and resumed["status"] == "completed" and resumed["steps"] == [1, 2]
    prompts = [(CODE_PROMPT in r.text, DATA_PROMPT in r.text) for r in scripted_llm.requests_for("text")]
    assert prompts == [(True, False), (False, True), (False, True)]  # the failed act is redone, step 1 is not


def test_database_down_at_start_is_a_clear_error_and_python_callers_get_it_typed(
    context: Context, own_server: OwnServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pg_url, pg_ctl = own_server.url, own_server.pg_ctl
    monkeypatch.setenv("PAOR_DATABASE_TIMEOUT", "2")
    pg_ctl("stop", "-m", "fast")
    try:
        with pytest.raises(DatabaseUnavailable, match="is unavailable") as caught, locked_persistence("down", pg_url):
            pass
        assert "paor resume down" in str(caught.value)
    finally:
        pg_ctl("start")
    with locked_persistence("down", pg_url) as (saver, _):
        config: Any = {"configurable": {"thread_id": "down", "checkpoint_ns": ""}}
        assert saver.get_tuple(config) is None
