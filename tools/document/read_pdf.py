"""PDF → structured markdown with PDFium (pypdfium2, Apache-2.0/BSD): fast, and it lays words out correctly.

PDFium reads the text layer and the outline; `pdf_layout` and `pdf_markdown` turn them into headings,
paragraphs, lists, code blocks and tables, with a `[page N]` anchor per page so answers can cite pages.
"""

from __future__ import annotations

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.errors import DocumentRejected
from tools.document import limits
from tools.document.extracted import ExtractedText
from tools.document.pdf_layout import Line, page_lines
from tools.document.pdf_markdown import OutlineEntry, Page, pages_to_markdown

#: Outline entries read at most (a hostile PDF can loop its bookmarks; pypdfium2 stops cycles itself).
MAX_OUTLINE_ENTRIES = 5000


def read_pdf(data: bytes, name: str) -> ExtractedText:
    document = _open(data, name)
    try:
        count = len(document)
        pages: list[Page] = []
        notes: list[str] = []
        total = 0
        for index in range(count):
            if total > limits.MAX_TEXT_CHARS:
                notes.append(f"{name}: stopped after page {index} of {count} (text limit reached)")
                break
            try:
                lines = _read_page(document, index)
            except pdfium.PdfiumError as exc:  # one bad page must not lose the others
                notes.append(f"{name}: page {index + 1} could not be read ({exc})")
                continue
            pages.append(Page(number=index + 1, lines=lines))
            total += sum(len(line.text) + 1 for line in lines)
        outline = _outline(document)
        title = _title(document)
    finally:
        document.close()
    text = pages_to_markdown(pages, outline)
    if count and not any(page.lines for page in pages):
        notes.append(f"{name}: no text layer on any page (scanned images? OCR is not supported)")
    return ExtractedText(text=text, kind="pdf", title=title, pages=count, notes=notes)


def _open(data: bytes, name: str) -> pdfium.PdfDocument:
    """Open the PDF; encrypted ones open when their user password is empty (restrictions only)."""
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise DocumentRejected(f"encrypted PDF {name} needs a password; provide an unencrypted copy") from exc
        raise DocumentRejected(f"{name} is not a readable PDF: {exc}") from exc


def _read_page(document: pdfium.PdfDocument, index: int) -> list[Line]:
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            return page_lines(textpage)
        finally:
            textpage.close()
    finally:
        page.close()


def _outline(document: pdfium.PdfDocument) -> list[OutlineEntry]:
    entries: list[OutlineEntry] = []
    try:
        for bookmark in document.get_toc():
            if len(entries) >= MAX_OUTLINE_ENTRIES:
                break
            destination = bookmark.get_dest()
            index = destination.get_index() if destination is not None else None
            title = " ".join((bookmark.get_title() or "").split())
            if index is not None and title:
                entries.append(OutlineEntry(level=bookmark.level, title=title, page_index=index))
    except pdfium.PdfiumError:  # a broken outline costs the headings, not the text
        return entries
    return entries


def _title(document: pdfium.PdfDocument) -> str | None:
    try:
        title = document.get_metadata_dict().get("Title", "")
    except pdfium.PdfiumError:  # metadata is optional; a broken info dict must not fail the read
        return None
    return " ".join(str(title).split()) or None
