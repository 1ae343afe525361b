"""paor's own routes, on both servers (server/app.py, server/aegra_app.py): uploads in, deliverables out.

- `POST /paor/documents?name=FILE` (raw body) stores a document and answers 201 with its `reference` for a run's
  `documents` input; bodies over `max_document_mb` are 413, unreadable types 415, and an upload that would take the
  client's documents over its quota (PAOR_SERVER_MAX_DOCUMENTS_MB) is 413.
- `GET /paor/documents` lists the client's uploads and how much of its quota its documents take;
  `DELETE /paor/documents/{reference}` deletes one of its uploads.
- `GET /paor/threads/{thread_id}/deliverables` lists the thread's deliverables, each with its download `url`.
- `GET /paor/threads/{thread_id}/documents/{label}/{name}` sends one document the thread produced or received.
  Links in answers carry `?owner=…&signature=…` while auth is on (server/urls.py): such a link opens its one
  document without a key (a click sends none) as long as the thread exists. A link that opens nothing (expired, its
  thread deleted, or not signed for this document) is 410, with or without a key: a short page that says why and
  how to get a fresh link (JSON for a client that asks for it). `HEAD` answers every download route like `GET`,
  without the body.

Thread state is read through the server's own API with the caller's key, so the server's auth decides what the
caller may see (another owner's thread is 404 there and here). Documents are served from the server's own record
of what each owner's thread produced or received (server/records.py), never from a reference in the thread's state,
which a client can write; they are read by their hash: nothing in a URL ever becomes a file path. While
PAOR_SERVER_API_KEY is set, `KeyGate` (server/gate.py) puts every route of the server process behind the key, and
`Traffic` (server/traffic.py) bounds request bodies and forgets a deleted thread's records (server/assembly.py).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from html import escape
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from core.context import Context
from core.errors import DocumentRejected
from core.schemas import DocumentRef, dump
from server import engine, quotas
from server.keys import HEADER, owner_of
from server.records import ThreadRecords
from server.settings import api_keys, limit, server_store
from server.uploads import delete_upload, owner_uploads, store_upload
from server.urls import (
    DELIVERABLES_PATH,
    DOCUMENT_PATH,
    EXPIRES,
    UPLOAD_PATH,
    UPLOADED_PATH,
    Refusal,
    document_url,
    is_link,
    verify_link,
)
from tools.documents import DocumentStore

#: Headers that carry the caller's credentials into the server's own API.
_FORWARDED = (HEADER,)
#: A downloaded document is data, never a page of this origin: no sniffing, no scripts, saved rather than shown.
_DOWNLOAD_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox"}
#: A dead link's page: text only, nothing to run or load, and not kept by a cache.
_PAGE_HEADERS = {**_DOWNLOAD_HEADERS, "Cache-Control": "no-store"}


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
    most = int(context.max_document_mb * 1024 * 1024)
    too_large = _error(413, f"the document is larger than {context.max_document_mb:g} MB (max_document_mb)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > most:
        return too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > most:
            return too_large
    if not body:
        return _error(400, "the body is empty: send the document's bytes")
    owner = _owner(request)
    if refused := await quotas.documents_refusal(owner, len(body)):
        return _error(413, refused)
    try:
        stored = await asyncio.to_thread(store_upload, bytes(body), name, DocumentStore(server_store()), owner)
    except DocumentRejected as exc:
        return _error(415, str(exc))
    return JSONResponse(stored.as_json(), status_code=201)


async def uploads(request: Request) -> Response:
    """The client's uploads, and how much of its document quota its documents take."""
    owner = _owner(request)
    listed = await asyncio.to_thread(owner_uploads, server_store(), owner)
    used = await asyncio.to_thread(quotas.document_bytes, owner)
    return JSONResponse(
        {
            "uploads": [{"reference": reference, **dump(ref)} for reference, ref in listed],
            "documents_bytes": used,
            "documents_quota_bytes": int(limit("documents_mb") * 1024 * 1024),
        }
    )


async def forget_upload(request: Request) -> Response:
    reference = request.path_params["reference"]
    if not await asyncio.to_thread(delete_upload, reference, server_store(), _owner(request)):
        return _error(404, f"no upload {reference} of this client")
    return Response(status_code=204)


async def deliverables(request: Request) -> Response:
    thread_id = request.path_params["thread_id"]
    values = await _thread_values(request, thread_id)
    if values is None:
        return _error(404, f"no thread {thread_id} for this client")
    records, owner = _records(), _owner(request)
    refs = [DocumentRef.model_validate(item) for item in values.get("deliverables") or []]
    base = str(request.base_url)

    def listed() -> list[dict[str, Any]]:
        held = [ref for ref in refs if records.holds(owner, thread_id, ref)]
        return [{**dump(ref), "url": document_url(thread_id, ref, base=base, owner=owner)} for ref in held]

    found = await asyncio.to_thread(listed)
    return JSONResponse({"thread_id": thread_id, "status": values.get("status"), "deliverables": found})


async def document(request: Request) -> Response:
    thread_id, label, name = (request.path_params[key] for key in ("thread_id", "label", "name"))
    if api_keys() and is_link(request.query_params):  # a clicked link: its signature vouches, not a key
        verdict = await asyncio.to_thread(verify_link, thread_id, label, name, request.query_params)
        if isinstance(verdict, str) and thread_id not in await engine.current().existing_threads(verdict, [thread_id]):
            verdict = Refusal.REVOKED  # records outlive a thread LangGraph deleted without a request
        if isinstance(verdict, Refusal):
            return _dead_link(request, verdict, thread_id)
        owner = verdict
    else:
        owner = _owner(request)
        if await _thread_values(request, thread_id) is None:
            return _error(404, f"thread {thread_id} has no document {label}/{name} for this client")
    ref = await asyncio.to_thread(_records().find, owner, thread_id, label, name)
    if ref is None:
        return _error(404, f"thread {thread_id} has no document {label}/{name} for this client")
    path = DocumentStore(server_store()).path_of(ref)
    if not await asyncio.to_thread(path.is_file):
        return _error(404, f"{ref.name} is no longer in the document store")
    return FileResponse(path, media_type=ref.mime, filename=ref.name, headers=_DOWNLOAD_HEADERS)


def _dead_link(request: Request, refusal: Refusal, thread_id: str) -> Response:
    """410 for a link that opens nothing: a click lands on a page that says why and what to do (a bare 401 said
    nothing about links); JSON for a client that asks for it rather than for HTML."""
    title, why = _why_dead(request, refusal)
    fresh = (
        f"For a fresh link, list the thread's deliverables with your key: GET {_deliverables_path(thread_id)} "
        "answers each with a link that opens it now."
    )
    accept = request.headers.get("accept", "")
    if "application/json" in accept and "text/html" not in accept:
        return JSONResponse({"detail": f"{why} {fresh}", "link": refusal.value}, status_code=410, headers=_PAGE_HEADERS)
    title, why, fresh = (escape(text, quote=False) for text in (title, why, fresh))
    page = (
        f'<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{title}</title></head>\n'
        f"<body>\n<h1>{title}</h1>\n<p>{why}</p>\n<p>{fresh}</p>\n</body>\n</html>\n"
    )
    return HTMLResponse(page, status_code=410, headers=_PAGE_HEADERS)


def _why_dead(request: Request, refusal: Refusal) -> tuple[str, str]:
    """(title, reason) of a dead link's page. Only a link this server signed is called expired, so its document's
    name and expiry are the server's own words, not a stranger's."""
    if refusal is Refusal.EXPIRED:
        when = datetime.fromtimestamp(int(request.query_params[EXPIRES]), UTC).strftime("%Y-%m-%d %H:%M UTC")
        name = request.path_params["name"]
        return "This download link has expired", f"The link to {name} expired at {when}: links here last a set time."
    return "This download link no longer works", (
        "Its thread was deleted, and the thread's documents with it (run the request again in a new thread), or the "
        "link is not one this server made for this document (changed, cut short, or made before the server's keys "
        "were replaced)."
    )


def _deliverables_path(thread_id: str) -> str:
    """The thread's listing, naming the thread only when it is a thread id: a forged link's path is not echoed."""
    try:
        return DELIVERABLES_PATH.format(thread_id=str(uuid.UUID(thread_id)))
    except ValueError:
        return DELIVERABLES_PATH


def _records() -> ThreadRecords:
    """What the server itself recorded of each thread's documents: the only ones it serves (server/records.py)."""
    return ThreadRecords(server_store())


def _owner(request: Request) -> str:
    """The client a keyed request comes from (the key gate let only valid keys through), ANONYMOUS without keys."""
    owner = owner_of(request.headers.get(HEADER))
    if owner is None:  # unreachable behind the gate; never serve anything to nobody
        raise PermissionError("a request without a valid key reached a route")
    return owner


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


#: paor's routes, the same on both servers.
ROUTES = [
    Route(UPLOAD_PATH, upload, methods=["POST"]),
    Route(UPLOAD_PATH, uploads, methods=["GET"]),  # GET routes answer HEAD alike (Starlette)
    Route(UPLOADED_PATH, forget_upload, methods=["DELETE"]),
    Route(DELIVERABLES_PATH, deliverables, methods=["GET"]),
    Route(DOCUMENT_PATH, document, methods=["GET"]),
]
