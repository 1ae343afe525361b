"""`document.generateReport` (tool `document_generate_report`): documents → one report under a title, rendered
as markdown, HTML, PDF and DOCX. Importing this module registers the action in the catalog.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Callable
from pathlib import PurePath
from typing import Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from core.errors import DocumentRejected, ToolFailed
from tools.base import NewDocument, ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, register
from tools.document.detect import DOCX_MIME
from tools.document.inputs import InputDocument, iter_inputs
from tools.document.md_headings import drop_leading_heading, nest_headings
from tools.document.parsing import read_document, tool_deadline
from tools.document.report import html_to_pdf, markdown_to_docx, markdown_to_html

TOOL_NAME = "document_generate_report"
DISPLAY_NAME = "document.generateReport"

ReportFormat = Literal["md", "html", "pdf", "docx"]
ALL_FORMATS: tuple[ReportFormat, ...] = ("md", "html", "pdf", "docx")
MIME_TYPES: dict[ReportFormat, str] = {
    "md": "text/markdown",
    "html": "text/html",
    "pdf": "application/pdf",
    "docx": DOCX_MIME,
}
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


class DocumentGenerateReportArgs(BaseModel):
    """Arguments of document.generateReport; names follow spec 4 (`formats` is an optional extension)."""

    documentList: list[str] = Field(
        default_factory=list,
        description=(
            "Documents whose content makes up the report, in order: docList:<label> or "
            "docItem:<label>/<name> references, or file paths inside the documents folder."
        ),
    )
    title: str = Field(min_length=1, description="Report title, in the user's language.")
    formats: list[ReportFormat] | None = Field(
        None, description="Output formats among md, html, pdf, docx; default: all four."
    )


DESCRIPTION = (
    "Assemble documents (markdown, text, JSON, or anything document.extract reads) into one report under a "
    "title and render it as markdown, HTML, PDF and DOCX (or the formats asked). Use it as the last step to "
    "deliver a finished report file."
)


def run_generate_report(
    deps: ToolDeps, document_list: list[str], title: str, formats: list[ReportFormat] | None
) -> tuple[str, ToolOutput]:
    title = " ".join(title.split())
    if not title:
        raise ToolFailed("title is empty: give the report a title")
    if not document_list:
        raise ToolFailed("documentList is empty: name the docList:/docItem: references the report is made of")
    notes: list[str] = []
    sections: list[tuple[str, str]] = []
    deadline = tool_deadline(deps.context.tool_timeout_s)
    for item in iter_inputs(deps, document_list):
        if isinstance(item, str):
            notes.append(item)
            continue
        try:
            sections.append(_section(item, deadline))
        except DocumentRejected as exc:
            notes.append(str(exc))
    if not sections:
        raise ToolFailed("no document could be read for the report: " + ("; ".join(notes) or "none named"))
    markdown = compose_report(title, sections)
    documents = _render(markdown, title, slugify(title), formats or list(ALL_FORMATS), deps.language, notes)
    if not documents:
        raise ToolFailed("the report could not be rendered in any format: " + "; ".join(notes))
    names = ", ".join(f"{d.name} ({len(d.data)} bytes)" for d in documents)
    summary = f"Report '{title}' from {len(sections)} document{'s' if len(sections) != 1 else ''}: {names}"
    content = summary + "." + (f"\nNotes: {'; '.join(notes)}" if notes else "")
    return content, ToolOutput(documents=documents, summary=summary, notes=notes)


def compose_report(title: str, sections: list[tuple[str, str]]) -> str:
    """One markdown document: `# title`, then each source; several sources get a `## section` each.

    A source's own first heading is dropped when it only repeats the title/section heading above it.
    """
    parts = [f"# {title}"]
    if len(sections) == 1:
        parts.append(nest_headings(drop_leading_heading(sections[0][1], title), 2))
    else:
        for heading, body in sections:
            parts.append(f"## {heading}")
            parts.append(nest_headings(drop_leading_heading(body, heading), 3))
    return "\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


def slugify(title: str) -> str:
    """ASCII file stem of a title ('Über Größe 2026!' → 'uber-grosse-2026'); 'report' if nothing is left."""
    folded = unicodedata.normalize("NFKD", title.replace("ß", "ss")).encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_JUNK.sub("-", folded.lower()).strip("-")
    return slug[:60].rstrip("-") or "report"


def _section(item: InputDocument, deadline: float) -> tuple[str, str]:
    extracted = read_document(item.data, item.name, item.mime, timeout_s=deadline - time.monotonic())
    heading = " ".join((extracted.title or PurePath(item.name).stem or item.name).split())
    return heading, extracted.text


def _render(
    markdown: str, title: str, stem: str, formats: list[ReportFormat], language: str, notes: list[str]
) -> list[NewDocument]:
    """Each asked format once, in a stable order; a failing renderer becomes a note."""
    html_cache: dict[str, str] = {}

    def html() -> str:
        if "page" not in html_cache:
            html_cache["page"] = markdown_to_html(markdown, title, language=language)
        return html_cache["page"]

    renderers: dict[ReportFormat, Callable[[], bytes]] = {
        "md": lambda: markdown.encode("utf-8"),
        "html": lambda: html().encode("utf-8"),
        "pdf": lambda: html_to_pdf(html()),
        "docx": lambda: markdown_to_docx(markdown, title),
    }
    documents = []
    for fmt in dict.fromkeys(formats):
        try:
            data = renderers[fmt]()
        except ToolFailed as exc:
            notes.append(str(exc))
            continue
        documents.append(NewDocument(name=f"{stem}.{fmt}", mime=MIME_TYPES[fmt], data=data))
    return documents


def make_document_generate_report_tool(deps: ToolDeps) -> BaseTool:
    def document_generate_report(
        title: str, documentList: list[str] | None = None, formats: list[ReportFormat] | None = None
    ) -> tuple[str, ToolOutput]:
        return run_generate_report(deps, list(documentList or []), title, formats)

    return artifact_tool(
        document_generate_report, name=TOOL_NAME, description=DESCRIPTION, args_schema=DocumentGenerateReportArgs
    )


ENTRY = register(
    CatalogEntry(
        display_name=DISPLAY_NAME,
        tool_name=TOOL_NAME,
        args_schema=DocumentGenerateReportArgs,
        factory=make_document_generate_report_tool,
        purpose="output",
        summary="assemble documents into a titled report as markdown, HTML, PDF and DOCX files",
        requires_documents=True,
        side_effects=True,
    )
)
