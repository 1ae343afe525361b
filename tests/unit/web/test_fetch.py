"""The fetch guard against the loopback web: schemes, addresses, redirects, caps, content types, robots.txt."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from core.context import Context
from core.errors import FetchRefused, ToolFailed
from tests.unit.web.conftest import FakeResolver, LoopbackWeb
from tools.web.fetch import USER_AGENT, GuardedFetcher


@pytest.fixture
def guard() -> GuardedFetcher:
    return GuardedFetcher(Context(fetch_allowlist="127.0.0.1"), max_bytes=2000)


def test_fetches_an_allow_listed_page_with_the_paor_user_agent(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    page = guard.fetch(f"{web.base}/articles/1#section")
    assert page.ok and page.status == 200
    assert page.content_type == "text/html" and page.charset == "utf-8"
    assert "Paragraph one of article 1" in page.text
    assert page.requested_url == f"{web.base}/articles/1#section"
    assert page.final_url == f"{web.base}/articles/1"
    assert web.gets("/articles/1")[0]["headers"]["User-Agent"] == USER_AGENT
    assert web.gets("/robots.txt")[0]["headers"]["User-Agent"] == USER_AGENT


def test_loopback_is_refused_without_allow_list(web: LoopbackWeb) -> None:
    with pytest.raises(FetchRefused, match=r"127\.0\.0\.1 is a loopback address.*fetch_allowlist"):
        GuardedFetcher(Context(fetch_allowlist="")).fetch(f"{web.base}/articles/1")
    assert web.requests == []


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://10.0.0.1/", "private"),
        ("http://172.16.5.4/", "private"),
        ("http://192.168.1.1/router", "private"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[::1]:8080/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://127.0.0.2/", "loopback"),
        ("http://100.64.0.1/", "shared"),
        ("http://0.0.0.0/", "unspecified"),
        ("https://[fe80::1]/", "link-local"),
    ],
)
def test_non_public_addresses_are_refused(guard: GuardedFetcher, url: str, reason: str) -> None:
    with pytest.raises(FetchRefused, match=reason):
        guard.fetch(url)


def test_hostname_resolving_to_loopback_is_refused(fake_dns: FakeResolver) -> None:
    fake_dns({"evil.test": ["127.0.0.1"]})
    with pytest.raises(FetchRefused, match=r"evil\.test resolves to 127\.0\.0\.1, a loopback address"):
        GuardedFetcher(Context()).fetch("http://evil.test/")


def test_every_resolved_address_must_be_public(fake_dns: FakeResolver) -> None:
    fake_dns({"mixed.test": ["93.184.216.34", "10.0.0.5"]})
    with pytest.raises(FetchRefused, match=r"mixed\.test resolves to 10\.0\.0\.5, a private address"):
        GuardedFetcher(Context()).fetch("http://mixed.test/")


def test_decimal_ip_spellings_are_judged_by_what_they_resolve_to(fake_dns: FakeResolver) -> None:
    fake_dns({"2130706433": ["127.0.0.1"]})
    with pytest.raises(FetchRefused, match="loopback"):
        GuardedFetcher(Context()).fetch("http://2130706433/")


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/file", "gopher://example.com:70/", "javascript:alert(1)"]
)
def test_non_http_schemes_are_refused(guard: GuardedFetcher, url: str) -> None:
    with pytest.raises(FetchRefused, match="only http and https"):
        guard.fetch(url)


def test_credentials_in_urls_are_refused(guard: GuardedFetcher, web: LoopbackWeb) -> None:
    with pytest.raises(FetchRefused, match="credentials"):
        guard.fetch(f"http://user:secret@127.0.0.1:{web.port}/articles/1")


def test_redirect_to_a_private_address_is_refused(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match=r"10\.0\.0\.1 is a private address"):
        guard.fetch(f"{web.base}/redirect-private")


def test_redirect_to_cloud_metadata_is_refused(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match="cloud metadata"):
        guard.fetch(f"{web.base}/redirect-metadata")


def test_redirects_are_followed_and_rechecked(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    page = guard.fetch(f"{web.base}/redirect-ok")
    assert page.final_url == f"{web.base}/articles/7"
    assert "Article 7" in page.text


def test_redirect_loops_stop_after_five_hops(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match="more than 5 redirects"):
        guard.fetch(f"{web.base}/redirect-loop")
    assert len(web.gets("/redirect-loop")) == 6


def test_streamed_body_over_the_cap_is_refused(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match="exceeds the 2000-byte cap"):
        guard.fetch(f"{web.base}/big")


def test_declared_length_over_the_cap_is_refused(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match="body of 5000 bytes exceeds"):
        guard.fetch(f"{web.base}/big-declared")


def test_wrong_content_type_is_refused(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match="content type 'image/png' is not one of"):
        guard.fetch(f"{web.base}/image.png")
    assert guard.fetch(f"{web.base}/image.png", accept=("image/*",)).content.startswith(b"\x89PNG")


def test_robots_disallowed_path_is_refused(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    with pytest.raises(FetchRefused, match=r"robots\.txt .* disallows"):
        guard.fetch(f"{web.base}/private/secret")
    assert web.gets("/private/secret") == []
    guard.fetch(f"{web.base}/articles/2")
    assert len(web.gets("/robots.txt")) == 1  # cached per origin


def test_missing_robots_txt_allows_everything(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    web.robots_status = 404
    assert guard.fetch(f"{web.base}/private/secret").ok


def test_robots_server_error_disallows_everything(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    web.robots_status = 503
    with pytest.raises(FetchRefused, match=r"robots\.txt"):
        guard.fetch(f"{web.base}/articles/1")


def test_http_errors_are_returned_not_raised(web: LoopbackWeb, guard: GuardedFetcher) -> None:
    page = guard.fetch(f"{web.base}/nowhere")
    assert page.status == 404 and not page.ok


def test_unresolvable_host_is_a_tool_failure(fake_dns: FakeResolver) -> None:
    fake_dns({"nowhere.test": []})
    with pytest.raises(ToolFailed, match="cannot resolve"):
        GuardedFetcher(Context()).fetch("http://nowhere.test/")


def test_connection_goes_to_the_vetted_ip_not_a_second_lookup(fake_dns: FakeResolver, web: LoopbackWeb) -> None:
    """DNS rebinding: the name is resolved once per vetted URL and the socket opens to that IP."""
    looked_up = fake_dns({"pinned.test": ["127.0.0.1"]})
    page = GuardedFetcher(Context(fetch_allowlist="127.0.0.1")).fetch(f"http://pinned.test:{web.port}/echo-host")
    assert page.text == f"pinned.test:{web.port}"  # Host header keeps the name
    assert looked_up.count("pinned.test") == 2  # robots.txt and the page; httpx itself never resolved it


def test_https_keeps_sni_and_host_while_connecting_to_the_ip(fake_dns: FakeResolver) -> None:
    fake_dns({"example.com": ["93.184.216.34"]})
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        return httpx.Response(200, html="<p>hello</p>")

    page = GuardedFetcher(Context(), transport=httpx.MockTransport(handler)).fetch("https://example.com/page")
    assert page.final_url == "https://example.com/page"
    request = seen[-1]
    assert request.url.host == "93.184.216.34"
    assert request.headers["host"] == "example.com"
    assert request.extensions["sni_hostname"] == "example.com"


def test_allow_listed_hostname_skips_the_address_check(fake_dns: FakeResolver, web: LoopbackWeb) -> None:
    fake_dns({"intranet.test": ["127.0.0.1"]})
    guard = GuardedFetcher(Context(fetch_allowlist="intranet.test"))
    assert guard.fetch(f"http://intranet.test:{web.port}/articles/3").ok
    with pytest.raises(FetchRefused):
        guard.fetch(f"{web.base}/articles/3")  # the IP itself is not allow-listed


def test_robots_txt_is_asked_for_at_the_origins_root_without_the_pages_query(
    web: LoopbackWeb, guard: GuardedFetcher
) -> None:
    assert guard.fetch(f"{web.base}/articles/3?ref=home#top").ok
    assert len(web.gets("/robots.txt")) == 1 and web.gets("/articles/3?ref=home")


def test_an_unreachable_robots_txt_allows_the_page(fake_dns: FakeResolver) -> None:
    """RFC 9309: robots.txt that cannot be fetched at all means no rules, not a failed fetch."""
    fake_dns({"example.com": ["93.184.216.34"]})

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, html="<p>hello</p>")

    page = GuardedFetcher(Context(), transport=httpx.MockTransport(handler)).fetch("https://example.com/page")
    assert page.ok and "hello" in page.text


def test_connect_and_read_timeouts_are_the_ones_configured(fake_dns: FakeResolver) -> None:
    """An unreachable host gives up after the connect timeout; a slow page gets the (longer) read timeout."""
    fake_dns({"example.com": ["93.184.216.34"]})
    timeouts: list[dict[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        timeouts.append(request.extensions["timeout"])
        return httpx.Response(200, html="<p>hello</p>")

    guard = GuardedFetcher(
        Context(), transport=httpx.MockTransport(handler), connect_timeout=2.0, read_timeout=9.0, respect_robots=False
    )
    guard.fetch("https://example.com/page")
    assert timeouts == [{"connect": 2.0, "read": 9.0, "write": 9.0, "pool": 9.0}]


def test_two_names_on_one_ip_never_share_a_connection(fake_dns: FakeResolver) -> None:
    """Keep-alive is off: a connection opened (and, over TLS, verified) for one name is not reused for another."""
    fake_dns({"one.test": ["127.0.0.1"], "two.test": ["127.0.0.1"]})
    clients: list[tuple[str, int]] = []

    class KeepAlive(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            clients.append((self.headers["Host"], self.client_address[1]))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    server = ThreadingHTTPServer(("127.0.0.1", 0), KeepAlive)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    port = server.server_address[1]
    try:
        with GuardedFetcher(Context(fetch_allowlist="127.0.0.1"), respect_robots=False) as guard:
            assert guard.fetch(f"http://one.test:{port}/").ok and guard.fetch(f"http://two.test:{port}/").ok
    finally:
        server.shutdown()
        server.server_close()
    assert [host for host, _ in clients] == [f"one.test:{port}", f"two.test:{port}"]
    assert clients[0][1] != clients[1][1]
