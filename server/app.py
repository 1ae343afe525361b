"""paor's own routes on the LangGraph server (`langgraph.json` `http.app`): uploads in, deliverables out.

- `POST /paor/documents?name=FILE` (raw body) stores a document and answers 201 with its `reference` for a run's
  `documents` input; bodies over `max_document_mb` are 413, unreadable types 415.
- `GET /paor/threads/{thread_id}/deliverables` lists the thread's deliverables, each with its download `url`.
- `GET /paor/threads/{thread_id}/documents/{label}/{name}` sends one document the thread produced or received.
  Links in answers carry `?expires=…&signature=…` while auth is on (server/urls.py): such a link opens its one
  document without a key (a click sends none); a key holder's request with a bad signature is 403.

Thread state is read through the server's own API with the caller's key, so the server's auth decides what the
caller may see (another owner's thread is 404 there and here). Documents are served from the server's own record
of what each thread produced or received (server/records.py), never from a reference in the thread's state, which
a client can write; they are read by their hash: nothing in a URL ever becomes a file path. While
PAOR_SERVER_API_KEY is set, `KeyGate` (server/gate.py) puts every route of the server process behind the key.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from graph.context import Context
from graph.errors import DocumentRejected
from graph.schemas import DocumentRef, dump
from server.gate import KeyGate
from server.records import ThreadRecords
from server.settings import api_keys
from server.uploads import store_upload
from server.urls import DELIVERABLES_PATH, DOCUMENT_PATH, SIGNATURE, UPLOAD_PATH, document_url, signed_document
from tools.documents import DocumentStore

#: Headers that carry the caller's credentials into the server's own API.
_FORWARDED = ("x-api-key",)
#: A downloaded document is data, never a page of this origin: no sniffing, no scripts, saved rather than shown.
_DOWNLOAD_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox"}


def _error(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def _operator_context() -> Context:
    """The server's settings come from its environment, never from a request."""
    return Context()


async def upload(request: Request) -> Response:
    name = request.query_params.get("name", "").strip()
    if not name:
        return _error(400, f"name the document: POST {UPLOAD_PATH}?name=FILE with the bytes as the body")
    context = _operator_context()
    limit = int(context.max_document_mb * 1024 * 1024)
    too_large = _error(413, f"the document is larger than {context.max_document_mb:g} MB (max_document_mb)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return too_large
    if not body:
        return _error(400, "the body is empty: send the document's bytes")
    try:
        stored = await asyncio.to_thread(store_upload, bytes(body), name, DocumentStore(context.store_path))
    except DocumentRejected as exc:
        return _error(415, str(exc))
    return JSONResponse(stored.as_json(), status_code=201)


async def deliverables(request: Request) -> Response:
    thread_id = request.path_params["thread_id"]
    values = await _thread_values(request, thread_id)
    if values is None:
        return _error(404, f"no thread {thread_id} for this client")
    records = _records()
    refs = [DocumentRef.model_validate(item) for item in values.get("deliverables") or []]
    base = str(request.base_url)
    listed = [
        {**dump(ref), "url": document_url(thread_id, ref, base=base)} for ref in refs if records.holds(thread_id, ref)
    ]
    return JSONResponse({"thread_id": thread_id, "status": values.get("status"), "deliverables": listed})


async def document(request: Request) -> Response:
    thread_id, label, name = (request.path_params[key] for key in ("thread_id", "label", "name"))
    if api_keys() and SIGNATURE in request.query_params:  # a clicked link: its signature vouches, not a key
        if not signed_document(thread_id, label, name, request.query_params):
            return _error(
                403,
                "this link has expired or is not a link to this document; list the thread's "
                f"deliverables ({DELIVERABLES_PATH}) for fresh links",
            )
        ref = _records().find(thread_id, label, name)
    else:
        values = await _thread_values(request, thread_id)
        ref = _records().find(thread_id, label, name) if values is not None else None
    if ref is None:
        return _error(404, f"thread {thread_id} has no document {label}/{name} for this client")
    path = DocumentStore(_operator_context().store_path).path_of(ref)
    if not await asyncio.to_thread(path.is_file):
        return _error(404, f"{ref.name} is no longer in the document store")
    return FileResponse(path, media_type=ref.mime, filename=ref.name, headers=_DOWNLOAD_HEADERS)


def _records() -> ThreadRecords:
    """What the server itself recorded of each thread's documents: the only ones it serves (server/records.py)."""
    return ThreadRecords(_operator_context().store_path)


async def _thread_values(request: Request, thread_id: str) -> dict[str, Any] | None:
    """The thread's state values as the caller may see them through the server's API; None if they may not.

    The request goes to this very app in-process, with the caller's key, so the server's auth filters it exactly
    as a client's own request. (`langgraph_sdk.get_client(url=None)` would not do: its loopback transport skips
    auth, and so would reading the checkpointer directly: both would show any owner's thread.)
    """
    try:
        uuid.UUID(thread_id)
    except ValueError:
        return None
    headers = {key: value for key in _FORWARDED if (value := request.headers.get(key))}
    transport = httpx.ASGITransport(app=request.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://paor.internal", headers=headers) as http:
        try:
            state = await LangGraphClient(http).threads.get_state(thread_id)
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code in (403, 404, 422):
                return None
            raise
    values = state.get("values")
    return values if isinstance(values, dict) else {}


app = Starlette(
    routes=[
        Route(UPLOAD_PATH, upload, methods=["POST"]),
        Route(DELIVERABLES_PATH, deliverables, methods=["GET"]),
        Route(DOCUMENT_PATH, document, methods=["GET"]),
    ],
    middleware=[Middleware(KeyGate)],  # langgraph-api wraps the whole server process in it, not just these routes
)
