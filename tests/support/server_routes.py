"""Every route a `langgraph dev` server answers, read from the app it would serve: run as a script, never imported.

`python -m tests.support.server_routes dev --config langgraph.json …` goes through `langgraph dev`'s own start-up
(same configuration, same environment, same import of `langgraph_api.server:app`) with `uvicorn.run` replaced: instead
of serving the app it walks the app's router — LangGraph's meta and internal routes, the protected API, the
project's `http.app` routes, whatever a new langgraph-api version adds — and prints one JSON object per route:
`{"path": "/threads/{thread_id}/state", "methods": ["GET", "HEAD"]}` (`"methods": null` for a route that takes every
method, `["WEBSOCKET"]` for a WebSocket route).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from typing import Any


def walk(routes: list[Any], prefix: str = "") -> Iterator[dict[str, Any]]:
    from starlette.routing import Mount, Route, WebSocketRoute

    for route in routes:
        path = prefix + getattr(route, "path", "")
        if isinstance(route, Mount):
            inner = list(route.routes)
            yield from walk(inner, path)
            if not inner:  # a mounted ASGI app of its own: every path under it
                yield {"path": path or "/", "methods": None}
        elif isinstance(route, WebSocketRoute):
            yield {"path": path, "methods": ["WEBSOCKET"]}
        elif isinstance(route, Route):
            yield {"path": path, "methods": sorted(route.methods) if route.methods else None}
        else:
            yield {"path": path or "/", "methods": None}


def _print_routes(app: str, *args: Any, **kwargs: Any) -> None:
    """Stands in for uvicorn.run: import the app the server would serve and print its routes."""
    module, _, name = app.partition(":")
    served = getattr(importlib.import_module(module), name)
    for found in walk(list(served.routes)):
        print(json.dumps(found), flush=True)


def main() -> None:
    import uvicorn
    from langgraph_cli.cli import cli

    uvicorn.run = _print_routes  # type: ignore[assignment]
    cli(sys.argv[1:], standalone_mode=True)


if __name__ == "__main__":
    main()
