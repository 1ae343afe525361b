"""Which attempt is delivered: the first answer stands unless code proves a later one better.

The first attempt of a round that fits one call is the bare model's own answer (nodes/direct.py). A later attempt
(the retry, a loop step) is a candidate: it replaces the delivered answer only when it passes a code check the
delivered one failed and fails none the delivered one passed. A judge's doubt, an equal score or being newer never
replaces an answer, so paor delivers the bare model's answer unless code has proved a better one.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.schemas import HistoryEntry


def verified_better(candidate: HistoryEntry, current: HistoryEntry) -> bool:
    """`candidate` passes a check `current` failed, and fails none `current` passed."""
    fixed = set(current.checksFailed) & set(candidate.checksPassed)
    broken = set(current.checksPassed) & set(candidate.checksFailed)
    return bool(fixed) and not broken


def delivered(entries: Sequence[HistoryEntry]) -> HistoryEntry | None:
    """The attempt to deliver among a round's steps, in order: the first that produced something, replaced only by
    a verified better one."""
    chosen: HistoryEntry | None = None
    for entry in entries:
        if not entry.documents:
            continue
        if chosen is None or verified_better(entry, chosen):
            chosen = entry
    return chosen
