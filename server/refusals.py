"""Refusals a browser can read.

paor's key gate and traffic limits (server/gate.py, server/traffic.py) sit outside LangGraph's CORS middleware, so
their 401/403/413/429 reached a browser without `access-control-allow-origin`: the page saw a network error and
Agent Chat UI showed only "Failed to connect to LangGraph server". Each refusal now goes through the CORS middleware
langgraph-api built for its own routes (same class, same options: `http.cors` in langgraph.json or
CORS_ALLOW_ORIGINS), so it carries exactly the headers a 200 carries, and its JSON `detail` reaches the page. The
server's engine supplies that (server/engine.py `answering`): on `paor serve`, Aegra's CORS is outside paor's
middleware already.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from server import engine


async def refuse(
    scope: Scope, receive: Receive, send: Send, status: int, payload: dict[str, Any], headers: dict[str, str]
) -> None:
    """Answer an HTTP request with `status` and `payload` as JSON, with the headers the server's own answers carry."""
    response = JSONResponse(payload, status_code=status, headers=headers)
    await engine.current().answering(response)(scope, receive, send)
