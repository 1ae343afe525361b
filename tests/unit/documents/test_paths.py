"""Paths named by the model stay inside the documents folder, whatever `..`, absolute paths or symlinks say."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import DocumentRejected
from tools.document.paths import resolve_in_documents_dir


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("inside")
    (folder / "sub" / "b.txt").write_text("nested")
    (tmp_path / "secret.txt").write_text("outside")
    return folder


def test_relative_nested_and_absolute_inside_are_allowed(docs: Path) -> None:
    assert resolve_in_documents_dir("a.txt", docs) == (docs / "a.txt").resolve()
    assert resolve_in_documents_dir("sub/../sub/b.txt", docs) == (docs / "sub" / "b.txt").resolve()
    assert resolve_in_documents_dir(str(docs / "a.txt"), docs) == (docs / "a.txt").resolve()


@pytest.mark.parametrize("path", ["../secret.txt", "sub/../../secret.txt", "../../../../etc/passwd"])
def test_dot_dot_escapes_are_rejected(docs: Path, path: str) -> None:
    with pytest.raises(DocumentRejected, match="outside the documents folder"):
        resolve_in_documents_dir(path, docs)


def test_absolute_path_outside_is_rejected(docs: Path) -> None:
    with pytest.raises(DocumentRejected, match="outside the documents folder"):
        resolve_in_documents_dir(str(docs.parent / "secret.txt"), docs)
    with pytest.raises(DocumentRejected, match="outside the documents folder"):
        resolve_in_documents_dir("/etc/passwd", docs)


def test_symlink_escaping_the_folder_is_rejected(docs: Path) -> None:
    (docs / "link.txt").symlink_to(docs.parent / "secret.txt")
    (docs / "linkdir").symlink_to(docs.parent, target_is_directory=True)
    with pytest.raises(DocumentRejected, match="links to a file outside"):
        resolve_in_documents_dir("link.txt", docs)
    with pytest.raises(DocumentRejected, match="links to a file outside"):
        resolve_in_documents_dir("linkdir/secret.txt", docs)


def test_symlink_staying_inside_is_allowed(docs: Path) -> None:
    (docs / "alias.txt").symlink_to(docs / "sub" / "b.txt")
    assert resolve_in_documents_dir("alias.txt", docs) == (docs / "sub" / "b.txt").resolve()


def test_missing_file_directory_and_bad_input(docs: Path) -> None:
    with pytest.raises(DocumentRejected, match="does not exist in the documents folder"):
        resolve_in_documents_dir("nope.pdf", docs)
    with pytest.raises(DocumentRejected, match="is not a file"):
        resolve_in_documents_dir("sub", docs)
    with pytest.raises(DocumentRejected, match="invalid document path"):
        resolve_in_documents_dir("  ", docs)
    with pytest.raises(DocumentRejected, match="invalid document path"):
        resolve_in_documents_dir("a.txt\x00.pdf", docs)


def test_symlink_loop_is_rejected(docs: Path) -> None:
    (docs / "loop").symlink_to(docs / "loop")
    with pytest.raises(DocumentRejected):
        resolve_in_documents_dir("loop", docs)


def test_missing_documents_folder(tmp_path: Path) -> None:
    with pytest.raises(DocumentRejected, match=r"documents folder .* does not exist"):
        resolve_in_documents_dir("a.txt", tmp_path / "absent")
