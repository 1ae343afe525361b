"""refine: continue or stop, by rule — it asks no model.

The continue/stop judgement needs the same evidence as the content judgement, so validate's one judge call answers
both (its verdict carries the decision and the hint) and refine applies the rules over it: criteria met at the
quality threshold stop, so do max_steps, the budgets and a run of failures; a judge that sees no way to improve
stops; otherwise the next step starts with the judge's hint or the deterministic checks' suggestion. A step that
repeats an earlier result gets a hint to change the approach, a second such step stops (nodes/repeats.py). A step
whose action the user rejected goes on only where another allowed action can do the job, else the round stops saying
what was rejected and why (`after_rejection`).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import Context
from core.runtime import context_of
from core.schemas import ActionResult, ActionSelection, ContentValidation, HistoryEntry, RefinementDecision, dump
from core.state import State
from nodes import history_log
from nodes.approval import rejected_actions
from nodes.common import intent_of
from nodes.direct import DIRECT_ATTEMPTS, a_tool_can_help, answering_directly, computed_result
from nodes.history_log import window_of
from nodes.repeats import without_repeats
from nodes.services import Services
from prompts.templates import clip
from tools.catalog import allowed_entries

MAX_CONSECUTIVE_FAILURES = 3


def refine(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    context = context_of(runtime)
    entries = history_log.current_round(state, runtime)
    rejected = after_rejection(state, context, entries)
    if rejected is not None:
        # A rejected direct answer is not asked again, not even as the retry: the loop goes on from Stage 1.
        leaves_direct = rejected.decision == "continue" and answering_directly(state, int(state.get("step") or 0))
        return {"decision": dump(rejected), "hint": None, **({"direct": False} if leaves_direct else {})}
    decision = without_repeats(rule_decision(state, context), entries)
    return {
        "decision": dump(decision),
        "hint": decision.nextHint if decision.decision == "continue" else None,
    }


def after_rejection(state: State, context: Context, entries: list[HistoryEntry]) -> RefinementDecision | None:
    """The decision after the user rejected this step's action, or after the Stage 1 that followed a rejection
    chose nothing; None for any other step. No action the user rejected is proposed again in the round (select
    leaves them out of Stage 1's catalog): the round goes on only where another allowed action can do the job —
    for a direct answer only a program computing what the model was asked (`a_tool_can_help`) — within the limits;
    else it stops, saying what the user rejected and why, in their language where paor has the words."""
    step = int(state.get("step") or 0)
    result = ActionResult.model_validate(state["result"]) if state.get("result") else None
    previous = next((e for e in entries if e.step == step - 1), None)
    unchosen = not state.get("selection") and previous is not None and previous.rejected is not None
    if (result is None or result.rejected is None) and not unchosen:
        return None
    rejected = rejected_actions(e for e in entries if e.step <= step)
    if result is not None and result.rejected is not None:  # this step's, whether or not learn recorded it yet
        rejected[ActionSelection.model_validate(state["selection"]).action] = result.rejected
    said, nothing_else = _REJECTED.get(intent_of(state).language, _REJECTED["en"])
    what = "; ".join(said.format(action=action, reason=clip(reason, 200)) for action, reason in rejected.items())
    others = [e for e in allowed_entries(context.allowed_method_names) if e.display_name not in rejected]
    can_help = bool(others) and not unchosen
    if answering_directly(state, step):
        can_help = can_help and a_tool_can_help(str(state.get("prompt") or ""), intent_of(state), context)
    if not can_help:
        return RefinementDecision(decision="stop", reason=f"{what}; {nothing_else}")
    limit = limit_reached(state, context, progress=0)
    if limit is not None:
        return limit.model_copy(update={"reason": f"{what}; {limit.reason}"})
    return RefinementDecision(decision="continue", reason=f"{what}; choosing another action")


#: What a round that stops after a rejection says (the chat's "No answer was produced (…)" line quotes it):
#: what the user rejected with their reason, and that no other allowed action can do the job.
_REJECTED = {
    "en": ("you rejected {action}: “{reason}”", "no other allowed action can do this"),
    "de": ("Sie haben {action} abgelehnt: „{reason}“", "keine andere erlaubte Aktion kann das erledigen"),
    "fr": ("vous avez refusé {action} : « {reason} »", "aucune autre action autorisée ne peut le faire"),
    "es": ("rechazó {action}: «{reason}»", "ninguna otra acción permitida puede hacerlo"),
    "it": ("hai rifiutato {action}: «{reason}»", "nessun'altra azione consentita può farlo"),
}


def current_totals(state: State) -> dict[str, Any]:
    """The running telemetry totals of the current round (empty before its first node has finished)."""
    totals = state.get("telemetry") or {}
    return totals if isinstance(totals, dict) and totals.get("round") == state.get("round", 0) else {}


def spent(state: State) -> tuple[int, float]:
    """Tokens and node-seconds of the current round (seconds of work, so a resumed run is not penalised)."""
    totals = current_totals(state)
    tokens = int(totals.get("inputTokens", 0)) + int(totals.get("outputTokens", 0))
    return tokens, float(totals.get("seconds", 0.0))


def rule_decision(state: State, context: Context) -> RefinementDecision:
    step = int(state.get("step") or 0)
    raw = state.get("validation")
    validation = ContentValidation.model_validate(raw) if raw else None
    progress = _progress(validation)
    if answering_directly(state, step):
        return direct_decision(state, context, validation)
    if validation and validation.overallSuccess and validation.qualityScore >= context.quality_threshold:
        return RefinementDecision(
            decision="stop",
            reason=f"all success criteria met (quality {validation.qualityScore:.2f})",
            progress=100,
        )
    limit = limit_reached(state, context, progress)
    if limit is not None:
        return limit
    if state.get("direct") and step > DIRECT_ATTEMPTS:
        return RefinementDecision(decision="stop", reason=ONE_LINE_SPENT, progress=progress)
    recent = [e for e in window_of(state) if e.round == state.get("round", 0)][-MAX_CONSECUTIVE_FAILURES:]
    if len(recent) == MAX_CONSECUTIVE_FAILURES and all(e.outcome == "failed" for e in recent):
        return RefinementDecision(
            decision="stop", reason=f"no progress in the last {MAX_CONSECUTIVE_FAILURES} steps", progress=progress
        )
    if state.get("step_error") or validation is None:
        return RefinementDecision(
            decision="continue", reason=f"step {step} failed: {state.get('step_error') or 'no result'}"
        )
    judged = state.get("decision")  # the judge's proposal, made by validate in the same call as its verdict
    if judged:
        proposal = RefinementDecision.model_validate(judged)
        hint = proposal.nextHint or _suggestion(validation)
        return proposal.model_copy(update={"nextHint": hint if proposal.decision == "continue" else None})
    return RefinementDecision(
        decision="continue",
        reason="; ".join(validation.issues[:2]) or "criteria not met yet",
        progress=progress,
        nextHint=_suggestion(validation),
    )


def limit_reached(state: State, context: Context, progress: int) -> RefinementDecision | None:
    """The stop when max_steps or a budget is spent; None while the round may take another step."""
    step = int(state.get("step") or 0)
    if step >= context.max_steps:
        return RefinementDecision(decision="stop", reason=f"max_steps ({context.max_steps}) reached", progress=progress)
    tokens, seconds = spent(state)
    if tokens >= context.token_budget:
        return RefinementDecision(
            decision="stop", reason=f"token budget spent ({tokens} ≥ {context.token_budget})", progress=progress
        )
    if seconds >= context.time_budget_s:
        return RefinementDecision(
            decision="stop",
            reason=f"time budget spent ({seconds:.1f}s ≥ {context.time_budget_s:.0f}s)",
            progress=progress,
        )
    return None


def direct_decision(state: State, context: Context, validation: ContentValidation | None) -> RefinementDecision:
    """After a direct attempt: an answer no code check failed is delivered (verified where code decided every
    criterion, unverified otherwise); one that failed a check is asked once more; after that the loop runs only
    where a tool can do better than the same model asked again."""
    step = int(state.get("step") or 0)
    progress = _progress(validation)
    if validation is not None and not state.get("step_error") and not validation.checksFailed:
        if validation.overallSuccess:
            return RefinementDecision(decision="stop", reason="all success criteria met, checked by code", progress=100)
        return RefinementDecision(decision="stop", reason=UNVERIFIED, progress=progress)
    failed = "; ".join(validation.issues[:2]) if validation else str(state.get("step_error") or "no answer")
    gave_none = state.get("step_error") or (validation is not None and "action" in validation.checksFailed)
    if gave_none and computed_result(str(state.get("prompt") or ""), intent_of(state)) is not None:
        # asked again, a model that ran out of time may take as long once more: code knows the result
        return RefinementDecision(decision="stop", reason=f"the model gave no answer ({failed})", progress=progress)
    if step >= context.max_steps:
        return RefinementDecision(decision="stop", reason=f"max_steps ({context.max_steps}) reached", progress=progress)
    if step < DIRECT_ATTEMPTS:
        return RefinementDecision(decision="continue", reason=f"the answer failed a check: {failed}", progress=progress)
    if a_tool_can_help(str(state.get("prompt") or ""), intent_of(state), context):
        return RefinementDecision(
            decision="continue", reason=f"the answer failed a check: {failed}; a tool can compute it", progress=progress
        )
    return RefinementDecision(
        decision="stop", reason=f"the answer failed a check ({failed}) and no tool can do better", progress=progress
    )


#: The stop reason of a one-line request whose direct answers failed and whose one step of the loop did not meet
#: its criteria: a one-line request stays one-line (at most 5 model requests: two bare calls, then Stage 1, Stage 2
#: and the action), where the loop on SmolLM2 once took 9 requests and 98 s against the bare model's 2.5 s.
ONE_LINE_SPENT = "a one-line request: its direct answers and one step of the loop did not meet its criteria"
#: The stop reason of an answer no code check could decide (its status is `unverified`).
UNVERIFIED = "answered; no check could decide whether the answer is right"


def _suggestion(validation: ContentValidation) -> str | None:
    return validation.improvementSuggestions[0] if validation.improvementSuggestions else None


def _progress(validation: ContentValidation | None) -> int:
    """The share of success criteria met, in percent."""
    if validation is None or not validation.successCriteriaMet:
        return 0
    return round(100 * sum(validation.successCriteriaMet) / len(validation.successCriteriaMet))
