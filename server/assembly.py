"""A server's app assembled with its engine (server/engine.py): paor's middleware, outermost first, with what only
that server needs inside it, and the lifespan that starts the engine.

langgraph-api and Aegra wrap the whole server process in this middleware, not just paor's routes: the key first
(server/gate.py), then the route's class (server/route_classes.py: a route nobody classified is 404), then the limits
(server/traffic.py), then attachments out of run requests (server/attachments.py), then a resume pinned to the
interrupt it answers (server/pinned_resume.py), then the engine's own (`langgraph dev`'s registry journal).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from starlette.middleware import Middleware

from server.attachments import AttachmentsAsUploads
from server.capacity import serving
from server.engine import Engine
from server.gate import KeyGate
from server.pinned_resume import PinnedResumes
from server.route_classes import Classified
from server.traffic import Traffic


def middleware(engine: Engine) -> list[Middleware]:
    """paor's middleware for `engine`'s server."""
    return [
        Middleware(KeyGate),
        Middleware(Classified, table=engine.route_table),
        Middleware(Traffic),
        Middleware(AttachmentsAsUploads),
        Middleware(PinnedResumes),
        *engine.middleware(),
    ]


def lifespan(engine: Engine) -> Callable[[Any], AbstractAsyncContextManager[None]]:
    """The app's lifespan, after the server's own: `engine` started and kept up while the server serves."""

    return lambda _app: serving(engine)
