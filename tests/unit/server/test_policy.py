"""The server's input policy: upload references, http(s) URLs and the operator's folder; anything else is refused
up front with the rule named, and nothing is read or stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.context import Context
from core.errors import InputRefused
from server.policy import ServerInputs
from server.settings import DOCUMENTS_DIR_ENV
from server.uploads import store_upload
from tools.documents import DocumentStore
from tools.ingest import FetchUrl, ReadFile, Stored, ingest_sources

SECRET = b"PRIVATE KEY material that must never reach a document store"


@pytest.fixture
def store(tmp_path: Path) -> DocumentStore:
    return DocumentStore(tmp_path / "store")


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """An operator folder with one file and a link out of it, and secrets around it."""
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("meeting notes", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(SECRET)
    (allowed / "link.txt").symlink_to(outside)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_bytes(SECRET + b" (home)")
    database = tmp_path / "paor-home" / "paor.sqlite"
    database.parent.mkdir()
    database.write_bytes(b"SQLite format 3\x00" + SECRET)
    return {"allowed": allowed, "outside": outside, "home": home, "database": database}


def _attempts(layout: dict[str, Path]) -> list[str]:
    return [
        "/etc/passwd",
        str(layout["home"] / ".ssh" / "id_rsa"),
        "~/.ssh/id_rsa",
        "../outside.txt",
        str(layout["allowed"] / ".." / "outside.txt"),
        str(layout["database"]),
        "link.txt",
        str(layout["allowed"] / "link.txt"),
        "file:///etc/passwd",
    ]


def test_paths_outside_the_operator_folder_are_refused_naming_the_rule(
    layout: dict[str, Path], store: DocumentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(layout["home"]))
    policy = ServerInputs(layout["allowed"])
    for source in _attempts(layout):
        with pytest.raises(InputRefused) as refused:
            policy.admit(source, store)
        message = str(refused.value)
        assert "\n" not in message and repr(source) in message
        assert "upload references" in message and DOCUMENTS_DIR_ENV in message


def test_without_an_operator_folder_no_path_is_accepted(layout: dict[str, Path], store: DocumentStore) -> None:
    with pytest.raises(InputRefused, match=f"{DOCUMENTS_DIR_ENV} is not set"):
        ServerInputs(None).admit(str(layout["allowed"] / "notes.txt"), store)


def test_uploads_urls_and_files_inside_the_folder_are_admitted(layout: dict[str, Path], store: DocumentStore) -> None:
    policy = ServerInputs(layout["allowed"])
    upload = store_upload(b"uploaded text", "up.txt", store)

    assert policy.admit(upload.reference, store) == Stored(upload.ref)
    assert policy.admit("https://example.org/a.pdf", store) == FetchUrl("https://example.org/a.pdf")
    assert policy.admit("HTTP://example.org/", store) == FetchUrl("HTTP://example.org/")
    admitted = policy.admit("notes.txt", store)
    assert isinstance(admitted, ReadFile) and admitted.path == (layout["allowed"] / "notes.txt").resolve()


@pytest.mark.parametrize(
    "reference", ["upload:", "upload:../../etc/passwd", "upload:" + "A" * 32, "upload:" + "A" * 31 + "/"]
)
def test_unknown_or_malformed_upload_references_are_refused(store: DocumentStore, reference: str) -> None:
    store_upload(b"someone's upload", "a.txt", store)
    with pytest.raises(InputRefused, match="no upload has this reference"):
        ServerInputs(None).admit(reference, store)


def test_one_refused_source_fails_the_ingest_before_anything_is_read_or_stored(
    layout: dict[str, Path], tmp_path: Path
) -> None:
    store = DocumentStore(tmp_path / "fresh-store")
    sources = [str(layout["allowed"] / "notes.txt"), str(layout["database"])]

    with pytest.raises(InputRefused, match=r"paor\.sqlite"):
        ingest_sources(sources, store, Context(store_dir=str(store.root)), ServerInputs(layout["allowed"]))

    assert not store.root.exists(), "the admitted file was not stored either"


def test_local_callers_keep_their_own_paths(layout: dict[str, Path], tmp_path: Path) -> None:
    store = DocumentStore(tmp_path / "store")
    [ref] = ingest_sources([str(layout["outside"])], store, Context(store_dir=str(store.root)))
    assert store.read_bytes(ref) == SECRET
