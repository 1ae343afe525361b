"""core.state.add_totals: telemetry is the round's running totals, so checkpoints do not grow per node run."""

from __future__ import annotations

from functools import reduce

from core.schemas import TelemetryRecord
from core.state import add_totals
from graph.instrument import totals_of


def _record(node: str, round_: int, seconds: float, tokens: int) -> dict[str, object]:
    record = TelemetryRecord(node=node, round=round_, step=1, durationS=seconds, inputTokens=tokens, outputTokens=1)
    return totals_of(record)


def test_records_add_up_per_round_and_per_node() -> None:
    records = [_record("select", 1, 0.5, 100), _record("act", 1, 1.25, 0), _record("select", 1, 0.25, 50)]
    totals = reduce(add_totals, records, {})
    assert (totals["round"], totals["seconds"], totals["inputTokens"], totals["outputTokens"]) == (1, 2.0, 150, 3)
    assert totals["nodes"]["select"] == {"runs": 2, "seconds": 0.75}
    assert totals["nodes"]["act"]["runs"] == 1


def test_a_new_round_starts_its_own_totals() -> None:
    totals = reduce(add_totals, [_record("select", 1, 9.0, 999), _record("intent", 2, 0.5, 10)], {})
    assert (totals["round"], totals["seconds"], totals["inputTokens"]) == (2, 0.5, 10)
    assert set(totals["nodes"]) == {"intent"}


def test_the_size_of_the_totals_does_not_grow_with_the_runs() -> None:
    few = reduce(add_totals, [_record("select", 1, 0.1, 1)] * 3, {})
    many = reduce(add_totals, [_record("select", 1, 0.1, 1)] * 300, {})
    assert many.keys() == few.keys() and many["nodes"].keys() == few["nodes"].keys()
    assert many["nodes"]["select"].keys() == few["nodes"]["select"].keys() and many["nodes"]["select"]["runs"] == 300
