"""A foreign tool's answer (a LangChain ToolMessage, MCP content converted by langchain-mcp-adapters) as documents.

Text becomes `<tool>.md` (or `<tool>.json` when the whole text is JSON), structured content `<tool>.json`, images
and embedded files their own documents, resource links a list in the text. The documents are stored under the
step's result label like any action's; later prompts show them only inside <untrusted> fences (previews, history
summaries), because their bytes come from a third party. A call's output is cut at `cap` bytes, with a note.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import re
from typing import Any

from langchain_core.messages import ToolMessage

from core.errors import ToolFailed, ToolNotCalled
from prompts.templates import clip
from tools.base import NewDocument, ToolOutput
from tools.documents import safe_file_name

SUMMARY_CHARS = 600
#: How MCP SDKs word a call refused before the tool ran: JSON-RPC "invalid params" (-32602), the Python SDK's input
#: check against the tool's schema, FastMCP's argument model.
_REFUSED_ARGUMENTS = re.compile(r"-32602|^Input validation error|validation errors? for \w+Arguments\b")


class ToolReportedError(ToolFailed):
    """The tool ran and answered with an error (MCP `isError`, a ToolMessage with status "error")."""


class ArgumentsRefused(ToolReportedError, ToolNotCalled):
    """The server refused the arguments before its tool ran: paor's call was wrong, not the tool."""


def tool_output(name: str, message: ToolMessage, cap: int) -> ToolOutput:
    """The documents of one answer; a reported error raises `ToolReportedError` with the tool's own words."""
    if message.status == "error":
        text = _text_of(message.content).strip()
        refused = ArgumentsRefused if _REFUSED_ARGUMENTS.search(text) else ToolReportedError
        raise refused(f"{name} reported an error: {clip(text, 1000)}")
    if isinstance(message.artifact, ToolOutput):  # a paor-aware tool made its documents itself
        return message.artifact
    return _Collector(safe_file_name(name), cap).collect(message.content, message.artifact)


class _Collector:
    def __init__(self, stem: str, cap: int) -> None:
        self.stem = stem
        self.room = cap
        self.cap = cap
        self.texts: list[str] = []
        self.links: list[str] = []
        self.binaries: list[NewDocument] = []
        self.notes: list[str] = []

    def collect(self, content: Any, artifact: Any) -> ToolOutput:
        for block in content if isinstance(content, list) else [content]:
            self._block(block)
        documents: list[NewDocument] = []
        text = "\n\n".join(t for t in self.texts if t.strip())
        if self.links:
            text = "\n\n".join(filter(None, [text, "Resources:\n" + "\n".join(self.links)]))
        parsed = _json(text)
        structured = artifact.get("structured_content") if isinstance(artifact, dict) else artifact
        if text:
            name, mime = (f"{self.stem}.json", "application/json") if parsed is not None else (f"{self.stem}.md", "")
            documents.append(self._text_document(name, text, mime or "text/markdown"))
        if _adds_to(structured, parsed, text):
            dumped = json.dumps(structured, ensure_ascii=False, indent=2)
            documents.append(self._text_document(f"{self.stem}-structured.json", dumped, "application/json"))
        files = [f for f in self.binaries if self._fits(f)]  # text first: it is what later steps read
        documents.extend(files)
        if not documents:
            documents.append(NewDocument.text(f"{self.stem}.md", f"{self.stem} ran and returned no content."))
        summary = text or f"{len(files)} file(s): " + ", ".join(f"{d.name} ({d.mime})" for d in files)
        return ToolOutput(documents=documents, summary=clip(summary, SUMMARY_CHARS), notes=self.notes)

    def _block(self, block: Any) -> None:
        if isinstance(block, str):
            self.texts.append(block)
        elif not isinstance(block, dict):
            self.texts.append(str(block))
        elif block.get("type") == "text":
            self.texts.append(str(block.get("text") or ""))
        elif block.get("type") in ("image", "file", "audio"):
            self._binary(block)
        else:
            self.texts.append(json.dumps(block, ensure_ascii=False, default=str))

    def _binary(self, block: dict[str, Any]) -> None:
        mime = str(block.get("mime_type") or "application/octet-stream")
        if not block.get("base64"):
            where = block.get("url") or block.get("file_id") or "(no address)"
            self.links.append(f"- {where} ({mime})")
            return
        try:
            data = base64.b64decode(str(block["base64"]), validate=True)
        except (binascii.Error, ValueError):
            self.notes.append(f"a {block['type']} block of {self.stem} was not valid base64 and was left out")
            return
        extension = mimetypes.guess_extension(mime) or ".bin"
        name = f"{self.stem}-{block['type']}{len(self.binaries) + 1}{extension}"
        self.binaries.append(NewDocument(name=name, mime=mime, data=data))

    def _fits(self, document: NewDocument) -> bool:
        if len(document.data) > self.room:
            self.notes.append(
                f"{document.name} ({len(document.data)} bytes) was left out: the output cap is {self.cap} bytes"
            )
            return False
        self.room -= len(document.data)
        return True

    def _text_document(self, name: str, text: str, mime: str) -> NewDocument:
        data = text.encode("utf-8")
        if len(data) > self.room:
            self.notes.append(f"{name} was cut from {len(data)} to {self.room} bytes (the output cap)")
            data = data[: self.room].decode("utf-8", "ignore").encode("utf-8")
            mime = "text/markdown" if mime == "application/json" else mime  # a cut JSON text is no longer JSON
            name = name.removesuffix(".json") + ".md" if name.endswith(".json") else name
        self.room -= len(data)
        return NewDocument(name=name, mime=mime, data=data)


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def _json(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def _adds_to(structured: Any, parsed: Any, text: str) -> bool:
    """Structured content worth its own document: not the text again (MCP servers send both; the Python SDK
    wraps a plain answer as {"result": text})."""
    if structured is None or structured == parsed:
        return False
    if isinstance(structured, dict) and len(structured) == 1 and next(iter(structured.values())) in (text, parsed):
        return False
    try:
        json.dumps(structured)
    except (TypeError, ValueError):
        return False
    return True
