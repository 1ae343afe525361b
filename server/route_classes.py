"""Every route either server answers, classified: what it may do decides which of paor's checks stand in front of it.

An upgrade of Aegra or langgraph-api can add routes, and a route that starts a run without passing paor's door
(server/run_door.py) is a hole the day it ships: the v2 `/commands` route of Aegra 0.11 ran `code.execute` for a
client the operator allowed `ai.process` only. So `Classified` (middleware of both apps, with the table of its
server: `PAOR_SERVE`, `LANGGRAPH_DEV`) looks each request's route up here and
refuses a route that is off, or that nobody has classified, with 404 and a line saying why (before the route's own
checks run: a new route is closed until someone decides what it is);
tests/engine/test_one_door.py (`paor serve`) and tests/server/test_shared_server.py (`langgraph dev`) list the
routes each server answers and fail on any not here.

- OPEN: answered without a key (liveness).
- META: the server's description and health, for any key holder.
- READ: reads of the caller's own resources (owner-filtered by server/auth.py).
- WRITE: creations, changes and deletions of the caller's own resources (stamped, within quotas).
- RUN: starts or continues a run: each run passes the door (the auth handler on `langgraph dev`, where Aegra
  prepares it on `paor serve`: server/aegra_runs.py).
- OFF: served by the server but not by paor, with the reason.
The key gate (server/gate.py) still decides who may ask; the classes decide which routes exist for paor at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from server.refusals import refuse


class Kind(StrEnum):
    OPEN = "open"
    META = "meta"
    READ = "read"
    WRITE = "write"
    RUN = "run"
    OFF = "off"


_V2_OFF = (
    "v2 event streaming is off on a paor server: its commands start runs that would skip paor's attachment and "
    "resume handling; use POST /threads/{thread_id}/runs/stream (and command.resume to answer a question)"
)
_UNPAGED = (
    "Aegra answers {route} with every {what} of the client at once, whatever `limit` asks: off on paor serve, "
    "where listings are paged; use {instead} with `limit` and `offset`"
)
_DEVELOPMENT = "LangGraph's development routes are closed on a shared paor server (server/gate.py: 403)"
#: Why each route that is off is off.
OFF_BECAUSE = {
    ("POST", "/threads/{thread_id}/commands"): _V2_OFF,
    ("POST", "/threads/{thread_id}/stream/events"): _V2_OFF,
    ("WEBSOCKET", "/threads/{thread_id}/stream/events"): _V2_OFF,
    ("GET", "/internal/debug/thread/{thread_id}"): _DEVELOPMENT,
    ("POST", "/internal/truncate"): _DEVELOPMENT,
    ("GET", "/deploy"): _DEVELOPMENT,
    ("POST", "/deploy"): _DEVELOPMENT,
    ("GET", "/deploy/{operation_id}/stream"): _DEVELOPMENT,
    ("GET", "/threads"): _UNPAGED.format(route="GET /threads", what="thread", instead="POST /threads/search"),
    ("GET", "/assistants"): _UNPAGED.format(
        route="GET /assistants", what="assistant", instead="POST /assistants/search"
    ),
}


def _routes(kind: Kind, *routes: str) -> dict[tuple[str, str], Kind]:
    return {(method, path): kind for method, _, path in (route.partition(" ") for route in routes)}


PAOR_SERVE: dict[tuple[str, str], Kind] = {
    **_routes(Kind.OPEN, "GET /ok"),
    **_routes(
        Kind.META,
        "GET /",
        "GET /info",
        "GET /health",
        "GET /ready",
        "GET /live",
        "GET /docs",
        "GET /docs/oauth2-redirect",
        "GET /redoc",
        "GET /openapi.json",
    ),
    **_routes(
        Kind.READ,
        "POST /assistants/search",
        "POST /assistants/count",
        "GET /assistants/{assistant_id}",
        "POST /assistants/{assistant_id}/versions",
        "GET /assistants/{assistant_id}/schemas",
        "GET /assistants/{assistant_id}/graph",
        "GET /assistants/{assistant_id}/subgraphs",
        "POST /threads/search",
        "GET /threads/{thread_id}",
        "GET /threads/{thread_id}/state",
        "GET /threads/{thread_id}/state/{checkpoint_id}",
        "POST /threads/{thread_id}/state/checkpoint",
        "GET /threads/{thread_id}/history",
        "POST /threads/{thread_id}/history",
        "GET /threads/{thread_id}/runs",
        "GET /threads/{thread_id}/runs/{run_id}",
        "GET /threads/{thread_id}/runs/{run_id}/join",
        "GET /threads/{thread_id}/runs/{run_id}/stream",
        "POST /runs/crons/search",
        "POST /runs/crons/count",
        "GET /store/items",
        "POST /store/items/search",
        "POST /store/namespaces",
        "GET /paor/documents",
        "GET /paor/threads/{thread_id}/deliverables",
        "GET /paor/threads/{thread_id}/documents/{label}/{name}",
    ),
    **_routes(
        Kind.WRITE,
        "POST /assistants",
        "PATCH /assistants/{assistant_id}",
        "DELETE /assistants/{assistant_id}",
        "POST /assistants/{assistant_id}/latest",
        "POST /threads",
        "PATCH /threads/{thread_id}",
        "DELETE /threads/{thread_id}",
        "POST /threads/{thread_id}/state",  # refused: a thread's state is written by its runs (server/auth.py)
        "POST /threads/prune",
        "PATCH /threads/{thread_id}/runs/{run_id}",
        "DELETE /threads/{thread_id}/runs/{run_id}",
        "POST /threads/{thread_id}/runs/{run_id}/cancel",
        "POST /runs/cancel",
        "PATCH /runs/crons/{cron_id}",  # its next firings pass the door
        "DELETE /runs/crons/{cron_id}",
        "PUT /store/items",
        "DELETE /store/items",
        "POST /paor/documents",
        "DELETE /paor/documents/{reference}",
    ),
    **_routes(
        Kind.RUN,
        "POST /threads/{thread_id}/runs",
        "POST /threads/{thread_id}/runs/stream",
        "POST /threads/{thread_id}/runs/wait",
        "POST /runs",
        "POST /runs/stream",
        "POST /runs/wait",
        "POST /runs/crons",
        "POST /threads/{thread_id}/runs/crons",
        "GET /mcp",  # the MCP session's stream; tools/call starts runs through the run routes
        "POST /mcp",
        "DELETE /mcp",
    ),
    **dict.fromkeys(OFF_BECAUSE, Kind.OFF),
}


#: Routes of Aegra's alone: its health checks, FastAPI's docs, and its unpaged listings.
_AEGRAS_OWN = {
    ("GET", "/health"),
    ("GET", "/ready"),
    ("GET", "/live"),
    ("GET", "/redoc"),
    ("GET", "/docs/oauth2-redirect"),
    ("GET", "/threads"),
    ("GET", "/assistants"),
}
#: `langgraph dev`'s routes (langgraph-api's, the in-memory runtime's and paor's), in the same classes; its runs pass
#: the auth handler, which is the door there.
LANGGRAPH_DEV: dict[tuple[str, str], Kind] = {
    **{key: kind for key, kind in PAOR_SERVE.items() if key not in _AEGRAS_OWN},
    **_routes(
        Kind.META,
        "GET /metrics",
        "GET /ui/{file:path}",  # generative UI bundles, a mount of static files
        "POST /ui/{graph_id}",
        "GET /.well-known/agent-card.json",
        "GET /a2a/{assistant_id}/.well-known/agent-card.json",
        "GET /a2a/{assistant_id}/.well-known/agent.json",
    ),
    **_routes(
        Kind.READ,
        "GET /assistants/{assistant_id}/subgraphs/{namespace}",
        "GET /runs/crons/{cron_id}",
        "POST /threads/count",
        "GET /threads/{thread_id}/storage",
        "GET /threads/{thread_id}/stream",
    ),
    **_routes(Kind.WRITE, "POST /threads/{thread_id}/copy"),
    **_routes(
        Kind.RUN,
        "POST /runs/batch",
        *(f"{m} /a2a/{{assistant_id}}{end}" for m in ("GET", "POST", "DELETE") for end in ("", "/")),
    ),
}


def kind_of(method: str, path: str, table: Mapping[tuple[str, str], str] = PAOR_SERVE) -> str | None:
    """The class of the route `path` (its template) answers `method` with; None if nobody classified it."""
    return table.get(("GET" if method == "HEAD" else method, path))


class Classified:
    """ASGI middleware: a request whose route is off, or not classified in `table`, is 404 with the reason. Paths are
    matched against the table's own templates (Starlette's path syntax), so whatever the server's router adds is
    unknown here until it is classified."""

    def __init__(self, app: ASGIApp, table: Mapping[tuple[str, str], str] = PAOR_SERVE) -> None:
        self.app = app
        self.table = table
        by_specificity = sorted({path for _, path in table}, key=lambda path: (path.count("{"), -len(path)))
        self.templates = [(path, compile_path(path)[0]) for path in by_specificity]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") != "OPTIONS" and (why := self.refusal(scope)):
            await refuse(scope, receive, send, 404, {"detail": why}, {})
            return
        if scope["type"] == "websocket" and self.refusal(scope):
            await receive()  # websocket.connect: the handshake is refused after it
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> str | None:
        """Why the request's route is not served; None if it is."""
        method = scope.get("method", "GET") if scope["type"] == "http" else "WEBSOCKET"
        path = scope["path"]
        for template, pattern in self.templates:
            if pattern.match(path) and (kind := kind_of(method, template, self.table)) is not None:
                return OFF_BECAUSE[(method, template)] if kind == Kind.OFF else None
        return f"{method} {path} is not a route paor serves"
