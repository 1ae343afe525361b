"""web.crawl (`web_crawl`): fetch the web pages that earlier documents point to and extract their text.

URLs come from `search_results.json`-style documents (`results[].url`) or, for any other document, from the
absolute http(s) links in its text. They are de-duplicated, capped by extractDepth and fetched through the
fetch guard; every page becomes one document, numbered like `crawl_results.json` lists them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from core.errors import ServiceUnavailable, ToolFailed
from core.outages import host_of
from core.schemas import DocumentRef
from tools.base import NewDocument, ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, register
from tools.html import TextFormat
from tools.web.fetch import GuardedFetcher
from tools.web.pages import DEPTH_LIMITS, ExtractDepth, PageResult, fetch_pages, page_documents

DESCRIPTION = (
    "Read the web pages linked from earlier documents (e.g. a web.search result list): collects their "
    "http(s) URLs, fetches each page and extracts its main content, one document per page."
)
INDEX_NAME = "crawl_results.json"
# The host is a name or a bracketed IPv6 literal (`http://[::1]:8765/a`); the fetch guard vets either.
_URL = re.compile(
    r"https?://(?:\[[0-9a-f:.]+\](?::\d+)?[^\s<>\"'`\[\]{}|\\^()]*|[^\s<>\"'`\[\]{}|\\^()]+)",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?*_~"


class CrawlArgs(BaseModel):
    documentList: list[str] = Field(
        min_length=1,
        description="Documents whose URLs to crawl: docList:<label> or docItem:<label>/<name> references.",
    )
    extractDepth: ExtractDepth = Field(
        "basic",
        description="basic: up to 10 pages of 20,000 characters; advanced: up to 25 pages of 100,000.",
    )
    format: TextFormat = Field("markdown", description="markdown (headings, lists, tables) or plain text.")


def collect_urls(documents: Iterable[tuple[DocumentRef, bytes]]) -> list[str]:
    """Every distinct http(s) URL the documents point to, in order of first appearance (fragments dropped)."""
    seen: dict[str, None] = {}
    for ref, data in documents:
        text = data.decode("utf-8", errors="replace")
        urls = _result_urls(text) if _is_json(ref) else []
        for url in urls or _URL.findall(text):
            cleaned = url.strip().rstrip(_TRAILING).split("#", 1)[0]
            if cleaned.lower().startswith(("http://", "https://")):
                seen.setdefault(cleaned, None)
    return list(seen)


def _is_json(ref: DocumentRef) -> bool:
    return ref.mime == "application/json" or ref.name.lower().endswith(".json")


def _result_urls(text: str) -> list[str]:
    """`results[].url` of a search result list (or `pages[].url` of a crawl index); [] for other JSON."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    items = data.get("results") or data.get("pages") or []
    if not isinstance(items, list):
        return []
    return [str(i["url"]) for i in items if isinstance(i, dict) and isinstance(i.get("url"), str)]


def make_web_crawl_tool(deps: ToolDeps, *, fetcher: GuardedFetcher | None = None) -> BaseTool:
    def web_crawl(**kwargs: Any) -> tuple[str, ToolOutput]:
        args = CrawlArgs.model_validate(kwargs)
        urls = collect_urls(deps.read_documents(args.documentList))
        if not urls:
            raise ToolFailed(f"no http(s) URLs found in {', '.join(args.documentList)}")
        limit = DEPTH_LIMITS[args.extractDepth][2]
        notes = []
        if len(urls) > limit:
            notes.append(f"crawled the first {limit} of {len(urls)} URLs (extractDepth {args.extractDepth})")
            urls = urls[:limit]
        pages = fetch_pages(
            urls, context=deps.context, fetcher=fetcher, depth=args.extractDepth, output_format=args.format
        )
        documents, failures = page_documents(pages, args.format)
        if not documents and pages and all(page.unreachable for page in pages):  # the sites, not the request
            hosts = ", ".join(dict.fromkeys(host_of(page.url) for page in pages))
            what = "could not be reached (" + "; ".join(failures)[:300] + ")"
            raise ServiceUnavailable(f"the site {hosts}", what, "try again once it answers", kind="the site")
        if not documents:
            raise ToolFailed(f"no page could be fetched: {'; '.join(failures)}")
        text = _summary(pages, len(documents))
        output = ToolOutput(
            documents=[_index_document(args.documentList, pages), *documents],
            summary=text,
            notes=[*notes, *failures],
        )
        return text, output

    return artifact_tool(web_crawl, name="web_crawl", description=DESCRIPTION, args_schema=CrawlArgs)


def _index_document(sources: list[str], pages: list[PageResult]) -> NewDocument:
    entries = [
        {
            "url": p.url,
            "finalUrl": p.final_url or None,
            "title": p.title,
            "document": p.document,
            "error": p.error,
        }
        for p in pages
    ]
    payload = {"sources": sources, "pages": entries}
    return NewDocument.text(INDEX_NAME, json.dumps(payload, ensure_ascii=False, indent=2), mime="application/json")


def _summary(pages: list[PageResult], fetched: int) -> str:
    lines = [f"Crawled {fetched} of {len(pages)} pages"]
    for position, page in enumerate(pages, start=1):
        state = page.document if page.document else f"failed: {page.error}"
        lines.append(f"{position}. {page.title or '(untitled)'} — {page.final_url or page.url} — {state}")
    return "\n".join(lines)


ENTRY = register(
    CatalogEntry(
        display_name="web.crawl",
        tool_name="web_crawl",
        args_schema=CrawlArgs,
        factory=make_web_crawl_tool,
        purpose="lookup",
        summary="fetch the pages whose URLs earlier documents list and extract each (one document per page)",
        requires_documents=True,
        side_effects=True,
    )
)
