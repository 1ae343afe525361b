"""An MCP server built with the `mcp` SDK (FastMCP) whose tools have optional parameters with defaults of their own,
as users write them: `lookup_order` (read-only) and `create_ticket` (a side effect: asks under side_effects).

`python orders_server.py` serves it over stdio; tests serve `server.streamable_http_app()` over HTTP themselves.
FastMCP checks the arguments against the schema it declares: an optional argument sent as `null` is refused
("Input validation error: None is not of type 'boolean'"), one left out gets its default.
"""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

server = FastMCP("orders", stateless_http=True)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def lookup_order(order_id: str, include_items: bool = False) -> str:
    """Look up an order by its id, optionally with its items."""
    items = ": 2 × coffee beans, 1 × grinder" if include_items else " (without items)"
    return f"order {order_id} is shipped{items}"


@server.tool()
def create_ticket(order_id: str, subject: str, priority: str = "normal") -> str:
    """Open a support ticket about an order."""
    return f"ticket opened for order {order_id} ({priority} priority): {subject}"


if __name__ == "__main__":
    server.run("stdio")
