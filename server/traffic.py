"""Traffic: the request-body limit on every route, a fair share of the server per client, and what a deletion through
LangGraph's API means for paor.

Like the key gate (server/gate.py) it sits on paor's `http.app`, which langgraph-api puts around every route of the
process, so it sees LangGraph's own routes too (LangGraph's in-process requests, root path `/noauth`, are the
server's own and pass):

- A request body above PAOR_SERVER_MAX_BODY_MB (default 10 MB) is refused with 413 before LangGraph reads it: by its
  declared `content-length`, or once that many bytes came in. Uploads (`POST /paor/documents`) keep their own limit,
  `max_document_mb`.
- While keys are set, each client gets a share, not the server: at most PAOR_SERVER_MAX_REQUESTS requests open at
  once (default 32), PAOR_SERVER_MAX_REQUESTS_PER_S requests a second (default 10, bursts of twice that) and
  PAOR_SERVER_MAX_BODY_MB_PER_S of request bodies a second (default 10 MB). A client above its rate waits (its
  request starts later, its body is read slower); one that would wait longer than `MAX_WAIT_S`, or has too many
  requests open, gets 429 with `Retry-After`. Rates are counted where the engine counts (server/engine.py): across
  every instance of `paor serve`; requests open at once, each instance's own connections, per instance. Refusals
  to a client that floods (429 here, 413 for a body declared too large) are answered after `TARPIT_S`, so a client
  that retries at once is slowed down, not served faster.
- After LangGraph deleted a thread for a client (`DELETE /threads/{id}`, `POST /threads/prune`, or
  `DELETE /assistants/{id}` with `delete_threads`), the client's records of it are forgotten and every stored file no
  other record or upload names is deleted (server/records.py), before the client hears of the deletion; its signed
  links stop opening.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from langgraph_sdk import Auth
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server import engine, forgetting, quotas
from server.counters import CountersUnavailable
from server.engine import Rate
from server.keys import HEADER, owner_of
from server.refusals import refuse
from server.settings import api_keys, limit
from server.urls import LINK_HEADERS, REQUEST_HEADERS, UPLOAD_PATH

_LOOPBACK_ROOT = "/noauth"
_THREAD = re.compile(r"^/threads/([0-9a-fA-F-]{36})/?$")
_ASSISTANT = re.compile(r"^/assistants/([^/]+)/?$")
_WITH_BODY = ("POST", "PUT", "PATCH", "DELETE")
#: `paor serve`'s health routes: keyed, never counted (one shared probe a second answers them all: server/aegra_app.py).
UNCOUNTED = frozenset({"/health", "/ready"})
#: The longest a request waits for its client's rate; longer, and it is refused with 429.
MAX_WAIT_S = 5.0
#: How long a refusal to a flooding client is held before it is answered.
TARPIT_S = 1.0
#: Refusals held at once per client; past them a refusal is answered at once (each held one is a connection).
MAX_TARPITTED = 64
MB = 1024 * 1024
#: Shares kept before those of idle addresses are forgotten.
MAX_SHARES = 10_000


@dataclass
class Share:
    """One client's share of the server."""

    requests: Rate
    body: Rate
    sent: Rate
    open: int = 0
    tarpitted: int = 0


class Traffic:
    """ASGI middleware: body limit, each client's share, and forgetting deleted threads' records."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.shares: dict[str, Share] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Each request in its client's share; while the counters cannot be reached (Redis away), a request not yet
        answered is refused with 503 and `Retry-After` (server/counters.py), never a bare 500."""
        answered = False
        if scope["type"] == "http":  # ASGI header names are lower case
            headers = dict(scope.get("headers") or [])
            REQUEST_HEADERS.set(
                {name: headers[key].decode("latin-1") for name in LINK_HEADERS if (key := name.encode()) in headers}
            )

        async def watched(message: Message) -> None:
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._admit(scope, receive, watched)
        except CountersUnavailable as away:
            if answered or scope["type"] != "http":
                raise
            await refuse(scope, receive, send, away.status_code, {"detail": away.detail}, dict(away.headers or {}))

    async def _admit(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not _loopback(scope):
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http" or _loopback(scope):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        owner = owner_of(headers.get(HEADER.encode()))
        if owner is None:  # the key gate answered it, or let it through: /ok, a clicked link, a preflight
            await self._keyless(scope, receive, send)
            return
        if scope["path"] in UNCOUNTED:  # health must answer while Redis, where rates are counted, does not
            await self.app(scope, receive, send)
            return
        if not api_keys():  # one client: the body limit only
            await self._handle(scope, receive, send, owner, headers, None)
            return
        share = self._share(owner)
        if share.open >= int(limit("requests")):
            await self._refuse(share, scope, receive, send, 429, _too_many(), RETRY_S)
            return
        share.open += 1
        reservations: list[tuple[str, str]] = []
        held = quotas.REQUEST_RESERVATIONS.set(reservations)  # runs this request starts hold their place until it ends
        try:
            if not await self._turn(share, share, scope, receive, send, _too_fast()):
                return
            await self._handle(scope, _paced(receive, share.body), _metered(send, share.sent), owner, headers, share)
        finally:
            share.open -= 1
            with contextlib.suppress(CountersUnavailable):  # kept in Redis, they expire there
                await quotas.release(reservations)
            quotas.REQUEST_RESERVATIONS.reset(held)

    async def _keyless(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request without a key that the gate let through (a link, whose route checks it) is in the budget of
        its peer address, at one client's rate: 1,600 forged links once took 3.9 s of the server's time and raised
        another client's median fourfold. `/ok` stays free for health checks."""
        if not api_keys() or scope["path"] == "/ok":
            await self.app(scope, receive, send)
            return
        peer = (scope.get("client") or ("unknown",))[0]
        if len(self.shares) > MAX_SHARES:  # addresses come and go: forget those whose budget is whole again
            for name in [
                name for name, idle in self.shares.items() if name.startswith(KEYLESS) and idle.requests.rested()
            ]:
                del self.shares[name]
        if await self._turn(self._share(f"{KEYLESS}{peer}"), None, scope, receive, send, _too_fast_keyless()):
            await self.app(scope, receive, send)

    async def _turn(
        self, share: Share, tarpit: Share | None, scope: Scope, receive: Receive, send: Send, detail: str
    ) -> bool:
        """Wait for the share's rate to let one more request start (True), or refuse it with 429 when that would
        take longer than `MAX_WAIT_S` (False; held first by `tarpit`'s share, if any)."""
        wait = await share.requests.take(1, within=MAX_WAIT_S)
        if wait <= MAX_WAIT_S:  # and what its earlier answers sent: a debt of bytes delays its next request
            wait = max(wait, await share.sent.take(0))
        if wait > MAX_WAIT_S:
            await self._refuse(tarpit, scope, receive, send, 429, detail, math.ceil(wait))
            return False
        if wait:
            await asyncio.sleep(wait)
        return True

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket stream counts as one of its client's open requests while it lasts."""
        owner = owner_of(dict(scope.get("headers") or []).get(HEADER.encode()))
        if owner is None or not api_keys():
            await self.app(scope, receive, send)
            return
        share = self._share(owner)
        if share.open >= int(limit("requests")) or await share.requests.take(1, within=MAX_WAIT_S) > MAX_WAIT_S:
            await receive()  # websocket.connect: the handshake is refused after it
            await send({"type": "websocket.close", "code": 1013})  # try again later
            return
        share.open += 1
        try:
            await self.app(scope, receive, send)
        finally:
            share.open -= 1

    def _share(self, owner: str) -> Share:
        share = self.shares.get(owner)
        if share is None:
            per_s = limit("requests_per_s")
            body = limit("body_mb_per_s") * MB
            counters = engine.current().counters
            sent = limit("sent_mb_per_s") * MB
            share = self.shares[owner] = Share(
                counters.rate(f"requests:{owner}", per_s, 2 * per_s),
                counters.rate(f"body:{owner}", body, max(body, limit("body_mb") * MB)),
                counters.rate(f"sent:{owner}", sent, 2 * sent),
            )
        return share

    async def _refuse(
        self,
        share: Share | None,
        scope: Scope,
        receive: Receive,
        send: Send,
        status: int,
        detail: str,
        retry_after: int | None = None,
    ) -> None:
        """A refusal, held `TARPIT_S` first for a client that floods (a few held at once, the rest answered)."""
        if share is not None and share.tarpitted < MAX_TARPITTED:
            share.tarpitted += 1
            try:
                await asyncio.sleep(TARPIT_S)
            finally:
                share.tarpitted -= 1
        extra = {"retry-after": str(retry_after)} if retry_after else {}
        await refuse(scope, receive, send, status, {"detail": detail}, {**extra, "connection": "close"})

    async def _handle(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        owner: str,
        headers: dict[bytes, bytes],
        share: Share | None,
    ) -> None:
        method, path = scope.get("method", "GET"), scope["path"]
        body: bytes | None = None
        if method in _WITH_BODY and not (method == "POST" and path == UPLOAD_PATH):
            most = int(limit("body_mb") * 1024 * 1024)
            declared = headers.get(b"content-length", b"")
            if declared.isdigit() and int(declared) > most:
                await self._refuse(share, scope, receive, send, 413, _too_large(most))
                return
            body = await read_body(receive, most)
            if body is None:
                await self._refuse(share, scope, receive, send, 413, _too_large(most))
                return
            body = paged_body(path, body)
            receive = replay(body, receive)
        if b"limit=" in (scope.get("query_string") or b""):
            scope = {**scope, "query_string": paged_query(scope["query_string"])}
        if method == "POST" and path.rstrip("/") == "/mcp" and (refused := await _mcp_refusal(body, owner)):
            await refuse(scope, receive, send, refused.status_code, refused.body, refused.headers)
            return
        deleted = await self._deleting(method, path, scope, body, owner)
        if not deleted:
            await self.app(scope, receive, send)
            return

        async def forgotten_first(message: Message) -> None:
            """Forget the deleted threads' records before the client hears of the deletion: once it has, none of
            their links opens and no recreated thread id finds them."""
            if message["type"] == "http.response.start" and 200 <= int(message["status"]) < 300:
                await forgetting.forget(owner, deleted)
            await send(message)

        await self.app(scope, receive, forgotten_first)

    async def _deleting(self, method: str, path: str, scope: Scope, body: bytes | None, owner: str) -> list[str]:
        """The threads this request asks LangGraph to delete (found before it does, for an assistant's)."""
        if method == "DELETE" and (match := _THREAD.match(path)):
            return [match.group(1)]
        if method == "POST" and path.rstrip("/") == "/threads/prune":
            try:
                ids = json.loads(body or b"{}").get("thread_ids") or []
            except (ValueError, AttributeError):
                return []
            return [str(item) for item in ids if isinstance(item, str)]
        query = (scope.get("query_string") or b"").decode("latin-1").lower()
        if method == "DELETE" and (match := _ASSISTANT.match(path)) and "delete_threads=true" in query:
            return await _threads_of_assistant(owner, match.group(1))
        return []


def _loopback(scope: Scope) -> bool:
    root = scope.get("root_path") or ""
    return root == _LOOPBACK_ROOT or root.startswith(_LOOPBACK_ROOT + "/")


#: Routes that answer a page of a listing, with `limit` in their JSON body.
_LISTING = re.compile(r"/(search|count|namespaces|history)/?$")


def paged_body(path: str, body: bytes) -> bytes:
    """A listing's body with its `limit` at most `PAOR_SERVER_MAX_PAGE`: one search of 1,000 threads of 60 KB
    metadata each had the server read and send 60 MB for one request."""
    if not _LISTING.search(path) or b'"limit"' not in body:
        return body
    try:
        request = json.loads(body)
    except ValueError:
        return body
    most = int(limit("page"))
    if isinstance(request, dict) and isinstance(request.get("limit"), int) and request["limit"] > most:
        return json.dumps({**request, "limit": most}).encode()
    return body


def paged_query(query: bytes) -> bytes:
    """A query string with its `limit` at most `PAOR_SERVER_MAX_PAGE` (`GET /threads?limit=…`)."""
    most = int(limit("page"))
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    capped = [(k, str(most) if k == "limit" and v.isdecimal() and int(v) > most else v) for k, v in pairs]
    return urlencode(capped).encode("latin-1") if capped != pairs else query


def _metered(send: Send, bucket: Rate) -> Send:
    """The bytes of a JSON answer taken from the client's budget of bytes sent: what one request makes the server
    read, build and send, not only how many requests it sends. The answer goes out whole; its debt delays the
    client's next requests (`Traffic._turn`). Downloads and streams are files and events, not listings: not metered."""
    json_answer = False

    async def metered(message: Message) -> None:
        nonlocal json_answer
        if message["type"] == "http.response.start":
            types = [value for key, value in message.get("headers", []) if key.lower() == b"content-type"]
            json_answer = bool(types) and types[0].startswith(b"application/json")
        elif message["type"] == "http.response.body" and json_answer and (size := len(message.get("body", b""))):
            await bucket.take(size)
        await send(message)

    return metered


def _paced(receive: Receive, bucket: Rate) -> Receive:
    """The request's body read no faster than the client's body rate: each chunk waits for its bytes."""

    async def paced() -> Message:
        message = await receive()
        size = len(message.get("body", b"")) if message["type"] == "http.request" else 0
        if size and (wait := await bucket.take(size)):
            await asyncio.sleep(wait)
        return message

    return paced


async def read_body(receive: Receive, most: int) -> bytes | None:
    """The whole request body; None once it grows past `most` bytes (the rest is never read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > most:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def replay(body: bytes, then: Receive) -> Receive:
    """The body read once, then the connection's own messages (its disconnect, which streams wait for)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await then()

    return receive


async def _threads_of_assistant(owner: str, assistant_id: str) -> list[str]:
    return await engine.current().threads_of_assistant(owner, assistant_id)


@dataclass(frozen=True)
class _Refused:
    status_code: int
    headers: dict[str, str]
    body: dict[str, Any]


async def _mcp_refusal(body: bytes | None, owner: str) -> _Refused | None:
    """An MCP `tools/call` starts a run: refused like any run above the client's quota, as a JSON-RPC error (LangGraph's
    MCP endpoint would turn the refused run into a bare 500). A call that passes holds its place until it ends, and
    the run it starts takes it (`quotas.AHEAD`), so runs sent beside it cannot take the place in between."""
    try:
        message = json.loads(body or b"{}")
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    try:
        await quotas.check_runs(owner, f"{quotas.AHEAD}{uuid.uuid4()}")
    except Auth.exceptions.HTTPException as refused:
        error = {"code": -32000, "message": refused.detail}
        reply = {"jsonrpc": "2.0", "id": message.get("id"), "error": error, "detail": refused.detail}
        return _Refused(refused.status_code, dict(refused.headers or {}), reply)
    return None


def _too_large(most: int) -> str:
    return (
        f"the request body is larger than {most / 1024 / 1024:g} MB, the most this server reads "
        f"(PAOR_SERVER_MAX_BODY_MB); send documents with POST {UPLOAD_PATH} and refer to them"
    )


RETRY_S = 1


def _too_many() -> str:
    return (
        f"this client has {int(limit('requests'))} requests open, the most this server serves at once for one "
        "client (PAOR_SERVER_MAX_REQUESTS); wait for one to end"
    )


#: The share of requests without a key, per peer address.
KEYLESS = "keyless:"


def _too_fast_keyless() -> str:
    return (
        f"this address sends more than {limit('requests_per_s'):g} requests a second without a key, the most this "
        "server takes from one address (PAOR_SERVER_MAX_REQUESTS_PER_S); slow down"
    )


def _too_fast() -> str:
    return (
        f"this client sends more than {limit('requests_per_s'):g} requests a second, the most this server takes from "
        "one client (PAOR_SERVER_MAX_REQUESTS_PER_S); slow down"
    )
