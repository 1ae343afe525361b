"""The reading bench's own figures (bench/reading.py): on both halves nothing is decided wrong and no wrong answer
passes; on the test half at least 90 % of what code can decide is decided right (issue 54)."""

from __future__ import annotations

import pytest

from bench.reading import BAD, DEV, TEST, measure
from bench.reading_sets import SETS, answers, wordings
from nodes.reading.kinds import known_answer


@pytest.mark.parametrize(("half", "cases"), [("dev", DEV), ("test", TEST)])
def test_nothing_is_decided_wrong_and_no_wrong_answer_passes(half: str, cases: list) -> None:
    figures = measure(cases)
    assert figures["decided wrong"] == 0 and figures["wrong answers passed"] == 0, figures
    assert figures["right answers failed"] == 0, figures
    assert figures["decided right %"] >= 90.0, figures


def test_bad_input_decides_nothing() -> None:
    assert all(known_answer(text) is None for text in BAD.values())


def test_the_held_out_sets_are_never_decided_or_judged_worse() -> None:
    """The figures docs/benchmarks.md reports for the kept held-out sets (bench/reading_sets.py): nothing decided
    wrong, no decoy decided, and no more wrong answers passed than when they were last measured."""
    assert len(list(SETS.glob("*.jsonl"))) >= 6  # the sets docs/benchmarks.md reports, wherever they are kept
    for path in SETS.glob("wordings-*.jsonl"):
        for half, counts in wordings(path.name).items():
            assert counts["decided wrong"] == 0 and counts["decoys decided"] == 0, (path.name, half, counts)
    for path in SETS.glob("answers-*.jsonl"):
        judged = answers(path.name)
        assert judged["dev"]["wrong passed"] == 0 and judged["test"]["wrong passed"] <= 1, (path.name, judged)
