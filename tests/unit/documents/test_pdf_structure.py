"""PDF → markdown keeps the document's structure: real PDFs are built here with weasyprint and read back."""

from __future__ import annotations

import re

from markdown_it.token import Token

from tests.unit.documents import builders
from tests.unit.documents.builders import pdf_from_html
from tools.document.md_parser import markdown_parser
from tools.document.readers import extract_text

NO_OUTLINE = "h1, h2, h3, p { bookmark-level: none; }"


def read(pdf: bytes) -> str:
    return extract_text(pdf, "doc.pdf", "application/pdf").text


def headings(markdown: str) -> list[tuple[int, str]]:
    tokens = markdown_parser().parse(markdown)
    return [(int(t.tag[1:]), tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]


def blocks(markdown: str, kind: str) -> list[Token]:
    return [token for token in markdown_parser().parse(markdown) if token.type == kind]


def test_ligature_characters_become_plain_letters() -> None:
    # The ToUnicode map says byte 0x01 is U+FB01, as in TeX output: searching for "config" must find it.
    text = read(builders.raw_pdf((72, 700, b"The \001nal con\001g"), (72, 680, b"ligatures: \001")))
    assert "The final config" in text
    assert not re.search("[\ufb00-\ufb06]", text)


def test_words_hyphenated_at_line_ends_are_rejoined() -> None:
    text = read(builders.raw_pdf((72, 700, b"The text is hyphen-"), (72, 686, b"ated at the line end.")))
    assert "The text is hyphenated at the line end." in text
    assert "\ufffe" not in text and "hyphen-" not in text


def test_words_are_separated_where_the_layout_leaves_a_gap() -> None:
    # No space character between the words: only their positions separate them.
    text = read(builders.raw_pdf((72, 700, b"Alpha"), (110, 700, b"Omega")))
    assert "Alpha Omega" in text


def test_words_drawn_without_any_gap_are_split_where_a_capital_starts_a_word() -> None:
    text = read(builders.raw_pdf((72, 700, b"BibliographyGlossaryIndexTable and CamelCase")))
    assert "Bibliography Glossary Index Table and CamelCase" in text


def test_headings_follow_the_pdf_outline() -> None:
    body = "<h1>Getting Started</h1><p>Intro text.</p><h2>Install the tool</h2><p>Run the installer.</p>"
    text = read(pdf_from_html(body))
    assert headings(text) == [(1, "Getting Started"), (2, "Install the tool")]


def test_outline_titles_with_stray_markup_still_find_their_heading() -> None:
    css = "h2 { bookmark-label: 'Install F[C]theF[] tool'; }"
    body = "<h1>Getting Started</h1><p>Intro text.</p><h2>Install the tool</h2><p>Run the installer.</p>"
    text = read(pdf_from_html(body, css))
    assert headings(text) == [(1, "Getting Started"), (2, "Install the tool")]


def test_without_an_outline_larger_fonts_become_headings() -> None:
    body = (
        "<p style='font-size: 24pt'>Annual Review</p><p>Body text of the review goes here at normal size.</p>"
        "<p style='font-size: 16pt'>Results</p><p>More body text that is long enough to be the body size.</p>"
    )
    text = read(pdf_from_html(body, NO_OUTLINE))
    assert headings(text) == [(1, "Annual Review"), (2, "Results")]


def test_code_keeps_its_lines_and_indentation_and_comments_never_become_headings() -> None:
    code = "# configure the plot\ndef plot(data):\n    for x in data:\n        draw(x)\n    return True"
    body = f"<p>Example:</p><pre style='font-family: DejaVu Sans Mono'>{code}</pre><p># not a heading either</p>"
    text = read(pdf_from_html(body, NO_OUTLINE))
    fences = blocks(text, "fence")
    assert len(fences) == 1
    assert fences[0].content.rstrip("\n") == code
    assert headings(text) == []
    paragraphs = ["".join(child.content for child in t.children or []) for t in blocks(text, "inline")]
    assert "# not a heading either" in paragraphs


def test_columns_separated_by_wide_gaps_become_a_table() -> None:
    rows = [("Fruit", "Price", "Origin"), ("Apple", "3", "Normandy"), ("Pear", "4", "Anjou")]
    cells = "".join(
        "<tr>" + "".join(f"<td style='padding: 0 3em 0 0'>{cell}</td>" for cell in row) + "</tr>" for row in rows
    )
    text = read(pdf_from_html(f"<p>Prices:</p><table>{cells}</table><p>After the table.</p>", NO_OUTLINE))
    assert "| Fruit | Price | Origin |\n| --- | --- | --- |\n| Apple | 3 | Normandy |\n| Pear | 4 | Anjou |" in text
    assert len(blocks(text, "table_open")) == 1


def test_pages_keep_a_light_anchor_to_cite() -> None:
    body = "<p>First page.</p><p style='page-break-before: always'>Second page.</p>"
    text = read(pdf_from_html(body))
    assert text.index("[page 1]") < text.index("First page.") < text.index("[page 2]") < text.index("Second page.")
    assert headings(text) == []


def test_bulleted_lists_stay_one_list_with_their_nesting() -> None:
    body = "<p>Supported:</p><ul><li>serial ports</li><li>USB<ul><li>HID devices</li></ul></li><li>network</li></ul>"
    text = read(pdf_from_html(body))
    assert "- serial ports\n- USB\n  - HID devices\n- network" in text


def test_running_headers_and_page_numbers_are_dropped_but_page_anchors_stay() -> None:
    header = "@top-center { content: 'ACME Manual, page ' counter(page); }"
    css = f"@page {{ {header} @bottom-center {{ content: counter(page); }} }}"
    topics = ["Installing", "Configuring", "Monitoring", "Upgrading", "Removing"]
    body = "".join(f"<p style='page-break-before: always'>{topic} is explained here.</p>" for topic in topics)
    text = read(pdf_from_html(body, css))
    assert "ACME Manual" not in text
    assert [line for line in text.split("\n") if line.strip().isdigit()] == []
    assert text.index("[page 5]") < text.index("Removing is explained here.")
