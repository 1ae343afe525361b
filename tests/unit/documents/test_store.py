"""The content-addressed document store: bytes in, a reference out, the same bytes back by reference."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from graph.errors import UnknownDocumentReference
from graph.schemas import DocumentRef
from tools.documents import DocumentIndex, DocumentStore, safe_file_name


def test_a_stored_document_lies_under_its_digest_and_reads_back_byte_identical(tmp_path: Path) -> None:
    store = DocumentStore(tmp_path)
    ref = store.put(b"first 1000 primes", label="input", name="primes.txt", mime="text/plain")
    digest = hashlib.sha256(b"first 1000 primes").hexdigest()
    assert ref.sha256 == digest and ref.size == 17
    assert store.path_of(ref) == tmp_path / digest[:2] / digest[2:4] / digest
    assert store.path_of(ref).read_bytes() == store.read_bytes(ref) == b"first 1000 primes"


def test_text_with_invalid_utf8_reads_with_replacement_characters(tmp_path: Path) -> None:
    store = DocumentStore(tmp_path)
    ref = store.put(b"caf\xe9 au lait", label="input", name="menu.txt", mime="text/plain")
    assert store.read_text(ref) == "caf\ufffd au lait"


def test_an_unknown_reference_names_every_known_one(tmp_path: Path) -> None:
    store = DocumentStore(tmp_path)
    refs = [
        store.put(b"a", label="input", name="a.txt", mime="text/plain"),
        store.put(b"b", label="round1_task1_action1_process", name="result.md", mime="text/markdown"),
    ]
    with pytest.raises(UnknownDocumentReference) as caught:
        DocumentIndex(refs).resolve("docList:round9")
    assert str(caught.value) == (
        "no document matches 'docList:round9'; known references: docList:input, docList:round1_task1_action1_process"
    )
    for missing in ("docItem:round9/result.md", "docItem:input/b.txt"):  # unknown list, unknown name in a list
        with pytest.raises(UnknownDocumentReference, match=f"no document matches '{missing}'"):
            DocumentIndex(refs).resolve(missing)
    assert DocumentIndex([]).references() == []
    with pytest.raises(UnknownDocumentReference, match="known references: none"):
        DocumentIndex([]).resolve("docList:input")


def test_names_lose_their_path_parts_and_unknown_types_are_octet_streams(tmp_path: Path) -> None:
    store = DocumentStore(tmp_path)
    ref = store.put(b"\x00\x01", label="input", name="../../etc/blob.bin.zzz", mime=None)
    assert ref.name == "blob.bin.zzz" and ref.mime == "application/octet-stream"
    assert safe_file_name("a\\b/c.txt") == "c.txt"


def test_the_index_counts_each_lists_documents() -> None:
    refs = [
        DocumentRef(label="input", name=name, mime="text/plain", size=1, sha256=str(i) * 64)
        for i, name in enumerate(["a.txt", "b.txt"])
    ]
    one = DocumentRef(
        label="round1_task1_action1_process", name="result.md", mime="text/markdown", size=1, sha256="f" * 64
    )
    text = DocumentIndex([*refs, one]).render()
    assert "- docList:input (2 documents)" in text.splitlines()
    assert "- docList:round1_task1_action1_process (1 document)" in text.splitlines()


def test_text_written_by_a_tool_is_markdown_unless_it_says_otherwise(tmp_path: Path) -> None:
    store = DocumentStore(tmp_path)
    summary = store.put_text("# Summary", label="round1_task1_action1_process", name="summary")
    assert summary.mime == "text/markdown" and summary.is_text
    data = store.put_text("{}", label="round1_task1_action1_process", name="data", mime="application/json")
    assert data.mime == "application/json"
