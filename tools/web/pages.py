"""Fetch URLs through the guard and turn each page into one markdown/text document.

Shared by web.scrape and web.crawl. A page that cannot be fetched or is refused becomes a note, not an error:
one bad link must not sink the other pages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from core.context import Context
from core.errors import FetchRefused, SiteUnreachable, ToolFailed
from tools.base import NewDocument
from tools.document.md_build import truncate_markdown
from tools.html import TextFormat, html_title, html_to_text
from tools.web.fetch import FetchedPage, GuardedFetcher

ExtractDepth = Literal["basic", "advanced"]

#: extractDepth → (download cap in bytes, kept characters of extracted text per page, pages a crawl visits).
DEPTH_LIMITS: dict[str, tuple[int, int, int]] = {
    "basic": (2_000_000, 20_000, 10),
    "advanced": (8_000_000, 100_000, 25),
}
_HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Extracted text shorter than this share of the HTML's size gets a note.
THIN_EXTRACTION_RATIO = 0.02
_WORKERS = 4


@dataclass
class PageResult:
    url: str
    final_url: str = ""
    title: str = ""
    text: str = ""
    error: str | None = None
    refused: bool = False
    unreachable: bool = False  # the site did not resolve or answer (core/errors.py SiteUnreachable)
    document: str | None = None
    note: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def fetch_pages(
    urls: Sequence[str],
    *,
    context: Context,
    fetcher: GuardedFetcher | None = None,
    depth: ExtractDepth,
    output_format: TextFormat,
) -> list[PageResult]:
    """Fetch and extract every URL (a few in parallel), in the given order. Without `fetcher` a guarded one is
    made from `context` and closed afterwards; a given one stays open (its owner closes it)."""
    if fetcher is None:
        with GuardedFetcher(context) as own:
            return fetch_pages(urls, context=context, fetcher=own, depth=depth, output_format=output_format)
    guard = fetcher
    max_bytes, max_chars, _ = DEPTH_LIMITS[depth]

    def one(url: str) -> PageResult:
        return _fetch_one(guard, url, max_bytes=max_bytes, max_chars=max_chars, output_format=output_format)

    if len(urls) <= 1:
        return [one(u) for u in urls]
    with ThreadPoolExecutor(max_workers=min(_WORKERS, len(urls))) as pool:
        return list(pool.map(one, urls))


def _fetch_one(
    fetcher: GuardedFetcher, url: str, *, max_bytes: int, max_chars: int, output_format: TextFormat
) -> PageResult:
    try:
        page = fetcher.fetch(url, max_bytes=max_bytes)
    except FetchRefused as exc:
        return PageResult(url=url, error=str(exc), refused=True)
    except SiteUnreachable as exc:
        return PageResult(url=url, error=str(exc), unreachable=True)
    except ToolFailed as exc:
        return PageResult(url=url, error=str(exc))
    if not page.ok:
        return PageResult(url=url, final_url=page.final_url, error=f"HTTP {page.status} for {page.final_url}")
    if page.content_type in _HTML_TYPES:
        title = html_title(page.content)
        text = html_to_text(page.content, url=page.final_url, output_format=output_format)
    elif page.content_type == "application/json":
        title, text = "", _pretty_json(page.text, output_format)
    else:
        title, text = "", page.text.strip()
    if not text:
        return PageResult(url=url, final_url=page.final_url, title=title, error=f"no text found on {url}")
    note = _thin_extraction_note(url, text, page) if page.content_type in _HTML_TYPES else None
    text = truncate_markdown(text, max_chars)
    return PageResult(url=url, final_url=page.final_url, title=title, text=text, note=note)


def _thin_extraction_note(url: str, text: str, page: FetchedPage) -> str | None:
    """Say so when the extracted text is a sliver of the page: scripts build it, or the extractor missed it."""
    if len(text) >= THIN_EXTRACTION_RATIO * len(page.content):
        return None
    return (
        f"{url}: only {len(text):,} characters of text were extracted from {len(page.content):,} bytes of HTML "
        f"(under {THIN_EXTRACTION_RATIO:.0%}); the page may be built by scripts and its text may be incomplete"
    )


def _pretty_json(text: str, output_format: TextFormat) -> str:
    try:
        pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text.strip()
    return f"```json\n{pretty}\n```" if output_format == "markdown" else pretty


def page_document(index: int, page: PageResult, output_format: TextFormat) -> NewDocument:
    """`page_<n>.md` (or `.txt`) whose first line is the page URL, then the title and the extracted text."""
    url = page.final_url or page.url
    first_line = page.text.lstrip().split("\n", 1)[0].lstrip("#").strip()
    title = page.title if page.title and page.title != first_line else ""  # extractors often repeat the <h1>
    if output_format == "markdown":
        heading = f"# {title}\n\n" if title else ""
        return NewDocument.text(f"page_{index}.md", f"{url}\n\n{heading}{page.text}\n")
    heading = f"{title}\n\n" if title else ""
    return NewDocument.text(f"page_{index}.txt", f"{url}\n\n{heading}{page.text}\n", mime="text/plain")


def page_documents(pages: Sequence[PageResult], output_format: TextFormat) -> tuple[list[NewDocument], list[str]]:
    """One document per page that worked, numbered by its position in `pages` (`page_3.md` is the third URL,
    so numbers match the results list), and one note per page that did not or whose text is suspiciously thin."""
    documents: list[NewDocument] = []
    notes: list[str] = []
    for position, page in enumerate(pages, start=1):
        if not page.ok:
            error = page.error or "failed"
            notes.append(error if page.url in error else f"{page.url}: {error}")
            continue
        document = page_document(position, page, output_format)
        page.document = document.name
        if page.note:
            notes.append(page.note)
        documents.append(document)
    return documents, notes
