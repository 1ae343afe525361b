"""validate: a compact Observation of the result, and the content checked against the intent.

When the deterministic checks leave criteria undecided, one judge call answers both the content judgement and the
continue/stop proposal with its hint, so refine never has to ask the model again; the next step's Stage 1 is asked
at the same time (nodes/ahead.py)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from langgraph.runtime import Runtime

from core.context import Context
from core.errors import ModelOutputInvalid, PaorError, ServiceUnavailable, StepFailed
from core.llm import ask_json
from core.runtime import context_of
from core.schemas import (
    PREVIEW_LIMIT,
    SNIPPET_CHARS,
    ActionResult,
    ContentJudgement,
    ContentValidation,
    DocumentRef,
    HistoryEntry,
    Intent,
    Observation,
    Preview,
    RefinementDecision,
    dump,
)
from core.state import State
from nodes import history_log, inputs_read
from nodes.ahead import start, worth_asking
from nodes.checks import Check, CheckReport, check_complete, run_checks
from nodes.common import intent_of
from nodes.direct import added_note, answering_directly
from nodes.services import Services
from nodes.shapes import judgement_shape
from prompts.render import judge_messages
from prompts.templates import clip

log = logging.getLogger(__name__)

READ_LIMIT = 8 * 1024 * 1024  # validation reads at most this much of one document


def validate(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Deterministic checks first; the model judges only criteria that code could not decide (and proposes the
    refinement decision in the same answer)."""
    context = context_of(runtime)
    result = ActionResult.model_validate(state["result"])
    intent = intent_of(state)
    store = services.documents(context)
    documents = []
    for ref in result.documents:
        try:
            documents.append((ref, store.read_bytes(ref)[:READ_LIMIT]))
        except PaorError as exc:
            result.notes.append(str(exc))
    observation = build_observation(result, documents)
    direct = answering_directly(state, int(state.get("step") or 1))
    if not result.success:
        validation = ContentValidation(
            overallSuccess=False,
            dataTypeMatch=False,
            formatMatch=False,
            successCriteriaMet=[False] * len(intent.successCriteria),
            qualityScore=0.0,
            issues=[result.error or "the action failed"],
            checksFailed=["action"],
            improvementSuggestions=failure_advice(result, direct=direct),
        )
        return {"observation": dump(observation), "validation": dump(validation)}
    request = str(state["prompt"])
    added = added_note(state) if direct else ""
    grounded, sure = bool(state.get("input_documents")), state.get("language_sure") is not False
    report = run_checks(intent, documents, request, grounded=grounded, added=added, language_sure=sure)
    if not direct:
        _check_inputs_read(state, runtime, result, report)
    if direct:
        check_complete(result.notes, report)
    undecided = [i for i in range(len(intent.successCriteria)) if i not in report.verdicts]
    judgement = None
    # A direct answer's undecided criteria stay unverified: a judge of the same model knows no more than the model
    # that just answered, and its doubt could never replace the answer anyway (nodes/answers.py).
    ahead = None
    if undecided and report.all_passed and not direct:
        progress = f"step {state.get('step') or 1} of at most {context.max_steps}"
        if worth_asking(state, context):  # the next Stage 1 alongside the judge (nodes/ahead.py)
            ahead = start(state, runtime, services, result, observation)
        try:
            judgement = _judge(services, context, state["prompt"], intent, report, undecided, observation, progress)
        except ServiceUnavailable:  # the step stops on the outage: the Stage 1 beside it ends first (it uses the store)
            if ahead is not None and not ahead.cancel():
                with contextlib.suppress(Exception):
                    ahead.result()
            raise
    validation = combine(intent, report, undecided, judgement)
    update = {
        "observation": dump(observation),
        "validation": dump(validation),
        "ahead": _ahead_of(ahead, judgement),
    }
    if judgement is not None:  # the judge's continue/stop proposal; refine applies its rules over it
        update["decision"] = dump(proposed_decision(judgement, validation))
    return update


def _check_inputs_read(state: State, runtime: Runtime[Context], result: ActionResult, report: CheckReport) -> None:
    """An answer made without an input document the round had to read meets no criterion, whatever it says
    (nodes/inputs_read.py): the step is progress at most, and the next Stage 1 is told which to read."""
    selection = state.get("selection") or {}
    this_step = HistoryEntry(
        round=int(state.get("round") or 1),
        step=int(state.get("step") or 1),
        action=selection.get("action"),
        parameters=state.get("parameters") or {},
        documents=result.documents,
    )
    missing = inputs_read.unread(state, [*history_log.current_round(state, runtime), this_step])
    if not missing:
        return
    names = ", ".join(ref.name for ref in missing)
    references = ", ".join(ref.item_reference for ref in missing)
    detail = f"the answer was made without reading {names}"
    advice = f"Read {names}: name {references} in requiredInputDocuments."
    report.checks.append(Check("inputs read", False, detail, advice))
    report.verdicts = dict.fromkeys(report.verdicts, False)


#: paor's advice after a failed loop step, for the next Stage 1.
CHOOSE_AGAIN = "Choose a different action or different parameters."


def failure_advice(result: ActionResult, *, direct: bool) -> list[str]:
    """paor's advice after a failed action: choose again — for Stage 1, which chooses actions. A rejection carries
    the user's own words, which need none of paor's (refine and select act on them), and a direct attempt is one
    bare call, where advice on actions would only be appended to the user's request as if they had written it."""
    return [] if result.rejected is not None or direct else [CHOOSE_AGAIN]


def _ahead_of(ahead: Future[dict[str, Any] | None] | None, judgement: ContentJudgement | None) -> Any:
    """The next step's selection asked beside the judge, None when the judge stops the round (refine follows a
    judge's stop). One in flight is waited for even then: it reads and writes the run's store, which closes when the
    run ends (a thread left writing to a closed SQLite connection crashed the process)."""
    if ahead is None:
        return None
    stopping = judgement is not None and judgement.decision == "stop"
    if stopping and ahead.cancel():  # not started yet: never sent
        return None
    chosen = ahead.result()
    return None if stopping else chosen


def proposed_decision(judgement: ContentJudgement, validation: ContentValidation) -> RefinementDecision:
    """The RefinementDecision the judge's answer carries (spec 5): its decision; the issues it found are the
    reason and its first improvement suggestion the hint, so the answer repeats nothing."""
    met = validation.successCriteriaMet
    hint = validation.improvementSuggestions[0] if validation.improvementSuggestions else None
    return RefinementDecision(
        decision=judgement.decision,
        reason="; ".join(judgement.issues[:2]) or "criteria not met yet",
        progress=round(100 * sum(met) / len(met)) if met else 0,
        nextHint=hint if judgement.decision == "continue" else None,
    )


def build_observation(result: ActionResult, documents: Sequence[tuple[DocumentRef, bytes]]) -> Observation:
    """At most five previews with bounded snippets: the model never sees raw payloads (spec 2)."""
    previews = []
    for ref, data in documents[:PREVIEW_LIMIT]:
        if ref.is_text:
            snippet = clip(data[: SNIPPET_CHARS * 8].decode("utf-8", errors="replace"), SNIPPET_CHARS)
        else:
            snippet = f"[{ref.mime}, {ref.size} bytes]"
        previews.append(Preview(name=ref.name, mime=ref.mime, snippet=snippet))
    notes = [clip(n, 200) for n in result.notes[:4]]
    if result.error:
        notes.append(clip(result.error, 300))
    return Observation(
        success=result.success,
        resultLabel=result.resultLabel,
        documentsCount=len(result.documents),
        previews=previews,
        notes=notes,
    )


def _judge(
    services: Services,
    context: Context,
    request: str,
    intent: Intent,
    report: CheckReport,
    undecided: list[int],
    observation: Observation,
    progress: str,
) -> ContentJudgement | None:
    criteria = [intent.successCriteria[i] for i in undecided]

    def parse(payload: dict[str, Any]) -> ContentJudgement:
        judgement = ContentJudgement.model_validate(payload)
        if len(judgement.criteriaMet) != len(criteria):
            raise ModelOutputInvalid(f"criteriaMet needs exactly {len(criteria)} verdicts, in the given order")
        return judgement

    messages = judge_messages(
        request=request,
        intent=intent,
        checked=[f"{c.name}: {'ok' if c.passed else 'FAILED'} — {c.detail}" for c in report.checks],
        criteria=criteria,
        observation=observation,
        progress=progress,
    )
    try:
        return ask_json(
            services.llm(context), messages, judgement_shape(len(criteria)), parse, what="content judgement"
        )
    except (StepFailed, ModelOutputInvalid) as exc:
        log.warning("content judgement unavailable: %s", exc)
        return None


def combine(
    intent: Intent, report: CheckReport, undecided: list[int], judgement: ContentJudgement | None
) -> ContentValidation:
    verdicts = dict(report.verdicts)
    issues = [c.detail for c in report.checks if not c.passed]
    suggestions = [c.suggestion for c in report.checks if not c.passed and c.suggestion]
    score = report.score
    if undecided:
        if judgement is None:
            verdicts.update({i: False for i in undecided})
            met_share = (len(intent.successCriteria) - len(undecided)) / max(1, len(intent.successCriteria))
            score = min(score, met_share)  # unjudged criteria count as unmet, so the score must not claim them
            if report.all_passed:
                issues.append("the remaining criteria could not be judged")
        else:
            verdicts.update(dict(zip(undecided, judgement.criteriaMet, strict=True)))
            issues += judgement.issues
            suggestions += judgement.improvementSuggestions
            score = min(score, judgement.qualityScore)
    met = [verdicts.get(i, False) for i in range(len(intent.successCriteria))]
    # The content is the kind asked for: not code for data, not filler, not a wrong computed value (learn treats a
    # mismatch as a failed approach to avoid, not as an intermediate result to build on).
    kind = [c for c in report.checks if c.name in ("data type", "substance", "computed", "translation")]
    fmt = report.get("format")
    return ContentValidation(
        checksPassed=report.passed,
        checksFailed=report.failed,
        verified=not undecided or judgement is not None,
        overallSuccess=report.all_passed and all(met),
        dataTypeMatch=all(c.passed for c in kind) if kind else report.all_passed,
        formatMatch=fmt.passed if fmt else report.all_passed,
        successCriteriaMet=met,
        qualityScore=round(score, 4),
        issues=list(dict.fromkeys(issues)),
        improvementSuggestions=list(dict.fromkeys(suggestions)),
    )
