"""A stdio MCP server built with the `mcp` SDK that misbehaves on request, for the fail-small tests.

Arguments choose the behaviour: `crash-at-start` (exits 3 after a line on stderr), `hang-at-start` (never answers
`initialize`), `flood-stderr` (5 MB on stderr before serving). Its tools: `echo` (read-only), `write_note` (not
read-only), `pid`, `die` (the process exits), `block` (blocks the whole server: pings go unanswered), `hang`
(blocks it for good, until it is killed), `slow` (awaits 30 s; the server stays responsive), `flood` (answers
3 MB of text) and `picture` (a PNG and a JSON text); `only=hang,echo` serves those tools alone (a run that brings
no more than tools/extra/ranking.OFFERED tools never loads the tool ranking's encoder). When PAOR_TEST_STARTS names
a file, each start appends its pid there; when PAOR_TEST_CALLS does, `hang` writes its pid there as it begins.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
import time

from mcp.server.fastmcp import FastMCP
from mcp.types import ImageContent, TextContent, ToolAnnotations

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

server = FastMCP("faulty")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(message: str) -> str:
    """Echo the message back."""
    return f"echo: {message}"


@server.tool()
def write_note(text: str) -> str:
    """Write a note (a side effect: not read-only)."""
    return f"noted: {text}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
def die() -> str:
    """Exit the server process at once."""
    os._exit(1)


@server.tool()
def block() -> str:
    """Block the whole server (its event loop) for a minute."""
    time.sleep(60)
    return "late"


@server.tool()
def hang() -> str:
    """Block the whole server until it is killed (a stuck call)."""
    calls = os.environ.get("PAOR_TEST_CALLS")
    if calls:
        with open(calls, "w", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
    while True:
        time.sleep(60)


@server.tool()
async def slow() -> str:
    """Take 30 seconds without blocking the server."""
    await asyncio.sleep(30)
    return "late"


@server.tool()
def flood() -> str:
    """Answer with 3 MB of text."""
    return "x" * (3 * 1024 * 1024)


@server.tool()
def picture() -> list[ImageContent | TextContent]:
    """A tiny PNG with a JSON caption."""
    image = ImageContent(type="image", data=base64.b64encode(PNG).decode(), mimeType="image/png")
    return [image, TextContent(type="text", text='{"caption": "one red pixel"}')]


def main() -> None:
    behaviour = set(sys.argv[1:])
    for only in (b.removeprefix("only=") for b in behaviour if b.startswith("only=")):
        kept = only.split(",")
        for tool in [t.name for t in asyncio.run(server.list_tools()) if t.name not in kept]:
            server.remove_tool(tool)
    starts = os.environ.get("PAOR_TEST_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
    if "crash-at-start" in behaviour:
        print("faulty: configuration broken, giving up", file=sys.stderr, flush=True)
        sys.exit(3)
    if "hang-at-start" in behaviour:
        time.sleep(600)
    if "flood-stderr" in behaviour:
        chunk = "noise " * 1000 + "\n"
        for _ in range(5 * 1024 * 1024 // len(chunk)):
            sys.stderr.write(chunk)
        sys.stderr.flush()
    server.run("stdio")


if __name__ == "__main__":
    main()
