"""instrument: every node gets a telemetry record (time, tokens from usage_metadata) and a progress event."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from cli.view import progress_line
from core.context import Context
from core.runtime import context_of
from graph.instrument import instrumented
from nodes.services import Services
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import runtime, state

QUESTION = "What is the next step? " * 10
ANSWER = "Ask for the numbers directly, please."


def test_node_telemetry_counts_the_tokens_its_model_calls_reported(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("text", ANSWER)

    def chatty(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        svc.llm(context).invoke([HumanMessage(content=QUESTION)])
        svc.llm(context).invoke([HumanMessage(content=QUESTION)])
        return {"step": 3, "selection": {"action": "ai.process", "actionObjective": "Deliver primes"}}

    events: list[dict[str, Any]] = []
    update = instrumented("select", chatty, services)(state(round=2), runtime(context, writer=events.append))

    totals = update["telemetry"]
    assert totals["round"] == 2 and totals["nodes"]["select"]["runs"] == 1
    assert totals["inputTokens"] == 2 * (len(QUESTION) // 4)
    assert totals["outputTokens"] == 2 * (len(ANSWER) // 4)
    assert totals["seconds"] >= 0
    assert update["step"] == 3 and update["selection"]["action"] == "ai.process"

    [event] = events
    assert event["event"] == "progress" and event["node"] == "select"
    assert (event["round"], event["step"], event["action"], event["objective"]) == (
        2,
        3,
        "ai.process",
        "Deliver primes",
    )
    assert event["inputTokens"] == totals["inputTokens"] and event["durationS"] == totals["seconds"]


def test_node_without_model_calls_records_zero_tokens(services: Services, context: Context) -> None:
    events: list[dict[str, Any]] = []

    def decide(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        return {"decision": {"decision": "stop", "reason": "max_steps (5) reached"}}

    current = state(step=5, selection={"action": "ai.process"})
    update = instrumented("refine", decide, services)(current, runtime(context, writer=events.append))
    assert update["telemetry"]["inputTokens"] == 0 and update["telemetry"]["nodes"]["refine"]["runs"] == 1
    [event] = events
    assert (event["node"], event["decision"], event["reason"]) == ("refine", "stop", "max_steps (5) reached")
    assert "objective" not in event and "qualityScore" not in event


def test_progress_event_of_intent_names_no_action(services: Services, context: Context) -> None:
    events: list[dict[str, Any]] = []
    instrumented("intent", lambda s, r, v: {"round": 1, "step": 0}, services)(
        state(selection={"action": "stale"}), runtime(context, writer=events.append)
    )
    assert "action" not in events[0] and events[0]["node"] == "intent"


def test_runtime_without_context_gets_env_filled_defaults(monkeypatch: Any) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "7")
    assert context_of(Runtime(context=None)).max_steps == 7
    assert context_of(Runtime(context={"max_steps": 3})).max_steps == 3


def test_a_failed_tool_call_shows_its_error_on_the_act_event_and_line(services: Services, context: Context) -> None:
    events: list[dict[str, Any]] = []
    failed = {"success": False, "resultLabel": "round1_task1_action1_process", "error": "documentList is empty"}
    instrumented("act", lambda s, r, v: {"result": failed}, services)(
        state(selection={"action": "ai.process"}), runtime(context, writer=events.append)
    )
    [event] = events
    assert event["error"] == "documentList is empty"
    assert "error: documentList is empty" in progress_line(event).plain


def test_a_successful_tool_call_shows_no_error(services: Services, context: Context) -> None:
    events: list[dict[str, Any]] = []
    done = {"success": True, "resultLabel": "round1_task1_action1_process"}
    instrumented("act", lambda s, r, v: {"result": done}, services)(
        state(selection={"action": "ai.process"}), runtime(context, writer=events.append)
    )
    assert "error" not in events[0]
