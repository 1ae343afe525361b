"""Approval of actions through LangGraph interrupts (`Context.approve`), resumed with `Command(resume=…)`.

Every resume re-runs the interrupted `act` node from its start: the scripted server's request log proves that
no model request before the interrupt is ever sent twice.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

from langgraph.types import Command

from core.context import Context
from core.schemas import HistoryEntry, Strategy
from graph.builder import build_graph
from nodes.strategies import KEY, NAMESPACE
from tests.support.scenarios import (
    CODE_PROMPT,
    DATA_PROMPT,
    PRIMES_INTENT,
    PRIMES_PROMPT,
    ai_process,
    pending_questions,
    script_primes,
)
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

REJECTED = "rejected by the user"


def _routes(llm: ScriptedLLM) -> Counter[str]:
    return Counter(
        route for route in ("Intent", "ActionSelection", "ParametersAnswer", "text") for _ in llm.requests_for(route)
    )


def _scrape_until_rejected(request: RecordedRequest) -> dict[str, Any]:
    """Stage 1 picks web.scrape, and a direct ai.process once its prompt shows the user rejected the scrape."""
    if REJECTED in request.text:
        return {
            "action": "ai.process",
            "actionObjective": "Deliver the first 1000 prime numbers",
            "requiredInputDocuments": [],
            "parametersContext": DATA_PROMPT,  # code sets ai.process's task from it: no Stage 2
            "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
        }
    return {
        "action": "web.scrape",
        "actionObjective": "Find a published list of the first 1000 primes",
        "requiredInputDocuments": [],
        "parametersContext": "search for a list of primes",
        "parametersSchema": {"fields": [{"name": "query", "type": "string", "required": True}]},
    }


def _parameters(request: RecordedRequest) -> dict[str, Any]:
    if "SELECTED ACTION: web.scrape" in request.text:
        return {"schema": "parameters_v1", "parameters": {"query": "first 1000 prime numbers"}}
    direct = "directly" in request.text
    return {"schema": "parameters_v1", "parameters": {"aiPrompt": DATA_PROMPT if direct else CODE_PROMPT}}


def test_side_effects_asks_before_web_scrape_and_a_rejection_is_avoided_and_learned(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(PRIMES_INTENT)).on("ActionSelection", _scrape_until_rejected)
    scripted_llm.on("ParametersAnswer", _parameters).on("text", ai_process)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config: dict[str, Any] = {"configurable": {"thread_id": "approve-reject"}}
    context = replace(context, approve="side_effects")

    graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)

    (asked,) = pending_questions(graph, config)
    assert {k: v for k, v in asked.items() if k != "parameters"} == {
        "kind": "approve",
        "action": "web.scrape",
        "objective": "Find a published list of the first 1000 primes",
        "error": None,
    }
    assert asked["parameters"]["query"] == "first 1000 prime numbers" and "documentList" not in asked["parameters"]
    before = _routes(scripted_llm)
    assert before == Counter({"Intent": 1, "ActionSelection": 1, "ParametersAnswer": 1})

    out = graph.invoke(Command(resume={"decision": "reject", "reason": "stay offline"}), config, context=context)

    # ai.process has no side effects: no second question; the run completed with the data.
    assert pending_questions(graph, config) == []
    assert out["status"] == "completed"
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    rejected, done = history
    assert rejected.action == "web.scrape" and not rejected.success
    assert any(f"{REJECTED}: stay offline" in finding for finding in rejected.findings)
    assert done.action == "ai.process" and done.success
    # Nothing before the interrupt was asked again: one intent, one selection per step, Stage 2 for the scrape only.
    assert _routes(scripted_llm) == Counter({"Intent": 1, "ActionSelection": 2, "ParametersAnswer": 1, "text": 1})
    assert REJECTED in scripted_llm.requests_for("ActionSelection")[1].text
    learned = Strategy.model_validate(store.get((*NAMESPACE, "numbers-raw_data-prime"), KEY).value)
    assert any(a.startswith("web.scrape:") and REJECTED in a for a in learned.avoid)


def test_an_invalid_edit_is_refused_with_the_reason_and_a_valid_one_runs(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_primes(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config: dict[str, Any] = {"configurable": {"thread_id": "approve-edit"}}
    context = replace(context, approve="always")

    graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)
    (asked,) = pending_questions(graph, config)
    assert (asked["action"], asked["parameters"]["aiPrompt"], asked["error"]) == ("ai.process", CODE_PROMPT, None)

    graph.invoke(Command(resume={"decision": "edit", "parameters": {"bogus": 1}}), config, context=context)
    (again,) = pending_questions(graph, config)
    assert again["action"] == "ai.process"
    assert "has no parameters ['bogus']" in again["error"]
    graph.invoke(Command(resume={"decision": "maybe"}), config, context=context)
    (third,) = pending_questions(graph, config)
    assert "not an approval answer" in third["error"]

    out = graph.invoke(
        Command(resume={"decision": "edit", "parameters": {"aiPrompt": DATA_PROMPT}}), config, context=context
    )

    assert pending_questions(graph, config) == []
    assert out["status"] == "completed"
    (step,) = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert step.success and step.parameters["aiPrompt"] == DATA_PROMPT
    # Three resumes of `act`, and still each model request was sent exactly once; the tool ran only the edit.
    assert _routes(scripted_llm) == Counter({"Intent": 1, "ActionSelection": 1, "ParametersAnswer": 1, "text": 1})
    assert DATA_PROMPT in scripted_llm.requests_for("text")[0].text


def test_approve_runs_the_proposed_parameters_and_never_asks_by_default(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_primes(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    asking: dict[str, Any] = {"configurable": {"thread_id": "approve-ok"}}
    graph.invoke({"prompt": PRIMES_PROMPT}, asking, context=replace(context, approve="always"))
    assert len(pending_questions(graph, asking)) == 1
    assert scripted_llm.requests_for("text") == []  # the tool waits for the answer

    graph.invoke(Command(resume="approve"), asking, context=replace(context, approve="always"))
    assert CODE_PROMPT in scripted_llm.requests_for("text")[0].text

    silent: dict[str, Any] = {"configurable": {"thread_id": "approve-never"}}
    out = graph.invoke({"prompt": PRIMES_PROMPT}, silent, context=context)
    assert pending_questions(graph, silent) == [] and out["status"] == "completed"
