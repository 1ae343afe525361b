"""Markdown → DOCX with python-docx, driven by the markdown-it token stream (never by HTML).

Ordered lists carry their numbers as text: python-docx's "List Number" style continues one numbering across
every list of the document, so separate lists would not restart at 1.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import docx
from docx.document import Document as DocxDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Cm, Mm, Pt
from docx.text.paragraph import Paragraph
from markdown_it.token import Token

from core.errors import ToolFailed
from tools.document.md_parser import markdown_parser
from tools.document.text_codec import strip_control_chars

_MONOSPACE = "Courier New"
_ALIGNMENTS = {
    "left": WD_ALIGN_PARAGRAPH.LEFT,
    "center": WD_ALIGN_PARAGRAPH.CENTER,
    "right": WD_ALIGN_PARAGRAPH.RIGHT,
}
_SAFE_LINK_SCHEMES = ("http://", "https://", "mailto:")


def markdown_to_docx(markdown: str, title: str | None = None) -> bytes:
    """DOCX bytes with headings, paragraphs, lists, tables, quotes, code and bold/italic/code runs."""
    try:
        document = docx.Document()
        _a4(document)
        if title:
            document.core_properties.title = strip_control_chars(title)[:255]
        _Writer(document).write(markdown_parser().parse(markdown))
        buffer = io.BytesIO()
        document.save(buffer)
    except Exception as exc:  # python-docx/lxml reject odd input in many ways; report, do not crash
        raise ToolFailed(f"DOCX rendering failed: {exc or type(exc).__name__}") from exc
    return buffer.getvalue()


def _a4(document: DocxDocument) -> None:
    """A4 with the PDF report's margins (python-docx's template is US Letter)."""
    for section in document.sections:
        section.page_width, section.page_height = Mm(210), Mm(297)
        section.top_margin = section.bottom_margin = Cm(2)
        section.left_margin = section.right_margin = Cm(1.8)


def _alignment(token: Token) -> WD_ALIGN_PARAGRAPH | None:
    """The column alignment markdown-it puts on a table cell (`style="text-align:right"`)."""
    style = str(token.attrGet("style") or "")
    return _ALIGNMENTS.get(style.partition("text-align:")[2].strip().rstrip(";"))


@dataclass
class _ListLevel:
    ordered: bool
    number: int = 1


@dataclass
class _Writer:
    document: DocxDocument
    lists: list[_ListLevel] = field(default_factory=list)
    item_started: bool = False
    quote_depth: int = 0
    table_rows: list[list[tuple[Token, bool, WD_ALIGN_PARAGRAPH | None]]] | None = None

    def write(self, tokens: list[Token]) -> None:
        for index, token in enumerate(tokens):
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            self._block(token, inline)

    def _block(self, token: Token, inline: Token | None) -> None:
        kind = token.type
        if kind == "heading_open" and inline is not None:
            level = min(int(token.tag[1:]), 6)
            self._runs(self.document.add_heading("", level=level), inline)
        elif kind == "paragraph_open" and inline is not None and self.table_rows is None:
            self._runs(self._paragraph(), inline)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = token.attrGet("start")
            self.lists.append(_ListLevel(kind == "ordered_list_open", int(start) if start is not None else 1))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            self.item_started = True
        elif kind == "blockquote_open":
            self.quote_depth += 1
        elif kind == "blockquote_close":
            self.quote_depth -= 1
        elif kind in ("fence", "code_block"):
            self._code(token.content)
        elif kind == "hr":
            self.document.add_paragraph("* * *").alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif kind == "table_open":
            self.table_rows = []
        elif kind == "tr_open" and self.table_rows is not None:
            self.table_rows.append([])
        elif kind in ("th_open", "td_open") and self.table_rows is not None and inline is not None:
            self.table_rows[-1].append((inline, kind == "th_open", _alignment(token)))
        elif kind == "table_close":
            self._table(self.table_rows or [])
            self.table_rows = None

    def _paragraph(self) -> Paragraph:
        """A paragraph styled for where it stands: list item, its continuation, quote or body text."""
        if self.lists:
            depth = len(self.lists)
            current = self.lists[-1]
            if self.item_started:
                self.item_started = False
                if not current.ordered:
                    return self.document.add_paragraph(style=_bullet_style(depth))
                paragraph = self.document.add_paragraph(style="List Paragraph")
                paragraph.add_run(f"{current.number}. ")
                current.number += 1
            else:
                paragraph = self.document.add_paragraph(style="List Paragraph")
            paragraph.paragraph_format.left_indent = Pt(18 * depth)
            return paragraph
        if self.quote_depth:
            return self.document.add_paragraph(style="Quote")
        return self.document.add_paragraph()

    def _code(self, content: str) -> None:
        paragraph = self.document.add_paragraph()
        paragraph.paragraph_format.left_indent = Pt(12 + 18 * len(self.lists))
        run = paragraph.add_run(strip_control_chars(content.rstrip("\n")))
        run.font.name = _MONOSPACE
        run.font.size = Pt(9)

    def _table(self, rows: list[list[tuple[Token, bool, WD_ALIGN_PARAGRAPH | None]]]) -> None:
        width = max((len(row) for row in rows), default=0)
        if width == 0:
            return
        table = self.document.add_table(rows=len(rows), cols=width)
        table.style = "Table Grid"
        for row_cells, row in zip(table.rows, rows, strict=True):
            for cell, (inline, header, alignment) in zip(row_cells.cells, row, strict=False):
                self._runs(cell.paragraphs[0], inline, bold=header)
                if alignment is not None:
                    cell.paragraphs[0].alignment = alignment
        self.document.add_paragraph()

    def _runs(self, paragraph: Paragraph, inline: Token, *, bold: bool = False) -> None:
        """Inline tokens → runs; bold/italic/strike nest as counters so `***x***` works."""
        strong, emphasis, strike = int(bold), 0, 0
        link: str | None = None
        link_text = ""
        for child in inline.children or []:
            kind = child.type
            if kind in ("text", "code_inline", "image"):
                text = child.content if kind != "image" else f"[image: {child.content or 'untitled'}]"
                run = paragraph.add_run(strip_control_chars(text))
                link_text += text
                run.bold = strong > 0 or None
                run.italic = emphasis > 0 or None
                run.font.strike = strike > 0 or None
                if kind == "code_inline":
                    run.font.name = _MONOSPACE
            elif kind == "softbreak":
                paragraph.add_run(" ")
            elif kind == "hardbreak":
                paragraph.add_run().add_break()
            elif kind in ("strong_open", "strong_close"):
                strong += 1 if kind == "strong_open" else -1
            elif kind in ("em_open", "em_close"):
                emphasis += 1 if kind == "em_open" else -1
            elif kind in ("s_open", "s_close"):
                strike += 1 if kind == "s_open" else -1
            elif kind == "link_open":
                href = child.attrGet("href")
                link = str(href) if href is not None else None
                link_text = ""
            elif kind == "link_close":
                shown = link_text.strip() in {link, (link or "").removeprefix("mailto:")}
                if link and not shown and link.lower().startswith(_SAFE_LINK_SCHEMES):
                    paragraph.add_run(f" ({strip_control_chars(link)})")
                link = None


def _bullet_style(depth: int) -> str:
    return "List Bullet" if depth <= 1 else f"List Bullet {min(depth, 3)}"
