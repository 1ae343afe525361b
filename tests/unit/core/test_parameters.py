"""parameters (Stage 2): a minimal prompt, then host-side validation, code defaults and the Stage-1 documents."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo, Runtime
from langgraph.store.memory import InMemoryStore

import tools.catalog as catalog_module
from core.context import Context
from core.errors import ActionNotDeclared
from core.schemas import HistoryEntry, Intent, Strategy, dump
from graph.builder import after_parameters
from nodes.arguments import prepare_arguments
from nodes.parameters import parameters
from nodes.services import Services
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tests.unit.core.factories import (
    PRIMES_REQUEST,
    entry,
    parameters_answer,
    primes_intent,
    ref,
    runtime,
    selection,
    state,
)
from tools.catalog import lookup

CODE_PROMPT = "Write a Python program that prints the first 1000 primes."
DATA_PROMPT = "List the first 1000 prime numbers directly."


@pytest.fixture(autouse=True)
def stage2_asked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about Stage 2, so code fills no parameter from the selection (ai.process's aiPrompt would
    be); the tests named `test_code_…` keep the catalog as it is."""
    if not request.node.name.startswith("test_code_"):
        entry = lookup("ai.process")
        assert entry is not None
        monkeypatch.setitem(catalog_module._REGISTRY, entry.display_name, replace(entry, instruction=""))


def _parameters(services: Services, context: Context, *, chosen: Any = None, **overrides: Any) -> dict[str, Any]:
    current = state(step=1, selection=dump(chosen or selection()), **overrides)
    return parameters(current, runtime(context), services)


def _stage2(llm: ScriptedLLM) -> list[RecordedRequest]:
    return llm.requests_for("ParametersAnswer")


def test_stage2_prompt_holds_only_action_objective_context_and_schema(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    store = InMemoryStore()
    store.put(("paor", "strategies", "numbers-raw_data-prime"), "strategy", dump(Strategy(pattern="STRATEGY-XYZ")))
    busy = {
        "history": [
            entry(
                action="ai.process",
                resultLabel="round1_task1_action1_process",
                documents=[dump(ref(label="round1_task1_action1_process", name="SECRET-DOC.md"))],
                summary="SECRET-SUMMARY",
                findings=["SECRET-FINDING"],
                learnings=["SECRET-LEARNING"],
            )
        ],
        "input_documents": [dump(ref(name="INPUT-DOC.pdf", mime="application/pdf"))],
        "learnings": ["STATE-LEARNING"],
        "hint": "STATE-HINT",
    }
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=DATA_PROMPT))
    chosen = selection(requiredInputDocuments=["docList:input"], learnings=["STAGE1-LEARNING"])
    parameters(state(step=2, selection=dump(chosen), **busy), runtime(context, store), services)

    [request] = _stage2(scripted_llm)
    text = request.text
    assert "SELECTED ACTION: ai.process" in text
    assert "Deliver the first 1000 prime numbers" in text
    assert "Ask for the numbers directly, as data." in text
    assert "aiPrompt (string, required): the task" in text
    for leaked in (
        "SECRET-",
        "INPUT-DOC",
        "docList:",
        "docItem:",
        "round1_task1",
        "STATE-LEARNING",
        "STATE-HINT",
        "STAGE1-LEARNING",
        "STRATEGY-XYZ",
        "HISTORY",
        "AVAILABLE DOCUMENTS",
        PRIMES_REQUEST,
    ):
        assert leaked not in text, leaked
    assert [m["role"] for m in request.messages] == ["system", "user"]


def test_forbidden_keys_in_the_answer_are_rejected_then_retried(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on(
        "ParametersAnswer",
        parameters_answer(aiPrompt=DATA_PROMPT, documentList=["docList:input"], history=[]),
        parameters_answer(aiPrompt=DATA_PROMPT),
    )
    update = _parameters(services, context)
    assert update["parameters"]["aiPrompt"] == DATA_PROMPT
    retry = _stage2(scripted_llm)[1].last_user
    assert "must not contain ['documentList', 'history']" in retry


def test_unknown_keys_are_rejected_and_a_second_violation_fails_the_step(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=DATA_PROMPT, temperature=0.2))
    update = _parameters(services, context, chosen=selection(learnings=["code was delivered, ask for data"]))
    assert "parameters" not in update
    assert "no parameters ['temperature']" in update["step_error"]
    assert "no parameters ['temperature']" in _stage2(scripted_llm)[1].last_user
    [failure] = [HistoryEntry.model_validate(h) for h in update["history"]]
    assert failure.action == "ai.process" and not failure.success and failure.step == 1
    assert failure.summary.startswith("parameters failed:")
    assert failure.learnings == ["code was delivered, ask for data"]  # what Stage 1 knew stays in the history
    assert after_parameters({**state(), **update}) == "refine"


def test_missing_required_parameter_is_rejected(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(processingMode="basic"), parameters_answer(aiPrompt="x"))
    assert _parameters(services, context)["parameters"]["aiPrompt"] == "x"
    assert "aiPrompt" in _stage2(scripted_llm)[1].last_user


@pytest.mark.parametrize(("expected_format", "formats"), [("raw_data", ["md"]), ("json", ["json"]), ("csv", ["csv"])])
def test_ai_process_writes_markdown_unless_json_or_csv_was_asked(
    scripted_llm: ScriptedLLM, services: Services, context: Context, expected_format: str, formats: list[str]
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=DATA_PROMPT))
    update = _parameters(services, context, intent=primes_intent(expectedFormat=expected_format))
    assert update["parameters"]["expectedDocumentFormats"] == formats


def test_explicit_format_from_stage2_wins_when_the_user_asked_for_structured_data(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt="x", expectedDocumentFormats=["csv"]))
    update = _parameters(services, context, intent=primes_intent(expectedFormat="json"))
    assert update["parameters"]["expectedDocumentFormats"] == ["csv"]


def test_stage2_asking_for_json_the_user_did_not_ask_for_gets_markdown(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt="x", expectedDocumentFormats=["json", "md"]))
    update = _parameters(services, context, intent=primes_intent(expectedFormat="markdown"))
    assert update["parameters"]["expectedDocumentFormats"] == ["md"]
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt="x", expectedDocumentFormats=["json"]))
    update = _parameters(services, context, intent=primes_intent(expectedFormat="raw_data"))
    assert update["parameters"]["expectedDocumentFormats"] == ["md"]


def test_stage1_document_references_are_attached_as_document_list(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt="Summarise"))
    chosen = selection(requiredInputDocuments=["docList:input", "docItem:input/doc.txt"])
    update = _parameters(services, context, chosen=chosen, input_documents=[dump(ref())])
    assert update["parameters"]["documentList"] == ["docList:input", "docItem:input/doc.txt"]


def _lookup_intent(**overrides: Any) -> Intent:
    values: dict[str, Any] = {"dataType": "list", "expectedFormat": "markdown", "language": "de"}
    return Intent.model_validate({**values, **overrides})


@pytest.mark.usefixtures("test_actions")
def test_language_depth_and_time_range_default_from_the_intent(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(query="KI Nachrichten"))
    chosen = selection(action="test.lookup", parametersSchema={"fields": [{"name": "query"}]})
    update = _parameters(services, context, chosen=chosen, intent=_lookup_intent(freshness="month"))
    assert update["parameters"] == {
        "query": "KI Nachrichten",
        "language": "de",
        "searchDepth": "basic",
        "timeRange": "month",
    }


@pytest.mark.usefixtures("test_actions")
def test_no_time_range_without_freshness_and_advanced_depth_for_analysis(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(query="compare vendors", language="en"))
    chosen = selection(action="test.lookup", parametersSchema={"fields": [{"name": "query"}]})
    update = _parameters(services, context, chosen=chosen, intent=_lookup_intent(dataType="analysis"))
    assert update["parameters"] == {"query": "compare vendors", "language": "en", "searchDepth": "advanced"}


def _failed_attempt(context: Context, round_: int) -> dict[str, Any]:
    ai_process = lookup("ai.process")
    assert ai_process is not None
    arguments = prepare_arguments(ai_process, {"aiPrompt": CODE_PROMPT}, selection(), primes_intent(), context)
    return entry(round_=round_, step=1, action="ai.process", parameters=arguments, success=False)


def test_action_and_parameters_that_already_failed_this_round_are_rejected(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on(
        "ParametersAnswer", parameters_answer(aiPrompt=CODE_PROMPT), parameters_answer(aiPrompt=DATA_PROMPT)
    )
    update = _parameters(services, context, history=[_failed_attempt(context, round_=1)])
    assert update["parameters"]["aiPrompt"] == DATA_PROMPT
    assert "already failed in this round" in _stage2(scripted_llm)[1].last_user


def test_same_parameters_that_failed_twice_fail_the_step(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=CODE_PROMPT))
    failed_before = {**_failed_attempt(context, round_=2), "step": 1}
    current = state(round=2, step=3, selection=dump(selection()), history=[failed_before])
    update = parameters(current, runtime(context), services)
    reason = update["step_error"]
    assert reason.startswith("Stage 2 parameters failed twice; last reason: ") and "already failed" in reason
    recorded = HistoryEntry.model_validate(update["history"][-1])  # what `paor history` and the next Stage 1 show
    assert (recorded.round, recorded.step, recorded.action) == (2, 3, "ai.process")
    assert recorded.actionObjective == selection().actionObjective
    assert recorded.summary == f"parameters failed: {reason}" and recorded.findings == [reason]
    assert recorded.outcome == "failed"


def test_failure_in_an_earlier_round_does_not_block_the_same_parameters(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=CODE_PROMPT))
    update = _parameters(services, context, round=2, history=[_failed_attempt(context, round_=1)])
    assert update["parameters"]["aiPrompt"] == CODE_PROMPT
    assert len(_stage2(scripted_llm)) == 1


def test_action_and_parameters_that_already_ran_this_round_are_asked_again_naming_the_result(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    """Issue 31: a forced report ran three times with the same parameters; the second time is refused and Stage 2
    is told which step already delivered it."""
    scripted_llm.on(
        "ParametersAnswer", parameters_answer(aiPrompt=CODE_PROMPT), parameters_answer(aiPrompt=DATA_PROMPT)
    )
    done = ref(label="round1_task1_action1_process", name="primes.md")
    ran = {**_failed_attempt(context, round_=1), "outcome": "progress", "documents": [dump(done)]}
    update = _parameters(services, context, history=[ran])
    assert update["parameters"]["aiPrompt"] == DATA_PROMPT
    told = _stage2(scripted_llm)[1].last_user
    assert "already ran in this round (step 1, docItem:round1_task1_action1_process/primes.md)" in told


def test_parameters_that_ran_in_an_earlier_round_may_run_again(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=CODE_PROMPT))
    ran = {**_failed_attempt(context, round_=1), "outcome": "progress"}
    update = _parameters(services, context, round=2, history=[ran])
    assert update["parameters"]["aiPrompt"] == CODE_PROMPT


def test_a_failure_older_than_the_state_window_is_still_never_repeated(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    """State keeps only the newest steps; the failed attempt of step 1 is found in the thread's store record."""
    store = InMemoryStore()
    old = _failed_attempt(context, round_=1)
    store.put(("paor", "history", "t1"), "00001-00001", old)
    later = [entry(round_=1, step=s, action="ai.process", outcome="progress") for s in range(2, 12)]
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=CODE_PROMPT))
    current = state(step=12, selection=dump(selection()), history=later[-8:])
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="task", thread_id="t1")
    update = parameters(current, Runtime(context=context, store=store, execution_info=info), services)
    assert "already failed" in update["step_error"]


def test_an_action_withdrawn_since_it_was_selected_fails_the_step_without_asking_the_model(
    scripted_llm: ScriptedLLM, services: Services, context: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(catalog_module._UNAVAILABLE, "gone.*", "its backend is down")
    gone = selection().model_copy(update={"action": "gone.away", "learnings": ["it worked last week"]})
    update = _parameters(services, context, chosen=gone)
    assert update["step_error"] == "gone.away is unavailable: its backend is down"
    [failure] = [HistoryEntry.model_validate(h) for h in update["history"]]
    assert failure.action == "gone.away" and failure.learnings == ["it worked last week"]
    assert not _stage2(scripted_llm)


def test_an_action_the_graph_does_not_have_stops_the_run_without_asking_the_model(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    gone = selection().model_copy(update={"action": "gone.away"})
    with pytest.raises(ActionNotDeclared, match=r"the thread's next action gone\.away cannot run here"):
        _parameters(services, context, chosen=gone)
    assert not _stage2(scripted_llm)


def test_code_fills_the_task_from_stage1_and_stage2_is_not_asked(
    scripted_llm: ScriptedLLM, context: Context, services: Services
) -> None:
    chosen = selection(
        actionObjective="List the first 1000 primes", parametersContext="Plain numbers, comma-separated."
    )
    update = _parameters(services, context, chosen=chosen)
    assert update["parameters"]["aiPrompt"] == "List the first 1000 primes\n\nPlain numbers, comma-separated."
    assert update["parameters"]["expectedDocumentFormats"] == ["md"]  # the code-level defaults still apply
    assert _stage2(scripted_llm) == []


def test_code_leaves_to_stage2_what_stage1_asked_for_beyond_the_task(
    scripted_llm: ScriptedLLM, context: Context, services: Services
) -> None:
    fields = [
        {"name": "aiPrompt", "type": "string", "required": True, "description": "the task"},
        {"name": "customInstructions", "type": "string", "required": False, "description": "tone"},
    ]
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=DATA_PROMPT, customInstructions="formal"))
    update = _parameters(services, context, chosen=selection(parametersSchema={"fields": fields}))
    assert update["parameters"]["customInstructions"] == "formal"
    assert len(_stage2(scripted_llm)) == 1


def test_code_asks_stage2_when_its_own_task_already_ran_this_round(
    scripted_llm: ScriptedLLM, context: Context, services: Services
) -> None:
    chosen = selection(actionObjective="List the first 1000 primes", parametersContext="")
    first = _parameters(services, context, chosen=chosen)["parameters"]
    ran = entry(action="ai.process", parameters=first)
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt=DATA_PROMPT))
    update = _parameters(services, context, chosen=chosen, history=[ran])
    assert update["parameters"]["aiPrompt"] == DATA_PROMPT
    assert len(_stage2(scripted_llm)) == 1
