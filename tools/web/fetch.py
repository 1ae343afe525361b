"""The one HTTP client every web tool fetches pages through.

URLs come from a model or from web pages, so every request is treated as hostile input:

- only `http`/`https`, no credentials in the URL;
- the host is resolved once and refused unless *every* address is public (`tools.web.policy`) or allow-listed;
- the request then connects to the vetted IP itself (the URL carries the IP, the `Host` header and TLS SNI
  carry the name, so certificates are still checked against the name). A second DNS answer can therefore not
  swap in an internal address between check and connect (DNS rebinding). Keep-alive is off so a TLS connection
  verified for one name is never reused for another name on the same IP;
- redirects are followed by hand, at most `max_redirects`, and each hop is vetted like the first URL;
- connect/read timeouts, a total deadline and a size cap (streamed, so an endless body is cut off);
- the content type must be one the caller accepts, and robots.txt (fetched through this same guard, once per
  origin however many threads ask at once, then cached) must allow the path for the user agent `USER_AGENT`.

Refusals raise `FetchRefused` naming what was refused and why; network failures raise `ToolFailed`.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from urllib.robotparser import RobotFileParser

import httpx

from core.context import Context
from core.errors import FetchRefused, SiteUnreachable, ToolFailed
from tools.web.policy import AllowList, IPAddress, non_public_reason, parse_address

USER_AGENT = "paor/0.1 (+https://github.com/paor)"
DEFAULT_ACCEPT: tuple[str, ...] = (
    "text/html",
    "application/xhtml+xml",
    "text/plain",
    "text/markdown",
    "application/json",
    "application/xml",
    "text/xml",
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_ROBOTS_MAX_BYTES = 512_000
_ALLOW_HINT = "add the host, IP or CIDR to fetch_allowlist (env PAOR_FETCH_ALLOWLIST) to allow it"


@dataclass(frozen=True)
class FetchedPage:
    requested_url: str
    final_url: str
    status: int
    content_type: str
    content: bytes
    charset: str | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def text(self) -> str:
        """The body decoded with the declared charset (UTF-8 when none or unknown); never raises."""
        try:
            return self.content.decode(self.charset or "utf-8", errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")


_Origin = tuple[str, str, int | None]


@dataclass(frozen=True)
class _Robots:
    """An origin's robots.txt rules; `server_error` is the 5xx status when the rules are a refusal of it."""

    parser: RobotFileParser
    server_error: int | None = None


@dataclass(frozen=True)
class _Target:
    url: httpx.URL
    host: str
    addresses: tuple[str, ...]


class GuardedFetcher:
    """Fetches public web pages safely; build one per tool call (or share it: it is thread-safe)."""

    def __init__(
        self,
        context: Context | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
        max_bytes: int = 5_000_000,
        max_redirects: int = 5,
        connect_timeout: float = 5.0,
        read_timeout: float = 15.0,
        total_timeout: float = 30.0,
        respect_robots: bool = True,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.allowlist = AllowList.parse(context.fetch_allowlist if context is not None else "")
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.total_timeout = total_timeout
        self.respect_robots = respect_robots
        self.user_agent = user_agent
        self._robots: dict[_Origin, _Robots] = {}
        self._origin_locks: dict[_Origin, threading.Lock] = {}
        self._lock = threading.Lock()
        self._client = httpx.Client(
            transport=transport,
            follow_redirects=False,
            trust_env=False,  # a proxy from the environment would connect by name and undo the IP pinning
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            limits=httpx.Limits(max_keepalive_connections=0),
            headers={"User-Agent": user_agent},
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> GuardedFetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fetch(
        self, url: str, *, accept: tuple[str, ...] | None = DEFAULT_ACCEPT, max_bytes: int | None = None
    ) -> FetchedPage:
        """GET `url` under every rule of the guard. `accept=None` accepts any content type."""
        return self._fetch(url, accept=accept, max_bytes=max_bytes or self.max_bytes, robots=self.respect_robots)

    def _fetch(self, url: str, *, accept: tuple[str, ...] | None, max_bytes: int, robots: bool) -> FetchedPage:
        deadline = time.monotonic() + self.total_timeout
        current = url
        for _ in range(self.max_redirects + 1):
            target = self._vet(current)
            if robots and (refusal := self._robots_refusal(target.url)):
                raise FetchRefused(f"refused {target.url}: {refusal}")
            with self._open(target) as response:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    current = str(target.url.join(location))
                    continue
                content_type, charset = _split_content_type(response.headers.get("content-type", ""))
                if accept is not None and not _accepted(content_type, accept):
                    raise FetchRefused(
                        f"refused {target.url}: content type {content_type!r} is not one of {', '.join(accept)}"
                    )
                content = _read_capped(response, target.url, max_bytes, deadline)
                return FetchedPage(url, str(target.url), response.status_code, content_type, content, charset)
        raise FetchRefused(f"refused {url}: more than {self.max_redirects} redirects")

    def _vet(self, url: str) -> _Target:
        """Parse, check scheme and credentials, resolve and check every address; return what to connect to."""
        try:
            parsed = httpx.URL(url.strip())
        except (httpx.InvalidURL, TypeError) as exc:
            raise FetchRefused(f"refused {url!r}: not a valid URL ({exc})") from exc
        if parsed.scheme not in ("http", "https"):
            raise FetchRefused(f"refused {url!r}: only http and https URLs are fetched, not {parsed.scheme!r}")
        if parsed.userinfo:
            raise FetchRefused(f"refused {url!r}: URLs carrying credentials are not fetched")
        host = parsed.raw_host.decode().lower()
        if not host:
            raise FetchRefused(f"refused {url!r}: the URL has no host")
        parsed = parsed.copy_with(fragment=None)
        literal = parse_address(host)
        addresses = [literal] if literal is not None else self._resolve(host, parsed)
        if not self.allowlist.allows_host(host):
            for ip in addresses:
                reason = non_public_reason(ip)
                if reason and not self.allowlist.allows_address(ip):
                    what = f"{ip} is" if literal is not None else f"{host} resolves to {ip},"
                    raise FetchRefused(
                        f"refused {parsed}: {what} a {reason} address and web tools only fetch public "
                        f"addresses — {_ALLOW_HINT}"
                    )
        return _Target(parsed, host, tuple(dict.fromkeys(str(ip) for ip in addresses)))

    @staticmethod
    def _resolve(host: str, url: httpx.URL) -> list[IPAddress]:
        try:
            infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise SiteUnreachable(f"cannot resolve {host!r} for {url}: {exc}") from exc
        addresses = [parse_address(str(info[4][0])) for info in infos]
        found = [ip for ip in addresses if ip is not None]
        if not found:
            raise SiteUnreachable(f"cannot resolve {host!r} for {url}: no IP addresses")
        return found

    @contextmanager
    def _open(self, target: _Target) -> Iterator[httpx.Response]:
        """Send the GET to the vetted addresses in turn until one connects."""
        last: Exception | None = None
        for address in target.addresses:
            request = self._pinned_request(target, address)
            try:
                response = self._client.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                last = exc
                continue
            except httpx.HTTPError as exc:
                raise ToolFailed(f"fetching {target.url} failed: {type(exc).__name__}: {exc}") from exc
            try:
                yield response
            finally:
                response.close()
            return
        raise SiteUnreachable(f"fetching {target.url} failed: cannot connect to {target.host} ({last})")

    def _pinned_request(self, target: _Target, address: str) -> httpx.Request:
        extensions: dict[str, object] = {}
        if target.url.scheme == "https" and parse_address(target.host) is None:
            extensions["sni_hostname"] = target.host
        return self._client.build_request(
            "GET",
            target.url.copy_with(host=address),
            headers={"Host": target.url.netloc.decode()},
            extensions=extensions,
        )

    def _robots_refusal(self, url: httpx.URL) -> str | None:
        """Why robots.txt forbids `url`, or None when it allows it. Loaded once per origin: concurrent callers
        for the same origin wait on that origin's lock instead of each fetching robots.txt."""
        origin = (url.scheme, url.raw_host.decode().lower(), url.port)
        with self._lock:
            robots = self._robots.get(origin)
            origin_lock = self._origin_locks.setdefault(origin, threading.Lock())
        if robots is None:
            with origin_lock:
                with self._lock:
                    robots = self._robots.get(origin)
                if robots is None:
                    robots = self._load_robots(url)
                    with self._lock:
                        self._robots[origin] = robots
        if robots.parser.can_fetch(self.user_agent, str(url)):
            return None
        site = f"{url.scheme}://{url.netloc.decode()}"
        if robots.server_error is not None:
            return (
                f"robots.txt of {site} answered HTTP {robots.server_error} (a server error), which RFC 9309 says "
                "to treat as disallowing the whole site; try again later"
            )
        return f"robots.txt of {site} disallows this path for user agent {self.user_agent!r}"

    def _load_robots(self, url: httpx.URL) -> _Robots:
        """RFC 9309: 4xx or unreachable → everything allowed; 5xx → nothing allowed; 200 → the rules."""
        parser = RobotFileParser()
        robots_url = str(url.copy_with(path="/robots.txt", query=None))  # `_vet` dropped the fragment
        try:
            page = self._fetch(robots_url, accept=None, max_bytes=_ROBOTS_MAX_BYTES, robots=False)
        except (ToolFailed, FetchRefused):
            page = None
        if page is not None and page.status >= 500:
            parser.parse(["User-agent: *", "Disallow: /"])
            return _Robots(parser, server_error=page.status)
        if page is not None and page.ok:
            parser.parse(page.text.splitlines())
        else:
            parser.parse([])  # no rules: everything allowed
        return _Robots(parser)


def _split_content_type(header: str) -> tuple[str, str | None]:
    message = Message()
    message["content-type"] = header or "application/octet-stream"
    charset = message.get_param("charset")
    return message.get_content_type(), charset if isinstance(charset, str) else None


def _accepted(content_type: str, accept: tuple[str, ...]) -> bool:
    major = content_type.split("/", 1)[0]
    return any(a in (content_type, f"{major}/*", "*/*") for a in accept)


def _read_capped(response: httpx.Response, url: httpx.URL, max_bytes: int, deadline: float) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchRefused(f"refused {url}: body of {declared} bytes exceeds the {max_bytes}-byte cap")
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise FetchRefused(f"refused {url}: body exceeds the {max_bytes}-byte cap")
            if time.monotonic() > deadline:
                raise FetchRefused(f"refused {url}: download exceeded the total time limit")
            chunks.append(chunk)
    except httpx.HTTPError as exc:
        raise ToolFailed(f"fetching {url} failed while reading: {type(exc).__name__}: {exc}") from exc
    return b"".join(chunks)
