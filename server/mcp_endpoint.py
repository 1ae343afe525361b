"""`/mcp` on `paor serve`: the assistants a client may run, as MCP tools, the way `langgraph dev` serves them.

langgraph-api serves the Model Context Protocol at `/mcp` (streamable HTTP, stateless, JSON responses only); Aegra
serves none. This route answers the same messages with the same shapes (ported from `langgraph_api.api.mcp`), so an
MCP client finds the same paor on either server:

- `POST /mcp` takes one JSON-RPC message. `initialize` agrees on a protocol version; `ping`; `tools/list` lists the
  assistants the caller can see, 100 a page (`nextCursor` is an offset), each a tool named after its assistant
  (whitespace becomes `_`, characters outside `[A-Za-z0-9_.-]` go), described by the assistant's description, its
  `inputSchema` the graph's input schema; `tools/call` runs the named assistant statelessly and answers its output
  values as text (Python's `repr`, as langgraph-api writes them), or `isError` with the name of the error the run
  failed with (`InputRefused`). A notification or a response is answered 202; an unknown tool, or a name two
  assistants share, is a JSON-RPC error (-32602), an unknown method -32601.
- `GET` is 405 (no server-sent stream), `DELETE` 404 (no sessions to end).

Everything is asked of Aegra's own API, in-process, with the caller's `x-api-key` (server/routes.py reads thread
state the same way): Aegra's auth and paor's auth handler (server/auth.py) decide what the caller sees and may run
as for the client's own requests, so another client's assistant is neither listed nor callable, and a run is held to the
client's quotas. Those requests carry the loopback root path, as langgraph-api's own in-process requests do, which
no HTTP request can set: the key gate and the traffic limits, which the `/mcp` request itself passed, do not count
them again, and the run a `tools/call` starts takes over the place its request held ahead (server/traffic.py
`_mcp_refusal`, server/quotas.py `AHEAD`). A refusal of the API becomes a JSON-RPC error carrying its reason; a 429
stays a 429, with its `Retry-After`, as the traffic layer answers a call over the runs quota.

Not built on the `mcp` package's server (`Server` with `StreamableHTTPSessionManager(stateless=True,
json_response=True)`), which would serve the same protocol: here it fits worse than this port of langgraph-api's
handler (which is not built on it either):

- it answers every JSON-RPC message 200: a run refused over the quota could not be the 429 with `Retry-After` that
  the traffic layer answers and clients retry on;
- it runs each request's handlers in tasks of its own task group, entered in the lifespan, not in the request's
  task: the run's place held ahead, a context variable of the request (server/quotas.py `REQUEST_RESERVATIONS`),
  would reach them only by how anyio copies contexts;
- its `call_tool` decorator keeps one cache of tool definitions for every client and checks arguments against the
  schema there (jsonschema), where langgraph-api hands them to the run as they are, and turns an unknown tool into
  an `isError` result where langgraph-api answers a JSON-RPC error;
- it would load the SDK (123 modules, jsonschema among them, 0.4 s) into every server process, which paor keeps
  out of its servers until a run uses an MCP server (tests/unit/test_warm_start.py).

The official client (`mcp.client.streamable_http`) lists and calls these tools: tests/engine/test_mcp_serve.py.
"""

from __future__ import annotations

import asyncio
import json
import re
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.keys import HEADER

PATH = "/mcp"
#: Protocol versions answered as asked (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
PROTOCOL_VERSIONS = frozenset(("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"))
LATEST_PROTOCOL_VERSION = "2025-11-25"
#: Tools a page of `tools/list` holds, and the assistants `tools/call` looks through for the tool's (Aegra's search
#: answers at most 100 at a time).
PAGE, MAX_ASSISTANTS = 100, 1000
#: Schema requests of one `tools/list` at once (each is a request to the API, and a database connection there).
SCHEMA_REQUESTS = 8
INVALID_PARAMS, METHOD_NOT_FOUND, SERVER_ERROR, INTERNAL_ERROR = -32602, -32601, -32000, -32603
#: The root path of the server's own in-process requests (server/gate.py, server/traffic.py): no HTTP request sets it.
LOOPBACK_ROOT = "/noauth"
#: What the in-process requests carry of the caller's: its key.
FORWARDED = (HEADER,)
_INVALID = re.compile(r"[^a-zA-Z0-9_\-.]")
#: langchain's message types, which an input schema of `messages` refers to: a tool takes one user message instead.
_MESSAGE_TYPES = frozenset(
    f"{kind}{chunk}"
    for kind in ("AI", "Human", "Chat", "System", "Function", "Tool")
    for chunk in ("Message", "MessageChunk")
)
_MESSAGE_DEFS = _MESSAGE_TYPES | {
    "ToolCall",
    "ToolCallChunk",
    "InvalidToolCall",
    "UsageMetadata",
    "InputTokenDetails",
    "OutputTokenDetails",
}


class Refused(Exception):
    """The API refused a request made for the caller: answered as a JSON-RPC error with the API's reason."""

    def __init__(self, status: int, message: str, headers: dict[str, str]) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


async def endpoint(request: Request) -> Response:
    """The MCP endpoint: JSON-RPC over POST, 405 for GET (and HEAD), 404 for DELETE."""
    if request.method == "DELETE":
        return Response(status_code=404)
    if request.method != "POST":
        return Response(status_code=405)
    try:
        message = json.loads(await request.body())
    except ValueError:
        return _bad("Invalid JSON")
    accept = request.headers.get("accept", "")
    if "application/json" not in accept and "text/event-stream" not in accept:
        return _bad("Accept header must include application/json or text/event-stream")
    if not isinstance(message, dict):
        return _bad("Invalid message format.")
    if message.get("jsonrpc") != "2.0":
        return _bad("Invalid JSON-RPC message. Missing or invalid jsonrpc version.")
    id_, method = message.get("id"), message.get("method")
    if id_ is not None and method:
        return await _request(request, id_, str(method), message.get("params") or {})
    if id_ is not None or method:  # a response, or a notification: nothing to answer
        return Response(status_code=202)
    return _bad(
        "Invalid message format. A message is to be either a JSON-RPC request, response, or notification. "
        "Please see the Messages section of the Streamable HTTP RFC for more information."
    )


def _bad(message: str) -> Response:
    return JSONResponse({"error": message}, status_code=400)


async def _request(request: Request, id_: Any, method: str, params: Any) -> Response:
    params = params if isinstance(params, dict) else {}
    try:
        if method == "initialize":
            reply = _initialize(params)
        elif method == "ping":
            reply = {"result": {}}
        elif method == "tools/list":
            reply = await _tools_list(request, params)
        elif method == "tools/call":
            reply = await _tools_call(request, params)
        else:
            reply = {"error": {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}}
    except Refused as refused:
        error = {"code": SERVER_ERROR if refused.status < 500 else INTERNAL_ERROR, "message": refused.message}
        status = 429 if refused.status == 429 else 200  # try again later; anything else is the call's answer
        body = {"jsonrpc": "2.0", "id": id_, "error": error, "detail": refused.message}
        return JSONResponse(body, status_code=status, headers=refused.headers if status == 429 else None)
    return JSONResponse({"jsonrpc": "2.0", "id": id_, **reply})


def _initialize(params: dict[str, Any]) -> dict[str, Any]:
    asked = params.get("protocolVersion", LATEST_PROTOCOL_VERSION)
    return {
        "result": {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "paor", "version": _version()},
        }
    }


def _version() -> str:
    try:
        return version("paor")
    except PackageNotFoundError:
        return "0"


async def _tools_list(request: Request, params: dict[str, Any]) -> dict[str, Any]:
    try:
        cursor = max(int(params.get("cursor") or 0), 0)
    except (TypeError, ValueError):
        cursor = 0
    async with _api(request) as api:
        assistants = await _search(api, cursor)
        unique: dict[str, dict[str, Any]] = {}
        for assistant in assistants:  # one tool per name: the first assistant that has it
            unique.setdefault(tool_name(str(assistant.get("name") or "")), assistant)
        turns = asyncio.Semaphore(SCHEMA_REQUESTS)

        async def tool(name: str, assistant: dict[str, Any]) -> dict[str, Any] | None:
            async with turns:
                return await _tool(api, name, assistant)

        tools = await asyncio.gather(*(tool(name, assistant) for name, assistant in unique.items() if name))
    result: dict[str, Any] = {"tools": [tool for tool in tools if tool is not None]}
    if len(assistants) == PAGE:
        result["nextCursor"] = cursor + PAGE
    return {"result": result}


async def _tool(api: httpx.AsyncClient, name: str, assistant: dict[str, Any]) -> dict[str, Any] | None:
    """The assistant as a tool; None when its graph has no input schema to give (langgraph-api leaves it out)."""
    try:
        schemas = await _json(api, "GET", f"/assistants/{assistant['assistant_id']}/schemas")
    except Refused:
        return None
    schema = schemas.get("input_schema") if isinstance(schemas, dict) else None
    if not isinstance(schema, dict):
        return None
    simplify_schema(schema)
    schema.setdefault("type", "object")  # MCP wants an object's schema
    return {
        "name": name,
        "title": assistant.get("name"),
        "description": assistant.get("description") or f"Tool based on the {assistant.get('name')} assistant",
        "inputSchema": schema,
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": True,
        },
    }


async def _tools_call(request: Request, params: dict[str, Any]) -> dict[str, Any]:
    name = params.get("name")
    if not name:
        return _invalid(f"Unknown tool: {name}")
    arguments = params.get("arguments")
    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, dict):
        return _invalid("arguments must be an object")
    async with _api(request) as api:
        matching = []
        for offset in range(0, MAX_ASSISTANTS, PAGE):
            page = await _search(api, offset)
            matching += [assistant for assistant in page if tool_name(str(assistant.get("name") or "")) == name]
            if len(page) < PAGE:
                break
        if not matching:
            return _invalid(f"Unknown tool: {name}")
        if len(matching) > 1:
            return _invalid("Multiple tools found with the same name.")
        run: dict[str, Any] = {"assistant_id": matching[0]["assistant_id"], "input": arguments}
        if params.get("context") is not None:
            run["context"] = params["context"]
        values, error = await _run(api, run)
    if error is not None:
        return {"result": {"isError": True, "content": [{"type": "text", "text": error}]}}
    return {"result": {"content": [{"type": "text", "text": repr(values)}]}}


def _invalid(message: str) -> dict[str, Any]:
    return {"error": {"code": INVALID_PARAMS, "message": message}}


async def _run(api: httpx.AsyncClient, run: dict[str, Any]) -> tuple[Any, str | None]:
    """A stateless run's last values, or the name of the error it failed with.

    Streamed rather than waited for: Aegra's `/runs/wait` names every failure `Error`, its stream's `error` event
    the exception's class (`InputRefused`), as langgraph-api's wait does."""
    body = {**run, "stream_mode": ["values"]}
    response = await api.post("/runs/stream", json=body, headers={"accept": "text/event-stream"})
    if response.status_code >= 400:
        raise _refused(response)
    values: Any = {}
    for event, data in _events(response.text):
        if event == "values":
            values = data
        elif event == "error":
            return values, str(data.get("error") if isinstance(data, dict) else data) or "Error"
    return values, None


def _events(text: str) -> list[tuple[str, Any]]:
    """The events of a server-sent event stream: (event, its data as JSON)."""
    events = []
    for block in re.split(r"\r?\n\r?\n", text):
        event, data = "message", []
        for line in block.splitlines():
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
        if data:
            try:
                events.append((event, json.loads("\n".join(data))))
            except ValueError:
                events.append((event, "\n".join(data)))
    return events


async def _search(api: httpx.AsyncClient, offset: int) -> list[dict[str, Any]]:
    """A page of the assistants the caller can see, newest first (langgraph-api's order)."""
    body = {"limit": PAGE, "offset": offset, "sort_by": "created_at", "sort_order": "desc"}
    found = await _json(api, "POST", "/assistants/search", body)
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


async def _json(api: httpx.AsyncClient, method: str, path: str, body: Any = None) -> Any:
    response = await api.request(method, path, json=body)
    if response.status_code >= 400:
        raise _refused(response)
    return response.json()


def _refused(response: httpx.Response) -> Refused:
    """The API's refusal and its reason (paor's `detail`, Aegra's `message`)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    reason = None
    if isinstance(body, dict):
        reason = body.get("detail") or body.get("message")
    message = str(reason or response.text or f"the server's API answered {response.status_code}")
    retry = response.headers.get("retry-after")
    return Refused(response.status_code, message, {"Retry-After": retry} if retry else {})


def _api(request: Request) -> httpx.AsyncClient:
    """This very app, in-process, as the caller: its key, the loopback root path."""
    headers = {key: value for key in FORWARDED if (value := request.headers.get(key))}
    transport = httpx.ASGITransport(app=request.app, raise_app_exceptions=False, root_path=LOOPBACK_ROOT)
    return httpx.AsyncClient(transport=transport, base_url="http://paor.internal", headers=headers, timeout=None)


def tool_name(name: str) -> str:
    """An assistant's name as an MCP tool's: `^[a-zA-Z0-9_.-]{1,128}$` (langgraph-api's normalisation)."""
    return _INVALID.sub("", re.sub(r"\s+", "_", name.strip()))[:128]


def simplify_schema(schema: dict[str, Any]) -> None:
    """langgraph-api's simplification, in place: a property that takes langchain messages takes one user message,
    and the messages' definitions go."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict) or not set(defs) & _MESSAGE_TYPES:
        return
    for name in _MESSAGE_DEFS:
        defs.pop(name, None)
    if not defs:
        del schema["$defs"]
    properties = schema.get("properties") or {}
    for key, prop in properties.items():
        if _takes_messages(prop):
            properties[key] = {
                "type": "string",
                "title": prop.get("title", key),
                "description": "The user message to send to the agent.",
            }


def _takes_messages(prop: Any) -> bool:
    if not isinstance(prop, dict) or prop.get("type") != "array":
        return False
    items = prop.get("items") or {}
    for candidate in items.get("oneOf") or items.get("anyOf") or []:
        ref = str(candidate.get("$ref", ""))
        if ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in _MESSAGE_TYPES:
            return True
    return False
