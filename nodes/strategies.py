"""Learned strategies in the LangGraph store.

Every attempt is its own item (namespace ("paor", "attempts", pattern), keyed by its thread, round and step), so
concurrent runs and workers never overwrite each other's counts — the store has no compare-and-set, and a
read-modify-write counter lost increments under load — and a learn node re-run after a crash counts once. The
strategy (namespace ("paor", "strategies", pattern), key "strategy") is the summary of those attempts: recomputed
after each attempt, and recomputed from the attempts when recalled.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

from langgraph.store.base import BaseStore

from core.schemas import Intent, Strategy, dump
from nodes.placeholders import is_placeholder

NAMESPACE = ("paor", "strategies")
ATTEMPTS = ("paor", "attempts")
KEY = "strategy"
MAX_AVOID = 5
MAX_ATTEMPTS = 1000  # a strategy summarises at most this many attempts of its pattern
#: Failures of paor's own that earlier versions stored as a tool's (an action missing at resume, `null` sent for an
#: optional argument the server then refused): they say nothing about the tool and are left out of every summary.
_PAOR_FAILURE = re.compile(r"LookupError: action \S+ is not registered|-32602|Input validation error|input_value=None")
#: Outages that earlier versions stored as a failed attempt (a model endpoint or a tool's service away, slow or
#: busy): faults of the world, never evidence against an action (core/outages.py); left out of every summary.
_OUTAGE = re.compile(
    r"(?:OpenAI|API)?(?:Connection|Timeout)Error: (?:Connection error|Request timed out)"
    r"|(?:InternalServerError|RateLimitError|OpenAIAPIError|APIStatusError|OpenAIRateLimitError): Error code: "
    r"(?:429|5\d\d)"
    r"|the model endpoint (?:could not be reached|did not answer in time)"
    r"|Tavily search failed: (?:ConnectionError|ConnectTimeout|ReadTimeout|TimeoutError|Timeout)"
    r"|cannot connect to|cannot resolve|did not answer within|the parse server did not answer"
)


def pattern_of(intent: Intent) -> str:
    """Requests that want the same kind of deliverable share what was learned ("numbers-raw_data-prime")."""
    parts: list[str] = [intent.dataType, intent.expectedFormat]
    if intent.numberProperty:
        parts.append(intent.numberProperty)
    return "-".join(p.replace(".", "_") for p in parts)


def recall(store: BaseStore | None, intent: Intent, limit: int = 3) -> list[Strategy]:
    """The exact pattern's strategy first, then the most successful ones for the same data type."""
    if store is None:
        return []
    pattern = pattern_of(intent)
    attempts = _attempts(store, pattern)
    exact = None if attempts else store.get((*NAMESPACE, pattern), KEY)
    found = [summarize(pattern, attempts)] if attempts else [Strategy.model_validate(exact.value)] if exact else []
    found = [strategy for strategy in found if strategy.attempts]  # no evidence left (outages): nothing learned
    related = [
        strategy
        for strategy in learned(store, limit=50)
        if strategy.pattern != pattern and strategy.pattern.startswith(f"{intent.dataType}-")
    ]
    related.sort(key=lambda s: (s.successRate, s.attempts), reverse=True)
    return (found + related)[:limit]


def learned(store: BaseStore, limit: int = 1000) -> list[Strategy]:
    """Every pattern's strategy, as stored; one whose advice names a failure that is no evidence (an outage, paor's
    own, stored by an earlier version) is summarised again from its attempts, and a pattern left with none is no
    strategy at all. Stage 1 asks this on every step: only those few cost a read of their attempts."""
    found = []
    for item in store.search(NAMESPACE, limit=limit):
        strategy = Strategy.model_validate(item.value)
        if any(_not_evidence(entry) for entry in strategy.avoid):
            strategy = summarize(strategy.pattern, _attempts(store, strategy.pattern))
        if strategy.attempts:
            found.append(strategy)
    return found


def _not_evidence(issue: str) -> bool:
    """A failure that says nothing about the action: paor's own, or an outage."""
    return bool(_PAOR_FAILURE.search(issue) or _OUTAGE.search(issue))


def record(
    store: BaseStore, intent: Intent, action: str, approach: str, success: bool, issue: str, step: str | None = None
) -> Strategy:
    """Count one attempt; keep what worked and what to avoid. `step` (thread, round and step) makes a learn node
    re-run after a crash write the same attempt again instead of counting it twice."""
    pattern = pattern_of(intent)
    attempt = {
        "action": action,
        "approach": approach,
        "success": success,
        "issue": "" if success else issue,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    store.put((*ATTEMPTS, pattern), step or uuid4().hex, attempt)
    strategy = summarize(pattern, _attempts(store, pattern))
    store.put((*NAMESPACE, pattern), KEY, dump(strategy))
    return strategy


def summarize(pattern: str, attempts: list[dict[str, Any]]) -> Strategy:
    """The strategy a pattern's attempts add up to: latest success, recent distinct failures, success rate."""
    kept = [a for a in attempts if a.get("success") or not _not_evidence(str(a.get("issue", "")))]
    ordered = sorted(kept, key=lambda a: str(a.get("at", "")))
    successes = [a for a in ordered if a.get("success") and not _placeholder(str(a.get("approach", "")))]
    avoid: list[str] = []
    for failure in (a for a in ordered if not a.get("success")):
        entry = f"{failure['action']}: {failure['approach']} → {failure['issue']}"
        avoid = [*[x for x in avoid if x != entry], entry]
    latest = successes[-1] if successes else None
    return Strategy(
        pattern=pattern,
        successfulAction=latest["action"] if latest else None,
        promptStyle=latest["approach"] if latest else None,
        avoid=avoid[-MAX_AVOID:],
        attempts=len(ordered),
        successes=len(successes),
        successRate=round(len(successes) / len(ordered), 4) if ordered else 0.0,
        lastUpdated=str(ordered[-1]["at"])[:19] + "+00:00" if ordered else "",
    )


def _placeholder(approach: str) -> bool:
    """`aiPrompt "What this one action must achieve"`: a copied description stored before it was refused."""
    quoted = approach.split('"', 1)[1].rstrip('"') if '"' in approach else approach
    return is_placeholder(quoted)


def _attempts(store: BaseStore, pattern: str) -> list[dict[str, Any]]:
    return [item.value for item in store.search((*ATTEMPTS, pattern), limit=MAX_ATTEMPTS)]
