"""The held-out sets behind the reading figures of docs/benchmarks.md, kept so a later change is measured on them.

Each set was written by someone who never read the code and measured once before anything was changed for it; its
dev half has been read since, its test half only measured (see docs/benchmarks.md for which figures are "seen").
`python -m bench.reading_sets` prints, per set and half, for a wording set (`bench/sets/wordings-*.jsonl`: a request
and the result a person computes, None for a decoy code must leave to the model) the requests decided right, decided
wrong, decoys decided and left undecided; for an answer set (`bench/sets/answers-*.jsonl`: a request, an answer and
whether the result it states is right) the answers judged, the wrong ones passed and the right ones failed. A new
held-out set is new wording: these are for regressions, not for measuring how far the reading reaches.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench.reading import same_result
from nodes.reading.kinds import known_answer

SETS = Path(__file__).with_name("sets")


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (SETS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def wordings(name: str) -> dict[str, Counter[str]]:
    """Per half: decided right, decided wrong, decoys decided, undecided."""
    figures: dict[str, Counter[str]] = {}
    for row in _rows(name):
        known, expected = known_answer(row["request"]), row["expect"]
        if expected is None:
            outcome = "decoys decided" if known is not None else "decoys left"
        elif known is None:
            outcome = "undecided"
        else:
            outcome = "decided right" if same_result(known.result, expected) else "decided wrong"
        figures.setdefault(row["half"], Counter())[outcome] += 1
    return figures


def answers(name: str) -> dict[str, Counter[str]]:
    """Per half: answers judged, wrong ones passed, right ones failed."""
    figures: dict[str, Counter[str]] = {}
    for row in _rows(name):
        known = known_answer(row["request"])
        if known is None:
            continue
        counts = figures.setdefault(row["half"], Counter())
        counts["judged"] += 1
        passed = known.holds(row["answer"])
        counts["wrong passed"] += passed and not row["right"]
        counts["right failed"] += not passed and row["right"]
    return figures


def main() -> None:
    for path in sorted(SETS.glob("*.jsonl")):
        measured = wordings(path.name) if path.name.startswith("wordings") else answers(path.name)
        for half, counts in measured.items():
            print(f"{path.stem} {half}: " + ", ".join(f"{key} {value}" for key, value in sorted(counts.items())))


if __name__ == "__main__":
    main()
