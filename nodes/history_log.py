"""The thread's history: a bounded window in state, the complete record in the LangGraph store.

Every checkpoint holds the whole state, so an append-only history list would be rewritten into each of the six
checkpoints a step makes and a run's storage would grow with the square of its steps. Instead the node that makes an
entry puts it in the store under `("paor", "history", thread)`, keyed by round and step (a node re-run after a
crash writes the same key again), and state keeps only the head of the newest `WINDOW` entries (round, step,
action, outcome, label, a rejection's reason): what refine's no-progress rule and the selection chosen ahead read,
and what a caller sees of the steps while a run waits for an answer. Stage 1 reads the entries it shows in full from
the store, which select reads anyway for the document index. finalize puts the complete history into the output
state once per round, so callers, `paor history` and Studio still see every step. Without a store or a thread (no
checkpointer) state is the only home, so it keeps every entry as before.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.types import Overwrite

from core import history_store
from core.runtime import thread_of
from core.schemas import HistoryEntry, dump
from core.state import State
from prompts.history import MAX_ENTRIES

# What the window keeps of an entry (what Stage 1 shows of an older step as its one line): every checkpoint of a
# step holds the window, and the newest steps in full were half of a step's checkpoint bytes.
_HEAD = ("round", "task", "step", "action", "resultLabel", "success", "outcome", "qualityScore", "rejected")

WINDOW = MAX_ENTRIES  # as many as Stage 1 renders


def _log(runtime: Runtime[Any]) -> tuple[BaseStore, str] | None:
    """The store and the thread id, when the run has both."""
    thread = thread_of(runtime)
    if runtime.store is None or not thread:
        return None
    return runtime.store, thread


def window_of(state: State) -> list[HistoryEntry]:
    """The entries state holds: the heads of the newest `WINDOW` (or every entry in full, without a store)."""
    return [HistoryEntry.model_validate(item) for item in state.get("history") or []]


def record(state: State, runtime: Runtime[Any], entry: HistoryEntry) -> dict[str, Any]:
    """The state update that records `entry`: stored under its round and step, and the window moved on."""
    item = dump(entry)
    log = _log(runtime)
    if log is None:
        return {"history": [item]}
    store, thread = log
    store.put(history_store.namespace(thread), history_store.key(entry.round, entry.step), item, index=False)
    kept = [h for h in state.get("history") or [] if (h.get("round"), h.get("step")) != (entry.round, entry.step)]
    return {"history": Overwrite(_windowed([*kept, item]))}


def _windowed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The heads of the newest WINDOW entries."""
    return [_head(item) for item in items[-WINDOW:]]


def _head(item: dict[str, Any]) -> dict[str, Any]:
    """Only the head's keys, unset ones left out (HistoryEntry's defaults fill the rest when it is read)."""
    return {k: item[k] for k in _HEAD if item.get(k) is not None}


def complete(state: State, runtime: Runtime[Any]) -> list[HistoryEntry]:
    """Every entry of the thread, oldest first: the store's record, and the window for anything it lacks."""
    log = _log(runtime)
    if log is None:
        return window_of(state)
    store, thread = log
    return history_store.complete(store, thread, state)


def current_round(state: State, runtime: Runtime[Any]) -> list[HistoryEntry]:
    current = state.get("round", 0)
    return [entry for entry in complete(state, runtime) if entry.round == current]


def output(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
    """finalize's update: the complete history into the output state (a no-op without a store)."""
    if _log(runtime) is None:
        return {}
    return {"history": Overwrite([dump(e) for e in complete(state, runtime)])}


def bounded(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
    """A new round's update: the previous round's complete output shrinks back to the window."""
    if _log(runtime) is None:
        return {}
    return {"history": Overwrite(_windowed(list(state.get("history") or [])))}
