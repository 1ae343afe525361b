"""parameters (Stage 2): business parameters from a minimal prompt, then host-side validation and defaults."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import Context
from graph.errors import ActionNotDeclared, ActionUnavailable, ModelOutputInvalid, StepFailed
from graph.instrument import context_of
from graph.llm import ask_json
from graph.schemas import ActionSelection, HistoryEntry, ParametersAnswer
from graph.services import Services
from graph.state import State
from nodes import history_log
from nodes.arguments import prepare_arguments, stage2_fields
from nodes.chat import progress_message
from nodes.common import fingerprint, intent_of
from nodes.shapes import parameters_shape
from prompts.render import parameters_messages
from prompts.templates import clip
from tools.catalog import require


def parameters(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """The prompt carries only selectedAction, actionObjective, parametersContext and parametersSchema."""
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
