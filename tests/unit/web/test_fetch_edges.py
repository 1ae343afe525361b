"""The fetch guard at its edges, against a mock transport: robots.txt per origin and per user agent, caps at the
exact byte, bodies in many chunks, missing headers, proxies from the environment, and the messages a user reads."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from core.context import Context
from core.errors import FetchRefused, ToolFailed
from tests.unit.web.conftest import FakeResolver, LoopbackWeb
from tools.web.fetch import USER_AGENT, GuardedFetcher

PUBLIC = {"one.example": ["93.184.216.34"], "two.example": ["93.184.216.35"]}
Route = Callable[[httpx.Request], httpx.Response]


def site(routes: dict[str, Route], robots: dict[str, str] | None = None) -> httpx.MockTransport:
    """Hosts answer `routes` by path; robots.txt per host from `robots` (404 when a host has none)."""

    def handle(request: httpx.Request) -> httpx.Response:
        host = request.headers["host"]
        if request.url.path == "/robots.txt":
            rules = (robots or {}).get(host)
            return httpx.Response(404) if rules is None else httpx.Response(200, text=rules)
        return routes[request.url.path](request)

    return httpx.MockTransport(handle)


def page(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, html="<p>hello</p>")


@pytest.fixture
def dns(fake_dns: FakeResolver) -> list[str]:
    return fake_dns(PUBLIC)


def test_robots_rules_are_kept_per_origin(dns: list[str]) -> None:
    robots = {"one.example": "User-agent: *\nDisallow: /private/\n", "two.example": "User-agent: *\nAllow: /\n"}
    guard = GuardedFetcher(Context(), transport=site({"/private/x": page}, robots))
    with pytest.raises(FetchRefused, match=r"robots\.txt of https://one\.example disallows"):
        guard.fetch("https://one.example/private/x")
    assert guard.fetch("https://two.example/private/x").ok
    with pytest.raises(FetchRefused):
        guard.fetch("https://ONE.example/private/x")  # the same origin, however the host is spelled


def test_robots_rules_addressed_to_paor_by_name_are_obeyed(dns: list[str]) -> None:
    robots = {"one.example": "User-agent: paor\nDisallow: /\n\nUser-agent: *\nAllow: /\n"}
    guard = GuardedFetcher(Context(), transport=site({"/a": page}, robots))
    with pytest.raises(FetchRefused, match=re.escape(f"disallows this path for user agent '{USER_AGENT}'")):
        guard.fetch("https://one.example/a")
    assert (
        GuardedFetcher(Context(), transport=site({"/a": page}, robots), user_agent="other/1.0")
        .fetch("https://one.example/a")
        .ok
    )


@pytest.mark.parametrize("status", [500, 503])
def test_a_robots_server_error_refuses_the_site_and_says_to_try_later(dns: list[str], status: int) -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status) if request.url.path == "/robots.txt" else page(request)

    guard = GuardedFetcher(Context(), transport=httpx.MockTransport(handle))
    with pytest.raises(FetchRefused) as refused:
        guard.fetch("https://one.example/a")
    assert str(refused.value) == (
        f"refused https://one.example/a: robots.txt of https://one.example answered HTTP {status} (a server error), "
        "which RFC 9309 says to treat as disallowing the whole site; try again later"
    )


def test_a_body_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(dns: list[str]) -> None:
    def exact(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 100, headers={"content-type": "text/plain"})

    def streamed(request: httpx.Request) -> httpx.Response:  # no content-length: counted while reading
        return httpx.Response(200, content=iter([b"y" * 60, b"y" * 40]), headers={"content-type": "text/plain"})

    def over(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter([b"z" * 60, b"z" * 41]), headers={"content-type": "text/plain"})

    guard = GuardedFetcher(Context(), transport=site({"/exact": exact, "/streamed": streamed, "/over": over}))
    assert guard.fetch("https://one.example/exact", max_bytes=100).content == b"x" * 100
    assert guard.fetch("https://one.example/streamed", max_bytes=100).content == b"y" * 100
    with pytest.raises(FetchRefused, match=r"^refused https://one\.example/over: body exceeds the 100-byte cap$"):
        guard.fetch("https://one.example/over", max_bytes=100)


def test_a_body_in_many_small_chunks_is_joined_exactly_and_capped_by_its_total(dns: list[str]) -> None:
    def chunks(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter([b"ab"] * 30), headers={"content-type": "text/plain"})

    guard = GuardedFetcher(Context(), transport=site({"/c": chunks}))
    assert guard.fetch("https://one.example/c").content == b"ab" * 30
    with pytest.raises(FetchRefused, match="exceeds the 50-byte cap"):
        guard.fetch("https://one.example/c", max_bytes=50)


def test_a_download_slower_than_the_total_time_limit_is_refused(dns: list[str]) -> None:
    def trickle() -> Iterator[bytes]:
        for _ in range(20):
            time.sleep(0.02)
            yield b"."

    def slow(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=trickle(), headers={"content-type": "text/plain"})

    guard = GuardedFetcher(Context(), transport=site({"/slow": slow}), total_timeout=0.1)
    with pytest.raises(FetchRefused) as refused:
        guard.fetch("https://one.example/slow")
    assert str(refused.value) == "refused https://one.example/slow: download exceeded the total time limit"


def test_a_connection_lost_while_reading_is_a_tool_failure_naming_the_url(dns: list[str]) -> None:
    def broken() -> Iterator[bytes]:
        yield b"partial"
        raise httpx.ReadError("connection reset by peer")

    def cut(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=broken(), headers={"content-type": "text/plain"})

    with pytest.raises(ToolFailed) as failed:
        GuardedFetcher(Context(), transport=site({"/cut": cut})).fetch("https://one.example/cut")
    assert str(failed.value) == (
        "fetching https://one.example/cut failed while reading: ReadError: connection reset by peer"
    )


def test_a_response_without_content_type_is_binary_and_refused_as_such(dns: list[str]) -> None:
    def bare(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"\x00\x01")

    guard = GuardedFetcher(Context(), transport=site({"/bare": bare}))
    with pytest.raises(FetchRefused) as refused:
        guard.fetch("https://one.example/bare", accept=("text/html", "text/plain"))
    assert str(refused.value) == (
        "refused https://one.example/bare: content type 'application/octet-stream' is not one of text/html, text/plain"
    )
    fetched = guard.fetch("https://one.example/bare", accept=("*/*",))
    assert fetched.content_type == "application/octet-stream" and fetched.charset is None


def test_content_types_are_matched_exactly_by_family_or_by_the_any_wildcard(dns: list[str]) -> None:
    def typed(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"{}", headers={"content-type": request.url.params["t"]})

    guard = GuardedFetcher(Context(), transport=site({"/t": typed}))
    assert guard.fetch("https://one.example/t?t=application/json", accept=("application/*",)).ok
    assert guard.fetch("https://one.example/t?t=image/svg%2Bxml", accept=("*/*",)).ok
    with pytest.raises(FetchRefused, match="not one of text/\\*"):
        guard.fetch("https://one.example/t?t=application/json", accept=("text/*",))


def test_the_declared_charset_is_read_whatever_its_case(dns: list[str]) -> None:
    def latin(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content="café".encode("latin-1"), headers={"content-type": "text/plain; CHARSET=latin-1"}
        )

    fetched = GuardedFetcher(Context(), transport=site({"/l": latin})).fetch("https://one.example/l")
    assert fetched.charset == "latin-1" and fetched.text == "café"


def test_a_location_header_outside_a_redirect_is_not_followed(dns: list[str]) -> None:
    def created(request: httpx.Request) -> httpx.Response:
        return httpx.Response(201, html="<p>made</p>", headers={"location": "/elsewhere"})

    fetched = GuardedFetcher(Context(), transport=site({"/new": created})).fetch("https://one.example/new")
    assert fetched.status == 201 and fetched.final_url == "https://one.example/new"


def test_an_ip_literal_is_never_looked_up_and_gets_no_sni_name(dns: list[str]) -> None:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return page(request)

    GuardedFetcher(Context(), transport=site({"/a": record})).fetch("https://93.184.216.34/a")
    assert "93.184.216.34" not in dns
    assert "sni_hostname" not in seen[-1].extensions  # SNI carries names, never addresses (RFC 6066)


def test_a_proxy_in_the_environment_is_not_used(monkeypatch: pytest.MonkeyPatch, web: LoopbackWeb) -> None:
    """A proxy would connect by name and undo the IP pinning: the guard ignores HTTP(S)_PROXY."""
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)  # answers 501 to anything it gets
    proxy.daemon_threads = True
    threading.Thread(target=proxy.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    reached: list[str] = []
    proxy.RequestHandlerClass.do_GET = lambda handler: (reached.append(handler.path), handler.send_error(501))
    try:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{proxy.server_address[1]}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        fetched = GuardedFetcher(Context(fetch_allowlist="127.0.0.1")).fetch(f"{web.base}/articles/1")
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert fetched.ok and "Article 1" in fetched.text
    assert reached == []


def test_a_charset_in_rfc_2231_form_falls_back_to_utf_8(dns: list[str]) -> None:
    def encoded(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/plain; charset*=utf-8''latin-1"}
        return httpx.Response(200, content="café".encode(), headers=headers)

    fetched = GuardedFetcher(Context(), transport=site({"/e": encoded})).fetch("https://one.example/e")
    assert fetched.charset is None and fetched.text == "café"


def test_a_guard_without_context_fetches_public_pages_with_no_allow_list(dns: list[str]) -> None:
    guard = GuardedFetcher(transport=site({"/a": page}))
    assert guard.fetch("https://one.example/a").ok
    with pytest.raises(FetchRefused, match="loopback"):
        guard.fetch("http://127.0.0.1/a")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://[::1", "refused 'http://[::1': not a valid URL"),
        ("http:///path", "refused 'http:///path': the URL has no host"),
    ],
)
def test_malformed_urls_are_refused_with_the_reason(url: str, message: str) -> None:
    with pytest.raises(FetchRefused) as refused:
        GuardedFetcher(Context()).fetch(url)
    assert str(refused.value).startswith(message)


def test_a_name_that_does_not_resolve_is_a_tool_failure_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> object:
        raise OSError("Name or service not known")

    monkeypatch.setattr("socket.getaddrinfo", fail)
    with pytest.raises(ToolFailed) as failed:
        GuardedFetcher(Context()).fetch("https://nowhere.example/a")
    assert str(failed.value) == (
        "cannot resolve 'nowhere.example' for https://nowhere.example/a: Name or service not known"
    )
