"""document.extract and document.generateReport end to end, as LangChain tools with content and artifact."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docx
import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pypdf import PdfReader

from core.errors import ToolFailed
from tests.unit.documents import builders
from tests.unit.documents.conftest import MakeDeps
from tools import catalog
from tools.base import ToolOutput
from tools.document.detect import DOCX_MIME, XLSX_MIME
from tools.document.extract import DocumentExtractArgs, make_document_extract_tool
from tools.document.generate_report import (
    DocumentGenerateReportArgs,
    make_document_generate_report_tool,
    slugify,
)
from tools.documents import DocumentStore


def call(tool: BaseTool, args: dict[str, Any]) -> tuple[str, ToolOutput]:
    message = tool.invoke({"type": "tool_call", "id": "call-1", "name": tool.name, "args": args})
    assert isinstance(message, ToolMessage) and isinstance(message.artifact, ToolOutput)
    return str(message.content), message.artifact


def test_registration_names_and_parameters() -> None:
    extract = catalog.lookup("document.extract")
    report = catalog.lookup("document_generate_report")
    assert extract is not None and report is not None
    assert (extract.tool_name, extract.purpose, extract.args_schema) == (
        "document_extract",
        "analysis",
        DocumentExtractArgs,
    )
    assert (report.display_name, report.purpose, report.args_schema) == (
        "document.generateReport",
        "output",
        DocumentGenerateReportArgs,
    )
    assert extract.parameter_names == ["documentList", "aiPrompt"]
    assert report.parameter_names == ["documentList", "title", "formats"]
    assert extract.factory is make_document_extract_tool
    assert report.factory is make_document_generate_report_tool


def test_tools_expose_the_spec_parameters(make_deps: MakeDeps) -> None:
    extract = make_document_extract_tool(make_deps([]))
    report = make_document_generate_report_tool(make_deps([]))
    assert extract.name == "document_extract" and set(extract.args) == {"documentList", "aiPrompt"}
    assert report.name == "document_generate_report" and set(report.args) == {"documentList", "title", "formats"}
    openai_schema = convert_to_openai_tool(report)["function"]
    assert openai_schema["name"] == "document_generate_report"
    assert openai_schema["parameters"]["required"] == ["title"]
    assert openai_schema["parameters"]["properties"]["formats"]["anyOf"][0]["items"]["enum"] == [
        "md",
        "html",
        "pdf",
        "docx",
    ]


def test_extract_references_and_paths_with_per_document_failures(
    store: DocumentStore, docs_dir: Path, make_deps: MakeDeps
) -> None:
    refs = [
        store.put(builders.docx_bytes(), label="input", name="quarterly.docx", mime=DOCX_MIME),
        store.put(builders.xlsx_bytes(), label="input", name="sales.xlsx", mime=XLSX_MIME),
        store.put(b"\x00garbage", label="input", name="broken.pdf", mime="application/pdf"),
    ]
    (docs_dir / "notes.txt").write_text("Local note text", encoding="utf-8")
    tool = make_document_extract_tool(make_deps(refs))
    content, output = call(
        tool,
        {
            "documentList": [
                "docList:input",
                "notes.txt",
                "../escape.txt",
                "docItem:input/missing.pdf",
                "https://example.com/a.pdf",
            ]
        },
    )
    names = [d.name for d in output.documents]
    assert names == ["quarterly.md", "sales.md", "notes.md"]
    assert all(d.mime == "text/markdown" for d in output.documents)
    texts = {d.name: d.data.decode() for d in output.documents}
    assert "| Widget | 42 |" in texts["quarterly.md"] and "| North | 120 |" in texts["sales.md"]
    assert texts["notes.md"] == "Local note text"
    assert len(output.notes) == 4
    assert "https://example.com/a.pdf is a URL, not a document: fetch it with web.scrape first" in output.notes
    assert any("broken.pdf is not a readable PDF" in n for n in output.notes)
    assert any("outside the documents folder" in n for n in output.notes)
    assert any("missing.pdf" in n for n in output.notes)
    assert content.startswith("Extracted 3 documents: quarterly.docx → quarterly.md (DOCX")
    assert "Preview of quarterly.md:\n# Quarterly Report" in content


def test_extract_fails_only_when_nothing_could_be_read(store: DocumentStore, make_deps: MakeDeps) -> None:
    ref = store.put(b"", label="input", name="empty.txt", mime="text/plain")
    tool = make_document_extract_tool(make_deps([ref]))
    with pytest.raises(ToolFailed, match=r"no document could be read: empty\.txt is empty; .*nope\.pdf"):
        call(tool, {"documentList": ["docItem:input/empty.txt", "nope.pdf"]})
    with pytest.raises(ToolFailed, match="documentList is empty"):
        call(tool, {"documentList": []})


def test_extract_gives_same_stem_outputs_distinct_names(store: DocumentStore, make_deps: MakeDeps) -> None:
    refs = [
        store.put(b"from text", label="a", name="report.txt"),
        store.put(b"# from markdown", label="b", name="report.md"),
    ]
    _, output = call(make_document_extract_tool(make_deps(refs)), {"documentList": ["docList:a", "docList:b"]})
    assert [d.name for d in output.documents] == ["report.md", "report-2.md"]


def test_extract_with_ai_prompt_adds_analysis(
    store: DocumentStore, make_deps: MakeDeps, patch_process_texts: Callable[[Callable[..., str]], None]
) -> None:
    seen: dict[str, Any] = {}

    def fake(deps: Any, texts: list[tuple[str, str]], ai_prompt: str, **kwargs: Any) -> str:
        seen.update(texts=texts, prompt=ai_prompt, kwargs=kwargs)
        return "Total units: 200"

    patch_process_texts(fake)
    ref = store.put(builders.xlsx_bytes(), label="input", name="sales.xlsx", mime=XLSX_MIME)
    content, output = call(
        make_document_extract_tool(make_deps([ref])),
        {"documentList": ["docItem:input/sales.xlsx"], "aiPrompt": "  Sum the units  "},
    )
    assert [d.name for d in output.documents] == ["sales.md", "analysis.md"]
    assert output.documents[1].data == b"Total units: 200"
    assert seen["prompt"] == "Sum the units" and seen["texts"][0][0] == "sales.xlsx"
    assert "| South | 80 |" in seen["texts"][0][1]
    assert "aiPrompt answered in analysis.md" in output.summary
    assert "Preview of analysis.md:\nTotal units: 200" in content


def test_extract_keeps_documents_when_the_ai_prompt_fails(
    store: DocumentStore, make_deps: MakeDeps, patch_process_texts: Callable[[Callable[..., str]], None]
) -> None:
    def failing(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("model unreachable")

    patch_process_texts(failing)
    ref = store.put(b"some text", label="input", name="a.txt")
    _, output = call(
        make_document_extract_tool(make_deps([ref])), {"documentList": ["docList:input"], "aiPrompt": "summarise"}
    )
    assert [d.name for d in output.documents] == ["a.md"]
    assert output.notes == ["aiPrompt could not be answered: model unreachable"]


def test_extract_works_in_a_plain_langchain_call(store: DocumentStore, make_deps: MakeDeps) -> None:
    ref = store.put(b"a,b\n1,2\n", label="input", name="t.csv", mime="text/csv")
    content = make_document_extract_tool(make_deps([ref])).invoke({"documentList": ["docList:input"]})
    assert isinstance(content, str) and "| 1 | 2 |" in content


def test_generate_report_all_formats(store: DocumentStore, make_deps: MakeDeps) -> None:
    refs = [
        store.put_text(
            "# Findings\n\nGrowth was **12%**.\n\n<script>alert(1)</script>\n", label="r1", name="findings.md"
        ),
        store.put(json.dumps({"revenue": 1200, "units": [1, 2]}).encode(), label="r1", name="data.json"),
        store.put(builders.docx_bytes(), label="input", name="quarterly.docx", mime=DOCX_MIME),
    ]
    tool = make_document_generate_report_tool(make_deps(refs))
    content, output = call(tool, {"documentList": ["docList:r1", "docList:input"], "title": "Über Größe 2026!"})
    by_name = {d.name: d for d in output.documents}
    assert list(by_name) == [f"uber-grosse-2026.{ext}" for ext in ("md", "html", "pdf", "docx")]
    assert [d.mime for d in output.documents] == ["text/markdown", "text/html", "application/pdf", DOCX_MIME]
    markdown = by_name["uber-grosse-2026.md"].data.decode()
    assert markdown.startswith("# Über Größe 2026!\n\n## Findings\n\n")
    positions = [
        markdown.index(s)
        for s in (
            "## Findings",
            "Growth was **12%**",
            "## data",
            '"revenue": 1200',
            "## Quarterly Report",
            "| Widget | 42 |",
            "### Details",
        )
    ]
    assert positions == sorted(positions)
    assert '```json\n{\n  "revenue": 1200,' in markdown
    html = by_name["uber-grosse-2026.html"].data.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    pdf = by_name["uber-grosse-2026.pdf"].data
    assert pdf.startswith(b"%PDF")
    pdf_text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "Growth was 12%" in pdf_text and "Widget" in pdf_text
    document = docx.Document(io.BytesIO(by_name["uber-grosse-2026.docx"].data))
    headings = [p.text for p in document.paragraphs if p.style is not None and p.style.name.startswith("Heading")]
    assert headings[:3] == ["Über Größe 2026!", "Findings", "data"]
    assert [[c.text for c in row.cells] for row in document.tables[0].rows] == [["Name", "Value"], ["Widget", "42"]]
    assert content.startswith("Report 'Über Größe 2026!' from 3 documents: uber-grosse-2026.md (")


def test_generate_report_single_document_and_chosen_formats(store: DocumentStore, make_deps: MakeDeps) -> None:
    ref = store.put_text("# Weekly Summary\n\n## Details\n\nAll good.\n", label="r2", name="summary.md")
    _, output = call(
        make_document_generate_report_tool(make_deps([ref])),
        {"documentList": ["docItem:r2/summary.md"], "title": "Weekly Summary", "formats": ["docx", "md", "md"]},
    )
    assert [d.name for d in output.documents] == ["weekly-summary.docx", "weekly-summary.md"]
    assert output.documents[1].data.decode() == "# Weekly Summary\n\n## Details\n\nAll good.\n"


def test_generate_report_fails_without_readable_input(store: DocumentStore, make_deps: MakeDeps) -> None:
    ref = store.put(b"\x89PNG\r\n\x1a\n\x00\x00", label="input", name="pic.png", mime="image/png")
    tool = make_document_generate_report_tool(make_deps([ref]))
    with pytest.raises(ToolFailed, match=r"no document could be read for the report: pic\.png is type image/png"):
        call(tool, {"documentList": ["docList:input"], "title": "T"})


@pytest.mark.parametrize(
    ("title", "slug"),
    [("Market Report 2026", "market-report-2026"), ("  ***  ", "report"), ("Ça va? Oui!", "ca-va-oui")],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug
