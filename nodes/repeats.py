"""A step whose result equals an earlier step's is no progress.

A deterministic model asked the same thing answers the same bytes: in a follow-up round the same action with the
same parameters once ran five times with one sha256, until max_steps. So a result byte-identical to an earlier
result of the round (same documents by hash) is a failed attempt (`learn`: its action+parameters are never run
again, and Stage 1 reads why in the learnings), the first repeat sends Stage 1 a hint to change the approach, and
a second one stops the round saying so (`refine`).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.schemas import DocumentRef, HistoryEntry, RefinementDecision

#: Repeated results a round tolerates: the first gets a hint to change the approach, the next one stops it.
MAX_REPEATS = 1


def result_key(documents: Sequence[DocumentRef]) -> tuple[str, ...]:
    return tuple(sorted(ref.sha256 for ref in documents))


def same_as_earlier(entries: Sequence[HistoryEntry], documents: Sequence[DocumentRef]) -> HistoryEntry | None:
    """The first of `entries` whose documents are byte-identical to `documents` (None for no documents)."""
    key = result_key(documents)
    if not key:
        return None
    return next((e for e in entries if e.documents and result_key(e.documents) == key), None)


def repeats(entries: Sequence[HistoryEntry]) -> list[tuple[HistoryEntry, HistoryEntry]]:
    """(entry, the earlier entry it repeats) for every entry of a round that delivered nothing new."""
    found = []
    for index, entry in enumerate(entries):
        earlier = same_as_earlier(entries[:index], entry.documents)
        if earlier is not None:
            found.append((entry, earlier))
    return found


def repeat_lesson(earlier: HistoryEntry) -> str:
    return (
        f"the result is byte-identical to step {earlier.step}'s ({earlier.action}): repeating it changes nothing; "
        "change the action or its parameters"
    )


def without_repeats(decision: RefinementDecision, entries: Sequence[HistoryEntry]) -> RefinementDecision:
    """`decision` unless the round's newest step repeated an earlier result: then a hint to change the approach,
    or, past `MAX_REPEATS`, a stop that says why."""
    found = repeats(entries)
    if decision.decision != "continue" or not found or found[-1][0] is not entries[-1]:
        return decision
    latest, earlier = found[-1]
    if len(found) > MAX_REPEATS:
        pairs = ", ".join(f"step {entry.step} = step {same.step}" for entry, same in found)
        return RefinementDecision(
            decision="stop",
            reason=f"no progress: the results repeat byte for byte ({pairs}), so a further step would change nothing",
            progress=decision.progress,
        )
    hint = (
        f"Step {latest.step} delivered exactly what step {earlier.step} did (the same documents): do not repeat it; "
        "change the action or its parameters."
    )
    return decision.model_copy(update={"nextHint": f"{hint} {decision.nextHint or ''}".strip()})
