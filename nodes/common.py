"""Small readers of state shared by several nodes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from core.schemas import DocumentRef, HistoryEntry, Intent
from core.state import State
from tools.documents import DocumentIndex

# A new step starts from a clean slate: stale results of the previous step must not leak into this one.
STEP_RESET: dict[str, Any] = {
    "selection": None,
    "parameters": None,
    "step_error": None,
    "result": None,
    "observation": None,
    "validation": None,
    "decision": None,
    "ahead": None,
}
# A new prompt on an existing thread starts a round: per-round fields clean, history kept (telemetry totals restart
# by themselves when the round number changes).
ROUND_RESET: dict[str, Any] = {
    **STEP_RESET,
    "hint": None,
    "learnings": [],
    "answer": "",
    "deliverables": [],
    "stop_reason": "",
    "status": None,
    "totals": {},
    "refused": None,
    "failure": None,
    "direct": False,
}


def intent_of(state: State) -> Intent:
    return Intent.model_validate(state["intent"])


def document_index(state: State, history: Sequence[HistoryEntry]) -> DocumentIndex:
    """Every document this thread can reference: the user's inputs and the results of `history` (the thread's
    complete history, see nodes.history_log.complete)."""
    refs = [DocumentRef.model_validate(d) for d in state.get("input_documents") or []]
    for entry in history:
        refs.extend(entry.documents)
    return DocumentIndex(refs)


def fingerprint(action: str, parameters: dict[str, Any]) -> str:
    """Identity of an attempt, so the same failed action+parameters is never tried twice."""
    canonical = json.dumps({"action": action, "parameters": parameters}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def result_label(round_: int, step: int, action: str, task: int = 1) -> str:
    """Deterministic `round{r}_task{t}_action{a}_{label}` (spec 2)."""
    label = "".join(ch for ch in action.rsplit(".", 1)[-1].lower() if ch.isalnum()) or "result"
    return f"round{round_}_task{task}_action{step}_{label}"
