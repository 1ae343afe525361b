"""The primes scenario of issue 2, end to end through the real ChatOpenAI client and SQLite."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import Any

from core.context import Context
from core.schemas import DocumentRef, HistoryEntry, Strategy
from graph.builder import build_graph
from nodes.strategies import KEY, NAMESPACE
from tests.support.scenarios import (
    CODE_PROMPT,
    DATA_PROMPT,
    FIRST_1000_PRIMES,
    PRIMES_PROMPT,
    script_primes,
)
from tests.support.scripted_llm import ScriptedLLM
from tools.documents import DocumentStore


def _run(graph: Any, context: Context, thread: str) -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread}}
    return graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)


def test_code_answer_is_flagged_learned_and_replaced_by_the_data(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_primes(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)

    out = _run(graph, context, "primes-1")

    assert out["status"] == "completed"
    assert "criteria met" in out["stop_reason"]
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert [h.step for h in history] == [1, 2]
    first, second = history
    assert not first.success and first.parameters["aiPrompt"] == CODE_PROMPT
    assert any("code, not numbers" in finding for finding in first.findings)
    assert second.success and second.parameters["aiPrompt"] == DATA_PROMPT
    assert second.resultLabel == "round1_task1_action2_process"
    assert second.summary and "criteria met" in second.summary

    deliverable = DocumentRef.model_validate(out["deliverables"][0])
    text = DocumentStore(context.store_path).read_text(deliverable)
    numbers = [int(n) for n in text.split(":", 1)[1].split(",")]
    assert numbers == FIRST_1000_PRIMES

    learned = Strategy.model_validate(store.get((*NAMESPACE, "numbers-raw_data-prime"), KEY).value)
    assert learned.successfulAction == "ai.process" and DATA_PROMPT[:40] in (learned.promptStyle or "")
    assert learned.attempts == 2 and learned.successes == 1
    assert any("delivered code" in avoided for avoided in learned.avoid)

    # A second run on a new thread with the same store picks the learned strategy on its first action.
    before = len(scripted_llm.requests_for("text"))
    out2 = _run(graph, context, "primes-2")
    assert out2["status"] == "completed"
    assert [h["step"] for h in out2["history"]] == [1]
    first_selection_prompt = scripted_llm.requests_for("ActionSelection")[-1].text
    assert "worked: ai.process" in first_selection_prompt
    assert len(scripted_llm.requests_for("text")) == before + 1


def test_stage2_prompt_carries_no_documents_history_or_connections(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_primes(scripted_llm)
    build_graph(checkpointer=checkpointer, store=store).invoke(
        {"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "t"}}, context=context
    )

    stage2 = scripted_llm.requests_for("ParametersAnswer")
    assert len(stage2) == 2
    for request in stage2:
        text = request.text
        assert "SELECTED ACTION: ai.process" in text and "ACTION OBJECTIVE" in text
        for leaked in (
            "HISTORY",
            "AVAILABLE DOCUMENTS",
            "docList:",
            "round1_task1",
            "LEARNED STRATEGIES",
            "```",
        ):
            assert leaked not in text
    # …while Stage 1 of step 2 did see the history of step 1.
    assert "round1_task1_action1_process" in scripted_llm.requests_for("ActionSelection")[1].text


def test_progress_events_stream_for_every_node(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_primes(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    events = [
        chunk
        for chunk in graph.stream(
            {"prompt": PRIMES_PROMPT},
            {"configurable": {"thread_id": "s"}},
            context=context,
            stream_mode="custom",
        )
    ]
    nodes = [e["node"] for e in events]
    assert nodes == [
        "intent",
        *["select", "parameters", "act", "validate", "learn", "refine"] * 2,
        "finalize",
    ]
    refine_events = [e for e in events if e["node"] == "refine"]
    assert [e["decision"] for e in refine_events] == ["continue", "stop"]
    assert all(e["action"] == "ai.process" for e in events if e["node"] == "act")
    assert any(e.get("inputTokens", 0) > 0 for e in events if e["node"] == "select")

    totals = graph.get_state({"configurable": {"thread_id": "s"}}).values["telemetry"]
    assert {n: t["runs"] for n, t in totals["nodes"].items()} == {
        "intent": 1,
        **dict.fromkeys(["select", "parameters", "act", "validate", "learn", "refine"], 2),
        "finalize": 1,
    }
    assert totals["seconds"] >= sum(e["durationS"] for e in events) - 1e-3
    assert totals["inputTokens"] == sum(e.get("inputTokens", 0) for e in events)


def test_checkpoints_hold_references_not_document_bytes(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, sqlite_path: Any
) -> None:
    huge_answer = "1, " * 350_000  # ~1 MB deliverable, from a server that ignores max_tokens
    scripted_llm.obey_max_tokens = False
    script_primes(scripted_llm, tool_answer=lambda request: huge_answer)
    graph = build_graph(checkpointer=checkpointer, store=store)
    out = graph.invoke(
        {"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "big"}}, context=replace(context, max_steps=2)
    )
    assert out["deliverables"][0]["size"] > 1_000_000

    with sqlite3.connect(sqlite_path) as conn:
        largest_checkpoint = conn.execute("SELECT max(length(checkpoint)) FROM checkpoints").fetchone()[0]
        largest_write = conn.execute("SELECT max(length(value)) FROM writes").fetchone()[0]
    assert largest_checkpoint < 64_000 and largest_write < 64_000
