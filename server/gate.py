"""The key gate: while PAOR_SERVER_API_KEY is set, nothing the server process answers needs less than a client key.

LangGraph's auth handler (server/auth.py) guards the routes LangGraph protects, but `langgraph dev` answers more:
its meta routes (`/`, `/info`, `/docs`, `/openapi.json`, `/metrics`) and the in-memory runtime's development routes
— `GET /internal/debug/thread/{id}` hands any thread to anyone, `POST /internal/truncate` empties every client's
thread registry, `POST /deploy` starts `langgraph deploy` with the operator's LangSmith key. This ASGI middleware
sits on paor's `http.app`; langgraph-api puts a custom app's middleware outside every route of the process
(`langgraph_api.server`: `app.user_middleware = custom_middleware + global_middleware + …`), so it sees each request
before any route, LangGraph's own CORS handling included. Without a valid key the answer is 401; the development
routes are 403 whatever the key, because each acts on every client's data or on the operator's account.

Let through: `/ok` (liveness), a GET or HEAD of a document that presents a link (server/urls.py: a clicked link
carries no key; the route checks it and answers a dead one 410 with a page saying why), CORS preflights
(LangGraph's CORS middleware answers them itself and never passes one to a route; browsers send them without
credentials), and LangGraph's in-process loopback requests (ASGI `root_path` "/noauth", which no HTTP request can
set).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import QueryParams
from starlette.types import ASGIApp, Receive, Scope, Send

from server.keys import HEADER, REFUSAL, client_of
from server.refusals import refuse
from server.settings import api_keys
from server.urls import signed_link

#: Liveness, on both servers (`paor serve`'s `/health`, `/ready` and `/live` need a key: they describe the service).
OPEN_PATHS = frozenset({"/ok"})
#: Development routes of LangGraph's in-memory runtime: refused to every client.
DEVELOPMENT_PREFIXES = ("/internal", "/deploy")
CLOSED = "LangGraph's development routes are closed on a shared paor server"
_LOOPBACK_ROOT = "/noauth"


def is_development_route(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in DEVELOPMENT_PREFIXES)


class KeyGate:
    """ASGI middleware: 401 without a valid `x-api-key`, 403 on the development routes, while keys are set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not api_keys() or _exempt(scope):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if client_of(headers.get(HEADER.encode())) is None:
            await _refuse(scope, receive, send, 401, REFUSAL)
        elif is_development_route(scope["path"]):
            await _refuse(scope, receive, send, 403, CLOSED)
        else:
            await self.app(scope, receive, send)


def _exempt(scope: Scope) -> bool:
    root = scope.get("root_path") or ""
    if root == _LOOPBACK_ROOT or root.startswith(_LOOPBACK_ROOT + "/"):
        return True
    if scope["type"] == "http" and scope["path"] in OPEN_PATHS:
        return True
    if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and _signed(scope):
        return True
    headers = dict(scope.get("headers") or [])
    # A preflight only as CORS answers it (with an Origin): one without would pass CORS on to the route.
    return scope.get("method") == "OPTIONS" and b"origin" in headers and b"access-control-request-method" in headers


def _signed(scope: Scope) -> bool:
    """A clicked deliverable link, for its document's route to check (server/urls.py): a dead one is 410 there."""
    query = QueryParams(scope.get("query_string") or b"")
    return signed_link(scope["path"], query) is not None


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str) -> None:
    if scope["type"] == "http":
        await refuse(scope, receive, send, status, {"detail": detail}, {})
        return
    body = json.dumps({"detail": detail}).encode()
    start: dict[str, Any] = {
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
    }
    await receive()  # websocket.connect: the handshake is answered after it
    if "websocket.http.response" in (scope.get("extensions") or {}):
        await send({"type": "websocket.http.response.start", **start})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})  # the server answers the handshake with 403
