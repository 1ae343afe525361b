"""Which reader a document needs: by MIME type, then file extension, then magic bytes.

The declared MIME type wins because the store sets it deliberately; generic types (octet-stream, zip) carry no
information and fall through to the extension, and the content decides only when both are silent.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath
from typing import Literal

from core.errors import DocumentRejected

Kind = Literal["pdf", "docx", "xlsx", "pptx", "html", "csv", "json", "markdown", "text"]

SUPPORTED_TYPES = "PDF, DOCX, XLSX, PPTX, HTML, CSV, JSON, Markdown and plain text"

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

_BY_MIME: dict[str, Kind] = {
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    DOCX_MIME: "docx",
    XLSX_MIME: "xlsx",
    "application/vnd.ms-excel.sheet.macroenabled.12": "xlsx",
    PPTX_MIME: "pptx",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/csv": "csv",
    "application/csv": "csv",
    "text/comma-separated-values": "csv",
    "text/tab-separated-values": "csv",
    "application/json": "json",
    "text/json": "json",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
}
#: The MIME type a document of each kind is stored and served with.
MIME_OF_KIND: dict[Kind, str] = {
    "pdf": "application/pdf",
    "docx": DOCX_MIME,
    "xlsx": XLSX_MIME,
    "pptx": PPTX_MIME,
    "html": "text/html",
    "csv": "text/csv",
    "json": "application/json",
    "markdown": "text/markdown",
    "text": "text/plain",
}
_GENERIC_MIMES = {
    "",
    "application/octet-stream",
    "application/zip",
    "application/x-zip-compressed",
    "binary/octet-stream",
}

_BY_EXTENSION: dict[str, Kind] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".pptx": "pptx",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".csv": "csv",
    ".tsv": "csv",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".log": "text",
    ".xml": "text",
    ".yaml": "text",
    ".yml": "text",
}
_LEGACY_OFFICE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OOXML_MAIN_PARTS: tuple[tuple[str, Kind], ...] = (
    ("word/document.xml", "docx"),
    ("xl/workbook.xml", "xlsx"),
    ("ppt/presentation.xml", "pptx"),
)


def detect_kind(data: bytes, name: str, mime: str) -> Kind:
    """The document's kind, or DocumentRejected naming the supported types."""
    by_mime = _kind_from_mime(mime)
    if by_mime is not None:
        return by_mime
    by_extension = _BY_EXTENSION.get(PurePath(name).suffix.lower())
    if by_extension is not None:
        return by_extension
    by_content = _kind_from_content(data, name)
    if by_content is not None:
        return by_content
    described = f"type {mime}" if mime and mime not in _GENERIC_MIMES else "an unknown type"
    raise DocumentRejected(f"{name} is {described}, which cannot be read; supported types: {SUPPORTED_TYPES}")


def declared_kind(name: str, mime: str) -> Kind | None:
    """The kind the MIME type or the extension declares, without looking at the content (None if neither does)."""
    return _kind_from_mime(mime) or _BY_EXTENSION.get(PurePath(name).suffix.lower())


def sniff_kind(data: bytes, name: str) -> Kind:
    """The kind of bytes from an untrusted sender: the content decides, and the file name only tells apart the
    flavours of plain text (CSV, JSON, Markdown) that content alone cannot; DocumentRejected when unreadable."""
    by_content = _kind_from_content(data, name)
    if by_content is None:
        raise DocumentRejected(f"{name} is of an unknown type and cannot be read; supported types: {SUPPORTED_TYPES}")
    if by_content == "text":
        flavour = _BY_EXTENSION.get(PurePath(name).suffix.lower())
        if flavour in ("csv", "json", "markdown"):
            return flavour
    return by_content


def _kind_from_mime(mime: str) -> Kind | None:
    base = mime.split(";", 1)[0].strip().lower()
    if base in _GENERIC_MIMES:
        return None
    if base in _BY_MIME:
        return _BY_MIME[base]
    if base.endswith("+json"):
        return "json"
    if base.startswith("text/"):
        return "text"
    return None


def _kind_from_content(data: bytes, name: str) -> Kind | None:
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf"
    if head.startswith(_LEGACY_OFFICE_MAGIC):
        raise DocumentRejected(
            f"{name} is a legacy Office file (.doc/.xls/.ppt), which cannot be read; save it as "
            f".docx/.xlsx/.pptx (supported types: {SUPPORTED_TYPES})"
        )
    if head.startswith(b"PK\x03\x04"):
        return _ooxml_kind(data)
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    lowered = head.lstrip().lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered or b"<body" in lowered:
        return "html"
    return "text" if _looks_like_text(data) else None


def _ooxml_kind(data: bytes) -> Kind | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    return next((kind for part, kind in _OOXML_MAIN_PARTS if part in names), None)


def _looks_like_text(data: bytes) -> bool:
    sample = data[:4096]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the sample boundary is still text.
        if exc.start >= len(sample) - 3:
            return True
    else:
        return True
    # Legacy 8-bit encodings (cp1252, latin-1): text unless control bytes show it is binary.
    controls = sum(1 for byte in sample if byte < 32 and byte not in b"\t\n\r\f")
    return controls <= len(sample) // 100
