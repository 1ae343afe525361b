"""The chat channel: what chat front ends (Agent Chat UI, `useStream` apps, A2A clients) send and see.

A chat client speaks LangChain messages in `messages` (LangGraph's `add_messages` reducer). A round's request is
the newest human message no round has taken yet, else `prompt`; its file and image blocks become input documents
under the checks of an upload, and the checkpointed copy of the message keeps only their names. Each round ends
with one lean AI message: the answer and the deliverables' links, never the documents. While a step runs, the
chat sees it as a tool call and then its result; those two are streamed only (not written to state), so the
spec's compact history stays the one record of the steps and checkpoints do not grow with them.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.config import get_config
from langgraph.graph.message import push_message

from graph.errors import DocumentRejected
from graph.state import State
from tools.documents import safe_file_name

_DATA_BLOCKS = ("file", "image", "audio", "video")


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
class ChatRequest:
    """The newest human message of a thread that no round has taken yet."""

    message: HumanMessage
    text: str
    attachments: list[Attachment] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    def lean(self) -> HumanMessage:
        """The message as checkpoints keep it: same id (so it replaces the sent one), attachments by name only."""
        if not self.attachments:
            return self.message
        names = ", ".join(a.name for a in self.attachments)
        blocks = [{"type": "text", "text": self.text}] if self.text else []
        blocks.append({"type": "text", "text": f"[attached as input documents: {names}]"})
        return HumanMessage(content=blocks, id=self.message.id)  # type: ignore[arg-type]


def chat_request(state: State) -> ChatRequest | None:
    """The request of this round if it came as a message; None when `prompt` carries it."""
    human = next((m for m in reversed(state.get("messages") or []) if isinstance(m, HumanMessage)), None)
    if human is None or (human.id is not None and human.id == state.get("request_message")):
        return None
    texts: list[str] = []
    attachments: list[Attachment] = []
    urls: list[str] = []
    for number, raw in enumerate(human.content_blocks, start=1):
        block: dict[str, Any] = dict(raw)
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind in _DATA_BLOCKS and block.get("base64"):
            mime = str(block.get("mime_type") or "application/octet-stream")
            attachments.append(Attachment(_name_of(block, number, mime), mime, str(block["base64"])))
        elif kind in _DATA_BLOCKS and block.get("url"):
            urls.append(str(block["url"]))
    return ChatRequest(human, "\n".join(t for t in texts if t.strip()), attachments, urls)


def _name_of(block: dict[str, Any], number: int, mime: str) -> str:
    """The file name the client gave (Agent Chat UI: metadata.filename / metadata.name) without its path parts,
    else one made from the type."""
    extras = block.get("extras") or {}
    metadata = extras.get("metadata") or {}
    for candidate in (block.get("filename"), extras.get("filename"), metadata.get("filename"), metadata.get("name")):
        if isinstance(candidate, str) and candidate.strip():
            return safe_file_name(candidate)
    return f"attachment-{number}.{mime.rsplit('/', 1)[-1]}"


def human_message(text: str) -> HumanMessage:
    """A `prompt` request as the chat shows it, so a thread started through the API opens with its request."""
    return HumanMessage(content=text, id=str(uuid.uuid4()))


def answer_message(answer: str, deliverables: Sequence[dict[str, Any]]) -> AIMessage:
    """The round's one AI message: the answer and a link (or name) per deliverable."""
    lines = [f"- [{d['name']}]({d['url']})" if d.get("url") else f"- {d['name']}" for d in deliverables]
    text = f"{answer}\n\nDeliverables:\n" + "\n".join(lines) if lines else answer
    return AIMessage(content=text, id=str(uuid.uuid4()))


def refusal_message(reason: str) -> AIMessage:
    return AIMessage(content=f"I could not start on this request: {reason}", id=str(uuid.uuid4()))


def show_step(label: str, tool_name: str, arguments: dict[str, Any]) -> None:
    """Stream the running step to a chat as a tool call (not kept in state)."""
    call = {"name": tool_name, "args": arguments, "id": label, "type": "tool_call"}
    _stream(AIMessage(content="", tool_calls=[call], id=f"{label}-call"))


def show_result(label: str, tool_name: str, summary: str, *, failed: bool) -> None:
    """Stream the step's result to a chat as the tool's answer (not kept in state)."""
    status = "error" if failed else "success"
    _stream(ToolMessage(content=summary, tool_call_id=label, name=tool_name, id=f"{label}-result", status=status))


def _stream(message: BaseMessage) -> None:
    """Only a run streamed with `messages`/`messages-tuple` listens; any other run has no handler to tell."""
    try:
        callbacks = get_config().get("callbacks")
    except RuntimeError:  # called outside a graph run (unit tests of a node)
        return
    if callbacks:
        push_message(message, state_key=None)
