"""Attachments out of run requests, before LangGraph keeps them.

A chat client sends a file inside its message, base64: LangGraph wrote the request's input into the run record and
the thread's first checkpoints before any node could replace the bytes by a reference, so Agent Chat UI's
`POST /threads/{id}/history` downloaded a 1 MB PDF twice each time it opened the thread (issue 31). This middleware
reads the request first: each file block with inline data that the upload checks accept becomes an upload of the
client (server/uploads.py, counted in its document quota), bound to the thread so it goes when the thread goes, and
the block names it instead (`{"type": "file", "file_id": "upload:…", "mime_type", "filename"}`, which
nodes/attachments.py takes as an input source). What the checks refuse, and files past `MAX_UPLOADS`, stay as they
were sent: the round decides about them, as before. Images stay inline: whether the model sees them is decided in
the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

import orjson
from langgraph_sdk import Auth
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.context import Context
from core.errors import DocumentRejected
from nodes.attachments import Attachment, read_block
from server import quotas, run_sizes
from server.keys import HEADER, owner_of
from server.refusals import refuse
from server.settings import api_keys, limit, server_store
from server.traffic import read_body, replay
from server.uploads import delete_upload, store_upload
from tools.documents import DocumentStore

#: Run requests on a thread: the thread their uploads belong to.
_THREAD_RUNS = re.compile(r"^/threads/([^/]+)/runs(/stream|/wait)?/?$")
#: What an inline file's block carries (a base64 string under one of these keys, a data: URL, a text-plain text).
_INLINE = re.compile(rb'"(data|base64|file_data)"\s*:|data:|text-plain')
#: Stateless runs: no thread yet to bind uploads to, but their parts are capped all the same.
_STATELESS_RUNS = re.compile(r"^/runs(/stream|/wait)?/?$")
#: The traffic middleware, which runs first, bounded the body already.
_UNBOUNDED = 1 << 62
#: The most files one request turns into uploads: a 10 MB body of tiny files would otherwise make thousands.
MAX_UPLOADS = 20


class AttachmentsAsUploads:
    """ASGI middleware: a run request whose part is over its cap is refused before LangGraph parses it (measured in
    a child process: a flood of 9 MB inputs spent most of the event loop's time parsing them); then the inline
    files of a run request's messages become uploads of the client, named by reference."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"] if scope["type"] == "http" else ""
        match = _THREAD_RUNS.match(path) or _STATELESS_RUNS.match(path)
        owner = owner_of(dict(scope.get("headers") or []).get(HEADER.encode()))
        if match is None or scope.get("method") != "POST" or owner is None:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, _UNBOUNDED) or b""
        if api_keys() and len(body) > limit("run_kb") * 1024 and (refused := await _over_the_cap(body)):
            await refuse(scope, receive, send, refused.status_code, {"detail": refused.detail}, {})
            return
        thread = match.group(1) if match.re is _THREAD_RUNS else None
        request = _with_inline_files(body) if thread is not None else None
        made: list[str] = []
        if request is None or not await _uploaded(request, owner, thread or "", made):
            await self.app(scope, replay(body, receive), send)  # LangGraph reads it as sent (and says what is wrong)
            return
        try:  # what the uploads' checks refused stays inline: over the cap, LangGraph need not parse it again
            quotas.check_run_request(request)
        except Auth.exceptions.HTTPException as refused:
            for reference in made:
                await asyncio.to_thread(delete_upload, reference, server_store(), owner)
            await refuse(scope, receive, send, refused.status_code, {"detail": refused.detail}, {})
            return
        lean = orjson.dumps(request)
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"content-length"]
        headers.append((b"content-length", str(len(lean)).encode()))

        async def refused_unmade(message: Message) -> None:
            """A run LangGraph refused (another's thread, a quota) keeps none of the uploads made for it."""
            if message["type"] == "http.response.start" and not 200 <= int(message["status"]) < 300:
                for reference in made:
                    await asyncio.to_thread(delete_upload, reference, server_store(), owner)
            await send(message)

        await self.app({**scope, "headers": headers}, replay(lean, receive), refused_unmade)


async def _over_the_cap(body: bytes) -> Auth.exceptions.HTTPException | None:
    """The refusal of a run request whose part is over PAOR_SERVER_MAX_RUN_KB once its files are uploads, measured
    away from the event loop (server/run_sizes.py); None when none is."""
    sizes = await run_sizes.measured(body)
    try:
        for part, size in (sizes or {}).items():
            quotas.check_bytes(f"the run's {part}", size, "run_kb")
    except Auth.exceptions.HTTPException as refused:
        return refused
    return None


def _with_inline_files(body: bytes) -> dict[str, Any] | None:
    """The request parsed, where it may carry inline files (a cheap look at the bytes first); else None."""
    if not _INLINE.search(body):
        return None
    try:
        request = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return request if isinstance(request, dict) else None


async def _uploaded(request: Any, owner: str, thread: str, made: list[str]) -> bool:
    """Turn the request's inline files into upload references, in place (each one's reference added to `made`);
    whether any was."""
    blocks = [block for block in run_sizes.content_blocks(request) if isinstance(block, dict)]
    most = int(Context().max_document_mb * 1024 * 1024)  # the operator's: a server run's is capped by it
    changed = False
    for number, block in enumerate(blocks, start=1):
        part = read_block(block, number)
        if not isinstance(part, Attachment) or len(made) >= MAX_UPLOADS:
            continue
        with contextlib.suppress(DocumentRejected):
            data = part.data(most)
            if await quotas.documents_refusal(owner, len(data)):
                continue  # over its quota: the run itself refuses it, saying so
            stored = DocumentStore(server_store())
            upload = await asyncio.to_thread(store_upload, data, part.name, stored, owner, thread)
            made.append(upload.reference)
            reference = {"file_id": upload.reference, "mime_type": upload.ref.mime, "filename": upload.ref.name}
            block.clear()
            block.update({"type": "file", **reference})
            changed = True
    return changed
