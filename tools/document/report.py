"""Report rendering: markdown → standalone HTML, HTML → PDF (weasyprint, no fetches), markdown → DOCX.

The PDF renderer only ever resolves `data:` URLs: a report built from model output or scraped pages must not
make the renderer fetch remote images/stylesheets (tracking, SSRF) or read local files (`file:` disclosure).
"""

from __future__ import annotations

import html as html_lib
import logging
from typing import Any

from core.errors import ToolFailed
from tools.document.md_parser import markdown_parser
from tools.document.report_docx import markdown_to_docx

log = logging.getLogger(__name__)

__all__ = ["REPORT_CSS", "data_only_url_fetcher", "html_to_pdf", "markdown_to_docx", "markdown_to_html"]

REPORT_CSS = """
@page { size: A4; margin: 2cm 1.8cm; @bottom-right { content: counter(page) " / " counter(pages);
  font-size: 8pt; color: #777; } }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10.5pt; line-height: 1.5;
  color: #1f2328; }
body { max-width: 50em; margin: 0 auto; padding: 1em; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.4em 0 0.5em; page-break-after: avoid; }
h1 { font-size: 1.9em; border-bottom: 2px solid #d0d7de; padding-bottom: 0.2em; }
h2 { font-size: 1.45em; border-bottom: 1px solid #d0d7de; padding-bottom: 0.15em; }
h3 { font-size: 1.2em; }
p, ul, ol, table, pre, blockquote { margin: 0 0 0.9em; }
a { color: #0969da; text-decoration: none; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.9em;
  background: #f3f4f6; padding: 0.1em 0.3em; border-radius: 3px; }
pre { background: #f6f8fa; padding: 0.8em; border-radius: 4px; white-space: pre-wrap; word-wrap: break-word; }
pre code { background: none; padding: 0; }
blockquote { border-left: 4px solid #d0d7de; color: #57606a; padding: 0 1em; margin-left: 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; page-break-inside: auto; }
th, td { border: 1px solid #d0d7de; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
tr { page-break-inside: avoid; }
img { max-width: 100%; }
hr { border: 0; border-top: 1px solid #d0d7de; margin: 1.5em 0; }
"""


def markdown_to_html(markdown: str, title: str, *, language: str = "en") -> str:
    """A standalone HTML page; raw HTML in the markdown is escaped, never rendered."""
    body = markdown_parser().render(markdown)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html_lib.escape(language or "en", quote=True)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html_lib.escape(title)}</title>\n<style>{REPORT_CSS}</style>\n</head>\n"
        f"<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )


def data_only_url_fetcher(*, allow_data: bool = True) -> Any:
    """A weasyprint URL fetcher that serves `data:` URLs (unless `allow_data` is False) and refuses everything
    else before any I/O; refused URLs are listed in its `refused` attribute."""
    from weasyprint.urls import URLFetcher

    class DataOnlyURLFetcher(URLFetcher):
        def __init__(self) -> None:
            super().__init__(allowed_protocols={"data"}, allow_redirects=False)
            self.refused: list[str] = []

        def fetch(self, url: str, headers: Any = None) -> Any:
            if not (allow_data and url.lower().startswith("data:")):
                self.refused.append(url)
                raise ValueError(f"refused to fetch {url[:80]}: reports may only embed data: URLs")
            return super().fetch(url, headers)

    return DataOnlyURLFetcher()


def html_to_pdf(html: str, *, url_fetcher: Any = None) -> bytes:
    """PDF bytes of an HTML page; only `data:` resources are loaded (see `data_only_url_fetcher`).

    A malformed embedded image can abort weasyprint mid-render; the page is then rendered once more with no
    resources at all, so a bad image costs the image, not the PDF.
    """
    try:
        return _write_pdf(html, url_fetcher or data_only_url_fetcher())
    except Exception as first:  # weasyprint/PIL/pango raise many types; retry without resources
        log.warning("PDF rendering failed (%s); retrying without embedded resources", first)
        try:
            return _write_pdf(html, data_only_url_fetcher(allow_data=False))
        except Exception as exc:
            raise ToolFailed(f"PDF rendering failed: {exc or type(exc).__name__}") from exc


def _write_pdf(html: str, url_fetcher: Any) -> bytes:
    import weasyprint

    pdf = weasyprint.HTML(string=html, base_url=None, url_fetcher=url_fetcher).write_pdf()
    if not isinstance(pdf, bytes):
        raise ToolFailed("PDF rendering produced no output")
    return pdf
