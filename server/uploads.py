"""Documents a server client uploads: stored in the document store, handed back as an unguessable reference.

The bytes go into the content-addressed `DocumentStore` like every other document; beside them a small record
maps a random token to the stored `DocumentRef`. The reference `upload:<token>` is a capability: whoever holds it
may name the document as a run input, and nobody can derive it from the content or guess it (192 random bits).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from dataclasses import dataclass

from graph.errors import InputRefused
from graph.schemas import DocumentRef, dump
from tools.documents import DocumentStore
from tools.ingest import store_checked

UPLOAD_PREFIX = "upload:"
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
_RECORDS = "uploads"


@dataclass(frozen=True)
class Upload:
    reference: str
    ref: DocumentRef

    def as_json(self) -> dict[str, object]:
        """The upload route's answer: the reference to pass as a run input, and what was stored."""
        return {"reference": self.reference, **{k: v for k, v in dump(self.ref).items() if k != "label"}}


def store_upload(data: bytes, name: str, store: DocumentStore) -> Upload:
    """Store `data` under a sanitised name with its sniffed type; DocumentRejected for an empty or unreadable one."""
    ref = store_checked(data, name, store)
    token = secrets.token_urlsafe(24)
    records = store.root / _RECORDS
    records.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=records, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(dump(ref), handle)
    os.replace(tmp, records / f"{token}.json")
    return Upload(reference=UPLOAD_PREFIX + token, ref=ref)


def find_upload(reference: str, store: DocumentStore) -> DocumentRef:
    """The document an `upload:` reference names; DocumentRejected when no upload has it."""
    token = reference.removeprefix(UPLOAD_PREFIX)
    record = store.root / _RECORDS / f"{token}.json"
    if not _TOKEN.match(token) or not record.is_file():
        raise InputRefused(
            f"input document {reference!r} refused: no upload has this reference (upload the file with "
            "POST /paor/documents and pass the reference it returns)"
        )
    return DocumentRef.model_validate_json(record.read_text(encoding="utf-8"))
