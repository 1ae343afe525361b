"""The content-addressed document store: bytes in, a reference out, the same bytes back by reference."""

from __future__ import annotations

import hashlib
import itertools
import os
import tempfile
from pathlib import Path

import pytest

from core.errors import DocumentRejected, UnknownDocumentReference
from core.schemas import DocumentRef
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
    assert "- docList:round1_task1_action1_process: result.md [text/markdown, 1 bytes]" in text.splitlines()


def test_text_written_by_a_tool_is_markdown_unless_it_says_otherwise(tmp_path: Path) -> None:
    store = DocumentStore(tmp_path)
    summary = store.put_text("# Summary", label="round1_task1_action1_process", name="summary")
    assert summary.mime == "text/markdown" and summary.is_text
    data = store.put_text("{}", label="round1_task1_action1_process", name="data", mime="application/json")
    assert data.mime == "application/json"


def _refs(label: str, count: int) -> list[DocumentRef]:
    return [
        DocumentRef(label=label, name=f"d{i}.md", mime="text/markdown", size=i, sha256=f"{i:064x}")
        for i in range(count)
    ]


def test_stage_1_sees_five_documents_of_a_list_and_the_count_of_the_rest() -> None:
    five = DocumentIndex(_refs("input", 5)).render().splitlines()
    assert five[0] == "- docList:input (5 documents)" and len(five) == 6
    assert five[1] == "  - docItem:input/d0.md [text/markdown, 0 bytes]"
    seven = DocumentIndex(_refs("input", 7)).render().splitlines()
    assert len(seven) == 7 and seven[-1] == "  - … 2 more"
    assert DocumentIndex([]).render() == "(no documents yet)"


def test_stage_1_sees_six_lists_the_inputs_first_and_counts_the_older_ones() -> None:
    labels = [f"round1_task1_action{i}_process" for i in range(1, 8)]
    six = DocumentIndex([ref for label in labels[:5] for ref in _refs(label, 1)] + _refs("input", 1)).render()
    assert six.splitlines()[0] == "- docList:input: d0.md [text/markdown, 0 bytes]" and "older lists" not in six
    eight = DocumentIndex([*_refs("input", 1), *(ref for label in labels for ref in _refs(label, 1))]).render()
    lists = [line for line in eight.splitlines() if line.startswith("- ")]
    assert lists[0] == "- docList:input: d0.md [text/markdown, 0 bytes]"
    assert lists[1].startswith("- docList:round1_task1_action7_process: ")  # newest results next
    assert lists[-1] == "- … 2 older lists (labels in HISTORY)" and len(lists) == 7


def test_a_missing_document_names_itself_and_the_store() -> None:
    store_root = Path("/nonexistent-store")
    lost = DocumentRef(label="input", name="a.txt", mime="text/plain", size=1, sha256="ab" * 32)
    with pytest.raises(DocumentRejected) as caught:
        DocumentStore(store_root).read_bytes(lost)
    assert str(caught.value) == f"document a.txt (abababababab) is missing from {store_root}"


def test_file_names_keep_their_letters_but_lose_a_leading_dot() -> None:
    assert safe_file_name(".env") == "env" and safe_file_name("Xmas.txt") == "Xmas.txt"
    assert safe_file_name("report.") == "report."


def test_a_known_extension_gives_the_type(tmp_path: Path) -> None:
    assert DocumentStore(tmp_path).put(b"x", label="input", name="notes.txt").mime == "text/plain"


def test_documents_sharing_a_folder_are_both_stored_through_a_temp_file_in_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes go through a temp file beside the target and one rename, so a reader never sees half a document —
    also when the system's temp folder is another file system (a rename cannot cross one)."""
    shared_memory = Path("/dev/shm")  # another file system than the test's folder wherever Linux mounts it
    elsewhere = (shared_memory if shared_memory.is_dir() else tmp_path.parent) / f"paor-test-{os.getpid()}"
    elsewhere.mkdir(exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    first = b"0"
    prefix = hashlib.sha256(first).hexdigest()[:4]
    second = next(
        data for data in (str(i).encode() for i in itertools.count(1)) if hashlib.sha256(data).hexdigest()[:4] == prefix
    )
    store = DocumentStore(tmp_path)
    refs = [store.put(data, label="input", name=f"{i}.bin") for i, data in enumerate((first, second))]
    assert [store.read_bytes(r) for r in refs] == [first, second]
    assert store.path_of(refs[0]).parent == store.path_of(refs[1]).parent
    assert sorted(p.name for p in store.path_of(refs[0]).parent.iterdir()) == sorted(r.sha256 for r in refs)
    assert not list(elsewhere.iterdir())
    elsewhere.rmdir()
