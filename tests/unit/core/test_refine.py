"""refine decides by rule (criteria, max_steps, budgets, failures, the judge's proposal); it never asks a model."""

from __future__ import annotations

from typing import Any

from core.context import Context
from core.schemas import ContentValidation, Observation, RefinementDecision, dump
from graph.builder import after_refine
from nodes.direct import DIRECT_ATTEMPTS
from nodes.refine import ONE_LINE_SPENT, refine
from nodes.services import Services
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import entry, runtime, state


def _proposal(decision: str, reason: str, hint: str | None = None) -> dict[str, Any]:
    """What validate writes when its judge call answered: the judge's continue/stop proposal."""
    return dump(RefinementDecision(decision=decision, reason=reason, progress=50, nextHint=hint))  # type: ignore[arg-type]


def _spent(round_: int = 1, seconds: float = 0.1, tokens: int = 0) -> dict[str, Any]:
    """Running telemetry totals as core.state.add_totals keeps them."""
    return {"round": round_, "seconds": seconds, "inputTokens": tokens, "outputTokens": 0, "nodes": {}}


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


def test_unmet_criteria_continue_by_rule_with_the_checks_suggestion(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    decision = _refine(services, context, _observed(validation=_validation(quality=0.5)))
    assert decision.decision == "continue" and decision.progress == 100
    decision = _refine(services, context, _observed(validation=_validation(success=False)))
    assert decision.decision == "continue" and decision.reason == "not all primes"
    assert decision.nextHint == "Deliver only primes." and decision.progress == 0
    assert scripted_llm.requests == []


def test_the_judges_stop_ends_the_run_when_no_action_can_improve(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    proposal = _proposal("stop", "nothing more to gain")
    decision = _refine(services, context, _observed(validation=_validation(success=False), decision=proposal))
    assert decision.decision == "stop" and decision.reason == "nothing more to gain"
    assert scripted_llm.requests == []


def test_the_judges_hint_leads_the_next_step_and_the_checks_fill_a_missing_one(
    services: Services, context: Context
) -> None:
    proposal = _proposal("continue", "regions missing", "Cover Asia next.")
    decision = _refine(services, context, _observed(validation=_validation(success=False), decision=proposal))
    assert decision.decision == "continue" and decision.nextHint == "Cover Asia next."
    proposal = _proposal("continue", "regions missing")
    decision = _refine(services, context, _observed(validation=_validation(success=False), decision=proposal))
    assert decision.nextHint == "Deliver only primes."


def test_rules_overrule_the_judge(services: Services, context: Context) -> None:
    """Met criteria stop even if the judge said continue; max_steps stops even if it did not say stop."""
    proposal = _proposal("continue", "could be prettier", "Polish it.")
    assert _refine(services, context, _observed(decision=proposal)).decision == "stop"
    context.max_steps = 1
    assert _refine(services, context, _observed(validation=_validation(False), decision=proposal)).reason == (
        "max_steps (1) reached"
    )


def test_stop_at_max_steps(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.max_steps = 3
    decision = _refine(services, context, _observed(step=3, validation=_validation(success=False)))
    assert decision.decision == "stop" and decision.reason == "max_steps (3) reached"
    assert scripted_llm.requests == []


def test_stop_when_the_token_budget_is_spent(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.token_budget = 1_000
    telemetry = {**_spent(tokens=850), "outputTokens": 150}
    decision = _refine(services, context, _observed(validation=_validation(False), telemetry=telemetry))
    assert decision.decision == "stop" and decision.reason.startswith("token budget spent (1000")
    assert scripted_llm.requests == []


def test_tokens_of_earlier_rounds_do_not_count_against_this_rounds_budget(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    context.token_budget = 1_000
    telemetry = _spent(round_=1, tokens=5_000)
    decision = _refine(services, context, _observed(round=2, validation=_validation(False), telemetry=telemetry))
    assert decision.decision == "continue"


def test_stop_when_the_time_budget_is_spent(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    context.time_budget_s = 5
    telemetry = _spent(seconds=6.5)
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


def test_intermediate_results_are_not_counted_as_failures(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    context.max_steps = 10
    history = [entry(step=s, outcome="progress") for s in (1, 2, 3)]
    decision = _refine(services, context, _observed(step=3, validation=_validation(False), history=history))
    assert decision.decision == "continue"


def _half_met() -> dict[str, Any]:
    validation = ContentValidation.model_validate(_validation(success=False))
    return dump(validation.model_copy(update={"successCriteriaMet": [True, False]}))


def test_a_stop_by_budget_or_step_limit_reports_how_far_the_run_got(services: Services, context: Context) -> None:
    """`paor run` and the stream show the progress of a run that stopped before its criteria were met."""
    context.max_steps, context.token_budget, context.time_budget_s = 3, 1_000, 5
    at_limit = _refine(services, context, _observed(step=3, validation=_half_met()))
    no_tokens = _refine(services, context, _observed(validation=_half_met(), telemetry=_spent(tokens=1_000)))
    no_time = _refine(services, context, _observed(validation=_half_met(), telemetry=_spent(seconds=5.0)))
    assert [d.decision for d in (at_limit, no_tokens, no_time)] == ["stop"] * 3
    assert [d.progress for d in (at_limit, no_tokens, no_time)] == [50, 50, 50]
    assert no_time.reason == "time budget spent (5.0s ≥ 5s)"  # spending exactly the budget ends the run


def test_a_run_of_failures_reports_how_far_the_run_got(services: Services, context: Context) -> None:
    context.max_steps = 10
    history = [entry(step=s, action="ai.process") for s in (1, 2, 3)]
    decision = _refine(services, context, _observed(step=3, validation=_half_met(), history=history))
    assert (decision.decision, decision.progress) == ("stop", 50)
    no_result = _refine(services, context, state(step=10, validation=None, observation=None))
    assert (no_result.decision, no_result.progress) == ("stop", 0)


def test_a_step_that_failed_is_named_in_the_reason_even_when_an_older_verdict_is_in_state(
    services: Services, context: Context
) -> None:
    earlier = _validation(success=False)
    failed = _refine(
        services, context, _observed(step=2, validation=earlier, step_error="web.scrape: robots.txt says no")
    )
    assert (failed.decision, failed.reason) == ("continue", "step 2 failed: web.scrape: robots.txt says no")
    nothing = _refine(services, context, state(step=2, validation=None, observation=None))
    assert nothing.reason == "step 2 failed: no result"


def test_continuing_by_rule_names_the_first_two_issues(services: Services, context: Context) -> None:
    three = ContentValidation.model_validate(_validation(success=False))
    issues = dump(three.model_copy(update={"issues": ["too few", "not sorted", "no title"]}))
    assert _refine(services, context, _observed(validation=issues)).reason == "too few; not sorted"
    none = dump(three.model_copy(update={"issues": []}))
    assert _refine(services, context, _observed(validation=none)).reason == "criteria not met yet"


def test_a_judged_stop_carries_no_hint(services: Services, context: Context) -> None:
    proposal = _proposal("stop", "no action can improve this", hint="try again")
    decision = _refine(services, context, _observed(validation=_validation(False), decision=proposal))
    assert decision.decision == "stop" and decision.nextHint is None


def test_a_round_that_has_spent_nothing_yet_is_within_any_budget(services: Services, context: Context) -> None:
    context.token_budget, context.time_budget_s = 1, 1.0
    earlier_round = _spent(round_=1, seconds=100.0, tokens=100)
    decision = _refine(services, context, _observed(round=2, validation=_validation(False), telemetry=earlier_round))
    assert decision.decision == "continue"


def test_a_one_line_request_stops_after_its_one_step_of_the_loop(services: Services, context: Context) -> None:
    """Two direct answers failed and a tool could compute it: the loop gets one step (Stage 1, Stage 2, the action:
    five model requests in all), not max_steps (issue 54: a rounding request took 9 requests and 98 s)."""
    failed = _observed(step=DIRECT_ATTEMPTS + 1, validation=_validation(success=False), direct=True)
    decision = _refine(services, context, failed)
    assert decision.decision == "stop" and decision.reason == ONE_LINE_SPENT
    assert _refine(services, context, {**failed, "direct": False}).decision == "continue", "a task goes on"
