"""Stage 1 of the next step, asked while the judge reads this one.

The judge is asked only where code checks cannot decide. The next Stage 1 needs the step's result, not its
verdict, so both requests go out together and a judged step costs one sequential request less. The selection waits
in state (`ahead`); if the round goes on, select adopts it with refine's hint added to its parametersContext (so
Stage 2, or the action's own prompt, still hears the judge); it is discarded when the judgement ends the round, and
when learn found the step failed (a repeated result): Stage 1 must see a failure before it chooses again.
"""

from __future__ import annotations

import contextvars
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, cast

from langgraph.runtime import Runtime

from core.capacity import blocking_threads
from core.context import Context
from core.schemas import ActionResult, ActionSelection, HistoryEntry, Observation, dump
from core.state import State
from nodes.direct import answering_directly
from nodes.select import choose  # select adopts what was chosen here (`adopted`)
from nodes.services import Services

log = logging.getLogger(__name__)
_THREADS = ThreadPoolExecutor(max_workers=blocking_threads(), thread_name_prefix="paor-ahead")  # one per run in flight


def worth_asking(state: State, context: Context) -> bool:
    """Only a loop step that can be followed by another (React mode, below max_steps, not a direct answer), on an
    endpoint that answers two requests at once: one that takes them in turn (llama-cpp-python's server) would
    only queue them, lose its cached prompt to the other and spend the time on a selection the judge may discard."""
    step = int(state.get("step") or 0)
    return (
        context.overlap_requests
        and state.get("workflow_mode") != "Actionplan"
        and step < context.max_steps
        and not answering_directly(state, step)
        and not answering_directly(state, step + 1)
    )


def pending_entry(state: State, result: ActionResult, observation: Observation) -> HistoryEntry:
    """What Stage 1 needs of the step being judged: its action, objective, parameters and documents."""
    selection = ActionSelection.model_validate(state["selection"])
    return HistoryEntry(
        round=int(state.get("round") or 1),
        step=int(state.get("step") or 1),
        action=selection.action,
        actionObjective=selection.actionObjective,
        parameters=dict(state.get("parameters") or {}),
        resultLabel=result.resultLabel,
        documents=result.documents,
        outcome="judging",
        findings=observation.notes[:2],
        learnings=list(selection.learnings[:2]),
    )


def start(
    state: State, runtime: Runtime[Context], services: Services, result: ActionResult, observation: Observation
) -> Future[dict[str, Any] | None]:
    """Ask the next step's Stage 1 on a thread (with this node's context: callbacks, usage, the run's actions);
    the future's value is the `ahead` state entry, or None when the selection could not be made."""
    step = int(state.get("step") or 1)
    view = cast(State, {**state, "hint": None})  # the previous step's hint was for this step, already taken

    def ask() -> dict[str, Any] | None:
        try:
            selection = choose(view, runtime, services, step + 1, pending_entry(state, result, observation))
        except Exception as exc:
            log.info("Stage 1 ahead of the judgement not used: %s", exc)
            return None
        return {"round": int(state.get("round") or 1), "step": step + 1, "selection": dump(selection)}

    return _THREADS.submit(contextvars.copy_context().run, ask)
