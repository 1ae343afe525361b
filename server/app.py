"""paor's app on `langgraph dev` (`langgraph.json` `http.app`): paor's routes (server/routes.py) and middleware
(server/assembly.py) on `langgraph dev`'s engine (server/engine_langgraph.py)."""

from __future__ import annotations

from starlette.applications import Starlette

from server import assembly, engine
from server.engine_langgraph import LangGraphDev
from server.routes import ROUTES

ENGINE = LangGraphDev(serving=True)  # only langgraph-api loads this app
engine.use(ENGINE)
app = Starlette(
    routes=ROUTES,
    middleware=assembly.middleware(ENGINE),
    lifespan=assembly.lifespan(ENGINE),  # after LangGraph's own: the engine's start, threads for every job at once
)
