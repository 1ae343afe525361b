"""web.search (`web_search`): one web search, results as JSON plus, on request, each page's full text."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool

from tools.base import ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, register
from tools.web.pages import PageResult, page_document
from tools.web.results import results_document, summary_text
from tools.web.search import SearchBackend, SearchRequest, backend_for

DESCRIPTION = (
    "Search the web. Returns the top results (title, URL, snippet, relevance score) as search_results.json, "
    "optionally a synthesised answer and, with includeRawContent, each result page's text as page_<n>.md."
)


def make_web_search_tool(deps: ToolDeps, *, backend: SearchBackend | None = None) -> BaseTool:
    """The tool; the backend defaults to `context.search_backend`, built at call time so a missing API key
    fails the step with a clear message instead of failing tool construction."""

    def web_search(**kwargs: Any) -> tuple[str, ToolOutput]:
        request = SearchRequest.model_validate(kwargs)
        response = (backend or backend_for(deps.context)).search(request)
        pages = {
            rank: page_document(
                rank, PageResult(url=r.url, title=r.title, text=(r.rawContent or "").strip()), "markdown"
            )
            for rank, r in enumerate(response.results, start=1)
            if r.rawContent and r.rawContent.strip()
        }
        documents = [
            results_document(request.query, response, {rank: doc.name for rank, doc in pages.items()}),
            *pages.values(),
        ]
        text = summary_text(request.query, response, f"{len(response.results)} results for {request.query!r}")
        return text, ToolOutput(documents=documents, summary=text, notes=list(response.notes))

    return artifact_tool(web_search, name="web_search", description=DESCRIPTION, args_schema=SearchRequest)


ENTRY = register(
    CatalogEntry(
        display_name="web.search",
        tool_name="web_search",
        args_schema=SearchRequest,
        factory=make_web_search_tool,
        purpose="lookup",
        summary="search the web; result list (url, title, snippet, score), optional answer and page texts",
        side_effects=True,
    )
)
