"""The size of each part of a run request as LangGraph would keep it, measured in a child process.

A run request larger than the cap of its parts (PAOR_SERVER_MAX_RUN_KB) is refused before LangGraph parses it; to
know which part is over, the body must be parsed, and parsing 9 MB of JSON holds the server's event loop for ~20 ms
whatever thread does it. A flood of such bodies (issue 45) made every other client wait behind them. So a body too
large to pass unparsed is measured here, in one long-lived child process: the loop only hands it the bytes. The
sizes are those the parts will have once their inline files are uploads (server/attachments.py), so a chat with a
large PDF inside passes, and a body of junk that merely names a file is still refused without the loop parsing it.

Light on imports (orjson only): the child starts in a fraction of a second.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import orjson

#: The parts of a run request a client writes, each kept in the run's record (and the input in its thread).
RUN_PARTS = ("input", "command", "context", "config")
#: The keys under which a content block carries a file inline; server/attachments.py makes each an upload.
INLINE_KEYS = ("data", "base64", "file_data")
#: What a block keeps once its file is an upload: its reference, type and name (a generous bound).
UPLOADED_BLOCK_BYTES = 256

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def size_of(value: Any) -> int:
    """Bytes of `value` as JSON: what the server keeps of it (orjson, LangGraph's own: a 10 MB value takes
    milliseconds)."""
    try:
        return len(orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:  # an integer beyond 64 bits: the standard library's way
        return len(json.dumps(value, separators=(",", ":"), default=str).encode("utf-8"))


def content_blocks(request: Any) -> list[Any]:
    """The content blocks of the messages in a run request's input."""
    run_input = request.get("input") if isinstance(request, dict) else None
    messages = run_input.get("messages") if isinstance(run_input, dict) else None
    found: list[Any] = []
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            found.extend(content)
    return found


def part_sizes(body: bytes) -> dict[str, int] | None:
    """Each part's bytes once inline files are uploads; None when the body is no JSON object (LangGraph says why)."""
    try:
        request = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(request, dict):
        return None
    for block in content_blocks(request):
        if isinstance(block, dict) and _inline(block):
            block.clear()
            block["reference"] = "x" * UPLOADED_BLOCK_BYTES
    return {part: size_of(request.get(part)) for part in RUN_PARTS if request.get(part) is not None}


def _inline(block: dict[str, Any]) -> bool:
    """Whether the block carries a file that becomes an upload; images stay inline (the model may see them)."""
    mime = str(block.get("mime_type") or block.get("mimeType") or "")
    if block.get("type") in ("image", "image_url") or mime.startswith("image/"):
        return False
    if block.get("type") == "text-plain" and isinstance(block.get("text"), str):
        return True
    encoded = next((block[key] for key in INLINE_KEYS if isinstance(block.get(key), str) and block[key]), None)
    url = block.get("url")
    if encoded is None and isinstance(url, str) and url.startswith("data:") and ";base64," in url[:200]:
        encoded = url.split(",", 1)[1]
    return encoded is not None and _is_base64(encoded)


def _is_base64(text: str) -> bool:
    """Junk under a file's key is no file: it stays in the request, and counts (an upload needs valid base64)."""
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


async def measured(body: bytes) -> dict[str, int] | None:
    """`part_sizes(body)` in the child process, the event loop free meanwhile (the hand-over, which writes to a
    pipe, happens on a worker thread too)."""
    return await asyncio.to_thread(_in_child, body)


def _in_child(body: bytes) -> dict[str, int] | None:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        pool = _pool
    return pool.submit(part_sizes, body).result()
