"""Web search backends behind one protocol: Tavily (API key) and ddgs (keyless).

`SearchRequest` carries every web.search parameter under its catalog name and doubles as the tool's argument
schema, so the model, the tool and the backends agree on one definition. A backend reports what it could not
honour in `SearchResponse.notes` instead of dropping it silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.context import Context
from core.errors import ConfigurationError, ServiceUnavailable, ToolFailed
from core.outages import host_of, tool_outage


class SearchRequest(BaseModel):
    """Arguments of web.search (and the search part of web.scrape)."""

    model_config = ConfigDict(extra="ignore")

    query: str = Field(min_length=1, description="What to search the web for, as a search-engine query.")
    maxResults: int = Field(5, ge=1, le=20, description="How many results to return (1-20).")
    searchDepth: Literal["basic", "advanced"] = Field(
        "basic", description="basic: fast lookup; advanced: deeper, more relevant search (slower)."
    )
    timeRange: Literal["day", "week", "month", "year"] | None = Field(
        None, description="Only results from the last day/week/month/year; null unless freshness matters."
    )
    topic: Literal["general", "news", "finance"] = Field(
        "general", description="Search category: general web, news articles, or finance."
    )
    includeDomains: list[str] = Field(
        default_factory=list, description="Only return results from these domains, e.g. ['python.org']."
    )
    excludeDomains: list[str] = Field(default_factory=list, description="Never return results from these domains.")
    language: str | None = Field(
        None, description="ISO 639-1 code of the language results should be in, e.g. 'de'; null for any."
    )
    includeAnswer: bool = Field(False, description="Also return a short answer synthesised from the results.")
    includeRawContent: bool = Field(
        False, description="Also return each result page's full text (one markdown document per result)."
    )

    @field_validator("includeDomains", "excludeDomains", mode="before")
    @classmethod
    def _domain_list(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [d.strip() for d in value.split(",") if d.strip()]
        return value

    @field_validator("language", mode="before")
    @classmethod
    def _language_code(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip().lower() or None
        return value


class SearchResult(BaseModel):
    url: str
    title: str = ""
    snippet: str = ""
    score: float = 0.0
    rawContent: str | None = None


class SearchResponse(BaseModel):
    answer: str | None = None
    results: list[SearchResult] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class SearchBackend(Protocol):
    def search(self, request: SearchRequest) -> SearchResponse: ...


def backend_for(context: Context) -> SearchBackend:
    """The backend `context.search_backend` names; Tavily needs TAVILY_API_KEY (checked here, not later)."""
    if context.search_backend == "ddgs":
        return DdgsBackend()
    if context.search_backend == "tavily":
        return TavilyBackend()
    raise ConfigurationError(f"unknown search_backend {context.search_backend!r}; use 'tavily' or 'ddgs'")


# --- Tavily -------------------------------------------------------------------------------------------------


class TavilyBackend:
    """Tavily's search API through tavily-python.

    The key comes from `api_key` or TAVILY_API_KEY and is required: without one tavily-python silently falls
    back to a rate-limited keyless mode, which we never want. TAVILY_BASE_URL (or `base_url`) points it
    elsewhere, e.g. at a loopback test server. `language` is sent as the `language` search parameter that
    tavily-python (0.8.5) exposes — a preference, not `filter_by_language`; `country` is a location boost,
    not a language, and is never derived from it.
    """

    def __init__(self, api_key: str | None = None, base_url: str | None = None, timeout: float = 60.0) -> None:
        from tavily import TavilyClient

        key = api_key or os.environ.get("TAVILY_API_KEY", "").strip()
        if not key:
            raise ConfigurationError(
                "TAVILY_API_KEY is not set: export it for web search via Tavily, or set "
                "search_backend='ddgs' (env PAOR_SEARCH_BACKEND=ddgs) for the keyless backend"
            )
        self.timeout = timeout
        base = base_url or os.environ.get("TAVILY_BASE_URL", "").strip() or None
        self.client = TavilyClient(api_key=key, api_base_url=base, session=_retrying_session())

    @staticmethod
    def search_kwargs(request: SearchRequest) -> dict[str, Any]:
        """Tavily's search kwargs for `request`; unset optional parameters are left out, not sent as null."""
        kwargs: dict[str, Any] = {
            "query": request.query,
            "max_results": request.maxResults,
            "search_depth": request.searchDepth,
            "topic": request.topic,
            "include_answer": request.includeAnswer,
            "include_raw_content": "markdown" if request.includeRawContent else False,
        }
        optional = {
            "time_range": request.timeRange,
            "include_domains": request.includeDomains,
            "exclude_domains": request.excludeDomains,
            "language": request.language,
        }
        kwargs.update({k: v for k, v in optional.items() if v})
        return kwargs

    def search(self, request: SearchRequest) -> SearchResponse:
        from tavily.errors import BadRequestError, ForbiddenError, InvalidAPIKeyError, UsageLimitExceededError

        service = f"web search (Tavily at {host_of(self.client.base_url)})"
        try:
            data = self.client.search(**self.search_kwargs(request), timeout=self.timeout)
        except (InvalidAPIKeyError, ForbiddenError) as exc:  # 401; 403 and the plan limits 432/433
            what = f"refused TAVILY_API_KEY ({type(exc).__name__})"
            hint = "check TAVILY_API_KEY and its plan"
            raise ServiceUnavailable(service, what, hint, kind="web search (Tavily)", temporary=False) from exc
        except UsageLimitExceededError as exc:  # 429, after the session's retries
            busy = "is rate-limiting this key (HTTP 429)"
            raise ServiceUnavailable(service, busy, "try again later", kind="web search (Tavily)") from exc
        except BadRequestError as exc:
            raise ToolFailed(f"Tavily search failed ({type(exc).__name__}): {exc}") from exc
        except Exception as exc:  # requests/HTTP errors of the client library
            if (outage := tool_outage(exc, service, "web search (Tavily)")) is not None:
                raise outage from exc
            raise ToolFailed(f"Tavily search failed: {type(exc).__name__}: {exc}") from exc
        results = [
            SearchResult(
                url=str(item.get("url", "")),
                title=str(item.get("title") or ""),
                snippet=str(item.get("content") or ""),
                score=float(item.get("score") or 0.0),
                rawContent=item.get("raw_content") or None,
            )
            for item in data.get("results", [])
            if item.get("url")
        ]
        return SearchResponse(answer=data.get("answer") or None, results=results)


def _retrying_session() -> Any:
    """A requests session that absorbs a flaky search API: 429 and 5xx answers and dropped connections are retried
    twice with a growing wait (0.5 s, 1 s, or the API's Retry-After); what outlasts them is an outage."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    retry = Retry(
        total=2,
        backoff_factor=0.5,
        status_forcelist=(429, 500, 502, 503, 504),
        allowed_methods=None,  # Tavily's search is a POST: retry it too (it changes nothing)
        respect_retry_after_header=True,
        raise_on_status=False,  # the last answer reaches the client, which names it
    )
    session = requests.Session()
    for scheme in ("http://", "https://"):
        session.mount(scheme, HTTPAdapter(max_retries=retry))
    return session


# --- ddgs ---------------------------------------------------------------------------------------------------

#: ISO 639-1 → ddgs region, for languages with one obvious region; others search worldwide ("wt-wt").
_DDGS_REGIONS = {
    "en": "us-en", "de": "de-de", "fr": "fr-fr", "es": "es-es", "it": "it-it", "nl": "nl-nl", "pt": "pt-pt",
    "pl": "pl-pl", "sv": "se-sv", "da": "dk-da", "fi": "fi-fi", "no": "no-no", "nb": "no-no", "cs": "cz-cs",
    "ru": "ru-ru", "uk": "ua-uk", "tr": "tr-tr", "el": "gr-el", "ja": "jp-jp", "ko": "kr-kr", "zh": "cn-zh",
    "ar": "xa-ar", "he": "il-he", "hu": "hu-hu", "ro": "ro-ro", "vi": "vn-vi", "th": "th-th", "id": "id-id",
}  # fmt: skip
_TIMELIMITS = {"day": "d", "week": "w", "month": "m", "year": "y"}


class DdgsClient(Protocol):
    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...
    def news(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


class DdgsBackend:
    """Keyless metasearch through the `ddgs` package.

    Mapping: timeRange → timelimit d/w/m/y; topic news → news search, finance → general text search;
    language → region (`de` → `de-de`, unknown → worldwide); include/excludeDomains filter the result URLs
    afterwards (extra candidates are requested so filtering still leaves maxResults); score falls with rank.
    ddgs has no answer, raw content or depth: asking for them is reported in notes.
    """

    def __init__(
        self, client: DdgsClient | None = None, client_factory: Callable[[], DdgsClient] | None = None
    ) -> None:
        self._client = client
        self._factory = client_factory

    def _get_client(self) -> DdgsClient:
        if self._client is None:
            if self._factory is not None:
                self._client = self._factory()
            else:
                from ddgs import DDGS

                self._client = DDGS(timeout=10)
        return self._client

    def search(self, request: SearchRequest) -> SearchResponse:
        from ddgs.exceptions import DDGSException

        notes = self._unsupported(request)
        filtered = bool(request.includeDomains or request.excludeDomains)
        kwargs: dict[str, Any] = {
            "region": _DDGS_REGIONS.get((request.language or "")[:2], "wt-wt"),
            "safesearch": "moderate",
            "timelimit": _TIMELIMITS.get(request.timeRange or ""),
            "max_results": min(request.maxResults * 4, 50) if filtered else request.maxResults,
        }
        client = self._get_client()
        method = client.news if request.topic == "news" else client.text
        try:
            raw = method(request.query, **kwargs)
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                return SearchResponse(results=[], notes=[*notes, "ddgs found no results"])
            raise ToolFailed(f"ddgs search failed: {type(exc).__name__}: {exc}") from exc
        items = [(str(item.get("href") or item.get("url") or ""), item) for item in raw]
        kept = [
            (url, item)
            for url, item in items
            if url and _domain_ok(url, request.includeDomains, request.excludeDomains)
        ][: request.maxResults]
        results = [
            SearchResult(
                url=url,
                title=str(item.get("title") or ""),
                snippet=str(item.get("body") or ""),
                score=round(1.0 - rank / max(len(kept), 1), 4),
            )
            for rank, (url, item) in enumerate(kept)
        ]
        return SearchResponse(results=results, notes=notes)

    @staticmethod
    def _unsupported(request: SearchRequest) -> list[str]:
        notes = []
        if request.includeAnswer:
            notes.append("ddgs backend gives no answer: includeAnswer ignored")
        if request.includeRawContent:
            notes.append("ddgs backend gives no page content: use web.scrape for full pages")
        if request.searchDepth == "advanced":
            notes.append("ddgs backend has no search depth: searchDepth advanced ran as basic")
        if request.topic == "finance":
            notes.append("ddgs backend has no finance topic: ran a general search")
        return notes


def _normalise_domain(domain: str) -> str:
    text = domain.strip().lower()
    host = urlsplit(text if "//" in text else f"//{text}").hostname or ""
    host = host.removeprefix("*.").removeprefix("www.")
    return host.rstrip(".")


def _domain_ok(url: str, include: list[str], exclude: list[str]) -> bool:
    """Whether the URL's host is (a subdomain of) an included domain and of no excluded one."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")

    def matches(domain: str) -> bool:
        d = _normalise_domain(domain)
        return bool(d) and (host == d or host.endswith("." + d))

    if include and not any(matches(d) for d in include):
        return False
    return not any(matches(d) for d in exclude)
