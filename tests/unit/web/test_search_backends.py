"""Search backends: the real TavilyClient against the loopback API, and ddgs with an injected fake client."""

from __future__ import annotations

import pytest
from ddgs.exceptions import DDGSException

from core.context import Context
from core.errors import ConfigurationError, ServiceUnavailable, ToolFailed
from tests.unit.web.conftest import ITEMS, FakeDdgs, LoopbackWeb
from tools.web.search import DdgsBackend, SearchRequest, TavilyBackend, backend_for

# --- Tavily -----------------------------------------------------------------------------------------------------


def test_tavily_maps_every_parameter(tavily_env: LoopbackWeb) -> None:
    request = SearchRequest(
        query="loopback web",
        maxResults=2,
        searchDepth="advanced",
        timeRange="week",
        topic="news",
        includeDomains=["example.com", "python.org"],
        excludeDomains=["spam.example"],
        language="DE",
        includeAnswer=True,
        includeRawContent=True,
    )
    response = TavilyBackend().search(request)
    (call,) = tavily_env.api_calls("/search")
    sent = call["json"]
    assert {k: v for k, v in sent.items() if k != "timeout"} == {
        "query": "loopback web",
        "max_results": 2,
        "search_depth": "advanced",
        "time_range": "week",
        "topic": "news",
        "include_domains": ["example.com", "python.org"],
        "exclude_domains": ["spam.example"],
        "language": "de",
        "include_answer": True,
        "include_raw_content": "markdown",
    }
    assert call["headers"]["Authorization"] == "Bearer tvly-test-key"
    assert "X-Tavily-Access-Mode" not in call["headers"]
    assert response.answer == "Answer about loopback web"
    assert [r.url for r in response.results] == [f"{tavily_env.base}/articles/1", f"{tavily_env.base}/articles/2"]
    first = response.results[0]
    assert (first.title, first.snippet, first.score) == ("Result 1", "Snippet 1 about loopback web", 0.9)
    assert first.rawContent == "Raw content of result 1."


def test_tavily_defaults_leave_unset_options_out(tavily_env: LoopbackWeb) -> None:
    response = TavilyBackend().search(SearchRequest(query="q"))
    sent = tavily_env.api_calls("/search")[0]["json"]
    assert sent["max_results"] == 5 and sent["search_depth"] == "basic" and sent["topic"] == "general"
    assert sent["include_answer"] is False and sent["include_raw_content"] is False
    assert not {"time_range", "include_domains", "exclude_domains", "language", "country"} & set(sent)
    assert response.answer is None and response.results[0].rawContent is None


def test_missing_tavily_key_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch, tavily_env: LoopbackWeb) -> None:
    monkeypatch.delenv("TAVILY_API_KEY")
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY is not set"):
        TavilyBackend()
    monkeypatch.setenv("TAVILY_API_KEY", "  ")
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY is not set"):
        backend_for(Context(search_backend="tavily"))
    assert tavily_env.requests == []  # never a keyless call


def test_a_refused_tavily_key_is_an_outage_of_credentials_naming_the_key(tavily_env: LoopbackWeb) -> None:
    with pytest.raises(ServiceUnavailable, match="refused TAVILY_API_KEY") as refused:
        TavilyBackend(api_key="wrong").search(SearchRequest(query="q"))
    assert not refused.value.temporary and "127.0.0.1" in str(refused.value)


def test_one_busy_answer_of_tavily_is_absorbed_by_retries(tavily_env: LoopbackWeb) -> None:
    tavily_env.search_faults = [503]
    response = TavilyBackend().search(SearchRequest(query="q"))
    assert response.results and len(tavily_env.api_calls("/search")) == 2


@pytest.mark.parametrize("status", [503, 429])
def test_tavily_busy_past_its_retries_is_a_temporary_outage(tavily_env: LoopbackWeb, status: int) -> None:
    tavily_env.search_faults = [status] * 3
    with pytest.raises(ServiceUnavailable, match=r"Tavily at 127\.0\.0\.1") as busy:
        TavilyBackend().search(SearchRequest(query="q"))
    assert busy.value.temporary and len(tavily_env.api_calls("/search")) == 3


def test_tavily_that_refuses_the_connection_is_a_temporary_outage(tavily_env: LoopbackWeb) -> None:
    with pytest.raises(ServiceUnavailable, match="refused the connection") as away:
        TavilyBackend(base_url="http://127.0.0.1:9").search(SearchRequest(query="q"))
    assert away.value.temporary


def test_unreachable_tavily_is_a_tool_failure(tavily_env: LoopbackWeb) -> None:
    with pytest.raises(ToolFailed, match="Tavily search failed"):
        TavilyBackend(base_url=f"{tavily_env.base}/broken").search(SearchRequest(query="q"))


def test_backend_for_picks_by_context(tavily_env: LoopbackWeb) -> None:
    assert isinstance(backend_for(Context(search_backend="tavily")), TavilyBackend)
    assert isinstance(backend_for(Context(search_backend="ddgs")), DdgsBackend)


# --- ddgs -------------------------------------------------------------------------------------------------------


def test_ddgs_maps_time_range_language_and_ranks() -> None:
    fake = FakeDdgs(ITEMS)
    response = DdgsBackend(client=fake).search(
        SearchRequest(query="python", maxResults=3, timeRange="month", language="de")
    )
    kind, query, kwargs = fake.calls[0]
    assert (kind, query) == ("text", "python")
    assert kwargs == {"region": "de-de", "safesearch": "moderate", "timelimit": "m", "max_results": 3}
    assert [r.title for r in response.results] == ["Docs", "Spam", "Blog"]
    assert [r.score for r in response.results] == [1.0, pytest.approx(0.6667), pytest.approx(0.3333)]
    assert response.answer is None and response.notes == []


@pytest.mark.parametrize(("time_range", "limit"), [("day", "d"), ("week", "w"), ("month", "m"), ("year", "y")])
def test_ddgs_timelimits(time_range: str, limit: str) -> None:
    fake = FakeDdgs(ITEMS)
    DdgsBackend(client=fake).search(SearchRequest.model_validate({"query": "q", "timeRange": time_range}))
    assert fake.calls[0][2]["timelimit"] == limit


def test_ddgs_unknown_language_searches_worldwide_without_time_limit() -> None:
    fake = FakeDdgs(ITEMS)
    DdgsBackend(client=fake).search(SearchRequest(query="q", language="xx"))
    assert fake.calls[0][2]["region"] == "wt-wt" and fake.calls[0][2]["timelimit"] is None


def test_ddgs_include_domains_post_filter_with_subdomains_and_overfetch() -> None:
    fake = FakeDdgs(ITEMS)
    response = DdgsBackend(client=fake).search(
        SearchRequest(query="q", maxResults=5, includeDomains=["https://www.python.org/"])
    )
    assert fake.calls[0][2]["max_results"] == 20
    assert [r.url for r in response.results] == ["https://docs.python.org/3/", "https://www.python.org/blogs/"]
    assert response.results[0].score == 1.0


def test_ddgs_exclude_domains_post_filter() -> None:
    response = DdgsBackend(client=FakeDdgs(ITEMS)).search(
        SearchRequest(query="q", excludeDomains="spam.example, other.example")
    )
    assert [r.title for r in response.results] == ["Docs", "Blog"]


def test_ddgs_news_topic_uses_news_search_and_url_key() -> None:
    fake = FakeDdgs([{"title": "News", "url": "https://news.example/a", "body": "b", "date": "2026-11-01"}])
    response = DdgsBackend(client=fake).search(SearchRequest(query="q", topic="news"))
    assert fake.calls[0][0] == "news"
    assert response.results[0].url == "https://news.example/a"


def test_ddgs_reports_what_it_cannot_do() -> None:
    response = DdgsBackend(client=FakeDdgs(ITEMS)).search(
        SearchRequest(query="q", includeAnswer=True, includeRawContent=True, searchDepth="advanced", topic="finance")
    )
    assert len(response.notes) == 4
    assert any("includeAnswer" in n for n in response.notes)


def test_ddgs_no_results_is_empty_but_other_errors_fail() -> None:
    empty = DdgsBackend(client=FakeDdgs(error=DDGSException("No results found."))).search(SearchRequest(query="q"))
    assert empty.results == [] and "no results" in empty.notes[0]
    with pytest.raises(ToolFailed, match="ddgs search failed"):
        DdgsBackend(client=FakeDdgs(error=DDGSException("ratelimit"))).search(SearchRequest(query="q"))


def test_search_request_validates_bounds_and_normalises() -> None:
    with pytest.raises(ValueError):
        SearchRequest(query="q", maxResults=21)
    with pytest.raises(ValueError):
        SearchRequest(query="")
    request = SearchRequest.model_validate({"query": "q", "includeDomains": None, "language": " "})
    assert request.includeDomains == [] and request.language is None
