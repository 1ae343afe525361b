"""The next step's Stage 1 is asked while the judge reads this step (nodes/ahead.py): one sequential request less per
judged step, and nothing the judge says is lost — its hint reaches the next action, a judgement that ends the round
discards the early selection, and a step that failed is chosen after anew."""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

from core.context import Context
from graph.builder import build_graph
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

INTENT = {"dataType": "analysis", "expectedFormat": "markdown", "successCriteria": ["covers every region"]}
SELECTION = {
    "action": "ai.process",
    "actionObjective": "Write the next region's section",
    "requiredInputDocuments": [],
    "parametersContext": "One region per section.",
    "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
}
HINT = "Cover the Nordic region next."


def _judge(stop_at: int) -> Any:
    judged = itertools.count(1)

    def judgement(request: RecordedRequest) -> dict[str, Any]:
        met = next(judged) >= stop_at
        return {
            "criteriaMet": [met],
            "qualityScore": 0.95 if met else 0.5,
            "issues": [] if met else ["regions are missing"],
            "improvementSuggestions": [] if met else [HINT],
            "decision": "stop" if met else "continue",
        }

    return judgement


def _run(llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, steps: int) -> dict[str, Any]:
    context.max_steps = steps
    context.direct_answer = False  # the loop is under test
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "ahead"}}
    return graph.invoke({"prompt": "Write a regional market analysis"}, config, context=context)


def test_stage1_goes_out_while_the_judge_reads_and_the_judges_hint_reaches_the_next_action(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    selections = threading.Semaphore(0)
    overlapped: list[bool] = []
    sections = itertools.count(1)
    judge = _judge(stop_at=2)
    asked, returned, before_the_run_returned = itertools.count(1), threading.Event(), []

    def selection(request: RecordedRequest) -> dict[str, Any]:
        selections.release()
        if next(asked) == 3:  # step 3's, beside the judgement that ends the round: the run must wait for it (it
            returned.wait(timeout=1)  # uses the run's store), so the run cannot have returned when this answers
            before_the_run_returned.append(not returned.is_set())
        return SELECTION

    def judgement(request: RecordedRequest) -> dict[str, Any]:
        # Each judge answers only once the next step's Stage 1 has arrived (at most 10 s): they were in flight
        # together. One after the other, the next Stage 1 would come after this answer, and the wait would time out.
        # (Answered at once, step 2's stop could come before step 3's Stage 1 was sent, which is then never sent.)
        if not overlapped:
            selections.acquire()  # step 1's own Stage 1
        overlapped.append(selections.acquire(timeout=10))
        return judge(request)

    scripted_llm.on("Intent", json.dumps(INTENT)).on("ActionSelection", selection)
    scripted_llm.on("text", lambda request: f"## Region {next(sections)}\n\n" + "Storage grew (source 1). " * 20)
    scripted_llm.on("ContentJudgement", judgement)

    out = _run(scripted_llm, context, checkpointer, store, steps=4)
    returned.set()

    assert overlapped == [True, True]
    assert [h["step"] for h in out["history"]] == [1, 2]  # step 2's judgement ended the round
    # Step 3's Stage 1 was asked alongside step 2's judgement, answered before the run ended, then discarded: no
    # third action ran.
    assert before_the_run_returned == [True]
    assert len(scripted_llm.requests_for("ActionSelection")) == 3
    actions = scripted_llm.requests_for("text")
    assert len(actions) == 2
    assert f"Review of step 1: {HINT}" in actions[1].text  # the judge's hint reached step 2's action
    assert not scripted_llm.requests_for("ParametersAnswer")  # ai.process's task came from Stage 1, by code
    assert "Region 2" in out["answer"]


def test_a_step_that_failed_is_chosen_after_anew(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """Every action answers the same text: step 2 repeats step 1's result, learn marks it failed, and the
    selection made alongside step 2's judgement is not used — step 3's Stage 1 sees the failure."""
    scripted_llm.on("Intent", json.dumps(INTENT)).on("ActionSelection", SELECTION)
    scripted_llm.on("text", "## Region\n\n" + "Storage grew (source 1). " * 20)
    scripted_llm.on("ContentJudgement", _judge(stop_at=99))
    # Step 3 may not repeat step 2's parameters, which failed: Stage 2 is asked for others.
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Another region."}})

    out = _run(scripted_llm, context, checkpointer, store, steps=3)

    assert [h["outcome"] for h in out["history"]][:2] == ["progress", "failed"]
    stage1 = scripted_llm.requests_for("ActionSelection")
    # Step 1, step 2 (asked ahead), step 3 (asked ahead, discarded), step 3 again: after the failure.
    assert len(stage1) == 4
    assert "step 2] ai.process — FAILED" in stage1[-1].text
    assert "step 2] ai.process — FAILED" not in stage1[-2].text


def test_on_an_endpoint_that_answers_one_request_at_a_time_stage1_waits_for_the_judge(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """overlap_requests off (llama-cpp-python's server): the requests go out one after the other, the next Stage 1 after
    the judgement (its hint in the prompt), and a judgement that ends the round leaves no selection asked for
    nothing."""
    order: list[str] = []
    regions = itertools.count(1)

    def selection(request: RecordedRequest) -> dict[str, Any]:
        order.append("select")
        return {**SELECTION, "parametersContext": f"Region {next(regions)} only."}

    def action(request: RecordedRequest) -> str:
        order.append("act")
        return "## Region\n\n" + "Storage grew (source 1). " * 20 + request.text[-40:]

    judge = _judge(stop_at=2)

    def judgement(request: RecordedRequest) -> dict[str, Any]:
        order.append("judge")
        return judge(request)

    scripted_llm.on("Intent", json.dumps(INTENT)).on("ActionSelection", selection)
    scripted_llm.on("text", action).on("ContentJudgement", judgement)
    context.overlap_requests = False

    out = _run(scripted_llm, context, checkpointer, store, steps=4)

    assert order == ["select", "act", "judge", "select", "act", "judge"]
    assert f"REFINEMENT HINT:\n{HINT}" in scripted_llm.requests_for("ActionSelection")[1].text
    assert [h["step"] for h in out["history"]] == [1, 2]
