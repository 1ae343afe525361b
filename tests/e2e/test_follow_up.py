"""Follow-ups in a chat thread finish: "Now give me only the first 10" after the primes round (issue 23, item 4).

The thread's first round is the primes scenario; the second is the follow-up a chat user typed. A model that
answers it right completes in one step; one that keeps delivering the same wrong list byte for byte is told to
change the approach once and then stopped with the reason — not run until max_steps.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from core.context import Context
from core.schemas import HistoryEntry
from graph.builder import build_graph
from tests.support.chat import ui_message
from tests.support.scenarios import PRIMES_INTENT, PRIMES_PROMPT, ai_process, parameters, selection
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

FOLLOW_UP = "Now give me only the first 10"
#: What the model made of the follow-up in the session of issue 23.
FOLLOW_UP_INTENT = {
    "dataType": "list",
    "expectedFormat": "markdown",
    "successCriteria": ["the first 10 prime numbers"],
    "itemCount": 10,
    "numberProperty": "prime",
    "language": "en",
}
FIRST_10 = "2, 3, 5, 7, 11, 13, 17, 19, 23, 29"
NINE = "2, 3, 5, 7, 11, 13, 17, 19, 23"
FOLLOW_UP_CONTEXT = "The user wants the first 10 prime numbers as a list."


def _by_round(first: Any, follow_up: Any) -> Callable[[RecordedRequest], Any]:
    def answer(request: RecordedRequest) -> Any:
        about = FOLLOW_UP in request.text or FOLLOW_UP_CONTEXT in request.text  # Stage 2 sees only the context
        chosen = follow_up if about else first
        return chosen(request) if callable(chosen) else chosen

    return answer


def _script(llm: ScriptedLLM, follow_up_answer: str) -> None:
    rephrased = itertools.count(1)
    follow_up_selection = {
        "action": "ai.process",
        "actionObjective": "List the first 10 prime numbers",
        "parametersContext": FOLLOW_UP_CONTEXT,
        "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
    }
    llm.on("Intent", _by_round(json.dumps(PRIMES_INTENT), json.dumps(FOLLOW_UP_INTENT)))
    llm.on("ActionSelection", _by_round(selection, follow_up_selection))
    llm.on(
        "ParametersAnswer",  # the model words its prompt anew each time, and still answers the same
        _by_round(parameters, lambda _: {"parameters": {"aiPrompt": f"List the first 10 primes ({next(rephrased)})."}}),
    )
    llm.on("text", _by_round(ai_process, follow_up_answer))


@pytest.fixture
def graph(checkpointer: Any, store: Any) -> Any:
    return build_graph(checkpointer=checkpointer, store=store)


def _follow_up(graph: Any, context: Context, thread: str) -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread}}
    first = graph.invoke(ui_message(PRIMES_PROMPT), config, context=context)
    assert first["status"] == "completed"
    out: dict[str, Any] = graph.invoke(ui_message(FOLLOW_UP), config, context=context)
    return out


def test_the_follow_up_is_answered_in_one_step(scripted_llm: ScriptedLLM, graph: Any, context: Context) -> None:
    _script(scripted_llm, FIRST_10)
    out = _follow_up(graph, context, "follow-up")

    assert out["status"] == "completed" and out["round"] == 2
    assert [h["step"] for h in out["history"] if h["round"] == 2] == [1]
    assert out["answer"] == FIRST_10 and out["messages"][-1].text.startswith(FIRST_10)
    assert [type(m).__name__ for m in out["messages"]] == ["HumanMessage", "AIMessage"] * 2


def test_the_same_wrong_result_again_changes_the_approach_once_then_stops_saying_why(
    scripted_llm: ScriptedLLM, graph: Any, context: Context
) -> None:
    _script(scripted_llm, NINE)
    out = _follow_up(graph, replace(context, direct_answer=False), "follow-up-repeats")  # the loop's own rule

    steps = [HistoryEntry.model_validate(h) for h in out["history"] if h["round"] == 2]
    assert len(steps) == 3, "stopped, not run until max_steps"
    assert out["status"] == "incomplete"
    assert out["stop_reason"].startswith("no progress: the results repeat byte for byte (step 2 = step 1, step 3")
    assert steps[1].outcome == "failed" and "byte-identical to step 1's" in steps[1].learnings[-1]
    told = scripted_llm.requests_for("ActionSelection")[-1].text  # Stage 1 of step 3
    assert "Step 2 delivered exactly what step 1 did" in told and "byte-identical to step 1's" in told
    assert out["answer"] == NINE and "no progress" not in out["messages"][-1].text  # the why is in stop_reason
