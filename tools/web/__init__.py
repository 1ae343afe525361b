"""Web actions of the catalog: web.search, web.scrape, web.crawl.

Modules (one job each):
- `policy` — which addresses the fetch guard lets through (public only, plus `Context.fetch_allowlist`).
- `fetch` — `GuardedFetcher`, the single HTTP client every page fetch goes through.
- `search` — `SearchRequest`/`SearchResponse`, the `SearchBackend` protocol, Tavily and ddgs backends.
- `pages` — fetch a list of URLs through the guard and turn each page into a markdown/text document.
- `results` — the `search_results.json` document and the short result summary shared by search and scrape.
- `search_tool`, `scrape_tool`, `crawl_tool` — the LangChain tools; importing one registers its catalog entry.

Nothing here is imported eagerly: `tools.catalog.BUILTIN_MODULES` names the three `*_tool` modules.
"""
