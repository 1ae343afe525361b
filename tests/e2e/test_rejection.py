"""Issue 46, item 4: a rejection is visible and respected.

The user rejects the proposed action with a reason. The step's history entry and the chat's step line say
"rejected: <reason>"; the rejected action is never asked for again in the round — a direct answer is not retried
with paor's advice appended to the user's words — and the round either proposes a different action (Stage 1 sees
the user's reason apart from paor's own hint) or stops, saying what was rejected and why. Through the real ChatOpenAI
client, with LangGraph interrupts resumed by `Command(resume=…)`, counting every question asked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.types import Command

from core.context import Context
from core.schemas import HistoryEntry
from graph.builder import build_graph
from prompts.render import REJECTED_SECTION
from tests.support.chat import ui_message
from tests.support.scenarios import DATA_ANSWER, DATA_PROMPT, PRIMES_INTENT, PRIMES_PROMPT
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

REASON = "no AI-written texts, please"
#: paor's own advice after a failed loop step: it must never reach a request as if the user had written it.
PAORS_ADVICE = "Choose a different action"


@dataclass
class Run:
    """A run driven to its end: every approval question asked, the chat's values and streamed messages."""

    questions: list[dict[str, Any]] = field(default_factory=list)
    step_lines: list[str] = field(default_factory=list)  # the round's interim message below its first paragraph
    tool_results: list[ToolMessage] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)
    #: The thread's history as a caller reads it while the run waits for each answer (state's window of heads).
    while_asked: list[list[HistoryEntry]] = field(default_factory=list)

    @property
    def history(self) -> list[HistoryEntry]:
        return [HistoryEntry.model_validate(h) for h in self.values["history"]]

    @property
    def closing(self) -> str:
        return str(self.values["messages"][-1].text)


def _drive(graph: Any, context: Context, first: dict[str, Any], answers: list[Any]) -> Run:
    """Stream the run, answering each approval question with the next of `answers` (a question beyond them fails
    the test: the run asked more than it should)."""
    run, config, given = Run(), {"configurable": {"thread_id": "rejection"}}, iter(answers)
    request: Any = first
    while True:
        for mode, chunk in graph.stream(request, config, context=context, stream_mode=["values", "messages"]):
            if mode == "messages" and isinstance(chunk[0], ToolMessage):
                run.tool_results.append(chunk[0])
            elif mode == "values":
                run.values = chunk
                last = (chunk.get("messages") or [None])[-1]
                line = last.text.split("\n\n", 1)[1] if last is not None and "\n\nStep " in last.text else None
                if line is not None and last.type == "ai" and line not in run.step_lines:
                    run.step_lines.append(line)
        snapshot = graph.get_state(config)
        waiting = [i.value for i in snapshot.interrupts]
        if not waiting:
            return run
        run.questions.extend(waiting)
        run.while_asked.append([HistoryEntry.model_validate(h) for h in snapshot.values.get("history") or []])
        answer = next(given, None)
        assert answer is not None, f"asked again: {run.questions}"
        request = Command(resume=answer)


def _reject(reason: str = REASON) -> dict[str, Any]:
    return {"decision": "reject", "reason": reason}


def _never_paors_advice_as_the_users_words(llm: ScriptedLLM, run: Run) -> None:
    assert not any(PAORS_ADVICE in r.text for r in llm.requests)
    assert not any(PAORS_ADVICE in json.dumps(q) for q in run.questions)


def test_a_rejected_direct_answer_stops_the_round_naming_the_rejection_when_no_other_action_can_do_it(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("text", "The sea glitters under the morning sun.")
    graph = build_graph(checkpointer=checkpointer, store=store)
    asking = replace(context, approve="always", max_steps=3)

    run = _drive(graph, asking, ui_message("Write one sentence about the sea."), [_reject()])

    # One question, for the bare call; no retry of it, no Stage 1, and the model never wrote a word.
    assert [(q["action"], q["parameters"]["aiPrompt"]) for q in run.questions] == [
        ("ai.process", "Write one sentence about the sea.")
    ]
    assert scripted_llm.requests == []
    (step,) = run.history
    assert (step.action, step.outcome, step.summary, step.rejected) == (
        "ai.process",
        "failed",
        f"rejected: {REASON}",
        REASON,
    )
    assert run.step_lines[-1] == f"Step 1 of at most 3: ai.process — rejected: {REASON}"
    assert [(m.content, m.status) for m in run.tool_results] == [(f"rejected: {REASON}", "error")]
    stop = f"you rejected ai.process: “{REASON}”; no other allowed action can do this"
    assert (run.values["status"], run.values["stop_reason"]) == ("incomplete", stop)
    assert stop in run.closing and "max_steps" not in run.closing
    _never_paors_advice_as_the_users_words(scripted_llm, run)


def test_the_stop_after_a_rejection_is_said_in_the_users_language(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    intent = {"dataType": "text", "expectedFormat": "markdown", "successCriteria": [], "language": "de"}
    scripted_llm.on("Intent", json.dumps(intent)).on("text", "Das Meer glitzert.")
    graph = build_graph(checkpointer=checkpointer, store=store)

    run = _drive(
        graph,
        replace(context, approve="always"),
        ui_message("Schreib einen Satz über das Meer.\nNur einen Satz."),
        [_reject("keine KI-Texte")],
    )

    assert len(run.questions) == 1 and scripted_llm.requests_for("text") == []
    stop = "Sie haben ai.process abgelehnt: „keine KI-Texte“; keine andere erlaubte Aktion kann das erledigen"
    assert run.values["stop_reason"] == stop and stop in run.closing


SQUARES = "List the squares of the first 5 odd numbers.\nComma-separated."  # two lines: the model analyses it
SQUARES_INTENT = {
    "dataType": "numbers",
    "expectedFormat": "raw_data",
    "successCriteria": ["the squares of 1, 3, 5, 7 and 9"],
    "language": "en",
    "itemCount": 5,
}


def _code_once_ai_is_rejected(request: RecordedRequest) -> dict[str, Any]:
    """A model that keeps its first idea (ai.process) unless the prompt shows the user rejected it."""
    action = "code.execute" if REJECTED_SECTION in request.text else "ai.process"
    field_name = "code" if action == "code.execute" else "aiPrompt"
    return {
        "action": action,
        "actionObjective": "Compute the squares of the first 5 odd numbers",
        "parametersContext": "print them comma-separated",
        "parametersSchema": {"fields": [{"name": field_name, "type": "string", "required": True}]},
    }


def test_a_rejected_direct_answer_goes_to_another_action_that_can_do_it_and_never_asks_for_the_same_call(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    code = "print(', '.join(str(n * n) for n in (1, 3, 5, 7, 9)))"
    scripted_llm.on("Intent", json.dumps(SQUARES_INTENT)).on("ActionSelection", _code_once_ai_is_rejected)
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"code": code}})
    graph = build_graph(checkpointer=checkpointer, store=store)
    asking = replace(context, approve="always", allowed_methods="ai.process,code.execute")

    run = _drive(graph, asking, {"prompt": SQUARES}, [_reject(), _reject("no code either")])

    # The bare call, then a different action; never the bare call again with paor's advice after the request.
    assert [q["action"] for q in run.questions] == ["ai.process", "code.execute"]
    assert scripted_llm.requests_for("text") == []
    (stage1,) = scripted_llm.requests_for("ActionSelection")
    # The request stays the user's own words; their reason has its own section; the catalog no longer offers it.
    assert stage1.text.split("OBJECTIVE (user request):\n", 1)[1].startswith(f"{SQUARES}\n\nUSER INTENT:")
    assert f'{REJECTED_SECTION}:\n- ai.process: "{REASON}"' in stage1.text
    offered = stage1.text.split("AVAILABLE ACTIONS:\n", 1)[1].split("\n\n", 1)[0]
    assert "code.execute" in offered and "ai.process" not in offered
    # While the second question waits, the thread's history already says the first step was rejected, and why.
    assert [(h.step, h.outcome, h.rejected) for h in run.while_asked[1]] == [(1, "failed", REASON)]
    assert [(h.action, h.summary) for h in run.history] == [
        ("ai.process", f"rejected: {REASON}"),
        ("code.execute", "rejected: no code either"),
    ]
    assert [line.rsplit(" — ", 1)[1] for line in run.step_lines if "rejected" in line] == [
        f"rejected: {REASON}",
        "rejected: no code either",
    ]
    assert run.values["stop_reason"] == (
        f"you rejected ai.process: “{REASON}”; you rejected code.execute: “no code either”; "
        "no other allowed action can do this"
    )
    _never_paors_advice_as_the_users_words(scripted_llm, run)


def _search_until_rejected(request: RecordedRequest) -> dict[str, Any]:
    """web.search first; the answer asked of ai.process once the prompt shows the user rejected the search."""
    if REJECTED_SECTION in request.text:
        return {
            "action": "ai.process",
            "actionObjective": "Deliver the first 1000 prime numbers",
            "parametersContext": DATA_PROMPT,  # code sets ai.process's task from it: no Stage 2
            "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
        }
    return {
        "action": "web.search",
        "actionObjective": "Find a published list of the first 1000 primes",
        "parametersContext": "search for a list of primes",
        "parametersSchema": {"fields": [{"name": "query", "type": "string", "required": True}]},
    }


def test_after_a_rejected_loop_step_a_different_action_is_proposed_and_delivers(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(PRIMES_INTENT)).on("ActionSelection", _search_until_rejected)
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"query": "first 1000 primes"}})
    scripted_llm.on("text", lambda r: DATA_ANSWER if DATA_PROMPT in r.text else "?")
    graph = build_graph(checkpointer=checkpointer, store=store)

    run = _drive(
        graph, replace(context, approve="always"), {"prompt": PRIMES_PROMPT}, [_reject("stay offline"), "approve"]
    )

    assert [q["action"] for q in run.questions] == ["web.search", "ai.process"]
    assert run.values["status"] == "completed"
    rejected, delivered = run.history
    assert (rejected.action, rejected.summary, rejected.rejected) == (
        "web.search",
        "rejected: stay offline",
        "stay offline",
    )
    assert delivered.action == "ai.process" and delivered.success
    assert "Step 1 of at most 5: web.search — rejected: stay offline" in run.step_lines
    second = scripted_llm.requests_for("ActionSelection")[1].text
    assert f'{REJECTED_SECTION}:\n- web.search: "stay offline"' in second
    assert "REFINEMENT HINT" not in second  # paor adds no advice of its own to the user's decision
    _never_paors_advice_as_the_users_words(scripted_llm, run)
