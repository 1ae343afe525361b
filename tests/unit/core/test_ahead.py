"""select adopts the Stage 1 asked alongside the judge only for the step it was made for, after a step that did not
fail, and with refine's hint (nodes/ahead.py)."""

from __future__ import annotations

from typing import Any

from core.context import Context
from core.schemas import dump
from nodes.ahead import worth_asking
from nodes.select import adopted
from tests.unit.core.factories import entry, selection, state

HINT = "Cover the Nordic region next."


def _state(outcome: str = "progress", ahead_step: int = 2, ahead_round: int = 1, **overrides: Any) -> Any:
    chosen = {"round": ahead_round, "step": ahead_step, "selection": dump(selection(parametersContext="One region."))}
    return state(step=1, history=[entry(1, 1, action="ai.process", outcome=outcome)], ahead=chosen, **overrides)


def test_the_selection_made_ahead_is_adopted_with_refines_hint() -> None:
    chosen = adopted(_state(hint=HINT), 2)
    assert chosen is not None
    assert chosen.parametersContext == f"One region.\nReview of step 1: {HINT}"


def test_without_a_hint_the_selection_is_taken_as_it_was_made() -> None:
    chosen = adopted(_state(), 2)
    assert chosen is not None and chosen.parametersContext == "One region."


def test_a_selection_for_another_step_or_round_is_not_adopted() -> None:
    assert adopted(_state(ahead_step=3), 2) is None
    assert adopted(_state(ahead_round=2), 2) is None
    assert adopted(state(step=1), 2) is None  # nothing was chosen ahead


def test_after_a_failed_step_stage1_is_asked_again() -> None:
    assert adopted(_state(outcome="failed"), 2) is None


def test_only_a_step_that_can_be_followed_asks_ahead(context: Context) -> None:
    context.direct_answer = False
    assert worth_asking(state(step=1), context)
    assert not worth_asking(state(step=context.max_steps), context)  # refine stops at max_steps anyway
    assert not worth_asking(state(step=1, workflow_mode="Actionplan"), context)  # the plan knows its next action
