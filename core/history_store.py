"""Where a thread's complete history is kept in the LangGraph store, and how the whole record is read back.

The nodes write and read it through `nodes.history_log`; `paor history` reads it here directly, without importing
LangGraph's runtime (which pulls in LangChain's tracers and would double the command's start-up).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from core.schemas import HistoryEntry

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore

_PAGE = 200


def namespace(thread: str) -> tuple[str, ...]:
    return ("paor", "history", namespace_label(thread))


def namespace_label(thread: str) -> str:
    """A thread id as a store namespace label: any text (server ids are UUIDs, CLI ids are the user's), but a label
    may not contain '.', so it is percent-encoded."""
    return quote(thread, safe="").replace(".", "%2E")


def key(round_: int, step: int) -> str:
    return f"{round_:05d}-{step:05d}"


def complete(store: BaseStore, thread: str, state: Mapping[str, Any]) -> list[HistoryEntry]:
    """Every entry of the thread up to its saved position, oldest first: the store's record, and the entries of
    state's window for anything the record lacks."""
    entries: dict[tuple[int, int], HistoryEntry] = {}
    offset = 0
    while True:
        page = store.search(namespace(thread), limit=_PAGE, offset=offset)
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
