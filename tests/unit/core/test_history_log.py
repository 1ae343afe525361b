"""history_log: state holds a bounded window, the store the complete history; finalize hands out all of it."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import ExecutionInfo, Runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import Overwrite

from core import history_store
from core.context import Context
from core.schemas import HistoryEntry
from nodes import history_log
from prompts.history import MAX_ENTRIES, render_history
from tests.unit.core.factories import state


def _threaded(context: Context, store: InMemoryStore, thread: str | None = "t1") -> Runtime[Context]:
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="task", thread_id=thread)
    return Runtime(context=context, store=store, execution_info=info)


def _entry(step: int, round_: int = 1) -> HistoryEntry:
    return HistoryEntry(
        round=round_,
        step=step,
        action="ai.process",
        actionObjective=f"objective {step}",
        resultLabel=f"round{round_}_task1_action{step}_process",
        summary=f"summary of step {step}",
        findings=[f"finding {step}"],
        learnings=[f"lesson {step}"],
    )


def _run(runtime: Runtime[Context], steps: int, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """Record `steps` entries the way the nodes do, applying each update as LangGraph's reducers would."""
    current = current or state()
    for step in range(1, steps + 1):
        update = history_log.record({**current, "step": step}, runtime, _entry(step, current["round"]))
        value = update["history"]
        history = value.value if isinstance(value, Overwrite) else [*current["history"], *value]
        current = {**current, "step": step, "history": history}
    return current


def test_state_keeps_a_bounded_window_and_the_store_every_entry(context: Context) -> None:
    runtime = _threaded(context, InMemoryStore())
    current = _run(runtime, 20)
    window = history_log.window_of(current)
    assert [e.step for e in window] == list(range(20 - MAX_ENTRIES + 1, 21))
    assert not any(e.summary or e.findings for e in window)  # heads only: every checkpoint of a step holds them
    complete = history_log.complete(current, runtime)
    assert complete == [_entry(s) for s in range(1, 21)]
    # Stage 1 renders the complete record: the newest steps in full (from the store), the rest as one line.
    text = render_history(complete, 1)
    assert "finding 18" in text and "finding 17" not in text
    assert text.splitlines()[-1].startswith("- [steps 13–17]")  # the newest eight, the oldest five as one line


def test_a_node_run_again_after_a_crash_records_its_entry_once(context: Context) -> None:
    runtime = _threaded(context, InMemoryStore())
    current = _run(runtime, 3)
    again = history_log.record(current, runtime, _entry(3))["history"].value
    assert [h["step"] for h in again] == [1, 2, 3]
    assert [e.step for e in history_log.complete(current, runtime)] == [1, 2, 3]


def test_records_ahead_of_the_thread_are_not_its_past(context: Context) -> None:
    """A thread id used before, whose checkpoints are gone, must not inherit the old run's steps."""
    store = InMemoryStore()
    _run(_threaded(context, store), 6)
    fresh = _run(_threaded(context, store), 2)
    assert [e.step for e in history_log.complete(fresh, _threaded(context, store))] == [1, 2]


def test_without_a_thread_state_keeps_every_entry(context: Context) -> None:
    runtime = _threaded(context, InMemoryStore(), thread=None)
    current = _run(runtime, MAX_ENTRIES + 4)
    assert len(current["history"]) == MAX_ENTRIES + 4
    assert history_log.output(current, runtime) == {}


def test_the_output_has_the_complete_history_and_a_new_round_shrinks_it_again(context: Context) -> None:
    runtime = _threaded(context, InMemoryStore())
    current = _run(runtime, 12)
    output = history_log.output(current, runtime)["history"].value
    assert [h["step"] for h in output] == list(range(1, 13)) and all(h["summary"] for h in output)
    bounded = history_log.bounded({**current, "history": output}, runtime)["history"].value
    assert [h["step"] for h in bounded] == list(range(5, 13))
    assert not any("summary" in h for h in bounded)


def test_any_thread_id_works_as_a_store_namespace(context: Context) -> None:
    """Thread ids are free text (a CLI user's --thread, a whole question); store labels may not contain '.'."""
    store = InMemoryStore()
    for thread in ("What is the total in sales.csv?", "a/b.c", ""):
        runtime = _threaded(context, store, thread=thread or None)
        assert [e.step for e in history_log.complete(_run(runtime, 2), runtime)] == [1, 2]
    assert history_store.namespace_label("sales.csv") != history_store.namespace_label("sales%2Ecsv")  # no collisions
