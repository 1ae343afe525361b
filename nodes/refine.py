"""refine: continue or stop — budget and criteria rules first, the model's opinion second."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from graph.context import Context
from graph.errors import ModelOutputInvalid, StepFailed
from graph.instrument import context_of
from graph.llm import ask_json
from graph.schemas import ContentValidation, Observation, RefinementDecision, dump
from graph.services import Services
from graph.state import State
from nodes.common import intent_of, round_history
from prompts.render import refine_messages

log = logging.getLogger(__name__)

MAX_CONSECUTIVE_FAILURES = 3


def refine(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    context = context_of(runtime)
    decision = rule_decision(state, context)
    if decision is None:
        decision = _model_decision(state, context, services)
    return {
        "decision": dump(decision),
        "hint": decision.nextHint if decision.decision == "continue" else None,
    }


def spent(state: State) -> tuple[int, float]:
    """Tokens and node-seconds of the current round (seconds of work, so a resumed run is not penalised)."""
    current = state.get("round", 0)
    records = [t for t in state.get("telemetry") or [] if t.get("round") == current]
    tokens = sum(int(t.get("inputTokens", 0)) + int(t.get("outputTokens", 0)) for t in records)
    return tokens, sum(float(t.get("durationS", 0.0)) for t in records)


def rule_decision(state: State, context: Context) -> RefinementDecision | None:
    step = int(state.get("step") or 0)
    raw = state.get("validation")
    validation = ContentValidation.model_validate(raw) if raw else None
    if validation and validation.overallSuccess and validation.qualityScore >= context.quality_threshold:
        return RefinementDecision(
            decision="stop",
            reason=f"all success criteria met (quality {validation.qualityScore:.2f})",
            progress=100,
        )
    if step >= context.max_steps:
        return RefinementDecision(decision="stop", reason=f"max_steps ({context.max_steps}) reached")
    tokens, seconds = spent(state)
    if tokens >= context.token_budget:
        return RefinementDecision(decision="stop", reason=f"token budget spent ({tokens} ≥ {context.token_budget})")
    if seconds >= context.time_budget_s:
        return RefinementDecision(
            decision="stop", reason=f"time budget spent ({seconds:.1f}s ≥ {context.time_budget_s:.0f}s)"
        )
    recent = round_history(state)[-MAX_CONSECUTIVE_FAILURES:]
    if len(recent) == MAX_CONSECUTIVE_FAILURES and all(e.outcome == "failed" for e in recent):
        return RefinementDecision(decision="stop", reason=f"no progress in the last {MAX_CONSECUTIVE_FAILURES} steps")
    if state.get("step_error") or validation is None:
        return RefinementDecision(
            decision="continue", reason=f"step {step} failed: {state.get('step_error') or 'no result'}"
        )
    return None


def _model_decision(state: State, context: Context, services: Services) -> RefinementDecision:
    validation = ContentValidation.model_validate(state["validation"])
    tokens, seconds = spent(state)
    progress = (
        f"step {state.get('step')} of {context.max_steps}; criteria met "
        f"{sum(validation.successCriteriaMet)}/{len(validation.successCriteriaMet)}; "
        f"tokens {tokens}/{context.token_budget}; seconds {seconds:.1f}/{context.time_budget_s:.0f}"
    )
    messages = refine_messages(
        request=state["prompt"],
        intent=intent_of(state),
        observation=Observation.model_validate(state["observation"]),
        validation=validation,
        progress=progress,
    )
    try:
        return ask_json(
            services.llm(context),
            messages,
            RefinementDecision,
            RefinementDecision.model_validate,
            what="refinement",
        )
    except (StepFailed, ModelOutputInvalid) as exc:
        log.warning("refinement model unavailable, continuing by rule: %s", exc)
        hint = validation.improvementSuggestions[0] if validation.improvementSuggestions else None
        return RefinementDecision(decision="continue", reason="criteria not met yet", nextHint=hint)
