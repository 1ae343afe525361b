"""PDF → markdown with pypdf, one `## Page N` section per page so answers can cite pages."""

from __future__ import annotations

import io

from pypdf import PdfReader

from graph.errors import DocumentRejected
from tools.document import limits
from tools.document.extracted import ExtractedText


def read_pdf(data: bytes, name: str) -> ExtractedText:
    try:
        reader = PdfReader(io.BytesIO(data))
        _unlock(reader, name)
        pages = list(reader.pages)
    except DocumentRejected:
        raise
    except Exception as exc:  # pypdf raises many types on broken files; all mean "unreadable"
        raise DocumentRejected(f"{name} is not a readable PDF: {_reason(exc)}") from exc
    sections: list[str] = []
    notes: list[str] = []
    total = 0
    for number, page in enumerate(pages, start=1):
        if total > limits.MAX_TEXT_CHARS:
            notes.append(f"{name}: stopped after page {number - 1} of {len(pages)} (text limit reached)")
            break
        try:
            text = (page.extract_text() or "").strip()
        except Exception as exc:  # one bad page must not lose the others
            notes.append(f"{name}: page {number} could not be read ({_reason(exc)})")
            continue
        if text:
            sections.append(f"## Page {number}\n\n{text}")
            total += len(sections[-1])
    if pages and not sections:
        notes.append(f"{name}: no text layer on any page (scanned images? OCR is not supported)")
    return ExtractedText(text="\n\n".join(sections), kind="pdf", title=_title(reader), pages=len(pages), notes=notes)


def _unlock(reader: PdfReader, name: str) -> None:
    """Open PDFs that are encrypted with an empty user password (restrictions only); refuse the rest."""
    if not reader.is_encrypted:
        return
    try:
        unlocked = reader.decrypt("")
    except Exception as exc:
        raise DocumentRejected(f"encrypted PDF {name} cannot be opened: {_reason(exc)}") from exc
    if not unlocked:
        raise DocumentRejected(f"encrypted PDF {name} needs a password; provide an unencrypted copy")


def _title(reader: PdfReader) -> str | None:
    try:
        metadata = reader.metadata
        title = metadata.title if metadata else None
    except Exception:  # metadata is optional; a broken info dict must not fail the read
        return None
    return " ".join(str(title).split()) or None if title else None


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
