"""Many threads of one process share one SQLite file: every run completes and every attempt is learned."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from core.context import Context
from core.persistence import open_sqlite
from core.schemas import Intent
from graph.builder import build_graph
from nodes.strategies import recall
from tests.support.scenarios import PRIMES_INTENT, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def test_concurrent_threads_all_complete_and_learning_loses_no_attempt(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path
) -> None:
    script_primes(scripted_llm)
    with open_sqlite(tmp_path / "shared.sqlite") as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)

        def run(n: int) -> str:
            config = {"configurable": {"thread_id": f"t{n}"}}
            return str(graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)["status"])

        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = list(pool.map(run, range(16)))
        assert statuses == ["completed"] * 16
        steps = sum(len(graph.get_state({"configurable": {"thread_id": f"t{n}"}}).values["history"]) for n in range(16))
        learned = recall(store, Intent.model_validate({**PRIMES_INTENT, "numberProperty": "prime"}))[0]
        assert learned.attempts == steps and learned.successes == 16
