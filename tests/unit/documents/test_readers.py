"""extract_text on real documents built in the test: literal values come out, in document order."""

from __future__ import annotations

import codecs
import io

import pytest
from pypdf import PdfWriter

from core.errors import DocumentRejected
from tests.unit.documents import builders
from tools.document import limits
from tools.document.detect import DOCX_MIME, detect_kind
from tools.document.readers import extract_text


def assert_in_order(text: str, *needles: str) -> None:
    positions = [text.index(needle) for needle in needles]
    assert positions == sorted(positions), f"out of order: {list(zip(needles, positions, strict=True))}"


def test_pdf_pages_in_order_with_title() -> None:
    result = extract_text(builders.pdf_bytes("Apples are red", "Bananas are yellow"), "fruit.pdf", "application/pdf")
    assert result.kind == "pdf" and result.pages == 2 and result.title == "Pdf Title"
    assert_in_order(result.text, "[page 1]", "Apples are red", "[page 2]", "Bananas are yellow")


def test_docx_keeps_tables_between_paragraphs_and_headings() -> None:
    result = extract_text(builders.docx_bytes(), "q.docx", DOCX_MIME)
    assert result.title == "Quarterly Report"
    assert_in_order(
        result.text,
        "# Quarterly Report",
        "Alpha paragraph before the table.",
        "| Name | Value |",
        "| Widget | 42 |",
        "## Details",
        "- First bullet",
        "Omega paragraph after the table.",
    )


def test_xlsx_every_sheet_as_a_table() -> None:
    result = extract_text(builders.xlsx_bytes(), "book.xlsx", "")
    assert result.sheets == 2
    assert_in_order(
        result.text,
        "## Sheet: Sales",
        "| Region | Units |",
        "| North | 120 |",
        "| South | 80 |",
        "## Sheet: Costs",
        "| Rent | 1000.5 |",
    )


def test_xlsx_caps_rows_and_columns_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_TABLE_ROWS", 2)
    monkeypatch.setattr(limits, "MAX_TABLE_COLS", 1)
    result = extract_text(builders.xlsx_bytes(), "book.xlsx", "")
    assert "| North |" in result.text and "South" not in result.text and "Units" not in result.text
    assert any("first 2 rows" in note for note in result.notes)
    assert any("first 1 columns" in note for note in result.notes)


def test_pptx_slides_titles_bullets_tables_and_notes() -> None:
    result = extract_text(builders.pptx_bytes(), "deck.pptx", "")
    assert result.slides == 2 and result.title == "Launch Plan"
    assert_in_order(
        result.text,
        "## Slide 1: Launch Plan",
        "- Kickoff in March",
        "  - Beta in May",
        "> Notes: Speaker note here",
        "## Slide 2: Budget Table",
        "| Quarter | Spend |",
        "| Q1 | 500 |",
    )


def test_html_main_text_and_title() -> None:
    html = (
        b"<html><head><title>Page Title</title><script>var hidden = 1;</script></head><body>"
        b"<h1>Main Heading</h1><p>First paragraph with enough words to count as content here.</p>"
        b"<p>Second paragraph also with enough words to be kept by the extractor.</p></body></html>"
    )
    result = extract_text(html, "page.html", "text/html")
    assert result.title == "Page Title"
    assert_in_order(result.text, "First paragraph", "Second paragraph")
    assert "hidden" not in result.text


def test_csv_sniffs_semicolons_and_renders_a_table() -> None:
    result = extract_text(b"city;population\nBern;134000\nZurich;421000\n", "cities.csv", "text/csv")
    assert_in_order(result.text, "| city | population |", "| Bern | 134000 |", "| Zurich | 421000 |")


def test_csv_row_cap_notes_truncation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_TABLE_ROWS", 2)
    result = extract_text(b"a,b\n1,2\n3,4\n5,6\n", "n.csv", "text/csv")
    assert "| 1 | 2 |" in result.text and "3" not in result.text
    assert result.notes == ["n.csv: only the first 2 rows are shown"]


def test_csv_cells_with_pipes_stay_one_cell() -> None:
    result = extract_text(b'name,formula\nx,"a|b"\n', "p.csv", "text/csv")
    assert "| x | a\\|b |" in result.text


def test_text_markdown_and_json() -> None:
    assert extract_text(b"plain line one\nline two\n", "notes.txt", "text/plain").text == "plain line one\nline two"
    markdown = extract_text(b"# Doc Title\n\nBody *text*.\n", "readme.md", "text/markdown")
    assert markdown.title == "Doc Title" and markdown.text.startswith("# Doc Title")
    data = extract_text(b'{"b": [1, 2], "a": "x"}', "data.json", "application/json")
    assert data.text.startswith('```json\n{\n  "b": [') and data.text.endswith("```")


def test_text_decoding_fallbacks() -> None:
    assert extract_text("café crème".encode("cp1252"), "legacy.txt", "").text == "café crème"
    assert extract_text(codecs.BOM_UTF16_LE + "Grüße".encode("utf-16-le"), "w.txt", "").text == "Grüße"
    assert extract_text(codecs.BOM_UTF8 + b"bom text", "b.txt", "").text == "bom text"


@pytest.mark.parametrize(
    ("data", "name", "mime", "kind"),
    [
        (b"%PDF-1.7 ...", "x.bin", "text/plain", "text"),  # the declared mime wins
        (b"hello", "x.csv", "application/octet-stream", "csv"),  # generic mime → extension
        (b"%PDF-1.4\n", "noext", "", "pdf"),  # nothing declared → magic bytes
        (b"<!DOCTYPE html><html><body>x</body></html>", "noext", "", "html"),
        (b"just some words", "noext", "", "text"),
        (b'{"a": 1}', "x", "application/ld+json", "json"),
    ],
)
def test_detection_order(data: bytes, name: str, mime: str, kind: str) -> None:
    assert detect_kind(data, name, mime) == kind


def test_office_files_detected_by_content() -> None:
    assert detect_kind(builders.docx_bytes(), "upload", "") == "docx"
    assert detect_kind(builders.xlsx_bytes(), "upload", "application/zip") == "xlsx"
    assert detect_kind(builders.pptx_bytes(), "upload", "") == "pptx"


def test_long_text_is_cut_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_TEXT_CHARS", 10)
    result = extract_text(b"0123456789abcdef", "long.txt", "text/plain")
    assert result.text.startswith("0123456789") and "abcdef" not in result.text
    assert "first 10 characters" in result.notes[0]


def test_document_without_text_is_rejected() -> None:
    with pytest.raises(DocumentRejected, match="no extractable text"):
        extract_text(b"   \n\t ", "blank.txt", "text/plain")


def test_pdf_stops_reading_pages_past_the_text_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_TEXT_CHARS", 5)
    result = extract_text(builders.pdf_bytes("Apples are red", "Bananas are yellow"), "fruit.pdf", "")
    assert "Bananas" not in result.text
    assert "fruit.pdf: stopped after page 1 of 2 (text limit reached)" in result.notes


def test_pdf_without_text_layer_is_rejected_with_the_reason() -> None:
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    buffer = io.BytesIO()
    writer.write(buffer)
    with pytest.raises(DocumentRejected, match=r"scan\.pdf contains no extractable text \(.*OCR is not supported"):
        extract_text(buffer.getvalue(), "scan.pdf", "application/pdf")
