"""web.scrape (`web_scrape`): search, then fetch every hit through the fetch guard and extract its text."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import Field

from tools.base import ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, register
from tools.html import TextFormat
from tools.web.fetch import GuardedFetcher
from tools.web.pages import ExtractDepth, fetch_pages, page_documents
from tools.web.results import results_document, summary_text
from tools.web.search import SearchBackend, SearchRequest, backend_for

DESCRIPTION = (
    "Search the web and read the result pages: each page's main content is extracted as markdown or text "
    "(page_<n>.md, n = result rank), with search_results.json listing the results. Pages that cannot be "
    "fetched are reported in the notes."
)


class ScrapeArgs(SearchRequest):
    """web.search's parameters plus how to extract the pages."""

    extractDepth: ExtractDepth = Field(
        "basic",
        description="basic: up to 20,000 characters per page; advanced: up to 100,000 and larger pages.",
    )
    format: TextFormat = Field("markdown", description="markdown (headings, lists, tables) or plain text.")


def make_web_scrape_tool(
    deps: ToolDeps, *, backend: SearchBackend | None = None, fetcher: GuardedFetcher | None = None
) -> BaseTool:
    def web_scrape(**kwargs: Any) -> tuple[str, ToolOutput]:
        args = ScrapeArgs.model_validate(kwargs)
        request = SearchRequest.model_validate(args.model_dump())
        response = (backend or backend_for(deps.context)).search(request)
        urls = [r.url for r in response.results]
        pages = fetch_pages(
            urls, context=deps.context, fetcher=fetcher, depth=args.extractDepth, output_format=args.format
        )
        notes = list(response.notes)
        for page, result in zip(pages, response.results, strict=True):
            if not page.ok and not page.refused and result.rawContent and result.rawContent.strip():
                notes.append(f"used the search engine's copy of {page.url} ({page.error})")
                page.error, page.text, page.title = None, result.rawContent.strip(), result.title
        documents, failures = page_documents(pages, args.format)
        named = {rank: p.document for rank, p in enumerate(pages, start=1) if p.document}
        headline = f"Scraped {len(documents)} of {len(pages)} pages for {args.query!r}"
        text = summary_text(args.query, response, headline, named)
        output = ToolOutput(
            documents=[results_document(args.query, response, named), *documents],
            summary=text,
            notes=[*notes, *failures],
        )
        return text, output

    return artifact_tool(web_scrape, name="web_scrape", description=DESCRIPTION, args_schema=ScrapeArgs)


ENTRY = register(
    CatalogEntry(
        display_name="web.scrape",
        tool_name="web_scrape",
        args_schema=ScrapeArgs,
        factory=make_web_scrape_tool,
        purpose="lookup",
        summary="search the web and extract the full text of each result page (one document per page)",
        side_effects=True,
    )
)
