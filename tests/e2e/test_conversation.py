"""Issue 31, item 1: a thread is a conversation — every call that writes an answer, and the analysis of a follow-up,
sees the earlier rounds (newest first), through the real ChatOpenAI client."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from core.context import Context
from graph.builder import build_graph
from tests.support.scripted_llm import ScriptedLLM

FIRST, FIRST_ANSWER = "Name three fruits.", "Apple, banana and cherry."
SELECTION = {
    "action": "ai.process",
    "actionObjective": "Answer the follow-up",
    "parametersContext": "The user refers to the fruits named before.",
    "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True, "description": "task"}]},
}
ANSWER_INTENT = {"dataType": "answer", "expectedFormat": "markdown", "successCriteria": [], "language": "en"}


def _ask(graph: Any, context: Context, prompt: str) -> dict[str, Any]:
    out: dict[str, Any] = graph.invoke({"prompt": prompt}, {"configurable": {"thread_id": "c"}}, context=context)
    return out


def test_a_loop_step_that_writes_the_answer_sees_the_earlier_rounds_newest_first(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT))  # a follow-up is analysed: an unscripted one is a 500
    graph = build_graph(checkpointer=checkpointer, store=store)
    scripted_llm.on("text", FIRST_ANSWER, "Banana.")
    _ask(graph, replace(context, allowed_methods="ai.process"), FIRST)
    scripted_llm.on("ActionSelection", SELECTION)
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Name the yellow one."}})
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "decision": "stop"})
    out = _ask(graph, replace(context, direct_answer=False, allowed_methods="ai.process"), "Which one is yellow?")

    assert out["answer"] == "Banana."
    writer = scripted_llm.requests_for("text")[-1].text
    earlier = writer.split("EARLIER IN THIS CONVERSATION (newest first):\n", 1)[1]
    assert earlier.startswith(f"assistant: {FIRST_ANSWER}\nuser: {FIRST}")


def test_a_follow_up_the_model_analyses_is_read_against_the_earlier_round(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    graph = build_graph(checkpointer=checkpointer, store=store)
    scripted_llm.on("text", FIRST_ANSWER, "Apple and cherry are red.")
    _ask(graph, context, FIRST)
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT))
    _ask(graph, context, "Which of them are red?\nJust their names.")  # two lines: the model analyses it

    [analysis] = scripted_llm.requests_for("Intent")
    assert f"assistant: {FIRST_ANSWER}\nuser: {FIRST}" in analysis.text


def test_older_rounds_are_summarised_once_the_newest_fill_the_budget(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT))  # a follow-up is analysed: an unscripted one is a 500
    graph = build_graph(checkpointer=checkpointer, store=store)
    bees, wasps = "Bees make honey. " * 400, "Wasps hunt insects. " * 400  # each answer shown cut to 4,000 characters
    scripted_llm.on("text", bees, wasps, "Bees make honey, wasps hunt.")
    offline = replace(context, allowed_methods="ai.process")
    _ask(graph, offline, "Tell me everything about bees.")
    _ask(graph, offline, "And everything about wasps?")
    scripted_llm.on("ActionSelection", SELECTION)
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Summarise."}})
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "decision": "stop"})
    _ask(graph, replace(offline, direct_answer=False), "Now both in one line.\nKeep it short.")

    writer = scripted_llm.requests_for("text")[-1].text
    earlier = writer.split("EARLIER IN THIS CONVERSATION (newest first):\n", 1)[1].split("\nTASK:", 1)[0]
    turns = [line for line in earlier.splitlines() if line.startswith(("user: ", "assistant: "))]
    assert turns[0].startswith("assistant: Wasps hunt insects.") and len(turns[0]) > 3000  # the newest: whole
    assert turns[1] == "user: And everything about wasps?"
    assert turns[2].startswith("assistant: Bees make honey.") and len(turns[2]) < 200  # older: summarised
    assert turns[3] == "user: Tell me everything about bees."


def test_a_chat_sees_the_step_it_is_on_in_one_message_that_the_answer_replaces(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """Issue 31, item 7: the round's interim message carries "Step n of at most N: action — objective"."""
    from tests.support.chat import ui_message
    from tests.support.scenarios import PRIMES_PROMPT, script_primes

    script_primes(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "progress"}}
    shown = [
        chunk["messages"][-1].text
        for chunk in graph.stream(ui_message(PRIMES_PROMPT), config, context=context, stream_mode="values")
        if chunk.get("messages") and chunk["messages"][-1].type == "ai"
    ]
    steps = list(dict.fromkeys(text.split("\n\n", 1)[1] for text in shown if "\n\nStep " in text))
    assert steps[:2] == [
        "Step 1 of at most 5: ai.process — Deliver the first 1000 prime numbers",
        "Step 2 of at most 5: ai.process — Deliver the first 1000 prime numbers",
    ]
    answer = graph.get_state(config).values["messages"][-1]
    assert "Step " not in answer.text  # the answer took the interim message's place


def test_a_step_refused_at_the_parameter_stage_shows_why_in_the_progress_line(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """Issue 31, item 7: a step whose parameters are refused twice once showed only "Working on it"."""
    from tests.support.chat import ui_message

    tone = {"name": "customInstructions", "type": "string", "required": False, "description": "tone"}
    asking = {**SELECTION, "parametersSchema": {"fields": [*SELECTION["parametersSchema"]["fields"], tone]}}
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT)).on("ActionSelection", asking)  # Stage 2 is asked
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "x", "nope": 1}})
    graph = build_graph(checkpointer=checkpointer, store=store)
    offline = replace(context, direct_answer=False, allowed_methods="ai.process", max_steps=1)
    shown = [
        chunk["messages"][-1].text
        for chunk in graph.stream(
            ui_message("Which fruit is yellow?\nOne word."),
            {"configurable": {"thread_id": "p"}},
            context=offline,
            stream_mode="values",
        )
        if chunk.get("messages") and chunk["messages"][-1].type == "ai"
    ]
    refused = [text for text in shown if "its parameters were refused" in text]
    assert refused and refused[0].split("\n\n", 1)[1].startswith(
        "Step 1 of at most 1: ai.process — its parameters were refused (Stage 2 parameters failed twice"
    ), shown


def test_the_bare_call_sees_earlier_answers_without_the_list_of_deliverables_paor_put_after_them(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(ANSWER_INTENT))  # a follow-up is analysed: an unscripted one is a 500
    graph = build_graph(checkpointer=checkpointer, store=store)
    scripted_llm.on("ActionSelection", SELECTION)
    scripted_llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Name three."}})
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "decision": "stop"})
    scripted_llm.on("text", FIRST_ANSWER, "Banana.")
    first = _ask(graph, replace(context, direct_answer=False, allowed_methods="ai.process"), FIRST)
    assert "Deliverables:" in first["messages"][-1].text  # a loop round lists its deliverables

    _ask(graph, replace(context, allowed_methods="ai.process"), "Which one is yellow?")
    assert scripted_llm.requests_for("text")[-1].messages[1] == {"role": "assistant", "content": FIRST_ANSWER}
