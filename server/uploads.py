"""Documents a server client uploads: stored in the document store, handed back as an unguessable reference.

The bytes go into the content-addressed `DocumentStore` like every other document; beside them a small record
maps a random token to the stored `DocumentRef` and the client that uploaded it. The reference `upload:<token>` is a
capability: whoever holds it may name the document as a run input, and nobody can derive it from the content or
guess it (192 random bits). An upload belongs to its client: it counts against that client's document quota, is
listed with its other uploads and can be deleted by it (`DELETE /paor/documents/upload:<token>`), which deletes the
file once no thread record or other upload names it (server/records.py).
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputRefused
from core.schemas import DocumentRef, dump
from server.keys import ANONYMOUS
from server.records import add_reference, drop_reference, hashed, locked, write_json
from tools.documents import DocumentStore
from tools.ingest import UPLOAD_PREFIX, store_checked

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
_RECORDS = "uploads"
_OWNERS = "owners"


@dataclass(frozen=True)
class Upload:
    reference: str
    ref: DocumentRef

    def as_json(self) -> dict[str, object]:
        """The upload route's answer: the reference to pass as a run input, and what was stored."""
        return {"reference": self.reference, **{k: v for k, v in dump(self.ref).items() if k != "label"}}


def store_upload(
    data: bytes, name: str, store: DocumentStore, owner: str = ANONYMOUS, thread: str | None = None
) -> Upload:
    """Store `data` under a sanitised name with its sniffed type for `owner`; DocumentRejected for an empty or
    unreadable one. An upload made of a chat attachment belongs to its `thread` too: it goes with the thread."""
    ref = store_checked(data, name, store)
    token = secrets.token_urlsafe(24)
    record = {"owner": owner, "ref": dump(ref), **({"thread": thread} if thread else {})}
    with locked(store.root):
        if not store.path_of(ref).is_file():  # another client's deletion took the same content meanwhile
            store.put(data, label=ref.label, name=ref.name, mime=ref.mime)
        add_reference(store.root, ref.sha256, _marker(token))
        write_json(store.root / _RECORDS / f"{token}.json", record)
        mine = _owner_dir(store.root, owner)
        mine.mkdir(parents=True, exist_ok=True)
        (mine / token).touch()
    return Upload(reference=UPLOAD_PREFIX + token, ref=ref)


def find_upload(reference: str, store: DocumentStore) -> DocumentRef:
    """The document an `upload:` reference names; InputRefused when no upload has it."""
    found = _read(reference, store.root)
    if found is None:
        raise InputRefused(
            f"input document {reference!r} refused: no upload has this reference (upload the file with "
            "POST /paor/documents and pass the reference it returns)"
        )
    return found[1]


def owner_uploads(store_root: Path, owner: str) -> list[tuple[str, DocumentRef]]:
    """(reference, document) of every upload of this client, oldest first."""
    folder = _owner_dir(store_root, owner)
    tokens = sorted(folder.iterdir(), key=lambda path: path.stat().st_mtime_ns) if folder.is_dir() else []
    found = [(UPLOAD_PREFIX + path.name, _read(UPLOAD_PREFIX + path.name, store_root)) for path in tokens]
    return [(reference, item[1]) for reference, item in found if item is not None and item[0] == owner]


def delete_thread_uploads(store_root: Path, owner: str, thread: str) -> None:
    """Delete the uploads made of the chat attachments of this client's `thread` (server/attachments.py)."""
    folder = _owner_dir(store_root, owner)
    for path in list(folder.iterdir()) if folder.is_dir() else []:
        with contextlib.suppress(FileNotFoundError, ValueError):
            record = json.loads((store_root / _RECORDS / f"{path.name}.json").read_text(encoding="utf-8"))
            if record.get("thread") == thread:
                delete_upload(UPLOAD_PREFIX + path.name, store_root, owner)


def delete_upload(reference: str, store_root: Path, owner: str) -> bool:
    """Delete this client's upload (the file too, when nothing else names it); False if it has no such upload."""
    with locked(store_root):
        found = _read(reference, store_root)
        if found is None or found[0] != owner:
            return False
        token = reference.removeprefix(UPLOAD_PREFIX)
        (store_root / _RECORDS / f"{token}.json").unlink()
        with contextlib.suppress(FileNotFoundError):
            (_owner_dir(store_root, owner) / token).unlink()
        drop_reference(store_root, found[1].sha256, _marker(token))
    return True


def _read(reference: str, store_root: Path) -> tuple[str, DocumentRef] | None:
    """(owner, document) of an upload reference; None if there is none."""
    token = reference.removeprefix(UPLOAD_PREFIX)
    if not reference.startswith(UPLOAD_PREFIX) or not _TOKEN.match(token):
        return None
    try:
        record = json.loads((store_root / _RECORDS / f"{token}.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return str(record.get("owner") or ANONYMOUS), DocumentRef.model_validate(record["ref"])


def _marker(token: str) -> str:
    return f"u-{token}"


def _owner_dir(store_root: Path, owner: str) -> Path:
    return store_root / _OWNERS / hashed(owner) / _RECORDS
