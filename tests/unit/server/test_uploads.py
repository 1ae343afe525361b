"""Uploads: sanitised names, types sniffed from the content, unguessable references."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.errors import DocumentRejected
from server.uploads import UPLOAD_PREFIX, find_upload, store_upload
from tests.unit.documents.builders import docx_bytes, pdf_bytes
from tools.document.detect import DOCX_MIME
from tools.documents import DocumentStore


@pytest.fixture
def store(tmp_path: Path) -> DocumentStore:
    return DocumentStore(tmp_path / "store")


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("../../etc/cron.d/evil.txt", "evil.txt"),
        ("..\\..\\windows\\boot.ini", "boot.ini"),
        ("/absolute/notes.md", "notes.md"),
        ("..", "document"),
        ("a\x00b\nc.txt", "a_b_c.txt"),
    ],
)
def test_names_lose_their_path_parts(store: DocumentStore, tmp_path: Path, given: str, kept: str) -> None:
    upload = store_upload(b"plain words", given, store)
    assert upload.ref.name == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"], "nothing was written beside the store"


def test_the_content_decides_the_type_not_the_name(store: DocumentStore) -> None:
    assert store_upload(pdf_bytes("sniffed"), "scan.txt", store).ref.mime == "application/pdf"
    assert store_upload(docx_bytes(), "report.bin", store).ref.mime == DOCX_MIME
    assert store_upload(b"<script>alert(1)</script>", "page.pdf", store).ref.mime == "text/plain"
    assert store_upload(b"a,b\n1,2\n", "table.csv", store).ref.mime == "text/csv"


def test_unreadable_types_and_empty_bodies_are_rejected(store: DocumentStore) -> None:
    with pytest.raises(DocumentRejected, match="unknown type"):
        store_upload(bytes(range(256)) * 8, "blob.pdf", store)
    with pytest.raises(DocumentRejected, match="empty"):
        store_upload(b"", "empty.txt", store)


def test_the_reference_is_random_and_finds_the_stored_document(store: DocumentStore) -> None:
    data = b"same bytes"
    first, second = store_upload(data, "a.txt", store), store_upload(data, "a.txt", store)

    assert first.reference != second.reference and first.reference.startswith(UPLOAD_PREFIX)
    assert hashlib.sha256(data).hexdigest() not in first.reference
    assert find_upload(first.reference, store) == first.ref
    assert store.read_bytes(find_upload(second.reference, store)) == data
    assert first.as_json() == {
        "reference": first.reference,
        "name": "a.txt",
        "mime": "text/plain",
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
