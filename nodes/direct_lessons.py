"""What direct answers taught: a note the bare call needs on this endpoint, learned where a code check proves it.

The bare call carries the user's words only (issue 29). When it fails a check whose advice does not depend on the
request (the answer's language) and the retry that carried that advice passes it, the advice is worth giving at
once next time — but only while the evidence says so: the bare call failed that check more often than it passed it,
and the first calls that carried the note passed it at least as often as they failed it. Every outcome is its own
store item (keyed by its thread, round and step), as for strategies: the store has no compare-and-set. The store
keeps outcomes only; the note is the check's own advice, written by code, so nothing a run stored is ever sent as
prompt text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal
from uuid import uuid4

from langgraph.store.base import BaseStore

from core.schemas import Intent
from nodes.checks import language_advice

NAMESPACE = ("paor", "direct")
#: Checks whose advice holds for every request in a language (the argument), not just the one that failed.
ADVICE: dict[str, Callable[[str], str]] = {"language": language_advice}
MAX_OUTCOMES = 1000
Kind = Literal["bare_passed", "bare_failed", "noted_passed", "noted_failed", "fixed"]


def record(store: BaseStore, intent: Intent, check: str, kind: Kind, step: str | None = None) -> None:
    """One outcome of `check` for a direct answer in the intent's language; `step` (thread, round and step) makes
    a node re-run after a crash write the same item again instead of counting the outcome twice."""
    outcome = {"check": check, "kind": kind, "at": datetime.now(UTC).isoformat(timespec="microseconds")}
    store.put((*NAMESPACE, intent.language), f"{step}/{check}" if step else uuid4().hex, outcome)


def learned_note(store: BaseStore | None, intent: Intent) -> str | None:
    """The note the first direct call of a request in this language should carry, if the evidence says it helps."""
    return _note(store, intent.language) if store is not None else None


def learned_notes(store: BaseStore) -> dict[str, str]:
    """Every language's learned note (for `paor strategies`)."""
    languages = sorted(
        ns[-1] for ns in store.list_namespaces(prefix=NAMESPACE, max_depth=len(NAMESPACE) + 1, limit=1000)
    )
    notes = {language: _note(store, language) for language in languages}
    return {language: note for language, note in notes.items() if note}


def _note(store: BaseStore, language: str) -> str | None:
    outcomes = [item.value for item in store.search((*NAMESPACE, language), limit=MAX_OUTCOMES)]
    for check, advice in ADVICE.items():
        counts = Counter(str(o.get("kind")) for o in outcomes if o.get("check") == check)
        helps = counts["bare_failed"] > counts["bare_passed"] and counts["noted_passed"] >= counts["noted_failed"]
        if counts["fixed"] and helps:
            return advice(language)
    return None
