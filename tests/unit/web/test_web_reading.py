"""How pages are read once fetched: robots.txt loaded once per host, clear refusals, IPv6 links, thin pages."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from core.context import Context
from core.errors import FetchRefused
from core.schemas import DocumentRef
from tests.unit.web.conftest import LoopbackWeb
from tools.document.md_build import TRUNCATION_MARK, truncate_markdown
from tools.document.md_parser import markdown_parser
from tools.web.crawl_tool import collect_urls
from tools.web.fetch import GuardedFetcher
from tools.web.pages import fetch_pages, page_documents


def test_robots_txt_is_fetched_once_per_host_when_pages_are_fetched_concurrently(web: LoopbackWeb) -> None:
    web.robots_delay = 0.3  # every worker asks before the first answer arrives
    guard = GuardedFetcher(Context(fetch_allowlist="127.0.0.1"))
    with ThreadPoolExecutor(max_workers=4) as pool:
        pages = list(pool.map(guard.fetch, [f"{web.base}/articles/{n}" for n in range(4)]))
    assert all(page.ok for page in pages)
    assert len(web.gets("/robots.txt")) == 1


def test_robots_server_error_says_it_was_a_server_error(web: LoopbackWeb) -> None:
    web.robots_status = 503
    guard = GuardedFetcher(Context(fetch_allowlist="127.0.0.1"))
    with pytest.raises(FetchRefused, match=r"robots\.txt of .* answered HTTP 503 \(a server error\)"):
        guard.fetch(f"{web.base}/articles/1")


def test_ipv6_literal_urls_are_collected_and_then_guarded_like_any_address() -> None:
    ref = DocumentRef(label="notes", name="links.md", mime="text/markdown", size=1, sha256="0" * 64)
    text = b"Mirror at http://[::1]:8765/a.html, and http://[2001:db8::7]/b too."
    urls = collect_urls([(ref, text)])
    assert urls == ["http://[::1]:8765/a.html", "http://[2001:db8::7]/b"]
    guard = GuardedFetcher(Context(fetch_allowlist=""))
    with pytest.raises(FetchRefused, match=r"::1 is a loopback address"):
        guard.fetch(urls[0])
    with pytest.raises(FetchRefused, match=r"2001:db8::7 is a .*address"):
        guard.fetch(urls[1])


def test_a_page_reduced_to_a_sliver_of_its_html_gets_a_note(web: LoopbackWeb) -> None:
    context = Context(fetch_allowlist="127.0.0.1")
    pages = fetch_pages(
        [f"{web.base}/thin", f"{web.base}/articles/1"], context=context, depth="basic", output_format="markdown"
    )
    documents, notes = page_documents(pages, "markdown")
    assert len(documents) == 2
    assert len(notes) == 1 and notes[0].startswith(f"{web.base}/thin: only ")
    assert "under 2%" in notes[0]


def test_truncation_closes_an_open_code_fence_and_marks_the_cut_outside_it() -> None:
    text = "Intro\n\n```python\n" + "\n".join(f"line_{n} = {n}" for n in range(200)) + "\n```\n\nAfter"
    cut = truncate_markdown(text, 300)
    tokens = markdown_parser().parse(cut)
    fences = [token for token in tokens if token.type == "fence"]
    assert len(fences) == 1 and TRUNCATION_MARK not in fences[0].content
    assert cut.endswith(TRUNCATION_MARK)
    assert any(token.type == "inline" and token.content == TRUNCATION_MARK for token in tokens)


def test_truncation_outside_fences_only_adds_the_mark() -> None:
    text = "```\ncode\n```\n\n" + "word " * 200
    cut = truncate_markdown(text, 100)
    assert cut == text[:100].rstrip() + "\n\n" + TRUNCATION_MARK
