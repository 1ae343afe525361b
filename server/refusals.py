"""Refusals a browser can read.

paor's key gate and traffic limits (server/gate.py, server/traffic.py) sit outside LangGraph's CORS middleware, so
their 401/403/413/429 reached a browser without `access-control-allow-origin`: the page saw a network error and
Agent Chat UI showed only "Failed to connect to LangGraph server". Each refusal now goes through the CORS middleware
langgraph-api built for its own routes (same class, same options: `http.cors` in langgraph.json or
CORS_ALLOW_ORIGINS), so it carries exactly the headers a 200 carries, and its JSON `detail` reaches the page.
"""

from __future__ import annotations

import sys
from typing import Any

from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send


def _as_langgraph_answers(app: ASGIApp) -> ASGIApp:
    """`app` behind LangGraph's CORS middleware; as it is where no LangGraph server runs (then 200s carry none)."""
    server = sys.modules.get("langgraph_api.server")  # imported by the server before it imports paor's app
    for middleware in getattr(server, "global_middleware", ()):
        if middleware.cls is CORSMiddleware:
            return CORSMiddleware(app, *middleware.args, **middleware.kwargs)
    return app


async def refuse(
    scope: Scope, receive: Receive, send: Send, status: int, payload: dict[str, Any], headers: dict[str, str]
) -> None:
    """Answer an HTTP request with `status` and `payload` as JSON, with LangGraph's CORS headers."""
    response = JSONResponse(payload, status_code=status, headers=headers)
    await _as_langgraph_answers(response)(scope, receive, send)
