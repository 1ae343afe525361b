"""Actionplan mode (spec 2, legacy): plan every action up front, then execute them in order without refining.

It reuses act, validate and learn, so both modes run the same tools, observations and validation; it exists for
compatibility and as the baseline the React loop is measured against.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import Context
from core.errors import ModelOutputInvalid, PaorError, ParametersInvalid, SelectionRejected, StepFailed
from core.llm import ask_json
from core.runtime import context_of
from core.schemas import ActionPlan, ActionSelection, HistoryEntry, PlannedAction, dump
from core.state import State
from nodes import history_log
from nodes.arguments import prepare_arguments
from nodes.common import STEP_RESET, document_index, intent_of
from nodes.services import Services
from prompts.render import plan_messages
from tools.catalog import CatalogEntry, allowed_entries, lookup


def plan(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """One call returns the whole action list, each action with its parameters."""
    context = context_of(runtime)
    intent = intent_of(state)
    entries = allowed_entries(context.allowed_method_names)
    methods: dict[str, object] = {e.display_name: e.json_schema for e in entries}
    messages = plan_messages(
        request=state["prompt"],
        intent=intent,
        methods=methods,
        documents=document_index(state, history_log.complete(state, runtime)).render(),
        round_=int(state.get("round") or 1),
        max_steps=context.max_steps,
    )
    try:
        action_plan = ask_json(
            services.llm(context), messages, ActionPlan, lambda p: parse_plan(p, entries), what="action plan"
        )
    except (StepFailed, ModelOutputInvalid) as exc:
        failure = HistoryEntry(round=int(state.get("round") or 1), step=1, summary=f"planning failed: {exc}")
        return {"plan": [], "step_error": str(exc), **history_log.record(state, runtime, failure)}
    return {"plan": [dump(action) for action in action_plan.actions[: context.max_steps]]}


def parse_plan(payload: dict[str, Any], entries: list[CatalogEntry]) -> ActionPlan:
    action_plan = ActionPlan.model_validate(payload)
    allowed = {e.display_name for e in entries}
    for action in action_plan.actions:
        entry = lookup(action.action)
        if entry is None or entry.display_name not in allowed:
            raise SelectionRejected(f"action {action.action!r} is not in the allowed catalog; use {sorted(allowed)}")
        action.action = entry.display_name
    return action_plan


def plan_step(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Take the next planned action; the host validates its parameters exactly as in React mode."""
    context = context_of(runtime)
    step = int(state.get("step") or 0) + 1
    planned = PlannedAction.model_validate((state.get("plan") or [])[step - 1])
    selection = ActionSelection(
        action=planned.action,
        actionObjective=planned.actionObjective or planned.action,
        requiredInputDocuments=planned.requiredInputDocuments,
    )
    entry = lookup(planned.action)
    try:
        if entry is None:
            raise ParametersInvalid(f"action {planned.action} is not registered")
        document_index(state, history_log.complete(state, runtime)).resolve_all(planned.requiredInputDocuments)
        arguments = prepare_arguments(entry, planned.parameters, selection, intent_of(state), context)
    except PaorError as exc:  # a bad planned action fails its step; the plan goes on, as the legacy mode did
        failure = HistoryEntry(
            round=int(state.get("round") or 1),
            step=step,
            action=planned.action,
            actionObjective=selection.actionObjective,
            summary=f"planned action rejected: {exc}",
            findings=[str(exc)],
        )
        return {
            **STEP_RESET,
            "step": step,
            "selection": dump(selection),
            "step_error": str(exc),
            **history_log.record(state, runtime, failure),
        }
    return {**STEP_RESET, "step": step, "selection": dump(selection), "parameters": arguments}
