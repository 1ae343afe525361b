"""Issues 26 and 29 end to end: a one-line request costs the bare call, a wrong direct answer is asked once more
with what code knows, filler never completes a run, and a model that copies the shape's descriptions is refused and
asked again — through the real ChatOpenAI client."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from core.context import Context
from core.schemas import HistoryEntry, Intent
from graph.builder import build_graph
from nodes.direct_lessons import record as record_direct
from nodes.reading.numbers import numbers_in
from nodes.strategies import recall
from tests.support.deadlines import wait_until
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

PRODUCT = "What is 12 multiplied by 11?"
FILLER = "To achieve the task, I must ensure that all necessary steps are carried out to deliver a successful outcome."
ANSWER_INTENT = {
    "dataType": "answer",
    "expectedFormat": "markdown",
    "successCriteria": ["gives the product of 12 and 11"],
    "language": "en",
}
COPIED_SELECTION = {
    "action": "ai.process",
    "actionObjective": "What this one action must achieve.",
    "parametersContext": "Concise text Stage 2 uses to set the parameters.",
    "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True, "description": "…"}]},
}
REAL_SELECTION = {
    **COPIED_SELECTION,
    "actionObjective": "Compute 12 × 11",
    "parametersContext": "The user wants the product of 12 and 11 as a number.",
}


def _run(graph: Any, context: Context, prompt: str, thread: str = "t") -> dict[str, Any]:
    return graph.invoke({"prompt": prompt}, {"configurable": {"thread_id": thread}}, context=context)


def test_a_one_line_question_takes_one_model_call_that_carries_only_the_users_words(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("text", "12 × 11 = 132")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, PRODUCT)

    assert out["status"] == "completed" and "132" in out["answer"]
    # read by code (no analysis call), answered once by the bare call, checked by computing it (no judge)
    assert [r.route for r in scripted_llm.requests] == ["text"]
    assert scripted_llm.requests_for("text")[0].text == PRODUCT


def test_a_request_code_cannot_read_is_analysed_by_the_model_and_still_answered_by_the_bare_call(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    question = "How many metres is 3 km?\nJust the number, please."  # two lines: the model analyses it
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT)).on("text", "3000")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, question)

    assert out["status"] == "completed" and out["answer"] == "3000"
    assert [r.route for r in scripted_llm.requests] == ["Intent", "text"]  # no judge: code computed 3000
    assert scripted_llm.requests_for("text")[0].text == question  # no header, criterion or language of paor's


@pytest.mark.parametrize("request_text", ["?", "TODO", "<html>"])
def test_a_request_that_looks_like_a_placeholder_is_answered_as_the_user_wrote_it(
    request_text: str, scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT)).on("text", "What would you like to know?")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, request_text)

    # the user's own words are no copied placeholder: the bare call answers them, and nothing is left to decide
    assert out["answer"] == "What would you like to know?"
    assert scripted_llm.requests_for("text")[0].text == request_text


def test_filler_is_asked_again_and_a_sentence_no_check_can_decide_is_unverified(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("text", FILLER, "The sea glitters under the morning sun.")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, "Write one sentence about the sea.")

    assert out["status"] == "unverified" and out["answer"] == "The sea glitters under the morning sun."
    assert [r.route for r in scripted_llm.requests] == ["text", "text"]  # no judge of the same model
    retry = "Write one sentence about the sea.\n\nAnswer the request itself; do not describe how you would do it."
    assert scripted_llm.requests[1].text == retry


def test_the_direct_answer_streams_token_by_token(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT)).on("text", "Twelve times eleven is 132.")
    graph = build_graph(checkpointer=checkpointer, store=store)
    chunks = [
        message.content
        for message, _ in graph.stream(
            {"prompt": PRODUCT}, {"configurable": {"thread_id": "s"}}, context=context, stream_mode="messages"
        )
        if isinstance(message, AIMessageChunk) and message.content
    ]
    assert len(chunks) >= 4 and "".join(map(str, chunks)) == "Twelve times eleven is 132."
    assert not any("{" in str(c) for c in chunks)  # protocol JSON (the intent) never reaches a chat


def test_filler_is_never_a_success_even_when_the_judge_grades_it_full_marks(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT)).on("text", FILLER)
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 1.0, "decision": "stop"})
    scripted_llm.on("ActionSelection", REAL_SELECTION)
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Multiply 12 by 11."}})
    out = _run(build_graph(checkpointer=checkpointer, store=store), replace(context, max_steps=2), PRODUCT)

    # the filler is never delivered: code knows the product, and says so (issue 46)
    assert out["answer"].split("\n\n")[0] == "12 × 11 = 132." and FILLER not in out["answer"]
    assert "criteria met" not in out["stop_reason"] and "computed result" in out["stop_reason"]
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert [h.success for h in history] == [False, False]
    assert any("132" in finding for finding in history[0].findings)
    strategies = recall(store, Intent.model_validate(ANSWER_INTENT))
    assert strategies and strategies[0].successfulAction is None and strategies[0].successes == 0


def test_a_model_that_copies_the_shape_is_refused_and_the_request_still_reaches_the_answer(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT))
    tone = {"name": "customInstructions", "type": "string", "required": False, "description": "tone"}
    asking = {**REAL_SELECTION, "parametersSchema": {"fields": [*COPIED_SELECTION["parametersSchema"]["fields"], tone]}}
    scripted_llm.on("ActionSelection", COPIED_SELECTION, asking)  # a field beyond the task: Stage 2 is asked
    scripted_llm.on(
        "ParametersAnswer",
        {"schema": "parameters_v1", "parameters": {"aiPrompt": "The task, stated as what to deliver."}},
        {"schema": "parameters_v1", "parameters": {"aiPrompt": "Give the product."}},
    )
    scripted_llm.on("text", "132")
    out = _run(build_graph(checkpointer=checkpointer, store=store), replace(context, direct_answer=False), PRODUCT)

    assert out["status"] == "completed" and out["answer"] == "132"
    stage1, stage2 = scripted_llm.requests_for("ActionSelection"), scripted_llm.requests_for("ParametersAnswer")
    assert len(stage1) == 2 and "actionObjective and parametersContext repeat" in stage1[1].text
    assert len(stage2) == 2 and "description or placeholder" in stage2[1].text
    answer_call: RecordedRequest = scripted_llm.requests_for("text")[0]
    assert PRODUCT in answer_call.text and "Give the product." in answer_call.text


def test_a_wrong_direct_answer_is_asked_once_more_with_what_code_computed(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("text", "12 times 11 is 13.", "12 times 11 is 132.")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, PRODUCT)

    assert out["status"] == "completed" and out["answer"] == "12 times 11 is 132."
    assert [r.route for r in scripted_llm.requests] == ["text", "text"]  # no Stage 1, no Stage 2
    assert scripted_llm.requests_for("text")[1].text == f"{PRODUCT}\n\n(The answer is 132.)"


MINUTES = "How many minutes are in two hours?"


def test_an_answer_code_proved_wrong_twice_is_replaced_by_the_computed_result_without_a_loop(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """Issue 46: SmolLM2 answered "20 minutes", then "30 minutes" when told 120; the loop ran seven requests and
    paor delivered "Two hours is equal to 20 minutes." without a word. Code knows the result: no loop can beat it."""
    scripted_llm.on("text", "Two hours is equal to 20 minutes.")  # whatever it is told
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, MINUTES)

    assert [r.route for r in scripted_llm.requests] == ["text", "text"]  # the bare call and the retry only
    computed, line = out["answer"].split("\n\n")
    assert computed == "2 hours = 120 minutes." and "Computed by paor" in line and "model's answer" in line
    assert numbers_in(out["answer"]) == [2, 120]  # the model's wrong number nowhere beside the right one
    assert out["status"] == "completed" and "replaced" not in out["answer"]
    assert "computed result" in out["stop_reason"] and "failed code's check" in out["stop_reason"]
    [deliverable] = out["deliverables"]
    assert deliverable["name"] == "result.md" and deliverable["label"].endswith("_computed")
    assert out["messages"][-1].content.startswith("2 hours = 120 minutes.")


def test_a_bare_call_that_runs_out_of_time_is_not_asked_again_where_code_knows_the_result(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """SmolLM2 on "¿Cuánto es el 10 por ciento de 50?" wrote until the tool's timeout (300 s), then was asked the
    same once more: ten minutes for a result code had computed before the first call."""

    def past_the_timeout(_: RecordedRequest) -> str:
        time.sleep(2.5)
        return "El 10 por ciento de 50 es"

    scripted_llm.on("text", past_the_timeout)
    out = _run(build_graph(checkpointer=checkpointer, store=store), replace(context, tool_timeout_s=1.0), MINUTES)

    assert [r.route for r in scripted_llm.requests] == ["text"]  # not asked again
    assert out["status"] == "completed" and out["answer"].startswith("2 hours = 120 minutes.")
    assert "the model gave no answer" in out["answer"] and "computed result" in out["stop_reason"]


def test_an_answer_its_step_gave_up_on_is_stopped_at_the_endpoint(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """A model still writing when its step runs out of time is told so by its connection closing: llama.cpp's
    server then stops, where it would write the abandoned answer to its end while the next request waits."""
    scripted_llm.stream_delay_s = 0.05
    scripted_llm.on("text", " ".join(["sixty"] * 1000))  # fifty seconds of tokens
    out = _run(build_graph(checkpointer=checkpointer, store=store), replace(context, tool_timeout_s=1.0), MINUTES)

    assert out["answer"].startswith("2 hours = 120 minutes.")
    assert wait_until(lambda: bool(scripted_llm.streams), 30), "the endpoint wrote the abandoned answer on"
    [(sent, written)] = scripted_llm.streams
    assert sent < written / 2


def test_a_bare_call_that_runs_out_of_time_is_asked_again_where_code_knows_no_result(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    def past_the_timeout(_: RecordedRequest) -> str:
        time.sleep(2.5)
        return "The sea"

    scripted_llm.on("text", past_the_timeout, "The sea glitters under the morning sun.")
    out = _run(
        build_graph(checkpointer=checkpointer, store=store),
        replace(context, tool_timeout_s=1.0),
        "Write one sentence about the sea.",
    )

    assert [r.route for r in scripted_llm.requests] == ["text", "text"]
    assert out["answer"] == "The sea glitters under the morning sun."


def test_the_computed_result_is_introduced_in_the_users_language(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    german = {**ANSWER_INTENT, "successCriteria": ["states the product"], "language": "de"}
    scripted_llm.on("Intent", json.dumps(german)).on("text", "Das ist 13.")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, "Was ist 12 mal 11?\nNur die Zahl.")

    assert out["answer"].startswith("12 × 11 = 132.") and "Von paor berechnet" in out["answer"], out["answer"]
    assert numbers_in(out["answer"]) == [12, 11, 132]


def test_an_answer_code_cannot_decide_stands_as_the_bare_call_gave_it(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("text", "The sea glitters under the morning sun.")
    out = _run(build_graph(checkpointer=checkpointer, store=store), context, "Write one sentence about the sea.")
    assert out["answer"] == "The sea glitters under the morning sun." and "paor" not in out["answer"]


def test_the_second_direct_answer_streams_too(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("text", "It is 13.", "Twelve times eleven is 132.")
    graph = build_graph(checkpointer=checkpointer, store=store)
    streamed = "".join(
        str(message.content)
        for message, _ in graph.stream(
            {"prompt": PRODUCT}, {"configurable": {"thread_id": "s2"}}, context=context, stream_mode="messages"
        )
        if isinstance(message, AIMessageChunk) and message.content
    )
    assert streamed == "It is 13.Twelve times eleven is 132."


GERMAN_REQUEST = "Fasse die wichtigsten Vorteile von Heimspeichern für Solarstrom in einem kurzen Absatz zusammen."
GERMAN_INTENT = {**ANSWER_INTENT, "successCriteria": ["written in German"], "language": "de"}
ENGLISH = (
    "Home batteries store the surplus solar power of the day for the evening, which raises self-consumption and "
    "lowers the bill; they keep essential devices running during outages and ease the grid at peak times."
)
GERMAN = (
    "Heimspeicher speichern den überschüssigen Solarstrom des Tages für den Abend. Dadurch steigt der Eigenverbrauch, "
    "die Stromrechnung sinkt, wichtige Geräte laufen bei einem Stromausfall weiter und das Netz wird entlastet."
)
LANGUAGE_NOTE = "Write the deliverable in language 'de'."


def _answers_german_when_told(scripted_llm: ScriptedLLM) -> None:
    """A model whose bare answer to a German request is English, and German once the prompt names the language."""
    scripted_llm.on("Intent", json.dumps(GERMAN_INTENT))
    scripted_llm.on("text", lambda request: GERMAN if "language 'de'" in request.text else ENGLISH)


def test_a_language_the_bare_call_missed_is_named_in_the_first_call_of_the_next_run(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    _answers_german_when_told(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    first = _run(graph, context, GERMAN_REQUEST, "run-1")
    assert first["answer"] == GERMAN  # the retry named the language and passed the check the bare answer failed
    retried = f"{GERMAN_REQUEST}\n\n{LANGUAGE_NOTE}"
    assert [r.text for r in scripted_llm.requests_for("text")] == [GERMAN_REQUEST, retried]

    before = len(scripted_llm.requests)
    second = _run(graph, context, GERMAN_REQUEST, "run-2")
    calls = scripted_llm.requests[before:]
    assert second["answer"] == GERMAN
    assert [r.route for r in calls] == ["text"]  # right the first time: no retry
    assert calls[0].text == retried


def test_without_learning_or_once_the_bare_call_gets_the_language_right_the_first_call_is_bare_again(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    _answers_german_when_told(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    _run(graph, context, GERMAN_REQUEST, "run-1")

    before = len(scripted_llm.requests)
    _run(graph, replace(context, learning=False), GERMAN_REQUEST, "unlearned")
    assert scripted_llm.requests_for("text")[-2].text == GERMAN_REQUEST  # learning off: the bare call, then the retry
    assert len(scripted_llm.requests) - before == 2

    for _ in range(2):  # two bare German answers outweigh the one English: the note is not worth sending
        record_direct(store, Intent.model_validate(GERMAN_INTENT), "language", "bare_passed")
    before = len(scripted_llm.requests)
    _run(graph, context, GERMAN_REQUEST, "run-3")
    assert scripted_llm.requests[before].text == GERMAN_REQUEST
