"""Soak: hundreds of sequential runs and concurrent threads on one SQLite file — none lost, none stuck, memory
bounded. A leak check, not a benchmark: timing is only printed."""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from core.context import Context
from core.persistence import open_sqlite
from graph.builder import build_graph
from tests.reliability.conftest import script_direct
from tests.support import deadlines
from tests.support.scenarios import PRIMES_PROMPT
from tests.support.scripted_llm import ScriptedLLM

SEQUENTIAL_RUNS = 300
CONCURRENT_THREADS = 20
# Measured: +22 to +24 MB over the 320 runs (Python 3.11, Nov 2026); the bound leaves room for allocator noise.
RSS_GROWTH_LIMIT_MB = 40


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        resident_pages = int(handle.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def assert_finished(graph: Any, thread: str) -> None:
    state = graph.get_state({"configurable": {"thread_id": thread}})
    values = state.values
    assert state.next == () and not state.tasks, f"{thread} is stuck before {state.next}"
    assert values["status"] == "completed" and values["stop_reason"], thread
    assert values["telemetry"]["nodes"]["finalize"]["runs"] == 1, thread
    assert len(values["history"]) == values["totals"]["steps"] == 1, thread


@pytest.mark.soak
def test_soak_sequential_and_concurrent_runs_lose_nothing_and_stay_bounded(
    scripted_llm: ScriptedLLM, tmp_path: Path
) -> None:
    script_direct(scripted_llm)
    context = Context(
        model="scripted", base_url=scripted_llm.base_url, max_retries=0, store_dir=str(tmp_path / "store")
    )
    db = tmp_path / "soak.sqlite"
    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "warm-up"}}, context=context)
        gc.collect()
        start_rss, started = rss_mb(), time.monotonic()

        for i in range(SEQUENTIAL_RUNS):
            out = graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": f"seq-{i}"}}, context=context)
            assert out["status"] == "completed", (i, out.get("stop_reason"))
        sequential_s = time.monotonic() - started

        errors: dict[str, BaseException] = {}
        barrier = threading.Barrier(CONCURRENT_THREADS)

        def work(thread: str) -> None:
            try:
                barrier.wait(deadlines.PROCESS_S)
                graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": thread}}, context=context)
            except BaseException as exc:  # reported below, with the thread's name
                errors[thread] = exc

        workers = [
            threading.Thread(target=work, args=(f"par-{i}",), name=f"soak-{i}") for i in range(CONCURRENT_THREADS)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(deadlines.PROCESS_S)
        assert not [w.name for w in workers if w.is_alive()], "stuck threads"
        assert errors == {}

        for i in range(SEQUENTIAL_RUNS):
            assert_finished(graph, f"seq-{i}")
        for i in range(CONCURRENT_THREADS):
            assert_finished(graph, f"par-{i}")
        gc.collect()
        end_rss = rss_mb()

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        threads = conn.execute("SELECT COUNT(DISTINCT thread_id) FROM checkpoints").fetchone()[0]
    assert threads == SEQUENTIAL_RUNS + CONCURRENT_THREADS + 1
    total_s = time.monotonic() - started
    print(
        f"\nsoak: {SEQUENTIAL_RUNS} sequential runs in {sequential_s:.1f}s, {CONCURRENT_THREADS} concurrent threads, "
        f"total {total_s:.1f}s; RSS {start_rss:.1f} MB → {end_rss:.1f} MB (+{end_rss - start_rss:.1f} MB); "
        f"database {db.stat().st_size / 1e6:.1f} MB"
    )
    assert end_rss - start_rss < RSS_GROWTH_LIMIT_MB
