"""Several worker processes sharing one PostgreSQL database: 4 × 25 threads, a thread killed in one worker and
resumed in another, and a strategy learned in one worker used by the next."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from core.context import Context
from core.persistence import open_persistence
from core.schemas import HistoryEntry
from core.thread_lock import thread_lock
from graph.builder import build_graph
from tests.postgres.conftest import REPO, results, start_together, start_worker, worker_command
from tests.support import deadlines
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, ai_process, script_primes
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

WORKERS = 4
THREADS_PER_WORKER = 12


def _checkpoints(saver: Any, thread: str) -> list[Any]:
    return list(saver.list({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}))


def test_four_workers_share_one_database_and_never_run_a_thread_twice(
    scripted_llm: ScriptedLLM, context: Context, pg_url: str
) -> None:
    """All four workers walk the same 48 threads (each starting one further on) and claim them under the lock,
    so they collide on nearly every thread: each is still run exactly once, by one worker, and ends with a
    complete, consistent history. (Without the lock, get-state-then-run lets several workers start a thread.)"""
    script_primes(scripted_llm)
    threads = [f"w{i // THREADS_PER_WORKER}-t{i % THREADS_PER_WORKER}" for i in range(WORKERS * THREADS_PER_WORKER)]
    orders = [threads[w:] + threads[:w] for w in range(WORKERS)]
    workers = start_together(
        [worker_command(pg_url, scripted_llm.base_url, context.store_path, order, claim=True) for order in orders]
    )
    reports = [results(worker) for worker in workers]

    unexpected = [r for report in reports for r in report if r["outcome"] not in ("ran", "finished", "busy")]
    assert not unexpected, unexpected
    ran = [r for report in reports for r in report if r["outcome"] == "ran"]
    assert sorted(r["thread"] for r in ran) == sorted(threads), "every thread run exactly once"
    assert all(r["status"] == "completed" for r in ran)
    assert all(sum(r["outcome"] == "ran" for r in report) >= 5 for report in reports), "the work was shared"
    assert len(scripted_llm.requests_for("Intent")) == len(threads), "no thread was started twice"

    with open_persistence(pg_url) as (saver, pg_store):
        graph = build_graph(checkpointer=saver, store=pg_store)
        for thread in threads:
            state = graph.get_state({"configurable": {"thread_id": thread}})
            assert state.values["status"] == "completed" and not state.next, thread
            history = [HistoryEntry.model_validate(h) for h in state.values["history"]]
            assert [h.step for h in history] == list(range(1, len(history) + 1)) and history[-1].success, thread
            assert all(not h.success for h in history[:-1]), thread
            checkpoints = _checkpoints(saver, thread)
            sources = [c.metadata.get("source") for c in checkpoints]
            assert sources.count("input") == 1, f"{thread}: one run wrote its checkpoints, not two"
            for newer, older in itertools.pairwise(checkpoints):  # one linear chain
                parent = newer.parent_config["configurable"]["checkpoint_id"]
                assert parent == older.config["configurable"]["checkpoint_id"], thread
    # The first runs (before anything was learned) needed two steps; once learned, everyone used the strategy.
    steps = [len(r["steps"]) for r in ran]
    assert steps.count(1) >= len(threads) // 2, steps


def test_thread_killed_in_worker_a_resumes_in_worker_b(
    scripted_llm: ScriptedLLM, context: Context, pg_url: str, tmp_path: Path
) -> None:
    worker_a: list[subprocess.Popen[str]] = []
    killed = threading.Event()

    def kill_during_act_of_step_2(request: RecordedRequest) -> str:
        if DATA_PROMPT in request.text and not killed.is_set():
            os.kill(worker_a[0].pid, signal.SIGKILL)
            killed.set()
        return ai_process(request)

    script_primes(scripted_llm, tool_answer=kill_during_act_of_step_2)
    worker_a.append(start_worker(worker_command(pg_url, scripted_llm.base_url, context.store_path, ["crash"])))
    worker_a[0].communicate(timeout=deadlines.PROCESS_S)
    assert killed.is_set() and worker_a[0].returncode == -signal.SIGKILL

    with thread_lock(pg_url, "crash", wait_s=10):  # the server released the dead worker's lock
        pass
    env = {
        **os.environ,
        "PAOR_STORE_DIR": str(context.store_path),
        "PAOR_DATABASE_URL": pg_url,
    }
    command = [sys.executable, "-m", "cli", "resume", "crash", "--model", "scripted"]
    command += ["--base-url", scripted_llm.base_url, "--json", "--out", str(tmp_path / "out")]
    worker_b = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=deadlines.PROCESS_S)
    assert worker_b.returncode == 0, worker_b.stderr

    prompts = [(CODE_PROMPT in r.text, DATA_PROMPT in r.text) for r in scripted_llm.requests_for("text")]
    assert prompts == [(True, False), (False, True), (False, True)]  # step 1 not repeated; step 2's act redone
    history_command = [sys.executable, "-m", "cli", "history", "crash", "--db", pg_url]
    shown = subprocess.run(
        history_command, cwd=REPO, env=env, capture_output=True, text=True, timeout=deadlines.PROCESS_S
    )
    assert shown.returncode == 0 and "2 steps" in shown.stdout, shown.stderr
    assert (tmp_path / "out").is_dir() and any((tmp_path / "out").iterdir())


def test_strategy_learned_in_worker_a_is_used_first_in_worker_b(
    scripted_llm: ScriptedLLM, context: Context, pg_url: str
) -> None:
    script_primes(scripted_llm)
    [a] = results(start_worker(worker_command(pg_url, scripted_llm.base_url, context.store_path, ["learn-a"])))
    assert a["outcome"] == "ran" and a["steps"] == [1, 2]
    selections_before = len(scripted_llm.requests_for("ActionSelection"))

    [b] = results(start_worker(worker_command(pg_url, scripted_llm.base_url, context.store_path, ["use-b"])))
    assert b["outcome"] == "ran" and b["status"] == "completed" and b["steps"] == [1]
    first_selection = scripted_llm.requests_for("ActionSelection")[selections_before]
    assert "worked: ai.process" in first_selection.text or "delivered code" in first_selection.text
    assert DATA_PROMPT in scripted_llm.requests_for("text")[-1].text
