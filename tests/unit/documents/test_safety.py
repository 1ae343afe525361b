"""Unreadable or hostile input ends in DocumentRejected with a clear reason — never a raw library exception."""

from __future__ import annotations

import io
import zipfile

import pytest

from core.errors import DocumentRejected
from tests.unit.documents import builders
from tools.document import limits
from tools.document.detect import DOCX_MIME, PPTX_MIME, XLSX_MIME
from tools.document.readers import extract_text


def test_encrypted_pdf_is_rejected() -> None:
    with pytest.raises(DocumentRejected, match=r"encrypted PDF locked\.pdf needs a password"):
        extract_text(builders.encrypted_pdf("secret"), "locked.pdf", "application/pdf")


def test_pdf_encrypted_without_user_password_is_read() -> None:
    result = extract_text(builders.encrypted_pdf(""), "restricted.pdf", "application/pdf")
    assert "Secret page text" in result.text


@pytest.mark.parametrize(
    ("name", "mime", "reason"),
    [
        ("bad.pdf", "application/pdf", "not a readable PDF"),
        ("bad.docx", DOCX_MIME, "not a valid Office file"),
        ("bad.xlsx", XLSX_MIME, "not a valid Office file"),
        ("bad.pptx", PPTX_MIME, "not a valid Office file"),
    ],
)
def test_corrupt_files_are_rejected_with_the_reason(name: str, mime: str, reason: str) -> None:
    with pytest.raises(DocumentRejected, match=reason):
        extract_text(b"this is not what it claims to be \x00\x01\x02", name, mime)


def test_truncated_pdf_is_rejected() -> None:
    data = builders.pdf_bytes("Truncated")
    with pytest.raises(DocumentRejected, match=r"cut\.pdf is not a readable PDF"):
        extract_text(data[: len(data) // 3], "cut.pdf", "application/pdf")


def test_zip_that_is_not_a_docx_is_rejected() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(DocumentRejected, match=r"not a readable DOCX file"):
        extract_text(buffer.getvalue(), "fake.docx", DOCX_MIME)


def test_empty_file_is_rejected() -> None:
    with pytest.raises(DocumentRejected, match=r"^empty\.pdf is empty$"):
        extract_text(b"", "empty.pdf", "application/pdf")


def test_unsupported_type_names_the_supported_ones() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
    with pytest.raises(DocumentRejected, match=r"photo\.png is type image/png.*supported types: PDF, DOCX"):
        extract_text(png, "photo.png", "image/png")


def test_legacy_office_file_is_rejected_with_advice() -> None:
    with pytest.raises(DocumentRejected, match=r"legacy Office file.*\.docx"):
        extract_text(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "old.doc", "application/msword")


def test_oversized_input_is_rejected_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 100)
    with pytest.raises(DocumentRejected, match=r"big\.txt is 101 bytes, over the 100 byte limit"):
        extract_text(b"x" * 101, "big.txt", "text/plain")


def test_zip_bomb_is_rejected_by_compression_ratio() -> None:
    bomb = builders.zip_bomb_docx(20)
    assert len(bomb) < 100_000
    with pytest.raises(DocumentRejected, match=r"word/document\.xml is compressed \d+:1.*zip bomb"):
        extract_text(bomb, "bomb.docx", DOCX_MIME)


def test_zip_bomb_is_rejected_by_total_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_UNCOMPRESSED_BYTES", 1000)
    with pytest.raises(DocumentRejected, match=r"would unpack to \d+ bytes, over the 1000 byte limit"):
        extract_text(builders.xlsx_bytes(), "book.xlsx", XLSX_MIME)


def test_zip_with_too_many_members_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_ZIP_MEMBERS", 3)
    with pytest.raises(DocumentRejected, match=r"zip members, over the limit of 3"):
        extract_text(builders.pptx_bytes(), "deck.pptx", PPTX_MIME)
