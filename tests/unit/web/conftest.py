"""A loopback web: one stdlib HTTP server that plays Tavily's API and a small website with a robots.txt.

Nothing here touches the real network: the server binds 127.0.0.1 on a free port, the real TavilyClient is pointed
at it through TAVILY_BASE_URL, and tests allow-list 127.0.0.1 for the fetch guard.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from core.context import Context
from core.schemas import DocumentRef
from tools.base import ToolDeps, ToolOutput
from tools.documents import DocumentIndex, DocumentStore

API_KEY = "tvly-test-key"
ROBOTS = "User-agent: *\nDisallow: /private/\n"


def article(n: str) -> bytes:
    return (
        f"<html><head><title>Article {n}</title></head><body><nav>menu home about</nav>"
        f"<article><h1>Article {n}</h1><p>Paragraph one of article {n} explains the loopback web in detail, "
        f"with enough words for the extractor to see real content here.</p>"
        f"<p>Paragraph two of article {n} adds a second thought about guarded fetching.</p>"
        f"<ul><li>first point {n}</li><li>second point {n}</li></ul></article></body></html>"
    ).encode()


@dataclass
class LoopbackWeb:
    base: str
    port: int
    requests: list[dict[str, Any]] = field(default_factory=list)
    robots_status: int = 200
    robots_delay: float = 0.0
    search_results: list[str] = field(default_factory=lambda: ["/articles/1", "/articles/2"])
    #: HTTP statuses the next searches are answered with, one each (a flaky or overloaded API).
    search_faults: list[int] = field(default_factory=list)

    def api_calls(self, path: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST" and r["path"] == path]

    def gets(self, path: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "GET" and r["path"] == path]


def _handler(web: LoopbackWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str, *, length: bool = True, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            if length:
                self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            web.requests.append({"method": "POST", "path": self.path, "json": body, "headers": dict(self.headers)})
            if self.headers.get("Authorization") != f"Bearer {API_KEY}":
                self._send(401, b'{"detail": {"error": "Unauthorized: invalid API key"}}', "application/json")
                return
            if self.path == "/search" and web.search_faults:
                self._send(web.search_faults.pop(0), b'{"detail": {"error": "try again"}}', "application/json")
            elif self.path == "/search":
                self._send(200, json.dumps(self._search(body)).encode(), "application/json")
            elif self.path == "/extract":
                results = [{"url": u, "raw_content": f"Extracted {u}"} for u in body.get("urls", [])]
                self._send(200, json.dumps({"results": results, "failed_results": []}).encode(), "application/json")
            else:
                self._send(404, b"{}", "application/json")

        def _search(self, body: dict[str, Any]) -> dict[str, Any]:
            results = []
            for rank, path in enumerate(web.search_results[: body.get("max_results", 5)], start=1):
                item: dict[str, Any] = {
                    "url": web.base + path,
                    "title": f"Result {rank}",
                    "content": f"Snippet {rank} about {body['query']}",
                    "score": round(1.0 - rank / 10, 2),
                }
                if body.get("include_raw_content"):
                    item["raw_content"] = f"Raw content of result {rank}."
                results.append(item)
            answer = f"Answer about {body['query']}" if body.get("include_answer") else None
            return {"query": body["query"], "answer": answer, "results": results, "response_time": 0.01}

        def do_GET(self) -> None:
            web.requests.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
            path = self.path.split("?", 1)[0]
            if path == "/robots.txt":
                time.sleep(web.robots_delay)
                self._send(web.robots_status, ROBOTS.encode(), "text/plain")
            elif path == "/thin":
                script = b"<script>var app = '" + b"x" * 200_000 + b"';</script>"
                body = b"<html><head>" + script + b"</head><body><p>Loading the app, please wait.</p></body></html>"
                self._send(200, body, "text/html")
            elif path.startswith("/articles/"):
                self._send(200, article(path.rsplit("/", 1)[-1]), "text/html; charset=utf-8")
            elif path == "/private/secret":
                self._send(200, b"<html><body><p>secret</p></body></html>", "text/html")
            elif path == "/echo-host":
                self._send(200, (self.headers.get("Host") or "").encode(), "text/plain")
            elif path == "/big":
                self._send(200, b"<p>" + b"x" * 5000 + b"</p>", "text/html", length=False)
            elif path == "/big-declared":
                self._send(200, b"y" * 5000, "text/plain")
            elif path == "/image.png":
                self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
            elif path == "/data.json":
                self._send(200, b'{"name": "loopback", "items": [1, 2]}', "application/json")
            elif path == "/redirect-private":
                self._send(302, b"", "text/plain", Location="http://10.0.0.1/admin")
            elif path == "/redirect-metadata":
                self._send(301, b"", "text/plain", Location="http://169.254.169.254/latest/meta-data/")
            elif path == "/redirect-ok":
                self._send(302, b"", "text/plain", Location="/articles/7")
            elif path == "/redirect-loop":
                self._send(302, b"", "text/plain", Location="/redirect-loop")
            else:
                self._send(404, b"<html><body>not found</body></html>", "text/html")

    return Handler


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    state = LoopbackWeb(base=f"http://127.0.0.1:{port}", port=port)
    server.RequestHandlerClass = _handler(state)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)


@pytest.fixture
def tavily_env(monkeypatch: pytest.MonkeyPatch, web: LoopbackWeb) -> LoopbackWeb:
    """The real TavilyClient talks to the loopback server with a fake key; no proxy may intercept it."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("TAVILY_API_KEY", API_KEY)
    monkeypatch.setenv("TAVILY_BASE_URL", web.base)
    for var in ("PAOR_FETCH_ALLOWLIST", "PAOR_SEARCH_BACKEND"):
        monkeypatch.delenv(var, raising=False)
    return web


@pytest.fixture
def store(tmp_path: Path) -> DocumentStore:
    return DocumentStore(tmp_path / "store")


def make_deps(store: DocumentStore, refs: list[DocumentRef] | None = None, **context: Any) -> ToolDeps:
    context.setdefault("fetch_allowlist", "127.0.0.1")
    return ToolDeps(
        llm=GenericFakeChatModel(messages=iter([])),
        store=store,
        context=Context(**context),
        index=DocumentIndex(refs or []),
    )


@pytest.fixture
def deps(store: DocumentStore, tavily_env: LoopbackWeb) -> ToolDeps:
    return make_deps(store)


def run_tool(tool: BaseTool, args: dict[str, Any]) -> tuple[str, ToolOutput]:
    """Invoke like an agent does (a tool call), returning the content and the ToolOutput artifact."""
    message = tool.invoke({"type": "tool_call", "id": "call-1", "name": tool.name, "args": args})
    assert isinstance(message, ToolMessage)
    assert isinstance(message.artifact, ToolOutput)
    return str(message.content), message.artifact


FakeResolver = Callable[[dict[str, list[str]]], list[str]]


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> FakeResolver:
    """Answer chosen names with chosen IPs; everything else (IP literals httpx connects to) resolves for real.

    Returns a function that installs a mapping and gives back the list of names looked up, in order.
    """
    real = socket.getaddrinfo

    def install(mapping: dict[str, list[str]]) -> list[str]:
        looked_up: list[str] = []

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else str(host)
            looked_up.append(name)
            if name in mapping:
                infos = []
                for ip in mapping[name]:
                    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
                    sockaddr = (ip, port or 0, 0, 0) if family == socket.AF_INET6 else (ip, port or 0)
                    infos.append((family, socket.SOCK_STREAM, 6, "", sockaddr))
                return infos
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        return looked_up

    return install


class FakeDdgs:
    def __init__(self, items: list[dict[str, Any]] | None = None, error: Exception | None = None) -> None:
        self.items = items or []
        self.error = error
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        return self._answer("text", query, kwargs)

    def news(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        return self._answer("news", query, kwargs)

    def _answer(self, kind: str, query: str, kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        self.calls.append((kind, query, kwargs))
        if self.error:
            raise self.error
        return self.items


ITEMS = [
    {"title": "Docs", "href": "https://docs.python.org/3/", "body": "Python docs"},
    {"title": "Spam", "href": "https://spam.example/buy", "body": "spam"},
    {"title": "Blog", "href": "https://www.python.org/blogs/", "body": "Python blog"},
    {"title": "Other", "href": "https://other.example/page", "body": "other"},
    {"title": "Sub spam", "href": "https://a.spam.example/x", "body": "more spam"},
]


@pytest.fixture
def unused_loopback_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
