"""paor's app on `paor serve` (`aegra.json` `http.app`), which takes only a FastAPI app.

paor's routes (server/routes.py), middleware and lifespan (server/assembly.py), as on `langgraph dev`, in a FastAPI
app assembled with Aegra's engine (server/engine_aegra.py: questions in PostgreSQL, counters in Redis). Aegra adds
its own routes to this app and its CORS, correlation and logging middleware outside these, so the key gate, the
traffic limits, attachments-as-uploads and the rest see every request of the process, Aegra's own included. paor's
routes stay plain Starlette routes: Aegra's `enable_custom_route_auth` covers FastAPI routes only, and a clicked
deliverable link carries no key (the key gate lets it through to its route, which checks it). `/mcp`, which
langgraph-api serves and Aegra does not, is paor's too (server/mcp_endpoint.py): it asks Aegra's API as the caller.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import FastAPI, HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from server import assembly, engine, mcp_endpoint
from server.engine_aegra import Aegra
from server.routes import ROUTES
from server.supervised import follow_supervisor

ENGINE = Aegra()
engine.use(ENGINE)
follow_supervisor()  # a worker of `--workers N` ends with its supervisor


async def ok(_request: Request) -> JSONResponse:
    """langgraph-api's liveness route, which paor's tools and tests wait on (Aegra has `/health` and `/live`)."""
    return JSONResponse({"ok": True})


#: Seconds `/health` waits for each service.
HEALTH_S = 0.8


async def health(_request: Request) -> JSONResponse:
    """Each service this instance needs, answered within a second whatever they do: 200 when all answer, else 503
    naming the ones that do not (Aegra's own `/health` waited 20 s for a PostgreSQL that was down, and its `/ready`
    as long). Keyed like every route but `/ok`; not counted in the client's rates, which are kept in Redis."""
    services = await _latest_health()
    healthy = all(state == "ok" for state in services.values())
    return JSONResponse(
        {"status": "healthy" if healthy else "unhealthy", **services}, status_code=200 if healthy else 503
    )


_PROBE: dict[str, Any] = {}


async def _latest_health() -> dict[str, str]:
    """One probe at a time and at most one a second, shared by every request meanwhile: a flood of health checks,
    which are not counted, costs the services nothing more."""
    task, at = _PROBE.get("task"), _PROBE.get("at", 0.0)
    if task is None or (task.done() and time.monotonic() - at > 1.0):
        task = _PROBE["task"] = asyncio.ensure_future(ENGINE.health(HEALTH_S))
        _PROBE["at"] = time.monotonic()
    return dict(await asyncio.shield(task))


async def refused(_request: Request, exc: Exception) -> JSONResponse:
    """Aegra's error body, with the refusal's headers kept: its own handler drops them, and a client at its quota
    of runs in flight is told when to try again (`Retry-After`). An app's handler takes precedence over Aegra's."""
    assert isinstance(exc, HTTPException)
    from aegra_api.models.errors import AgentProtocolError, get_error_type

    body = AgentProtocolError(
        error=get_error_type(exc.status_code), message=exc.detail, details=getattr(exc, "details", None)
    )
    return JSONResponse(body.model_dump(), status_code=exc.status_code, headers=exc.headers)


app = FastAPI(
    routes=[
        Route("/ok", ok, methods=["GET"]),
        Route("/health", health, methods=["GET"]),  # before Aegra's own /health and /ready, which it replaces
        Route("/ready", health, methods=["GET"]),
        Route(mcp_endpoint.PATH, mcp_endpoint.endpoint, methods=["GET", "POST", "DELETE"]),  # langgraph-api's MCP
        *ROUTES,
    ],
    middleware=assembly.middleware(ENGINE),
    lifespan=assembly.lifespan(ENGINE),  # inside Aegra's own (aegra_api.core.route_merger)
    exception_handlers={HTTPException: refused},
)
