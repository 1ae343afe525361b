"""The thread's history: a bounded window in state, the complete record in the LangGraph store.

Every checkpoint holds the whole state, so an append-only history list would be rewritten into each of the six
checkpoints a step makes and a run's storage would grow with the square of its steps. Instead the node that makes an
entry puts it in the store under `("paor", "history", thread)`, keyed by round and step (a node re-run after a
crash writes the same key again), and state keeps the newest `WINDOW` entries: what Stage 1 shows in full and what
refine's no-progress rule reads. finalize puts the complete history into the output state once per round, so
callers, `paor history` and Studio still see every step. Without a store or a thread (no checkpointer) state is the
only home, so it keeps every entry as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.types import Overwrite

from graph.schemas import HistoryEntry, dump
from graph.state import State
from prompts.history import DETAILED_ENTRIES, MAX_ENTRIES

# What Stage 1 shows of an entry older than the newest DETAILED_ENTRIES (its one-line head); the window keeps only
# this of them, so a full window costs little in every checkpoint.
_HEAD = ("round", "task", "step", "action", "resultLabel", "success", "outcome", "qualityScore")

WINDOW = MAX_ENTRIES  # Stage 1 renders at most this many entries: it sees exactly what it saw before
_PAGE = 200


def _log(runtime: Runtime[Any]) -> tuple[BaseStore, tuple[str, ...]] | None:
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    if runtime.store is None or not thread:
        return None
    return runtime.store, ("paor", "history", namespace_label(str(thread)))


def namespace_label(thread: str) -> str:
    """A thread id as a store namespace label: any text (server ids are UUIDs, CLI ids are the user's), but a label
    may not contain '.', so it is percent-encoded."""
    return quote(thread, safe="").replace(".", "%2E")


def _key(round_: int, step: int) -> str:
    return f"{round_:05d}-{step:05d}"


def window_of(state: State) -> list[HistoryEntry]:
    """The entries state holds: the newest `WINDOW` (or all of them, without a store)."""
    return [HistoryEntry.model_validate(item) for item in state.get("history") or []]


def record(state: State, runtime: Runtime[Any], entry: HistoryEntry) -> dict[str, Any]:
    """The state update that records `entry`: stored under its round and step, and the window moved on."""
    item = dump(entry)
    log = _log(runtime)
    if log is None:
        return {"history": [item]}
    store, namespace = log
    store.put(namespace, _key(entry.round, entry.step), item, index=False)
    kept = [h for h in state.get("history") or [] if (h.get("round"), h.get("step")) != (entry.round, entry.step)]
    return {"history": Overwrite(_windowed([*kept, item]))}


def _windowed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest WINDOW entries: the newest DETAILED_ENTRIES in full, the older ones as their head."""
    window = items[-WINDOW:]
    older, newest = window[:-DETAILED_ENTRIES], window[-DETAILED_ENTRIES:]
    return [*map(_head, older), *newest]


def _head(item: dict[str, Any]) -> dict[str, Any]:
    """Only the head's keys (HistoryEntry's defaults fill the rest when it is read)."""
    return {k: item[k] for k in _HEAD if k in item}


def complete(state: State, runtime: Runtime[Any]) -> list[HistoryEntry]:
    """Every entry of the thread, oldest first: the store's record, and the window for anything it lacks."""
    log = _log(runtime)
    if log is None:
        return window_of(state)
    store, namespace = log
    return _complete(store, namespace, state)


def stored(store: BaseStore, thread: str, state: Mapping[str, Any]) -> list[HistoryEntry]:
    """`complete` for a reader outside the graph (`paor history`), given the thread's saved state."""
    return _complete(store, ("paor", "history", namespace_label(thread)), state)


def _complete(store: BaseStore, namespace: tuple[str, ...], state: Mapping[str, Any]) -> list[HistoryEntry]:
    entries: dict[tuple[int, int], HistoryEntry] = {}
    offset = 0
    while True:
        page = store.search(namespace, limit=_PAGE, offset=offset)
        entries.update({(e.round, e.step): e for e in (HistoryEntry.model_validate(i.value) for i in page)})
        if len(page) < _PAGE:
            break
        offset += _PAGE
    current = int(state.get("round") or 0)
    step = int(state.get("step") or 0)
    # A record ahead of this thread's position was left by an earlier thread of the same id whose checkpoints
    # are gone: it is not part of this thread's past.
    entries = {k: e for k, e in entries.items() if k[0] < current or (k[0] == current and k[1] <= step)}
    for item in state.get("history") or []:  # the window holds older entries as their head only: the store wins
        entry = HistoryEntry.model_validate(item)
        entries.setdefault((entry.round, entry.step), entry)
    return [entries[k] for k in sorted(entries)]


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
