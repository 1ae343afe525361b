"""Approval of one action before `act` runs it (`Context.approve`), through LangGraph's `interrupt()`.

The question is asked at the very start of `act`: LangGraph re-runs an interrupted node from its top on resume,
so nothing before the interrupt may call a model or a tool. Everything here is plain code over state.

Payload (stable; Studio, the SDK and the CLI show it): `{"kind": "approve", "action", "objective",
"parameters", "error"}` — `error` says why the previous answer was refused, else null. Answers:
`{"decision": "approve"}`, `{"decision": "edit", "parameters": {...}}` (replaces the named parameters; validated
again exactly as Stage 2's) or `{"decision": "reject", "reason": "..."}`.

A rejected action never runs: its step fails with the user's reason (`ActionResult.rejected`, the history entry's
`rejected`, shown as "rejected: <reason>"), and the action is not proposed again in the round (`rejected_actions`:
select leaves it out of Stage 1's catalog, refine stops where no other allowed action can do the job).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.types import interrupt
from pydantic import BaseModel, ValidationError

from core.context import Context
from core.errors import ParametersInvalid
from core.llm import explain
from core.schemas import FORBIDDEN_PARAMETER_KEYS, ActionSelection, HistoryEntry, Intent
from nodes.arguments import prepare_arguments
from tools.catalog import CatalogEntry


class ApprovalAnswer(BaseModel):
    """What the user answers to an approval interrupt."""

    decision: Literal["approve", "edit", "reject"]
    parameters: dict[str, Any] = {}
    reason: str = ""


@dataclass(frozen=True)
class Verdict:
    """The user's final word: the arguments to run with, or why the action must not run."""

    arguments: dict[str, Any]
    rejected: str | None = None


def rejected_actions(entries: Iterable[HistoryEntry]) -> dict[str, str]:
    """The actions the user rejected among `entries` (a round's steps), each with the user's latest reason."""
    return {e.action: e.rejected for e in entries if e.action and e.rejected is not None}


def needs_approval(entry: CatalogEntry | None, context: Context) -> bool:
    if entry is None or context.approve == "never":
        return False
    return context.approve == "always" or entry.side_effects


def ask_approval(
    entry: CatalogEntry,
    selection: ActionSelection,
    arguments: dict[str, Any],
    intent: Intent,
    context: Context,
    earlier: Mapping[str, HistoryEntry],
) -> Verdict:
    """Interrupt until the answer is usable; an invalid edit or answer is asked again with the reason."""
    error: str | None = None
    while True:
        shown = {k: v for k, v in arguments.items() if k not in FORBIDDEN_PARAMETER_KEYS}
        raw = interrupt(
            {
                "kind": "approve",
                "action": selection.action,
                "objective": selection.actionObjective,
                "parameters": shown,
                "error": error,
            }
        )
        try:
            answer = ApprovalAnswer.model_validate({"decision": raw} if isinstance(raw, str) else raw)
        except ValidationError as exc:
            error = f"the answer is not an approval answer: {explain(exc)}"
            continue
        if answer.decision == "approve":
            return Verdict(arguments)
        if answer.decision == "reject":
            return Verdict(arguments, rejected=answer.reason.strip() or "no reason given")
        try:
            proposed = {**shown, **answer.parameters}
            arguments = prepare_arguments(entry, proposed, selection, intent, context, earlier)
        except ParametersInvalid as exc:
            error = f"the edited parameters are invalid: {exc}"
            continue
        return Verdict(arguments)
