"""refine: rules (criteria, max_steps, budgets, repeated failure) first; the model only when rules cannot decide."""

from __future__ import annotations

from typing import Any

from graph.builder import after_refine
from graph.context import Context
from graph.schemas import ContentValidation, Observation, RefinementDecision, dump
from graph.services import Services
from nodes.refine import refine
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import entry, runtime, state

CONTINUE = {"decision": "continue", "reason": "quality too low", "progress": 60, "nextHint": "Be more precise."}


def _validation(success: bool = True, quality: float = 0.95) -> dict[str, Any]:
    return dump(
        ContentValidation(
            overallSuccess=success,
            dataTypeMatch=True,
            formatMatch=True,
            successCriteriaMet=[success],
            qualityScore=quality,
            issues=[] if success else ["not all primes"],
            improvementSuggestions=[] if success else ["Deliver only primes."],
        )
    )


def _observed(step: int = 1, **overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "step": step,
        "observation": dump(Observation(success=True, resultLabel="r", documentsCount=1)),
        "validation": _validation(),
    }
    return state(**{**values, **overrides})


def _refine(services: Services, context: Context, current: dict[str, Any]) -> RefinementDecision:
    update = refine(current, runtime(context), services)
    decision = RefinementDecision.model_validate(update["decision"])
    assert update["hint"] == (decision.nextHint if decision.decision == "continue" else None)
    assert after_refine({**current, **update}) == ("select" if decision.decision == "continue" else "finalize")
    return decision


def test_stop_when_criteria_are_met_at_the_quality_threshold(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    decision = _refine(services, context, _observed(validation=_validation(quality=0.8)))
    assert decision.decision == "stop" and "all success criteria met" in decision.reason
    assert decision.progress == 100
    assert scripted_llm.requests == []


def test_met_criteria_below_the_quality_threshold_ask_the_model(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("RefinementDecision", CONTINUE)
    decision = _refine(services, context, _observed(validation=_validation(quality=0.5)))
    assert decision.decision == "continue" and decision.nextHint == "Be more precise."
    [request] = scripted_llm.requests_for("RefinementDecision")
    assert "step 1 of 5" in request.text and "criteria met 1/1" in request.text


def test_model_may_stop_when_no_action_can_improve(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("RefinementDecision", {"decision": "stop", "reason": "nothing more to gain", "progress": 70})
    decision = _refine(services, context, _observed(validation=_validation(success=False)))
    assert decision.decision == "stop" and decision.reason == "nothing more to gain"


def test_stop_at_max_steps(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.max_steps = 3
    decision = _refine(services, context, _observed(step=3, validation=_validation(success=False)))
    assert decision.decision == "stop" and decision.reason == "max_steps (3) reached"
    assert scripted_llm.requests == []


def test_stop_when_the_token_budget_is_spent(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.token_budget = 1_000
    telemetry = [
        {"node": "select", "round": 1, "step": 1, "durationS": 0.1, "inputTokens": 700, "outputTokens": 100},
        {"node": "act", "round": 1, "step": 1, "durationS": 0.1, "inputTokens": 150, "outputTokens": 50},
    ]
    decision = _refine(services, context, _observed(validation=_validation(False), telemetry=telemetry))
    assert decision.decision == "stop" and decision.reason.startswith("token budget spent (1000")
    assert scripted_llm.requests == []


def test_tokens_of_earlier_rounds_do_not_count_against_this_rounds_budget(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    context.token_budget = 1_000
    scripted_llm.on("RefinementDecision", CONTINUE)
    telemetry = [{"node": "act", "round": 1, "step": 1, "durationS": 0.1, "inputTokens": 5_000, "outputTokens": 0}]
    decision = _refine(services, context, _observed(round=2, validation=_validation(False), telemetry=telemetry))
    assert decision.decision == "continue"


def test_stop_when_the_time_budget_is_spent(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.time_budget_s = 5
    telemetry = [{"node": "act", "round": 1, "step": 1, "durationS": 6.5, "inputTokens": 0, "outputTokens": 0}]
    decision = _refine(services, context, _observed(validation=_validation(False), telemetry=telemetry))
    assert decision.decision == "stop" and decision.reason.startswith("time budget spent (6.5s")
    assert scripted_llm.requests == []


def test_stop_after_three_consecutive_failures(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.max_steps = 10
    history = [entry(step=1, success=True), *(entry(step=s, action="ai.process") for s in (2, 3, 4))]
    decision = _refine(services, context, _observed(step=4, validation=_validation(False), history=history))
    assert decision.decision == "stop" and decision.reason == "no progress in the last 3 steps"
    assert scripted_llm.requests == []


def test_two_failures_after_a_success_do_not_stop_the_run(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("RefinementDecision", CONTINUE)
    history = [entry(step=1, success=True), entry(step=2), entry(step=3)]
    decision = _refine(services, context, _observed(step=3, validation=_validation(False), history=history))
    assert decision.decision == "continue"


def test_failed_step_continues_without_asking_the_model(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    current = state(step=1, step_error="Stage 1 selection failed twice", validation=None, observation=None)
    decision = _refine(services, context, current)
    assert decision.decision == "continue" and "Stage 1 selection failed twice" in decision.reason
    assert scripted_llm.requests == []


def test_model_failure_continues_by_rule_with_the_validation_hint(
    llama_llm: ScriptedLLM, llama_services: Services, context: Context
) -> None:
    llama_llm.on("RefinementDecision", {"decision": "maybe"})
    decision = _refine(llama_services, context, _observed(validation=_validation(success=False)))
    assert decision.decision == "continue" and decision.reason == "criteria not met yet"
    assert decision.nextHint == "Deliver only primes."
    assert len([r for r in llama_llm.requests if r.schema_grammar]) == 2


def test_unavailable_model_continues_by_rule(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    # Nothing scripted for "RefinementDecision": the endpoint answers HTTP 500 to every request.
    decision = _refine(services, context, _observed(validation=_validation(success=False)))
    assert decision.decision == "continue" and decision.nextHint == "Deliver only primes."


def test_intermediate_results_are_not_counted_as_failures(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    context.max_steps = 10
    scripted_llm.on("RefinementDecision", CONTINUE)
    history = [entry(step=s, outcome="progress") for s in (1, 2, 3)]
    decision = _refine(services, context, _observed(step=3, validation=_validation(False), history=history))
    assert decision.decision == "continue"
    assert len(scripted_llm.requests_for("RefinementDecision")) == 1
