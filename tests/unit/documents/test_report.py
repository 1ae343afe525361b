"""Report rendering: raw HTML never rendered, PDF makes no fetches, DOCX carries the structure."""

from __future__ import annotations

import base64
import io
import socket
from collections.abc import Iterator

import docx
import pytest
from PIL import Image
from pypdf import PdfReader

from tools.document.md_headings import drop_leading_heading, nest_headings
from tools.document.report import data_only_url_fetcher, html_to_pdf, markdown_to_docx, markdown_to_html

MARKDOWN = """# Market Report

Intro with **bold**, *italic*, `code` and a [link](https://example.com/page).

<script>alert("pwned")</script>

## Findings

- first finding
- second finding
  - nested detail

1. step one
2. step two

| Metric | Value |
|--------|-------|
| Growth | 12%   |

> quoted remark

```python
print("hi")
```
"""


def png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (2, 2), "red").save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A loopback port that would queue any connection attempt, so a test can prove none happened."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    yield server
    server.close()


def assert_no_connection(server: socket.socket) -> None:
    with pytest.raises(TimeoutError):
        server.accept()


def test_html_escapes_raw_html_and_renders_structure() -> None:
    page = markdown_to_html(MARKDOWN, 'Title <b>"x"</b>', language="de")
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in page
    assert "<title>Title &lt;b&gt;&quot;x&quot;&lt;/b&gt;</title>" in page
    assert '<html lang="de">' in page
    for fragment in ("<h1>Market Report</h1>", "<strong>bold</strong>", "<table>", "<td>Growth</td>", "<blockquote>"):
        assert fragment in page


def test_html_drops_dangerous_link_schemes() -> None:
    page = markdown_to_html("[click](javascript:alert(1)) [f](file:///etc/passwd)", "t")
    assert 'href="javascript' not in page and 'href="file:' not in page


def test_pdf_is_rendered_without_any_network_or_file_fetch(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    page = markdown_to_html(f"# Doc\n\n![remote](http://127.0.0.1:{port}/x.png)\n\nBody text", "Doc")
    page = page.replace("</head>", f'<link rel="stylesheet" href="http://127.0.0.1:{port}/s.css"></head>').replace(
        "</main>", '<img src="file:///etc/hostname"></main>'
    )
    fetcher = data_only_url_fetcher()
    pdf = html_to_pdf(page, url_fetcher=fetcher)
    assert pdf.startswith(b"%PDF")
    assert_no_connection(listener)
    assert f"http://127.0.0.1:{port}/x.png" in fetcher.refused
    assert f"http://127.0.0.1:{port}/s.css" in fetcher.refused
    assert "file:///etc/hostname" in fetcher.refused
    assert "Body text" in PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


def test_pdf_default_fetcher_also_refuses_remote_images(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    pdf = html_to_pdf(f'<html><body><img src="http://127.0.0.1:{port}/x.png"><p>ok</p></body></html>')
    assert pdf.startswith(b"%PDF")
    assert_no_connection(listener)


def test_data_urls_are_still_served() -> None:
    fetcher = data_only_url_fetcher()
    pdf = html_to_pdf(f'<html><body><img src="{png_data_url()}"><p>x</p></body></html>', url_fetcher=fetcher)
    assert pdf.startswith(b"%PDF") and fetcher.refused == []
    assert PdfReader(io.BytesIO(pdf)).pages[0].images, "the data: image is embedded"
    with pytest.raises(ValueError, match="only embed data: URLs"):
        fetcher.fetch("https://example.com/a.css")


def test_a_broken_embedded_image_costs_the_image_not_the_pdf() -> None:
    truncated = png_data_url()[:-40]
    pdf = html_to_pdf(f'<html><body><img src="{truncated}"><p>still here</p></body></html>')
    assert "still here" in PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


def test_docx_has_headings_lists_table_and_escaped_html_as_text() -> None:
    document = docx.Document(io.BytesIO(markdown_to_docx(MARKDOWN, "Market Report")))
    paragraphs = [(p.style.name if p.style is not None else "", p.text) for p in document.paragraphs]
    texts = [text for _, text in paragraphs]
    assert ("Heading 1", "Market Report") in paragraphs
    assert ("Heading 2", "Findings") in paragraphs
    assert ("List Bullet", "first finding") in paragraphs
    assert ("List Bullet 2", "nested detail") in paragraphs
    assert "1. step one" in texts and "2. step two" in texts
    assert '<script>alert("pwned")</script>' in texts
    assert "Intro with bold, italic, code and a link (https://example.com/page)." in texts
    assert ("Quote", "quoted remark") in paragraphs
    assert 'print("hi")' in texts
    assert [[c.text for c in row.cells] for row in document.tables[0].rows] == [["Metric", "Value"], ["Growth", "12%"]]
    assert document.core_properties.title == "Market Report"
    intro = next(p for p in document.paragraphs if p.text.startswith("Intro"))
    assert [r.text for r in intro.runs if r.bold] == ["bold"]
    assert [r.text for r in intro.runs if r.italic] == ["italic"]


def test_docx_survives_control_characters() -> None:
    document = docx.Document(io.BytesIO(markdown_to_docx("bell\x07 and nul\x00 text", "t\x01")))
    # markdown-it turns NUL into U+FFFD (CommonMark); the bell would make python-docx raise if kept.
    assert document.paragraphs[0].text == "bell and nul\ufffd text"


def test_nest_headings_shifts_and_ignores_code() -> None:
    source = "# Top\n\n```\n# not a heading\n```\n\nSetext\n------\n"
    assert nest_headings(source, 3) == "### Top\n\n```\n# not a heading\n```\n\n#### Setext\n"
    assert nest_headings("## Already deep", 2) == "## Already deep"
    assert drop_leading_heading("# Same Title\n\nbody", "same  title") == "body"
    assert drop_leading_heading("intro\n\n# Same Title", "Same Title") == "intro\n\n# Same Title"
