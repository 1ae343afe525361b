"""DOCX → markdown with python-docx, walking the body in document order so tables stay where they were."""

from __future__ import annotations

import io
import re

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from core.errors import DocumentRejected
from tools.document.extracted import ExtractedText
from tools.document.fonts import is_monospace_font
from tools.document.md_build import fenced_block, markdown_table
from tools.document.office_drawings import word_drawing_notes

_HEADING = re.compile(r"heading\s*(\d)")
_CODE_STYLE = re.compile(r"code|preformatted|verbatim|source|plain text|macro")


def read_docx(data: bytes, name: str) -> ExtractedText:
    try:
        document = docx.Document(io.BytesIO(data))
        blocks = list(document.iter_inner_content())
        core_title = document.core_properties.title
    except Exception as exc:  # python-docx raises KeyError/ValueError/PackageNotFoundError on broken files
        raise DocumentRejected(f"{name} is not a readable DOCX file: {exc or type(exc).__name__}") from exc
    parts: list[str] = []
    notes: list[str] = []
    code: list[str] = []
    drawings = 0
    title = " ".join(core_title.split()) if core_title else None
    for index, block in enumerate(blocks):
        if isinstance(block, Paragraph) and _is_code(block):
            code.append(block.text.rstrip())
            continue
        if code:
            parts.append(fenced_block("\n".join(code).strip("\n")))
            code = []
        if isinstance(block, Table):
            try:
                rows = [[cell.text for cell in row.cells] for row in block.rows]
            except Exception as exc:  # a malformed table must not lose the rest of the document
                notes.append(f"{name}: table {index + 1} could not be read ({exc or type(exc).__name__})")
                continue
            if rows:
                parts.append(markdown_table(rows))
            continue
        line, heading_level = _paragraph(block)
        if line:
            parts.append(line)
            if title is None and heading_level == 1:
                title = block.text.strip()
        described = word_drawing_notes(block._p, block.part)
        drawings += len(described)
        parts.extend(described)
    if code:
        parts.append(fenced_block("\n".join(code).strip("\n")))
    if drawings and len(parts) == drawings:
        notes.append(f"{name}: no text, only {drawings} drawing{'s' if drawings != 1 else ''} (described by alt text)")
    return ExtractedText(text=_join(parts), kind="docx", title=title or None, notes=notes)


def _is_code(paragraph: Paragraph) -> bool:
    """Code or preformatted text: a code-like style, or every run set in a monospaced font."""
    style = paragraph.style
    names = f"{style.name or ''} {style.style_id or ''}".lower() if style is not None else ""
    if _CODE_STYLE.search(names):
        return True
    runs = [run for run in paragraph.runs if run.text.strip()]
    return bool(runs) and all(is_monospace_font(run.font.name) for run in runs)


def _paragraph(paragraph: Paragraph) -> tuple[str, int | None]:
    """Markdown for one paragraph and its heading level (None for body text)."""
    text = " ".join(paragraph.text.split())
    if not text:
        return "", None
    style = paragraph.style
    names = {(style.name or "").lower(), (style.style_id or "").lower()} if style is not None else set()
    style_name = " ".join(sorted(names))
    if "title" in names:
        return f"# {text}", 1
    heading = _HEADING.search(style_name)
    if heading:
        level = min(max(int(heading.group(1)), 1), 6)
        return f"{'#' * level} {text}", level
    if style_name.startswith("list number"):
        return f"1. {text}", None
    if style_name.startswith("list") or _numbering_level(paragraph) is not None:
        return f"{'  ' * (_numbering_level(paragraph) or 0)}- {text}", None
    return text, None


def _numbering_level(paragraph: Paragraph) -> int | None:
    """List level of a paragraph numbered directly (not through a List style), None if it is not numbered."""
    levels = paragraph._p.xpath("./w:pPr/w:numPr/w:ilvl/@w:val")
    if levels:
        return int(levels[0]) if str(levels[0]).isdigit() else 0
    return 0 if paragraph._p.xpath("./w:pPr/w:numPr") else None


def _join(parts: list[str]) -> str:
    """Blank lines between blocks, but consecutive list items stay one list."""
    out: list[str] = []
    for part in parts:
        if out and _is_list_item(part) and _is_list_item(out[-1]):
            out[-1] += "\n" + part
        else:
            out.append(part)
    return "\n\n".join(out)


def _is_list_item(part: str) -> bool:
    last_line = part.rsplit("\n", 1)[-1].lstrip()
    return last_line.startswith(("- ", "1. "))
