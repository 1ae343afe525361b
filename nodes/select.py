"""select (Stage 1): exactly one action, its objective and document references — never parameter values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from langgraph.runtime import Runtime

from core.context import Context
from core.errors import ModelOutputInvalid, SelectionRejected, StepFailed, UnknownDocumentReference
from core.llm import ask_json
from core.runtime import context_of
from core.schemas import ActionSelection, HistoryEntry, Strategy, dump
from core.state import State
from nodes import history_log, inputs_read
from nodes.approval import rejected_actions
from nodes.chat import progress_message
from nodes.clarify import clarified
from nodes.common import STEP_RESET, document_index, intent_of
from nodes.placeholders import PLACEHOLDER_REFUSAL, is_placeholder
from nodes.services import Services
from nodes.shapes import selection_shape
from nodes.strategies import pattern_of, recall
from prompts.history import render_history
from prompts.render import selection_messages
from prompts.templates import clip
from tools.catalog import CatalogEntry, allowed_entries, lookup, render_tiny_catalog
from tools.documents import DocumentIndex
from tools.extra.ranking import offered_entries


def select(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Ask for one action — or adopt the one chosen while the judge read the previous step (nodes/ahead.py); a
    protocol violation is retried once with the reason, then the step fails."""
    context = context_of(runtime)
    # First, before any model call: a resumed node re-runs from here and must repeat nothing.
    asked = clarified(state, intent_of(state)) if context.ask_user else {}
    state = cast(State, {**state, **asked})
    step = int(state.get("step") or 0) + 1
    round_ = int(state.get("round") or 1)
    selection = adopted(state, step)
    if selection is None:
        try:
            selection = choose(state, runtime, services, step)
        except (StepFailed, ModelOutputInvalid) as exc:
            failure = HistoryEntry(round=round_, step=step, summary=f"selection failed: {exc}", findings=[str(exc)])
            update = {**STEP_RESET, "step": step, "step_error": str(exc), **history_log.record(state, runtime, failure)}
            shown = progress_message(state, f"Step {step} of at most {context.max_steps}: no action could be chosen.")
            return {**asked, **update, **({"messages": shown} if shown else {})}
    line = f"Step {step} of at most {context.max_steps}: {selection.action} — {clip(selection.actionObjective, 120)}"
    shown = progress_message(state, line)
    chosen = {"step": step, "selection": dump(selection)}  # STEP_RESET drops what was chosen ahead
    return {**asked, **STEP_RESET, **chosen, **({"messages": shown} if shown else {})}


def choose(
    state: State, runtime: Runtime[Context], services: Services, step: int, pending: HistoryEntry | None = None
) -> ActionSelection:
    """Stage 1 for `step`, with the learned approach carried into parametersContext. `pending` is the entry of a
    step whose judgement is not in yet (its result and documents are already usable)."""
    context = context_of(runtime)
    intent = intent_of(state)
    extra = [pending] if pending is not None else []
    past = history_log.complete(state, runtime)
    index = document_index(state, [*past, *extra])
    strategies = recall(runtime.store, intent) if context.learning else []
    learned = {s.successfulAction for s in strategies if s.successfulAction}
    round_ = int(state.get("round") or 1)
    rejected = rejected_actions(e for e in past if e.round == round_)
    steps = [*past, *extra]  # render_history shows the newest of them
    allowed = [e for e in allowed_entries(context.allowed_method_names) if e.display_name not in rejected]
    if not allowed:  # refine stops the round before; an empty catalog is never sent
        raise StepFailed(f"the user rejected every allowed action in this round ({', '.join(sorted(rejected))})")
    usable = usable_entries(allowed, index)
    unread = [ref.item_reference for ref in inputs_read.unread(state, [e for e in steps if e.round == round_])]
    entries = offered_entries(usable, f"{state['prompt']}\n{state.get('hint') or ''}", learned)
    messages = selection_messages(
        request=state["prompt"],
        intent=intent,
        strategies=strategies,
        catalog=render_tiny_catalog(entries),
        documents=index.render(max_lists=SHOWN_LISTS) if len(index) else "",  # older lists: labels in HISTORY
        learnings=state.get("learnings") or [],
        hint=state.get("hint"),
        history=render_history(steps, round_, listed=index.listed(SHOWN_LISTS)) if steps else "",
        rejections=rejected,
        step=step,
        max_steps=context.max_steps,
    )
    selection = ask_json(
        services.llm(context),
        messages,
        selection_shape(entries, index.choices()),
        lambda payload: parse_selection(payload, entries, index, rejected, unread),
        what="Stage 1 selection",
    )
    own = [s for s in strategies if s.pattern == pattern_of(intent)]
    return with_learned_hint(selection, own)


def usable_entries(entries: list[CatalogEntry], index: DocumentIndex) -> list[CatalogEntry]:
    """Without any document, actions that work on documents cannot run: they are not offered (unless nothing else
    is allowed, when the step may fail visibly)."""
    if len(index):
        return entries
    return [e for e in entries if not e.requires_documents] or entries


def parse_selection(
    payload: dict[str, Any],
    entries: list[CatalogEntry],
    index: DocumentIndex,
    rejected: Mapping[str, str] | None = None,
    unread: Sequence[str] = (),
) -> ActionSelection:
    """Enforce the Stage-1 protocol: no parameters, a catalog action (not one the user `rejected` in this round),
    known fields, resolvable documents. An action that works on documents but names none works on `unread`, the
    inputs no step of the round read yet (nodes/inputs_read.py): a small model leaves the list empty, and the
    answer it writes then is about nothing the user gave."""
    if "parameters" in payload:
        raise SelectionRejected(
            "Stage 1 must not contain 'parameters': describe them in parametersContext/parametersSchema instead"
        )
    action = payload.get("action")
    if isinstance(action, dict):  # spec 3's older shape {"method": "web", "name": "scrape"}
        payload = {**payload, "action": f"{action.get('method')}.{action.get('name')}"}
    selection = ActionSelection.model_validate(payload)
    copied = [
        name
        for name in ("actionObjective", "parametersContext")
        if getattr(selection, name).strip() and is_placeholder(getattr(selection, name))
    ]
    if copied:
        raise SelectionRejected(
            f"{' and '.join(copied)} repeat the shape's own {PLACEHOLDER_REFUSAL}: write what this step of "
            "this request needs (the user's subject, numbers and wording), not the description of the field"
        )
    allowed = {e.display_name for e in entries}
    entry = lookup(selection.action)
    rejected = rejected or {}
    if entry is not None and entry.display_name in rejected:
        raise SelectionRejected(
            f"the user rejected {entry.display_name} in this round ({rejected[entry.display_name]!r}); "
            f"choose one of {sorted(allowed)}"
        )
    if entry is None or entry.display_name not in allowed:
        raise SelectionRejected(
            f"action {selection.action!r} is not in the allowed catalog; choose one of {sorted(allowed)}"
        )
    if unread and not selection.requiredInputDocuments and "documentList" in entry.parameter_names:
        selection = selection.model_copy(update={"requiredInputDocuments": list(unread)})
    if entry.requires_documents and not selection.requiredInputDocuments:
        raise SelectionRejected(f"{entry.display_name} works on documents: name at least one in requiredInputDocuments")
    unknown = [f.name for f in selection.parametersSchema.fields if f.name not in entry.parameter_names]
    if unknown:
        raise SelectionRejected(
            f"{entry.display_name} has no parameters {unknown}; its parameters are {entry.parameter_names}"
        )
    try:
        index.resolve_all(selection.requiredInputDocuments)
    except UnknownDocumentReference as exc:
        raise SelectionRejected(str(exc)) from exc
    return selection.model_copy(update={"action": entry.display_name})


SHOWN_LISTS = 3  # document lists Stage 1 sees with their files; older ones by the label in HISTORY

#: How the notes for Stage 2 start: code that fills a parameter from parametersContext leaves them out (a past
#: prompt quoted as "avoid" would otherwise become part of the new one).
LEARNED_NOTE = "Learned strategy that worked before:"
AVOID_NOTE = "Avoid (failed before):"


def with_learned_hint(selection: ActionSelection, strategies: list[Strategy]) -> ActionSelection:
    """Carry the learned approach (and what to avoid) into parametersContext, which Stage 2 reads."""
    notes = []
    for strategy in strategies:
        if strategy.successfulAction == selection.action and strategy.promptStyle:
            notes.append(f"{LEARNED_NOTE} {strategy.promptStyle}")
        notes.extend(f"{AVOID_NOTE} {a}" for a in strategy.avoid if a.startswith(f"{selection.action}:"))
    if not notes:
        return selection
    context = "\n".join([selection.parametersContext, *notes]).strip()
    return selection.model_copy(update={"parametersContext": context})


def adopted(state: State, step: int) -> ActionSelection | None:
    """The selection chosen ahead for `step` (nodes/ahead.py), with refine's hint; None when there is none or it
    must not be used."""
    ahead = state.get("ahead")
    if not ahead or ahead.get("step") != step or ahead.get("round") != int(state.get("round") or 1):
        return None
    previous = [e for e in history_log.window_of(state) if e.round == ahead["round"] and e.step == step - 1]
    if not previous or previous[-1].outcome == "failed":
        return None
    selection = ActionSelection.model_validate(ahead["selection"])
    hint = state.get("hint")
    if not hint or hint in selection.parametersContext:
        return selection
    note = f"Review of step {step - 1}: {hint}"
    return selection.model_copy(update={"parametersContext": f"{selection.parametersContext}\n{note}".strip()})
