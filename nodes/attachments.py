"""One reader for what chat clients attach to a message, whatever block shape their library uses.

Shapes in use (each has a test with the block as its client sends it, tests/unit/core/test_attachments.py):
- Agent Chat UI and LangChain JS standard blocks: `{"type": "file"|"image", "mimeType", "data", "metadata":
  {"filename"|"name"}}` (camelCase; langchain-core passes them through untranslated);
- LangChain (Python) standard blocks: `{"type": "file"|"image"|…, "base64"|"url"|"file_id", "mime_type"}`, and
  the older `source_type` blocks;
- OpenAI chat completions: `{"type": "file", "file": {"file_data": "data:…;base64,…", "filename"}}` and
  `{"type": "image_url", "image_url": {"url": "data:…"}}`; Anthropic's `document`/`image` sources too.
langchain-core's `content_blocks` translates the last three families into the standard shape; this module reads
the standard and the camelCase shapes. A block is text, an `Attachment` (bytes, still base64), a `Linked` http(s)
URL (fetched later through the guard), or `Unreadable` with the reason — never dropped without a word.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

from langchain_core.messages import HumanMessage

from graph.errors import DocumentRejected
from tools.document.detect import SUPPORTED_TYPES
from tools.documents import safe_file_name

_DATA_TYPES = ("file", "image", "audio", "video", "text-plain")
_MEDIA = ("image", "audio", "video")
_UPLOAD_HINT = "attach the file itself (or upload it: POST /paor/documents)"


@dataclass(frozen=True)
class Attachment:
    """A document sent inside a message, still base64 (decoded only after its size is checked)."""

    name: str
    mime: str
    base64: str

    def data(self, limit: int) -> bytes:
        """The bytes; DocumentRejected when over `limit` bytes or not base64 (checked before decoding)."""
        if len(self.base64) * 3 // 4 > limit:
            raise DocumentRejected(f"{self.name} is larger than {limit} bytes (max_document_mb)")
        try:
            return base64.b64decode(self.base64, validate=True)
        except (binascii.Error, ValueError):
            raise DocumentRejected(f"{self.name} is not valid base64 data") from None


@dataclass(frozen=True)
class Linked:
    """An http(s) URL given as an attachment: an input document fetched through the guard."""

    url: str

    @property
    def name(self) -> str:
        return self.url


@dataclass(frozen=True)
class Unreadable:
    """An attachment paor cannot read, and why; the round refuses to start rather than ignore it."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name} cannot be read: {self.reason}"


Part = Attachment | Linked | Unreadable


def read_block(raw: Any, number: int) -> str | Part:
    """A message content block as text (a `str`) or an attachment part; `number` counts the blocks from 1."""
    try:
        (block,) = HumanMessage(content=[raw]).content_blocks  # langchain-core's translation of the known shapes
    except Exception:  # a malformed block of a known shape (langchain-core raises KeyError and friends)
        return Unreadable(f"attachment {number}", "its block is malformed")
    kind = str(block.get("type") or "")
    if kind == "text":
        return str(block.get("text") or "")
    if kind == "non_standard":
        value = block.get("value")
        shown = value.get("type") if isinstance(value, dict) else None
        return Unreadable(f"attachment {number}", f"paor does not know the block type {shown or 'without a type'!r}")
    if kind not in _DATA_TYPES:
        return Unreadable(f"attachment {number}", f"a {kind!r} block is not an attachment paor can read")
    return _data_block(dict(block), kind, number)


def _data_block(block: dict[str, Any], kind: str, number: int) -> Part:
    mime = str(block.get("mime_type") or block.get("mimeType") or "")
    encoded = block.get("base64") or block.get("data")
    url = block.get("url")
    if isinstance(encoded, str) and encoded.startswith("data:"):
        url, encoded = encoded, None
    name = _name_of(block, number, mime or _data_url_mime(url))
    media = kind if kind in _MEDIA else mime.split("/", 1)[0] if mime.startswith(_MEDIA) else None
    if media:
        article = "an" if media[0] in "aeiou" else "a"
        return Unreadable(name, f"it is {article} {media} ({mime or 'no type given'}); paor reads {SUPPORTED_TYPES}")
    if isinstance(encoded, str) and encoded:
        return Attachment(name, mime or "application/octet-stream", encoded)
    if kind == "text-plain" and isinstance(block.get("text"), str):
        return Attachment(name, mime or "text/plain", base64.b64encode(block["text"].encode()).decode())
    if isinstance(url, str) and url:
        return _from_url(url, name, mime)
    reference = block.get("file_id") or block.get("fileId")
    if reference:
        return Unreadable(
            name, f"it names a file kept by another service ({reference}), not its content; {_UPLOAD_HINT}"
        )
    return Unreadable(name, "the block carries no content")


def _from_url(url: str, name: str, mime: str) -> Part:
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        given = header[len("data:") :].split(";")
        if "base64" in given[1:]:
            return Attachment(name, mime or given[0] or "application/octet-stream", payload.strip())
        raw = unquote_to_bytes(payload)
        return Attachment(name, mime or given[0] or "text/plain", base64.b64encode(raw).decode())
    scheme = urlsplit(url).scheme.lower()
    if scheme in ("http", "https"):
        return Linked(url)
    return Unreadable(name, f"a {scheme or 'relative'} link cannot be fetched; {_UPLOAD_HINT} or give an http(s) link")


def _data_url_mime(url: Any) -> str:
    if isinstance(url, str) and url.startswith("data:"):
        return url[len("data:") :].split(",", 1)[0].split(";", 1)[0]
    return ""


def _name_of(block: dict[str, Any], number: int, mime: str) -> str:
    """The file name the client gave, without its path parts, else one made from the number and type.

    Agent Chat UI: metadata.filename (PDF) or metadata.name (image); OpenAI: file.filename (extras.filename once
    translated); LangChain: filename, or extras.metadata after translating an older block; text-plain: title."""
    extras = block.get("extras") or {}
    metadata = block.get("metadata") or extras.get("metadata") or {}
    for candidate in (
        block.get("filename"),
        extras.get("filename"),
        metadata.get("filename"),
        metadata.get("name"),
        block.get("title"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return safe_file_name(candidate)
    extension = mime.rsplit("/", 1)[-1] if "/" in mime else "bin"
    return f"attachment-{number}.{extension}"
