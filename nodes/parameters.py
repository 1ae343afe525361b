"""parameters (Stage 2): business parameters from a minimal prompt, then host-side validation and defaults.

Code sets them without asking where it can: the task in words comes from Stage 1 (an action's `instruction`
parameter), the rest from the code-level defaults; Stage 2 is asked only for what code cannot decide."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import Context
from core.errors import ActionNotDeclared, ActionUnavailable, ModelOutputInvalid, ParametersInvalid, StepFailed
from core.llm import ask_json
from core.runtime import context_of
from core.schemas import ActionSelection, HistoryEntry, Intent, ParameterField, ParametersAnswer
from core.state import State
from nodes import history_log
from nodes.arguments import code_defaults, prepare_arguments, stage2_fields
from nodes.chat import progress_message
from nodes.common import fingerprint, intent_of
from nodes.select import AVOID_NOTE, LEARNED_NOTE
from nodes.services import Services
from nodes.shapes import parameters_shape
from prompts.render import parameters_messages
from prompts.templates import clip
from tools.catalog import CatalogEntry, require


def parameters(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Code's parameters where it can set them all; else a prompt of only selectedAction, actionObjective,
    parametersContext and parametersSchema."""
    context = context_of(runtime)
    selection = ActionSelection.model_validate(state["selection"])
    try:  # select validated it; the catalog changed between checkpoint and resume
        entry = require(selection.action, state.get("tools"))
    except ActionNotDeclared:  # resumed with other tools: the run stops, naming the action
        raise
    except ActionUnavailable as exc:  # withdrawn since: the step fails, like any broken backend's
        return _failed(state, runtime, selection, str(exc))
    intent = intent_of(state)
    earlier = earlier_attempts(state, runtime)
    fields = stage2_fields(selection, entry)
    filled = filled_by_code(selection, entry, fields, intent, context)
    if filled is not None:
        try:
            return {"parameters": prepare_arguments(entry, filled, selection, intent, context, earlier)}
        except ParametersInvalid:  # e.g. exactly this already ran in this round: Stage 2 words it anew
            pass
    messages = parameters_messages(
        action=selection.action,
        objective=selection.actionObjective,
        context=selection.parametersContext,
        fields=fields,
    )
    try:
        arguments = ask_json(
            services.llm(context),
            messages,
            parameters_shape(entry, fields),
            lambda payload: prepare_arguments(
                entry, ParametersAnswer.model_validate(payload).parameters, selection, intent, context, earlier
            ),
            what="Stage 2 parameters",
        )
    except (StepFailed, ModelOutputInvalid) as exc:
        return _failed(state, runtime, selection, str(exc))
    return {"parameters": arguments}


def filled_by_code(
    selection: ActionSelection, entry: CatalogEntry, fields: list[ParameterField], intent: Intent, context: Context
) -> dict[str, str] | None:
    """The parameters when code can set every one that is needed — the tool's required ones and those Stage 1
    named — from the selection (the task in words) and the code-level defaults; None when Stage 2 must be asked.
    A Stage-2 call that only restated Stage 1's objective cost a sequential request per step."""
    if not entry.instruction:
        return None
    named = {f.name for f in selection.parametersSchema.fields}
    needed = {f.name for f in fields if f.required or f.name in named}
    if not needed <= {entry.instruction, "documentList", *code_defaults(entry, intent, context)}:
        return None
    if entry.instruction not in needed:
        return {}
    task = selection.actionObjective.strip()
    notes = (LEARNED_NOTE, AVOID_NOTE)  # for Stage 2 to weigh, not words of the task
    details = "\n".join(
        line for line in selection.parametersContext.strip().splitlines() if not line.startswith(notes)
    ).strip()
    return {entry.instruction: f"{task}\n\n{details}" if details and details not in task else task}


def earlier_attempts(state: State, runtime: Runtime[Context]) -> dict[str, HistoryEntry]:
    """This round's action+parameters by fingerprint (failed, rejected and delivered alike): none runs twice in a
    round. Its inputs are named by label, and a label never changes its bytes, so the same fingerprint means the
    same inputs; a deterministic tool would only repeat itself (a forced report once ran three times)."""
    return {fingerprint(e.action, e.parameters): e for e in history_log.current_round(state, runtime) if e.action}


def _failed(state: State, runtime: Runtime[Context], selection: ActionSelection, reason: str) -> dict[str, Any]:
    """The step fails with `reason`, recorded for the next Stage 1, and the chat's progress line says so (a step
    refused here once showed only "Working on it" until the next one)."""
    step = int(state.get("step") or 1)
    entry = HistoryEntry(
        round=int(state.get("round") or 1),
        step=step,
        action=selection.action,
        actionObjective=selection.actionObjective,
        summary=f"parameters failed: {reason}",
        findings=[reason],
        learnings=list(selection.learnings),
    )
    line = (
        f"Step {step} of at most {context_of(runtime).max_steps}: {selection.action} — its parameters were refused "
        f"({clip(reason, 120)}); choosing again."
    )
    shown = progress_message(state, line)
    return {"step_error": reason, **history_log.record(state, runtime, entry), **({"messages": shown} if shown else {})}
