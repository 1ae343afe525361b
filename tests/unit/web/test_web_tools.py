"""web.search, web.scrape and web.crawl as LangChain tools, end to end against the loopback web."""

from __future__ import annotations

import json

import pytest

from core.errors import ConfigurationError, ServiceUnavailable, ToolFailed
from tests.unit.web.conftest import ITEMS, FakeDdgs, LoopbackWeb, make_deps, run_tool
from tools import catalog
from tools.base import NewDocument, ToolDeps, ToolOutput
from tools.documents import DocumentStore
from tools.web import crawl_tool, scrape_tool, search_tool
from tools.web.crawl_tool import collect_urls, make_web_crawl_tool
from tools.web.scrape_tool import make_web_scrape_tool
from tools.web.search import DdgsBackend
from tools.web.search_tool import make_web_search_tool

SEARCH_PARAMS = [
    "query",
    "maxResults",
    "searchDepth",
    "timeRange",
    "topic",
    "includeDomains",
    "excludeDomains",
    "language",
    "includeAnswer",
    "includeRawContent",
]


def docs_by_name(output: ToolOutput) -> dict[str, NewDocument]:
    return {d.name: d for d in output.documents}


def text_of(document: NewDocument) -> str:
    return document.data.decode("utf-8")


# --- registration -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "display", "tool_name", "params"),
    [
        (search_tool, "web.search", "web_search", SEARCH_PARAMS),
        (scrape_tool, "web.scrape", "web_scrape", [*SEARCH_PARAMS, "extractDepth", "format"]),
        (crawl_tool, "web.crawl", "web_crawl", ["documentList", "extractDepth", "format"]),
    ],
)
def test_tools_are_registered_with_spec_names(
    module: object, display: str, tool_name: str, params: list[str], store: DocumentStore
) -> None:
    entry = module.ENTRY  # type: ignore[attr-defined]
    assert catalog._REGISTRY[display] is entry
    assert (entry.display_name, entry.tool_name, entry.purpose) == (display, tool_name, "lookup")
    assert entry.parameter_names == params
    tool = entry.factory(make_deps(store))
    assert tool.name == tool_name and tool.response_format == "content_and_artifact"
    assert list(tool.args) == params
    assert all(spec.get("description") for spec in tool.args.values())


# --- web.search -------------------------------------------------------------------------------------------------


def test_web_search_writes_results_json_and_raw_pages(deps: ToolDeps, tavily_env: LoopbackWeb) -> None:
    content, output = run_tool(
        make_web_search_tool(deps),
        {"query": "loopback", "maxResults": 2, "includeAnswer": True, "includeRawContent": True},
    )
    documents = docs_by_name(output)
    assert list(documents) == ["search_results.json", "page_1.md", "page_2.md"]
    results = json.loads(text_of(documents["search_results.json"]))
    assert documents["search_results.json"].mime == "application/json"
    assert results["query"] == "loopback" and results["answer"] == "Answer about loopback"
    assert results["results"][0] == {
        "url": f"{tavily_env.base}/articles/1",
        "title": "Result 1",
        "snippet": "Snippet 1 about loopback",
        "score": 0.9,
        "document": "page_1.md",
    }
    page = text_of(documents["page_2.md"])
    assert page.splitlines()[0] == f"{tavily_env.base}/articles/2"
    assert "Raw content of result 2." in page
    assert f"1. Result 1 — {tavily_env.base}/articles/1 — 0.90" in content
    assert "Answer: Answer about loopback" in content
    assert output.summary == content


def test_web_search_without_raw_content_writes_only_the_list(deps: ToolDeps, tavily_env: LoopbackWeb) -> None:
    _, output = run_tool(make_web_search_tool(deps), {"query": "loopback"})
    assert [d.name for d in output.documents] == ["search_results.json"]
    results = json.loads(text_of(output.documents[0]))
    assert set(results["results"][0]) == {"url", "title", "snippet", "score"}
    assert results["answer"] is None


def test_web_search_missing_key_fails_when_called(
    monkeypatch: pytest.MonkeyPatch, store: DocumentStore, tavily_env: LoopbackWeb
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY")
    tool = make_web_search_tool(make_deps(store))  # building the tool does not need the key
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY"):
        run_tool(tool, {"query": "q"})
    assert tavily_env.requests == []


def test_web_search_with_ddgs_backend_passes_notes(store: DocumentStore) -> None:
    tool = make_web_search_tool(make_deps(store), backend=DdgsBackend(client=FakeDdgs(ITEMS)))
    content, output = run_tool(tool, {"query": "python", "includeAnswer": True, "includeDomains": ["python.org"]})
    assert "2 results for 'python'" in content
    assert output.notes == ["ddgs backend gives no answer: includeAnswer ignored"]


# --- web.scrape -------------------------------------------------------------------------------------------------


def test_web_scrape_extracts_each_page_and_notes_failures(deps: ToolDeps, tavily_env: LoopbackWeb) -> None:
    tavily_env.search_results = ["/articles/1", "/private/secret", "/articles/2", "/missing", "/image.png"]
    content, output = run_tool(make_web_scrape_tool(deps), {"query": "loopback web", "maxResults": 5})
    documents = docs_by_name(output)
    assert list(documents) == ["search_results.json", "page_1.md", "page_3.md"]
    page = text_of(documents["page_1.md"])
    lines = page.splitlines()
    assert lines[0] == f"{tavily_env.base}/articles/1"
    assert page.count("# Article 1") == 1 and "Paragraph one of article 1" in page
    assert "- first point 1" in page
    assert documents["page_1.md"].mime == "text/markdown"
    results = json.loads(text_of(documents["search_results.json"]))
    assert [r.get("document") for r in results["results"]] == ["page_1.md", None, "page_3.md", None, None]
    assert len(output.notes) == 3
    assert any("robots.txt" in n and "/private/secret" in n for n in output.notes)
    assert any("HTTP 404" in n for n in output.notes)
    assert any("image/png" in n for n in output.notes)
    assert tavily_env.gets("/private/secret") == []
    assert content.startswith("Scraped 2 of 5 pages for 'loopback web'")
    assert f"1. Result 1 — {tavily_env.base}/articles/1 — 0.90 — page_1.md" in content
    assert f"2. Result 2 — {tavily_env.base}/private/secret — 0.80 — not fetched" in content


def test_web_scrape_plain_text_format(deps: ToolDeps, tavily_env: LoopbackWeb) -> None:
    _, output = run_tool(make_web_scrape_tool(deps), {"query": "q", "maxResults": 1, "format": "text"})
    page = docs_by_name(output)["page_1.txt"]
    assert page.mime == "text/plain"
    assert "Paragraph two of article 1" in text_of(page) and "# " not in text_of(page)


def test_web_scrape_falls_back_to_search_copy_but_not_for_refusals(deps: ToolDeps, tavily_env: LoopbackWeb) -> None:
    tavily_env.search_results = ["/missing", "/private/secret"]
    _, output = run_tool(make_web_scrape_tool(deps), {"query": "q", "includeRawContent": True})
    documents = docs_by_name(output)
    assert list(documents) == ["search_results.json", "page_1.md"]
    assert "Raw content of result 1." in text_of(documents["page_1.md"])
    assert any("search engine's copy" in n for n in output.notes)
    assert any("robots.txt" in n for n in output.notes)


def test_web_scrape_without_allow_list_refuses_loopback_pages(store: DocumentStore, tavily_env: LoopbackWeb) -> None:
    _, output = run_tool(make_web_scrape_tool(make_deps(store, fetch_allowlist="")), {"query": "q"})
    assert [d.name for d in output.documents] == ["search_results.json"]
    assert all("loopback" in n for n in output.notes) and len(output.notes) == 2
    assert tavily_env.gets("/articles/1") == []


# --- web.crawl --------------------------------------------------------------------------------------------------


def test_web_crawl_reads_urls_from_documents(store: DocumentStore, tavily_env: LoopbackWeb) -> None:
    base = tavily_env.base
    results = {"query": "q", "answer": None, "results": [{"url": f"{base}/articles/1"}, {"url": f"{base}/data.json"}]}
    label = "round1_task1_action1_search"
    refs = [
        store.put_text(json.dumps(results), label=label, name="search_results.json", mime="application/json"),
        store.put_text(
            f"See {base}/articles/1#top, then ({base}/articles/5). Also {base}/private/secret.",
            label="input",
            name="notes.md",
        ),
    ]
    deps = make_deps(store, refs)
    content, output = run_tool(
        make_web_crawl_tool(deps), {"documentList": [f"docList:{label}", "docItem:input/notes.md"]}
    )
    documents = docs_by_name(output)
    assert list(documents) == ["crawl_results.json", "page_1.md", "page_2.md", "page_3.md"]
    assert text_of(documents["page_3.md"]).startswith(f"{base}/articles/5\n")
    assert "Paragraph one of article 5" in text_of(documents["page_3.md"])
    assert '"name": "loopback"' in text_of(documents["page_2.md"])
    index = json.loads(text_of(documents["crawl_results.json"]))
    assert [p["url"] for p in index["pages"]] == [
        f"{base}/articles/1",
        f"{base}/data.json",
        f"{base}/articles/5",
        f"{base}/private/secret",
    ]
    assert index["pages"][3]["document"] is None and "robots.txt" in index["pages"][3]["error"]
    assert len(output.notes) == 1
    assert content.startswith("Crawled 3 of 4 pages")


def test_web_crawl_caps_pages_by_depth(store: DocumentStore, tavily_env: LoopbackWeb) -> None:
    urls = "\n".join(f"{tavily_env.base}/articles/{n}" for n in range(12))
    refs = [store.put_text(urls, label="input", name="links.txt", mime="text/plain")]
    _, output = run_tool(
        make_web_crawl_tool(make_deps(store, refs)), {"documentList": ["docList:input"], "format": "text"}
    )
    assert len(output.documents) == 11  # index + 10 pages
    assert output.notes == ["crawled the first 10 of 12 URLs (extractDepth basic)"]


def test_a_crawl_whose_every_site_is_unreachable_is_an_outage_not_a_failed_action(
    store: DocumentStore, tavily_env: LoopbackWeb, unused_loopback_port: int
) -> None:
    """Issue 52: the sites being away says nothing about the action; one page of several away stays a note."""
    away = f"http://127.0.0.1:{unused_loopback_port}"
    refs = [store.put_text(f"{away}/a\n{away}/b", label="input", name="links.txt", mime="text/plain")]
    with pytest.raises(ServiceUnavailable, match=r"the site 127\.0\.0\.1 could not be reached") as raised:
        run_tool(make_web_crawl_tool(make_deps(store, refs)), {"documentList": ["docList:input"]})
    assert raised.value.temporary
    mixed = [store.put_text(f"{away}/a\n{tavily_env.base}/articles/1", label="input", name="mixed.txt")]
    _, output = run_tool(make_web_crawl_tool(make_deps(store, mixed)), {"documentList": ["docList:input"]})
    assert len(output.documents) == 2 and any("cannot connect" in note for note in output.notes)


def test_web_crawl_without_urls_fails(store: DocumentStore) -> None:
    refs = [store.put_text("no links here", label="input", name="plain.md")]
    with pytest.raises(ToolFailed, match="no http"):
        run_tool(make_web_crawl_tool(make_deps(store, refs)), {"documentList": ["docList:input"]})


def test_collect_urls_dedupes_and_strips_punctuation(store: DocumentStore) -> None:
    ref = store.put_text("x", label="input", name="a.md")
    text = "Go to https://a.example/x. Or <https://a.example/x>, [b](https://b.example/y?q=1) ftp://c.example"
    assert collect_urls([(ref, text.encode())]) == ["https://a.example/x", "https://b.example/y?q=1"]
