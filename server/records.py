"""The server's own record of the documents each thread produced or received: what downloads are served from.

A thread's state is no evidence: a client writes it (`POST /threads/{id}/state`, a new thread's `supersteps`, a
run's `command.update`), and a `DocumentRef` names any stored document by its hash — another client's upload
included. So the server graph keeps a record beside the bytes, in the server's document store (server/settings.py
`server_store`), where no request writes: `owners/<owner>/threads/<thread>/<label and name>.json`, the refs
recorded under that label and name, newest last. A node's update is recorded as the node returns it (the inputs
`intent` admitted, the result `act` stored, the history entries and deliverables that carry them on), and before
every node the state it reads is vouched for: a document this thread has no record of stops the run
(`UnrecordedDocuments`) before any node can read it. The download routes serve and list recorded documents only.

Records are keyed by owner and thread: a thread id another client (or the same one) creates again after a deletion
starts with no documents. Each thread's records carry a random generation that signed links are bound to
(server/urls.py), so deleting the records revokes every link to them. Deleting a thread forgets its records
(`forget`), and each stored file goes with the last record or upload that named it: every record and upload leaves
a marker under `refs/<hash>/`, and a file without markers is deleted. Writes are serialised by one lock file, so
concurrent recorders (parallel uploads, parallel nodes, another worker process) lose nothing.

Without a thread (a graph invoked without a checkpointer) there is nothing to record, and nothing to download.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from langgraph.config import get_config
from langgraph.types import Overwrite

from core.context import Context
from core.errors import DocumentRejected, InputRefused
from core.schemas import DocumentRef, dump
from core.state import InputState
from server.keys import ANONYMOUS
from server.settings import api_keys

_OWNERS = "owners"
_REFS = "refs"
_LOCK = ".lock"
_THREAD = "thread.json"


class UnrecordedDocuments(InputRefused):
    """The thread's state names documents this thread never produced or received (a state written by a client)."""


def writes_working_state(command: Mapping[str, Any]) -> bool:
    """Whether a run's `command` writes more than a caller's input (InputState: the request, messages, documents,
    language). The rest is the graph's own: the fields that carry documents, and what steers the loop — a selection
    (or one chosen ahead) names the action that runs, and only select checks it against the operator's allowed
    actions. So a `goto` is refused too: a Send runs a node on a state the client wrote (act would run its action
    past select and approval), and an update in any shape but a mapping or `[key, value]` pairs is LangGraph's write
    of the whole state."""
    update = command.get("update")
    if command.get("goto") is not None:
        return True
    if update is None:
        return False
    if isinstance(update, Mapping):
        keys = set(update)
    elif isinstance(update, list | tuple) and all(
        isinstance(pair, list | tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in update
    ):
        keys = {pair[0] for pair in update}
    else:
        return True
    return bool(keys - set(InputState.__annotations__))


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


def run_owner() -> str:
    """The client a server run belongs to: the identity LangGraph's auth gave the request that started it (the
    server writes it into the run's configuration after the client's own, so no client can name another), or
    ANONYMOUS while no key is set and outside a server run."""
    if not api_keys():
        return ANONYMOUS
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # outside a run
        return ANONYMOUS
    # The user object both servers write after the client's configuration: langgraph-api also writes
    # `langgraph_auth_user_id`, but Aegra leaves that key (and `user_id`) as the client sent it.
    user = configurable.get("langgraph_auth_user")
    owner = user.get("identity") if isinstance(user, dict) else getattr(user, "identity", None)
    if user is None:
        owner = configurable.get("langgraph_auth_user_id")
    return owner if isinstance(owner, str) and owner else ANONYMOUS


def hashed(text: str) -> str:
    """A folder or file name for an owner, a thread or a document: neither ever becomes part of a path itself."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@contextlib.contextmanager
def locked(root: Path) -> Iterator[None]:
    """One writer at a time in this store, across threads and processes (an advisory lock on `root/.lock`)."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / _LOCK, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class ThreadRecords:
    """The documents of each owner's threads, kept in the server's document store (`store_root`)."""

    def __init__(self, store_root: Path) -> None:
        self.store_root = Path(store_root)

    def record(self, owner: str, thread_id: str, refs: Iterable[DocumentRef]) -> None:
        refs = list(refs)
        if not refs:
            return
        with locked(self.store_root):
            self._ensure_thread(owner, thread_id)
            marker = _thread_marker(owner, thread_id)
            for ref in refs:
                known = self.recorded(owner, thread_id, ref.label, ref.name)
                if ref in known:
                    continue
                if not self.bytes_path(ref.sha256).is_file():  # deleted with another thread while the node ran
                    raise DocumentRejected(
                        f"{ref.name} was removed from the document store while this step ran (another thread holding "
                        "the same content was deleted); run the step again"
                    )
                add_reference(self.store_root, ref.sha256, marker)
                write_json(self._file(owner, thread_id, ref.label, ref.name), [dump(r) for r in [*known, ref]])

    def recorded(self, owner: str, thread_id: str, label: str, name: str) -> list[DocumentRef]:
        """What this owner's thread produced or received under this label and name, oldest first."""
        return _read_refs(self._file(owner, thread_id, label, name))

    def holds(self, owner: str, thread_id: str, ref: DocumentRef) -> bool:
        return ref in self.recorded(owner, thread_id, ref.label, ref.name)

    def find(self, owner: str, thread_id: str, label: str, name: str) -> DocumentRef | None:
        """The newest document recorded under this label and name (a re-run step may have replaced it)."""
        known = self.recorded(owner, thread_id, label, name)
        return known[-1] if known else None

    def generation(self, owner: str, thread_id: str, *, create: bool = False) -> str | None:
        """The random id of this owner's records of the thread; a new one after they were forgotten."""
        found = _read_thread(self._thread_dir(owner, thread_id))
        if found is None and create:
            with locked(self.store_root):
                return self._ensure_thread(owner, thread_id)
        return found["generation"] if found else None

    def threads(self, owner: str) -> list[str]:
        """The ids of the threads this owner has records of."""
        base = self.store_root / _OWNERS / hashed(owner) / "threads"
        found = [_read_thread(folder) for folder in sorted(base.iterdir())] if base.is_dir() else []
        return [item["thread_id"] for item in found if item]

    def owners(self) -> list[str]:
        """Every owner with records of a thread."""
        base = self.store_root / _OWNERS
        found: set[str] = set()
        for folder in sorted(base.glob("*/threads/*")) if base.is_dir() else []:
            if (item := _read_thread(folder)) and item.get("owner"):
                found.add(str(item["owner"]))
        return sorted(found)

    def documents(self, owner: str, thread_id: str) -> list[DocumentRef]:
        """Every document recorded for this owner's thread."""
        folder = self._thread_dir(owner, thread_id)
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        return [ref for path in files if path.name != _THREAD for ref in _read_refs(path)]

    def forget(self, owner: str, thread_id: str) -> int:
        """Delete this owner's records of the thread, and every stored file no other record or upload names;
        the number of files deleted. Links to its documents stop opening (their generation is gone)."""
        folder = self._thread_dir(owner, thread_id)
        if not folder.is_dir():
            return 0
        with locked(self.store_root):
            digests = {ref.sha256 for ref in self.documents(owner, thread_id)}
            shutil.rmtree(folder, ignore_errors=True)
            marker = _thread_marker(owner, thread_id)
            return sum(drop_reference(self.store_root, digest, marker) for digest in sorted(digests))

    def bytes_path(self, digest: str) -> Path:
        """Where the content-addressed store (tools/documents.py) keeps a document's bytes."""
        return self.store_root / digest[:2] / digest[2:4] / digest

    def _ensure_thread(self, owner: str, thread_id: str) -> str:
        """The generation of the thread's records, created with them (call it holding the lock)."""
        folder = self._thread_dir(owner, thread_id)
        found = _read_thread(folder)
        if found:
            return str(found["generation"])
        generation = secrets.token_hex(16)
        write_json(folder / _THREAD, {"thread_id": thread_id, "owner": owner, "generation": generation})
        return generation

    def _thread_dir(self, owner: str, thread_id: str) -> Path:
        return self.store_root / _OWNERS / hashed(owner) / "threads" / hashed(thread_id)

    def _file(self, owner: str, thread_id: str, label: str, name: str) -> Path:
        return self._thread_dir(owner, thread_id) / (hashed(label + "\x00" + name) + ".json")


def _thread_marker(owner: str, thread_id: str) -> str:
    return f"t-{hashed(owner)}-{hashed(thread_id)}"


def add_reference(store_root: Path, digest: str, marker: str) -> None:
    """Note that `marker` (a thread's records, an upload) names the stored file `digest` (hold the lock)."""
    folder = store_root / _REFS / digest[:2] / digest
    folder.mkdir(parents=True, exist_ok=True)
    (folder / marker).touch()


def drop_reference(store_root: Path, digest: str, marker: str) -> int:
    """Drop one marker; delete the stored file when none is left (hold the lock). 1 if the file was deleted."""
    folder = store_root / _REFS / digest[:2] / digest
    with contextlib.suppress(FileNotFoundError):
        (folder / marker).unlink()
    if folder.is_dir() and any(folder.iterdir()):
        return 0
    with contextlib.suppress(OSError):
        folder.rmdir()
    path = store_root / digest[:2] / digest[2:4] / digest
    try:
        path.unlink()
    except FileNotFoundError:
        return 0
    return 1


def _read_refs(path: Path) -> list[DocumentRef]:
    try:
        return [DocumentRef.model_validate(item) for item in json.loads(path.read_text(encoding="utf-8"))]
    except FileNotFoundError:
        return []


def _read_thread(folder: Path) -> dict[str, Any] | None:
    try:
        found = json.loads((folder / _THREAD).read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    return found if isinstance(found, dict) and found.get("generation") else None


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(value, handle)
    os.replace(tmp, path)


class RecordedDocuments:
    """The server graph's `Services.records`: vouch for a node's state, record its update (graph/instrument.py)."""

    def vouch(self, thread_id: str, state: Mapping[str, Any], context: Context) -> None:
        records, owner = ThreadRecords(context.store_path), run_owner()
        known: dict[tuple[str, str], list[DocumentRef]] = {}
        unknown = set()
        for ref in documents_in(state):
            key = (ref.label, ref.name)
            if key not in known:
                known[key] = records.recorded(owner, thread_id, *key)
            if ref not in known[key]:
                unknown.add(f"{ref.label}/{ref.name}")
        if unknown:
            raise UnrecordedDocuments(
                f"thread {thread_id} names documents it never produced or received: {', '.join(sorted(unknown))}. "
                "A thread's documents come from its own runs (inputs by upload reference, URL or the operator's "
                "folder), never from a write to its state; start a new thread"
            )

    def record(self, thread_id: str, update: Mapping[str, Any], context: Context) -> None:
        ThreadRecords(context.store_path).record(run_owner(), thread_id, documents_in(update))
