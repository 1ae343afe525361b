"""HTML → markdown/text with trafilatura, falling back to lxml's plain text when trafilatura finds no main content.

Only ever handed HTML that was already fetched (by the guarded fetcher) or read from a file: trafilatura's own
`fetch_url` would bypass the fetch guard.
"""

from __future__ import annotations

from typing import Literal

import lxml.html
import trafilatura

TextFormat = Literal["markdown", "text"]


def html_to_text(html: str | bytes, url: str | None = None, output_format: TextFormat = "markdown") -> str:
    """Main content of a page; never None, empty only for pages without any visible text."""
    extracted = trafilatura.extract(
        html,
        url=url,
        output_format="markdown" if output_format == "markdown" else "txt",
        include_tables=True,
        include_links=False,
        favor_recall=True,
    )
    if extracted and extracted.strip():
        return extracted.strip()
    return _visible_text(html)


def html_title(html: str | bytes) -> str:
    """The page's <title>, or '' (trafilatura's metadata sometimes mis-reads titles)."""
    try:
        tree = lxml.html.fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return ""
    title = tree.findtext(".//title") or ""
    return " ".join(title.split())


def _visible_text(html: str | bytes) -> str:
    try:
        tree = lxml.html.fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return ""
    for bad in tree.xpath("//script|//style|//noscript|//template"):
        bad.drop_tree()
    lines = (" ".join(line.split()) for line in tree.text_content().splitlines())
    return "\n".join(line for line in lines if line)
