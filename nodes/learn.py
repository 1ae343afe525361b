"""learn: record the attempt as a strategy for the intent pattern and write the step's history entry."""

from __future__ import annotations

import json
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from core.context import Context
from core.runtime import context_of, thread_of
from core.schemas import ActionResult, ActionSelection, ContentValidation, HistoryEntry, Observation
from core.state import State
from nodes import direct_lessons, history_log
from nodes.common import intent_of
from nodes.direct import added_note, answering_directly
from nodes.placeholders import is_placeholder
from nodes.repeats import repeat_lesson, same_as_earlier
from nodes.services import Services
from nodes.strategies import record
from prompts.render import SHOWN_LEARNINGS
from prompts.templates import clip

MAX_LEARNINGS = SHOWN_LEARNINGS  # state keeps no more than Stage 1 shows: every checkpoint holds them
_APPROACH_KEYS = ("aiPrompt", "query", "title")
#: Characters of the approach a lesson quotes: Stage 1 shows each lesson cut to 160 characters, and its verdict
#: ("gave an intermediate result (regions are still missing)") must fit after the action and the quote.
LESSON_APPROACH = 60


def learn(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Success and failure both teach: what worked becomes the strategy, what failed goes on the avoid-list."""
    context = context_of(runtime)
    step = int(state.get("step") or 1)
    selection = ActionSelection.model_validate(state["selection"])
    arguments = dict(state.get("parameters") or {})
    result = ActionResult.model_validate(state["result"])
    observation = Observation.model_validate(state["observation"])
    validation = ContentValidation.model_validate(state["validation"])
    approach = describe_approach(arguments)
    told = clip(approach, LESSON_APPROACH)
    outcome = outcome_of(result, validation)
    issue = validation.issues[0] if validation.issues else (result.error or "criteria not met")
    advice = validation.improvementSuggestions[0] if validation.improvementSuggestions else ""
    # A re-run after a crash finds this step's own entry in the store: it is not an earlier step.
    earlier = [e for e in history_log.current_round(state, runtime) if e.step < step]
    repeated = same_as_earlier(earlier, result.documents)
    if repeated is not None and outcome != "met":  # no progress: never run again (nodes/repeats.py)
        outcome, issue, advice = "failed", repeat_lesson(repeated), ""
    lesson = {
        "met": f"Step {step}: {selection.action} with {told} met the criteria.",
        "progress": f"Step {step}: {selection.action} with {told} gave an intermediate result ({issue}).",
        "failed": f"Step {step}: {selection.action} with {told} failed — {issue}. {advice}".strip(),
    }[outcome]
    # A success counts only where every criterion was decided (by code, or by the judge of a loop step): an answer
    # nobody could check teaches nothing, or learning would report a strategy as working for wrong answers. A tool
    # paor could not call (its configuration, registration, connection, refused arguments) did not fail at its job.
    learns = (outcome == "failed" or validation.verified) and repeated is None and not placeholder_approach(arguments)
    learns = learns and result.called
    thread = thread_of(runtime)
    at = f"{thread}/{state.get('round') or 1}/{step}" if thread else None  # a re-run after a crash counts once
    if context.learning and runtime.store is not None and outcome != "progress" and learns:
        record(runtime.store, intent_of(state), selection.action, approach, outcome == "met", issue, at)
    if context.learning and runtime.store is not None and answering_directly(state, step):
        learn_direct(runtime.store, state, step, validation, earlier, at)
    entry = HistoryEntry(
        round=int(state.get("round") or 1),
        step=step,
        action=selection.action,
        actionObjective=selection.actionObjective,
        parameters=arguments,
        resultLabel=result.resultLabel,
        documents=result.documents,
        success=outcome == "met",
        outcome=outcome,
        qualityScore=validation.qualityScore,
        summary=summarize(selection.action, observation, validation, rejected=result.rejected),
        findings=[*validation.issues[:3], *observation.notes[:2]],
        learnings=[*selection.learnings[:2], lesson],
        checksPassed=validation.checksPassed,
        checksFailed=validation.checksFailed,
        verified=validation.verified,
        rejected=result.rejected,
    )
    learnings = [*(state.get("learnings") or []), lesson][-MAX_LEARNINGS:]
    return {**history_log.record(state, runtime, entry), "learnings": learnings}


def learn_direct(
    store: BaseStore,
    state: State,
    step: int,
    validation: ContentValidation,
    earlier: list[HistoryEntry],
    at: str | None = None,
) -> None:
    """A direct attempt's outcome on the checks whose advice a later bare call can be given (nodes/direct_lessons):
    how the first call fared, with or without a learned note, and a retry that the advice alone fixed."""
    added = added_note(state).strip()
    first = next((e for e in earlier if e.step == 1), None)
    for check in direct_lessons.ADVICE:
        passed, failed = check in validation.checksPassed, check in validation.checksFailed
        if step == 1 and (passed or failed):
            kind: direct_lessons.Kind
            if added:
                kind = "noted_passed" if passed else "noted_failed"
            else:
                kind = "bare_passed" if passed else "bare_failed"
            direct_lessons.record(store, intent_of(state), check, kind, at)
        elif step > 1 and passed and added and first is not None and first.checksFailed == [check]:
            direct_lessons.record(store, intent_of(state), check, "fixed", at)


def outcome_of(result: ActionResult, validation: ContentValidation) -> Literal["met", "progress", "failed"]:
    """Only a failed tool or the wrong kind of content (code for data) condemns an approach; an intermediate
    result (extracted text on the way to a Word report) is progress, so multi-step plans are not punished."""
    if validation.overallSuccess:
        return "met"
    if not result.success or not validation.dataTypeMatch:
        return "failed"
    return "progress"


def placeholder_approach(arguments: dict[str, Any]) -> bool:
    """An approach whose words are a placeholder teaches nothing, and as a learned strategy it would be quoted to
    the next run's Stage 1 as what worked."""
    return any(isinstance(arguments.get(key), str) and is_placeholder(arguments[key]) for key in _APPROACH_KEYS)


def describe_approach(arguments: dict[str, Any]) -> str:
    """The part of the parameters that characterises how the action was asked (the 'prompt style')."""
    for key in _APPROACH_KEYS:
        if arguments.get(key):
            return f'{key} "{clip(str(arguments[key]), 160)}"'
    shown = {k: v for k, v in arguments.items() if k != "documentList"}
    return clip(json.dumps(shown, ensure_ascii=False, sort_keys=True), 160) if shown else "default parameters"


def summarize(action: str, observation: Observation, validation: ContentValidation, rejected: str | None = None) -> str:
    """The short per-action summary persisted with the history entry (spec 1); a rejected action's is the user's
    reason ("rejected: …"), as the chat's step line says it."""
    if rejected is not None:
        return clip(f"rejected: {rejected}", 300)
    names = ", ".join(p.name for p in observation.previews) or "no documents"
    verdict = "criteria met" if validation.overallSuccess else "; ".join(validation.issues[:2]) or "criteria not met"
    return clip(
        f"{action} → {observation.documentsCount} document(s) ({names}); {verdict}; "
        f"quality {validation.qualityScore:.2f}",
        300,
    )
