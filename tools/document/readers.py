"""`extract_text`: any supported document's bytes → markdown, refusing unsafe or unreadable input cleanly.

Every failure is a `DocumentRejected` with a message naming the document and the reason; callers never see a
raw pypdf/python-docx/openpyxl exception. Readers are imported lazily so registering the tools stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from core.errors import DocumentRejected
from tools.document import limits
from tools.document.detect import Kind, detect_kind
from tools.document.extracted import ExtractedText
from tools.document.md_build import truncate_markdown
from tools.document.safety import check_input_size, check_zip_container

__all__ = ["ExtractedText", "extract_text"]

_READERS: dict[Kind, tuple[str, str]] = {
    "pdf": ("tools.document.read_pdf", "read_pdf"),
    "docx": ("tools.document.read_docx", "read_docx"),
    "xlsx": ("tools.document.read_xlsx", "read_xlsx"),
    "pptx": ("tools.document.read_pptx", "read_pptx"),
    "html": ("tools.document.read_plain", "read_html"),
    "csv": ("tools.document.read_plain", "read_csv"),
    "json": ("tools.document.read_plain", "read_json"),
    "markdown": ("tools.document.read_plain", "read_markdown"),
    "text": ("tools.document.read_plain", "read_text"),
}
_ZIP_KINDS: frozenset[Kind] = frozenset({"docx", "xlsx", "pptx"})


def extract_text(data: bytes, name: str, mime: str = "") -> ExtractedText:
    """The document as markdown; DocumentRejected if empty, too big, unsafe, unsupported or corrupt."""
    check_input_size(data, name)
    kind = detect_kind(data, name, mime)
    if kind in _ZIP_KINDS:
        check_zip_container(data, name)
    extracted = _reader(kind)(data, name)
    if not extracted.text.strip():
        reasons = "; ".join(extracted.notes)
        raise DocumentRejected(f"{name} contains no extractable text" + (f" ({reasons})" if reasons else ""))
    if len(extracted.text) > limits.MAX_TEXT_CHARS:
        extracted.text = truncate_markdown(extracted.text, limits.MAX_TEXT_CHARS)
        extracted.notes.append(f"{name}: text cut to the first {limits.MAX_TEXT_CHARS} characters")
    return extracted


def reader_module(kind: Kind) -> str:
    """The module reading `kind`, for a process that loads it ahead of the documents (`parse_server`)."""
    return _READERS[kind][0] if kind in _READERS else "tools.document.readers"


def _reader(kind: Kind) -> Callable[[bytes, str], ExtractedText]:
    module, function = _READERS[kind]
    reader: Callable[[bytes, str], ExtractedText] = getattr(importlib.import_module(module), function)
    return reader
