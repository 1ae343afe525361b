"""select (Stage 1): one catalog action with objective and references; protocol violations retried once, then fail."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from core.context import Context
from core.schemas import HistoryEntry, Strategy, dump
from graph.builder import after_select
from nodes.select import select
from nodes.services import Services
from nodes.strategies import KEY, NAMESPACE, pattern_of
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tests.unit.core.factories import primes_intent, ref, runtime, selection_payload, state


def _select(services: Services, context: Context, store: InMemoryStore | None = None, **overrides: Any) -> Any:
    return select(state(**overrides), runtime(context, store), services)


def _stage1(llm: ScriptedLLM) -> list[RecordedRequest]:
    return llm.requests_for("ActionSelection")


def _assert_failed_visibly(update: dict[str, Any]) -> None:
    assert update["selection"] is None
    assert update["step_error"]
    [failure] = [HistoryEntry.model_validate(h) for h in update["history"]]
    assert not failure.success and failure.step == update["step"] == 1
    assert update["step_error"] in failure.findings[0]
    assert after_select({**state(), **update}) == "refine"


def test_valid_selection_is_stored_for_stage2(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    scripted_llm.on("ActionSelection", selection_payload())
    update = _select(services, context)
    assert update["step"] == 1 and update["step_error"] is None
    assert update["selection"]["action"] == "ai.process"
    assert update["selection"]["parametersSchema"]["fields"][0]["name"] == "aiPrompt"
    assert after_select({**state(), **update}) == "parameters"


def test_stage1_prompt_carries_catalog_documents_history_and_step(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload())
    earlier = dump(HistoryEntry(round=1, step=1, action="ai.process", summary="code, not numbers"))
    _select(
        services,
        context,
        step=1,
        history=[earlier],
        input_documents=[dump(ref(name="paper.pdf", mime="application/pdf"))],
        hint="Ask for the numbers directly.",
    )
    prompt = _stage1(scripted_llm)[0].text
    assert "ai.process(documentList,aiPrompt" in prompt
    assert "docList:input: paper.pdf [application/pdf," in prompt
    assert "code, not numbers" in prompt
    assert "Ask for the numbers directly." in prompt
    assert "This is step 2 of at most 5." in prompt
    assert '"successCriteria":["first 1000","prime numbers"]' in prompt
    assert "qualityRequirements" not in prompt  # the judge's thresholds, not a choice's input


def test_stage1_answer_with_parameters_is_rejected_then_retried_once(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(parameters={"aiPrompt": "x"}), selection_payload())
    update = _select(services, context)
    assert update["selection"]["action"] == "ai.process"
    first, retry = _stage1(scripted_llm)
    assert "must not contain 'parameters'" in retry.last_user
    assert "Your answer was rejected" not in first.text


def test_stage1_answer_with_parameters_twice_fails_the_step_visibly(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(parameters={"aiPrompt": "x"}))
    update = _select(services, context)
    assert len(_stage1(scripted_llm)) == 2
    _assert_failed_visibly(update)
    assert "parameters" in update["step_error"]


def test_action_outside_the_catalog_is_rejected_with_the_allowed_names(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(action="web.teleport"), selection_payload())
    update = _select(services, context)
    assert update["selection"]["action"] == "ai.process"
    retry = _stage1(scripted_llm)[1].last_user
    assert "'web.teleport' is not in the allowed catalog" in retry and "ai.process" in retry


@pytest.mark.usefixtures("test_actions")
def test_action_outside_allowed_methods_is_rejected(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    context.allowed_methods = "ai.process"
    scripted_llm.on("ActionSelection", selection_payload(action="test.echo", parametersSchema={"fields": []}))
    update = _select(services, context)
    _assert_failed_visibly(update)
    assert "test.echo" in update["step_error"] and "not in the allowed catalog" in update["step_error"]
    assert "test.echo" not in _stage1(scripted_llm)[0].text, "a disallowed action must not be offered either"


def test_tool_name_is_accepted_and_normalised_to_the_display_name(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(action="ai_process"))
    assert _select(services, context)["selection"]["action"] == "ai.process"


def test_parameters_schema_naming_a_forbidden_field_is_rejected_then_retried(
    llama_llm: ScriptedLLM, llama_services: Services, context: Context
) -> None:
    bad_schema = {"fields": [{"name": "aiPrompt"}, {"name": "documentList", "type": "array"}]}
    llama_llm.on("ActionSelection", selection_payload(parametersSchema=bad_schema), selection_payload())
    update = _select(llama_services, context)
    assert update["selection"]["parametersSchema"]["fields"] == [
        {"name": "aiPrompt", "type": "string", "required": True, "description": "the task"}
    ]
    retry = [r for r in _stage1(llama_llm) if r.schema_grammar][1]
    assert "must not contain documentList" in retry.last_user


def test_parameters_schema_naming_a_forbidden_field_is_retried_on_a_json_schema_endpoint(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    bad_schema = {"fields": [{"name": "history"}]}
    scripted_llm.on("ActionSelection", selection_payload(parametersSchema=bad_schema), selection_payload())
    assert _select(services, context)["selection"]["action"] == "ai.process"


def test_unknown_parameter_names_are_rejected(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    scripted_llm.on("ActionSelection", selection_payload(parametersSchema={"fields": [{"name": "temperature"}]}))
    update = _select(services, context)
    _assert_failed_visibly(update)
    assert "no parameters ['temperature']" in update["step_error"]
    assert "aiPrompt" in _stage1(scripted_llm)[1].last_user, "the retry names the real parameters"


def test_unknown_doclist_reference_is_rejected_with_the_known_references(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on(
        "ActionSelection",
        selection_payload(requiredInputDocuments=["docList:round9_task1_action9_process"]),
        selection_payload(requiredInputDocuments=["docList:input"]),
    )
    update = _select(services, context, input_documents=[dump(ref())])
    assert update["selection"]["requiredInputDocuments"] == ["docList:input"]
    retry = _stage1(scripted_llm)[1].last_user
    assert "no document matches 'docList:round9_task1_action9_process'" in retry and "docList:input" in retry


def test_older_action_shape_with_method_and_name_is_accepted(
    llama_llm: ScriptedLLM, llama_services: Services, context: Context
) -> None:
    llama_llm.on("ActionSelection", selection_payload(action={"method": "ai", "name": "process"}))
    update = _select(llama_services, context)
    assert update["selection"]["action"] == "ai.process"
    assert len([r for r in _stage1(llama_llm) if r.schema_grammar]) == 1


def test_older_action_shape_is_accepted_on_a_json_schema_endpoint(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(action={"method": "ai", "name": "process"}))
    assert _select(services, context)["selection"]["action"] == "ai.process"


def _learned(store: InMemoryStore) -> None:
    strategy = Strategy(
        pattern=pattern_of(primes_intent()),
        successfulAction="ai.process",
        promptStyle='aiPrompt "List the first 1000 primes directly"',
        avoid=['ai.process: aiPrompt "Write a Python program" → delivered code, not numbers'],
        attempts=2,
        successes=1,
        successRate=0.5,
    )
    store.put((*NAMESPACE, strategy.pattern), KEY, dump(strategy))


def test_learned_strategy_is_shown_to_stage1_and_appended_to_parameters_context(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    store = InMemoryStore()
    _learned(store)
    scripted_llm.on("ActionSelection", selection_payload(parametersContext="Deliver data."))
    update = _select(services, context, store)
    assert "worked: ai.process" in _stage1(scripted_llm)[0].text
    parameters_context = update["selection"]["parametersContext"]
    assert parameters_context.startswith("Deliver data.")
    assert 'Learned strategy that worked before: aiPrompt "List the first 1000 primes directly"' in parameters_context
    assert 'Avoid (failed before): ai.process: aiPrompt "Write a Python program"' in parameters_context


def test_learning_switched_off_ignores_stored_strategies(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    store = InMemoryStore()
    _learned(store)
    context.learning = False
    scripted_llm.on("ActionSelection", selection_payload(parametersContext="Deliver data."))
    update = _select(services, context, store)
    assert update["selection"]["parametersContext"] == "Deliver data."
    assert "worked: ai.process" not in _stage1(scripted_llm)[0].text


def test_new_step_clears_the_previous_steps_results(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload())
    stale = {"result": {"x": 1}, "observation": {"x": 1}, "validation": {"x": 1}, "decision": {"x": 1}}
    update = _select(services, context, step=2, step_error="old", **stale)
    assert update["step"] == 3
    assert all(update[key] is None for key in (*stale, "step_error", "parameters"))


def test_stage1_prompt_of_a_later_round_shows_its_learnings_and_earlier_rounds_apart(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(parameters={"aiPrompt": "x"}))
    earlier = dump(HistoryEntry(round=1, step=1, action="ai.process", summary="code, not numbers"))
    update = _select(services, context, round=2, history=[earlier], learnings=["ask for data, not code"])
    prompt = _stage1(scripted_llm)[0].text
    assert "- ask for data, not code" in prompt
    assert "Earlier rounds:\n- [round 1 · step 1] ai.process" in prompt
    [failure] = [HistoryEntry.model_validate(h) for h in update["history"]]
    assert failure.round == 2


def test_steps_that_taught_the_same_lesson_share_one_line_in_stage1(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    """A repeated approach is one line saying which steps repeated it, not one line per step."""
    scripted_llm.on("ActionSelection", selection_payload(parameters={"aiPrompt": "x"}))
    same = "ai.process with aiPrompt 'next region' gave an intermediate result (regions missing)."
    learnings = [f"Step 3: {same}", "Step 4: web.search failed — no key.", f"Step 5: {same}", f"Step 6: {same}"]
    _select(services, context, learnings=learnings)
    prompt = _stage1(scripted_llm)[0].text
    lessons = prompt.split("CURRENT LEARNINGS:\n")[1].split("\n\n")[0].splitlines()
    assert lessons == [f"- Step 3: {same}", "- Step 4: web.search failed — no key.", f"- Steps 5–6: {same}"]
