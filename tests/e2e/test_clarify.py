"""Clarifying questions (`Context.ask_user`): an ambiguous request is asked about at the start of `select`."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from langgraph.types import Command

from core.context import Context
from graph.builder import build_graph
from nodes.strategies import KEY, NAMESPACE
from tests.support.scenarios import PRIMES_INTENT, ai_process, parameters, pending_questions, selection
from tests.support.scripted_llm import ScriptedLLM

AMBIGUOUS = "Calculate the numbers"
QUESTION = "Which numbers should be calculated?"
CLARIFYING_INTENT = {
    **PRIMES_INTENT,
    "clarification": {"question": QUESTION, "suggestions": ["the first 1000 prime numbers", "square numbers"]},
}


def _script(llm: ScriptedLLM) -> None:
    llm.on("Intent", json.dumps(CLARIFYING_INTENT)).on("ActionSelection", selection)
    llm.on("ParametersAnswer", parameters).on("text", ai_process)
    llm.on("ContentJudgement", {"criteriaMet": [True, True], "qualityScore": 0.9, "issues": []})


def test_an_ambiguous_request_is_asked_about_and_the_answer_reaches_stage_1_only_once(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    _script(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config: dict[str, Any] = {"configurable": {"thread_id": "clarify"}}
    context = replace(context, ask_user=True, max_steps=1)

    graph.invoke({"prompt": AMBIGUOUS}, config, context=context)

    asked = pending_questions(graph, config)
    assert asked == [
        {"kind": "clarify", "question": QUESTION, "suggestions": ["the first 1000 prime numbers", "square numbers"]}
    ]
    assert scripted_llm.requests_for("ActionSelection") == []

    out = graph.invoke(Command(resume="the first 1000 prime numbers"), config, context=context)

    assert graph.get_state(config).interrupts == ()
    assert len(scripted_llm.requests_for("Intent")) == 1  # the intent analysis was not repeated
    (stage1,) = scripted_llm.requests_for("ActionSelection")
    assert f"Clarification: {QUESTION} Answer: the first 1000 prime numbers" in stage1.text
    assert f"asked: {QUESTION} — answered: the first 1000 prime numbers" in out["notes"]
    # The learned strategy stays under the pattern the intent analysis gave, not one derived from the answer.
    assert store.get((*NAMESPACE, "numbers-raw_data"), KEY) is not None
    assert store.get((*NAMESPACE, "numbers-raw_data-prime"), KEY) is None


def test_without_ask_user_the_run_goes_on_and_notes_its_assumption(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    _script(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config: dict[str, Any] = {"configurable": {"thread_id": "assume"}}

    # two lines: the model analyses it (a one-liner with nobody to ask is read by code, which asks nothing)
    out = graph.invoke({"prompt": f"{AMBIGUOUS}\nas we discussed."}, config, context=replace(context, max_steps=1))

    assert graph.get_state(config).interrupts == ()
    assert any(QUESTION in note and "assumption" in note for note in out["notes"])
    assert not any("Clarification:" in r.text for r in scripted_llm.requests[1:])
