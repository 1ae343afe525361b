"""How search results are written down: the `search_results.json` document and the short summary text.

web.search and web.scrape write the same JSON so a later web.crawl (or ai.process) can read either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from tools.base import NewDocument
from tools.web.search import SearchResponse

RESULTS_NAME = "search_results.json"
_SUMMARY_LINES = 5


def results_document(query: str, response: SearchResponse, documents: Mapping[int, str] | None = None) -> NewDocument:
    """{"query","answer","results":[{url,title,snippet,score[,document]}]}; `documents` maps rank (1-based) to
    the name of the page document written for that result."""
    documents = documents or {}
    results = []
    for rank, result in enumerate(response.results, start=1):
        entry: dict[str, object] = {
            "url": result.url,
            "title": result.title,
            "snippet": result.snippet,
            "score": result.score,
        }
        if rank in documents:
            entry["document"] = documents[rank]
        results.append(entry)
    payload = {"query": query, "answer": response.answer, "results": results}
    return NewDocument.text(RESULTS_NAME, json.dumps(payload, ensure_ascii=False, indent=2), mime="application/json")


def summary_text(
    query: str, response: SearchResponse, headline: str, documents: Mapping[int, str] | None = None
) -> str:
    """Headline, the answer if any, then the top results as `title — url — score` (`— page_<n>.md` or
    `— not fetched` appended when `documents` says which results became pages)."""
    lines = [headline]
    if response.answer:
        lines.append(f"Answer: {response.answer}")
    for rank, result in enumerate(response.results[:_SUMMARY_LINES], start=1):
        line = f"{rank}. {result.title or '(untitled)'} — {result.url} — {result.score:.2f}"
        if documents is not None:
            line += f" — {documents.get(rank, 'not fetched')}"
        lines.append(line)
    if len(response.results) > _SUMMARY_LINES:
        lines.append(f"… {len(response.results) - _SUMMARY_LINES} more in {RESULTS_NAME}")
    if not response.results:
        lines.append(f"No results for {query!r}.")
    return "\n".join(lines)
