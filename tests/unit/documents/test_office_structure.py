"""Office documents lose nothing silently: charts, pictures, code and column alignment survive extraction."""

from __future__ import annotations

import io

import docx
import openpyxl
from docx.enum.text import WD_ALIGN_PARAGRAPH

from tests.unit.documents import builders
from tools.document.detect import DOCX_MIME, PPTX_MIME
from tools.document.md_parser import markdown_parser
from tools.document.readers import extract_text
from tools.document.report_docx import markdown_to_docx


def test_pptx_chart_becomes_a_table_of_its_series_and_the_picture_a_note_with_alt_text() -> None:
    text = extract_text(builders.pptx_with_chart_and_picture(), "deck.pptx", PPTX_MIME).text
    assert (
        "|   | Revenue | Costs |\n| --- | --- | --- |\n| Q1 | 10 | 7 |\n| Q2 | 12.5 | 8 |\n| Q3 | 15 | 9.25 |" in text
    )
    assert "[image: Team photo at the launch]" in text


def test_pptx_chart_of_any_type_is_read_from_its_cached_values_with_dates_as_dates() -> None:
    text = extract_text(builders.pptx_with_3d_area_chart(), "area.pptx", PPTX_MIME).text
    assert "|   | Visitors |\n| --- | --- |\n| 2024-01-31 | 120 |\n| 2024-02-29 | 135 |" in text


def test_docx_of_only_images_succeeds_with_a_note_per_image() -> None:
    result = extract_text(builders.docx_of_images(("A red square", "Another square")), "pics.docx", DOCX_MIME)
    assert result.text.split("\n\n") == [
        "[image: A red square]",
        "[image: Another square]",
        '[image "Picture 3", no alt text]',
    ]
    assert result.notes == ["pics.docx: no text, only 3 drawings (described by alt text)"]


def test_docx_code_paragraphs_keep_their_lines_so_a_report_reads_back() -> None:
    code = "def total(items):\n    return sum(\n        item.price for item in items\n    )"
    report = markdown_to_docx(f"# Report\n\nThe function:\n\n```python\n{code}\n```\n\nDone.")
    text = extract_text(report, "report.docx", DOCX_MIME).text
    fences = [token for token in markdown_parser().parse(text) if token.type == "fence"]
    assert [fence.content.rstrip("\n") for fence in fences] == [code]
    assert text.index("The function:") < text.index("def total") < text.index("Done.")


def test_docx_paragraphs_in_a_code_style_are_code() -> None:
    document = docx.Document()
    document.styles.add_style("Source Code", 1)
    document.add_paragraph("Run this:")
    document.add_paragraph("make  install", style="Source Code")
    document.add_paragraph("    --prefix=/opt", style="Source Code")
    buffer = io.BytesIO()
    document.save(buffer)
    text = extract_text(buffer.getvalue(), "howto.docx", DOCX_MIME).text
    assert "```\nmake  install\n    --prefix=/opt\n```" in text


def test_docx_report_is_a4_and_keeps_table_column_alignment() -> None:
    report = markdown_to_docx("| Item | Qty | Note |\n| :-- | --: | :-: |\n| Apples | 12 | fresh |")
    document = docx.Document(io.BytesIO(report))
    section = document.sections[0]
    assert (round(section.page_width.mm), round(section.page_height.mm)) == (210, 297)
    alignments = [[cell.paragraphs[0].alignment for cell in row.cells] for row in document.tables[0].rows]
    expected = [WD_ALIGN_PARAGRAPH.LEFT, WD_ALIGN_PARAGRAPH.RIGHT, WD_ALIGN_PARAGRAPH.CENTER]
    assert alignments == [expected, expected]


def test_xlsx_empty_cells_stay_empty_so_columns_keep_their_place() -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    for row in (("Name", "Q1", "Q2"), ("North", None, 7), (None, 3, None)):
        sheet.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    text = extract_text(buffer.getvalue(), "gaps.xlsx", "").text
    assert "| Name | Q1 | Q2 |\n| --- | --- | --- |\n| North |  | 7 |\n|  | 3 |  |" in text


def test_pptx_smartart_is_noted_with_its_alt_text_and_the_text_typed_into_it() -> None:
    deck = builders.pptx_with_smartart("Release process", ("Plan", "Build", "Ship"))
    text = extract_text(deck, "process.pptx", PPTX_MIME).text
    assert "[SmartArt diagram: Release process]\n- Plan\n- Build\n- Ship" in text
