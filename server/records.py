"""The server's own record of the documents each thread produced or received: what downloads are served from.

A thread's state is no evidence: a client writes it (`POST /threads/{id}/state`, a new thread's `supersteps`, a
run's `command.update`), and a `DocumentRef` names any stored document by its hash — another client's upload
included. So the server graph keeps a record beside the bytes, in the document store's folder, where no request
writes: `threads/<thread>/<label and name>.json`, the refs recorded under that label and name, newest last. A node's
update is recorded as the node returns it (the inputs `intent` admitted, the result `act` stored, the history
entries and deliverables that carry them on), and before every node the state it reads is vouched for: a document
this thread has no record of stops the run (`UnrecordedDocuments`) before any node can read it. The download routes
serve and list recorded documents only.

Without a thread (a graph invoked without a checkpointer) there is nothing to record, and nothing to download.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from langgraph.types import Overwrite

from graph.context import Context
from graph.errors import InputRefused
from graph.schemas import DocumentRef, dump

#: State keys that carry DocumentRefs: lists of them, a step's result, and history entries.
DOCUMENT_FIELDS = ("input_documents", "deliverables", "result", "history")
_FOLDER = "threads"


class UnrecordedDocuments(InputRefused):
    """The thread's state names documents this thread never produced or received (a state written by a client)."""


def touches_documents(update: Any) -> bool:
    """Whether a state update (a dict, or `[key, value]` pairs as a run's `command.update` may be) writes a field
    that carries documents."""
    if isinstance(update, Mapping):
        keys = set(update)
    elif isinstance(update, list | tuple):
        keys = {pair[0] for pair in update if isinstance(pair, list | tuple) and pair}
    else:
        return False
    return bool(keys & set(DOCUMENT_FIELDS))


def documents_in(values: Mapping[str, Any]) -> list[DocumentRef]:
    """Every document a state, or a node's update, names: inputs, deliverables, the step's result, history entries."""
    found: list[DocumentRef] = []
    for key in ("input_documents", "deliverables"):
        found.extend(_refs(_plain(values.get(key))))
    result = _plain(values.get("result"))
    if isinstance(result, Mapping):
        found.extend(_refs(result.get("documents")))
    for entry in _plain(values.get("history")) or []:
        if isinstance(entry, Mapping):
            found.extend(_refs(entry.get("documents")))
    return found


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Overwrite) else value


def _refs(items: Any) -> list[DocumentRef]:
    return [DocumentRef.model_validate(item) for item in items or []]


class ThreadRecords:
    """The documents of each thread, kept in the document store's folder (`store_root`)."""

    def __init__(self, store_root: Path) -> None:
        self.root = Path(store_root) / _FOLDER

    def record(self, thread_id: str, refs: Iterable[DocumentRef]) -> None:
        for ref in refs:
            known = self.recorded(thread_id, ref.label, ref.name)
            if ref not in known:
                _write(self._file(thread_id, ref.label, ref.name), [*known, ref])

    def recorded(self, thread_id: str, label: str, name: str) -> list[DocumentRef]:
        """What this thread produced or received under this label and name, oldest first."""
        path = self._file(thread_id, label, name)
        try:
            return [DocumentRef.model_validate(item) for item in json.loads(path.read_text(encoding="utf-8"))]
        except FileNotFoundError:
            return []

    def holds(self, thread_id: str, ref: DocumentRef) -> bool:
        return ref in self.recorded(thread_id, ref.label, ref.name)

    def find(self, thread_id: str, label: str, name: str) -> DocumentRef | None:
        """The newest document recorded under this label and name (a re-run step may have replaced it)."""
        known = self.recorded(thread_id, label, name)
        return known[-1] if known else None

    def _file(self, thread_id: str, label: str, name: str) -> Path:
        """Named by hashes: neither a thread id nor a document name ever becomes part of a path."""
        thread = hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:32]
        document = hashlib.sha256(f"{label}\x00{name}".encode()).hexdigest()[:32]
        return self.root / thread / f"{document}.json"


def _write(path: Path, refs: list[DocumentRef]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump([dump(ref) for ref in refs], handle)
    os.replace(tmp, path)


class RecordedDocuments:
    """The server graph's `Services.records`: vouch for a node's state, record its update (graph/instrument.py)."""

    def vouch(self, thread_id: str, state: Mapping[str, Any], context: Context) -> None:
        records = ThreadRecords(context.store_path)
        known: dict[tuple[str, str], list[DocumentRef]] = {}
        unknown = set()
        for ref in documents_in(state):
            key = (ref.label, ref.name)
            if key not in known:
                known[key] = records.recorded(thread_id, *key)
            if ref not in known[key]:
                unknown.add(f"{ref.label}/{ref.name}")
        if unknown:
            raise UnrecordedDocuments(
                f"thread {thread_id} names documents it never produced or received: {', '.join(sorted(unknown))}. "
                "A thread's documents come from its own runs (inputs by upload reference, URL or the operator's "
                "folder), never from a write to its state; start a new thread"
            )

    def record(self, thread_id: str, update: Mapping[str, Any], context: Context) -> None:
        ThreadRecords(context.store_path).record(thread_id, documents_in(update))
