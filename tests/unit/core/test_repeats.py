"""A result equal to an earlier one is no progress: the first repeat changes the approach, the second stops."""

from __future__ import annotations

from core.schemas import HistoryEntry, RefinementDecision
from nodes.repeats import repeats, without_repeats
from tests.unit.core.factories import ref

CONTINUE = RefinementDecision(decision="continue", reason="9 numbers, 10 asked", progress=50, nextHint="List ten.")


def _step(step: int, text: str | None) -> HistoryEntry:
    documents = [ref(label=f"round1_task1_action{step}_process", data=text.encode())] if text is not None else []
    return HistoryEntry(round=1, step=step, action="ai.process", documents=documents)


def test_only_byte_identical_documents_repeat_and_no_documents_never_do() -> None:
    steps = [_step(1, "a"), _step(2, "b"), _step(3, None), _step(4, None), _step(5, "a")]
    assert [(entry.step, earlier.step) for entry, earlier in repeats(steps)] == [(5, 1)]


def test_the_first_repeat_tells_stage_1_to_change_the_approach() -> None:
    decision = without_repeats(CONTINUE, [_step(1, "a"), _step(2, "a")])
    assert decision.decision == "continue"
    assert decision.nextHint == (
        "Step 2 delivered exactly what step 1 did (the same documents): do not repeat it; change the action or its "
        "parameters. List ten."
    )


def test_the_second_repeat_stops_the_round_and_says_why() -> None:
    decision = without_repeats(CONTINUE, [_step(1, "a"), _step(2, "a"), _step(3, "b"), _step(4, "b")])
    assert decision.decision == "stop" and decision.progress == 50
    assert decision.reason == (
        "no progress: the results repeat byte for byte (step 2 = step 1, step 4 = step 3), so a further step would "
        "change nothing"
    )


def test_a_new_result_or_a_stop_is_left_alone() -> None:
    assert without_repeats(CONTINUE, [_step(1, "a"), _step(2, "a"), _step(3, "c")]) == CONTINUE
    stop = RefinementDecision(decision="stop", reason="max_steps (5) reached", progress=50)
    assert without_repeats(stop, [_step(1, "a"), _step(2, "a")]) == stop
