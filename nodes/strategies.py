"""Learned strategies in the LangGraph store: namespace ("paor", "strategies", pattern), key "strategy"."""

from __future__ import annotations

from datetime import UTC, datetime

from langgraph.store.base import BaseStore

from graph.schemas import Intent, Strategy, dump

NAMESPACE = ("paor", "strategies")
KEY = "strategy"
MAX_AVOID = 5


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
    exact = store.get((*NAMESPACE, pattern), KEY)
    found = [Strategy.model_validate(exact.value)] if exact else []
    related = [
        Strategy.model_validate(item.value)
        for item in store.search(NAMESPACE, limit=50)
        if item.namespace[-1] != pattern and item.namespace[-1].startswith(f"{intent.dataType}-")
    ]
    related.sort(key=lambda s: (s.successRate, s.attempts), reverse=True)
    return (found + related)[:limit]


def record(store: BaseStore, intent: Intent, action: str, approach: str, success: bool, issue: str) -> Strategy:
    """Count one attempt; keep what worked and what to avoid."""
    pattern = pattern_of(intent)
    existing = store.get((*NAMESPACE, pattern), KEY)
    strategy = Strategy.model_validate(existing.value) if existing else Strategy(pattern=pattern)
    strategy.attempts += 1
    if success:
        strategy.successes += 1
        strategy.successfulAction = action
        strategy.promptStyle = approach
    else:
        avoided = f"{action}: {approach} → {issue}"
        strategy.avoid = [*[a for a in strategy.avoid if a != avoided][-(MAX_AVOID - 1) :], avoided]
    strategy.successRate = round(strategy.successes / strategy.attempts, 4)
    strategy.lastUpdated = datetime.now(UTC).isoformat(timespec="seconds")
    store.put((*NAMESPACE, pattern), KEY, dump(strategy))
    return strategy
