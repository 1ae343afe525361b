"""Every chat request a system sends to one endpoint, recorded at the HTTP client: count, prompt tokens, reused prefix.

Both systems of the side-by-side benchmark get an httpx client from the same `Recorder`, so they are measured the
same way and in the order the endpoint saw their requests. The reused-prefix share of a request is what
llama.cpp's prompt cache can skip: the longest common token prefix of its prompt and the previous request's prompt
on the same endpoint, over its own prompt tokens. The prompt is the messages as sent (role, content, tool-call
arguments, in order) after any tool schemas, tokenized with o200k; a response-format schema is left out (llama.cpp
turns it into a grammar, not prompt text). Prompt tokens are the endpoint's own `usage.prompt_tokens` where it
reports them (the chat template included), else the o200k count.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.common import content_text
from core.tokens import encoding


@dataclass
class Exchange:
    """One chat request as the endpoint saw it."""

    system: str
    tokens: list[int]  # o200k ids of the prompt text, for the prefix computation
    reported_tokens: int | None = None  # the endpoint's usage.prompt_tokens
    reused: int = 0  # tokens shared with the previous request's prompt
    seconds: float = 0.0

    @property
    def prompt_tokens(self) -> int:
        return self.reported_tokens if self.reported_tokens is not None else len(self.tokens)

    @property
    def reused_share(self) -> float:
        return self.reused / len(self.tokens) if self.tokens else 0.0


def prompt_text(body: dict[str, Any]) -> str:
    """The prompt of a chat-completions body in the order a chat template lays it out: tool schemas, then each
    message's role, content and tool-call arguments."""
    parts = [json.dumps(body["tools"], ensure_ascii=False)] if body.get("tools") else []
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        calls = [str((c.get("function") or {}).get("arguments", "")) for c in message.get("tool_calls") or []]
        parts.append("\n".join([f"<|{message.get('role', '')}|>", content_text(message.get("content")), *calls]))
    return "\n".join(parts)


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def cached_prefixes(bodies: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    """(reused, prompt) tokens of each request: the longest common prefix of its prompt with any earlier request's
    (what OpenAI's prompt caching and a llama.cpp server with a slot per prefix can skip), over its own tokens."""
    tokens = [encoding().encode(prompt_text(body), disallowed_special=()) for body in bodies]
    return [
        (max((common_prefix(own, earlier) for earlier in tokens[:i]), default=0), len(own))
        for i, own in enumerate(tokens)
    ]


def reported_prompt_tokens(body: bytes, content_encoding: str = "") -> int | None:
    """`usage.prompt_tokens` of a chat-completions answer, plain JSON or a server-sent-event stream (the last chunk
    that carries usage); None when it has none."""
    if "gzip" in content_encoding:
        try:
            body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
        except zlib.error:
            return None
    text = body.decode("utf-8", errors="replace").strip()
    chunks = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")] or [text]
    found = None
    for chunk in chunks:
        try:
            usage = json.loads(chunk).get("usage")
        except (ValueError, AttributeError):
            continue
        if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
            found = usage["prompt_tokens"]
    return found


@dataclass
class Recorder:
    """The chat requests to one endpoint, in order; `system` labels the requests sent from now on."""

    system: str = ""
    exchanges: list[Exchange] = field(default_factory=list)

    def begin(self, request: httpx.Request) -> Exchange | None:
        if not request.url.path.endswith("/chat/completions"):
            return None
        try:
            body = json.loads(request.content or b"{}")
        except ValueError:
            body = {}
        tokens = encoding().encode(prompt_text(body), disallowed_special=())
        previous = self.exchanges[-1].tokens if self.exchanges else []
        exchange = Exchange(self.system, tokens, reused=common_prefix(tokens, previous))
        self.exchanges.append(exchange)
        return exchange

    def of(self, system: str, since: int = 0) -> list[Exchange]:
        return [e for e in self.exchanges[since:] if e.system == system]

    def client(self, inner: httpx.BaseTransport | None = None) -> httpx.Client:
        return httpx.Client(transport=_Transport(self, inner or httpx.HTTPTransport()), timeout=None)

    def async_client(self, inner: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=_AsyncTransport(self, inner or httpx.AsyncHTTPTransport()), timeout=None)


def _finisher(exchange: Exchange, response: httpx.Response, started: float) -> Callable[[bytes], None]:
    def finish(body: bytes) -> None:
        exchange.seconds = time.monotonic() - started
        exchange.reported_tokens = reported_prompt_tokens(body, response.headers.get("content-encoding", ""))

    return finish


class _Tee(httpx.SyncByteStream):
    """Passes the answer through unchanged and hands its bytes to `finish` when the client closes it."""

    def __init__(self, inner: httpx.SyncByteStream, finish: Callable[[bytes], None]) -> None:
        self.inner, self.finish, self.chunks = inner, finish, bytearray()

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            self.chunks += chunk
            yield chunk

    def close(self) -> None:
        self.inner.close()
        self.finish(bytes(self.chunks))


class _AsyncTee(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, finish: Callable[[bytes], None]) -> None:
        self.inner, self.finish, self.chunks = inner, finish, bytearray()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.chunks += chunk
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()
        self.finish(bytes(self.chunks))


class _Transport(httpx.BaseTransport):
    def __init__(self, recorder: Recorder, inner: httpx.BaseTransport) -> None:
        self.recorder, self.inner = recorder, inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange, started = self.recorder.begin(request), time.monotonic()
        response = self.inner.handle_request(request)
        if exchange is None:
            return response
        assert isinstance(response.stream, httpx.SyncByteStream)
        stream = _Tee(response.stream, _finisher(exchange, response, started))
        return httpx.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    def close(self) -> None:
        self.inner.close()


class _AsyncTransport(httpx.AsyncBaseTransport):
    def __init__(self, recorder: Recorder, inner: httpx.AsyncBaseTransport) -> None:
        self.recorder, self.inner = recorder, inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        exchange, started = self.recorder.begin(request), time.monotonic()
        response = await self.inner.handle_async_request(request)
        if exchange is None:
            return response
        assert isinstance(response.stream, httpx.AsyncByteStream)
        stream = _AsyncTee(response.stream, _finisher(exchange, response, started))
        return httpx.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    async def aclose(self) -> None:
        await self.inner.aclose()
