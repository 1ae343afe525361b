"""Actionplan (legacy) mode: one planning call, the plan executed in order with the same tools and validation."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from core.context import Context
from graph.builder import build_graph
from tests.support.scenarios import DATA_ANSWER, DATA_PROMPT, PRIMES_INTENT, PRIMES_PROMPT
from tests.support.scripted_llm import ScriptedLLM


def _plan(*actions: dict[str, Any]) -> str:
    return json.dumps({"actions": list(actions)})


def test_actionplan_executes_the_whole_plan_without_refining(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(PRIMES_INTENT)).on("text", DATA_ANSWER)
    scripted_llm.on(
        "ActionPlan",
        _plan(
            {"action": "ai.process", "actionObjective": "primes", "parameters": {"aiPrompt": DATA_PROMPT}},
            {
                "action": "document.generateReport",
                "requiredInputDocuments": ["docList:round1_task1_action1_process"],
                "parameters": {"title": "Primes", "formats": ["md"]},
            },
        ),
    )
    graph = build_graph(checkpointer=checkpointer, store=store)
    events = list(
        graph.stream(
            {"prompt": PRIMES_PROMPT},
            {"configurable": {"thread_id": "plan"}},
            context=replace(context, workflow_mode="Actionplan"),
            stream_mode="custom",
        )
    )
    nodes = [e["node"] for e in events]
    assert nodes == ["intent", "plan", *["plan_step", "act", "validate", "learn"] * 2, "finalize"]
    assert not scripted_llm.requests_for("ActionSelection")
    assert len(scripted_llm.requests_for("ActionPlan")) == 1
    out = graph.get_state({"configurable": {"thread_id": "plan"}}).values
    assert [h["action"] for h in out["history"]] == ["ai.process", "document.generateReport"]
    assert out["status"] == "completed" and "action plan executed" in out["stop_reason"]


def test_actionplan_with_an_unknown_planned_action_is_rejected_and_retried(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(PRIMES_INTENT)).on("text", DATA_ANSWER)
    scripted_llm.on(
        "ActionPlan",
        _plan({"action": "shell.exec", "parameters": {"cmd": "rm -rf /"}}),
        _plan({"action": "ai.process", "parameters": {"aiPrompt": DATA_PROMPT}}),
    )
    out = build_graph(checkpointer=checkpointer, store=store).invoke(
        {"prompt": PRIMES_PROMPT},
        {"configurable": {"thread_id": "plan-retry"}},
        context=replace(context, workflow_mode="Actionplan"),
    )
    retry = scripted_llm.requests_for("ActionPlan")[1].text
    assert "shell.exec" in retry and "not in the allowed catalog" in retry
    assert out["status"] == "completed"
