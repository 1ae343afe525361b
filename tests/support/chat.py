"""Messages as chat front ends send them (Agent Chat UI, any `useStream` app).

`captured_run` gives the exact request bodies Agent Chat UI sent from a real browser (tests/fixtures/chat, see
docs/chat.md for how they were captured); `ui_message` and `ui_file_block` build the same shapes for other text
and files.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parents[1] / "fixtures" / "chat"


def captured_run(name: str) -> dict[str, Any]:
    """A `POST /threads/{thread_id}/runs/stream` body Agent Chat UI sent, e.g. `agent-chat-ui-pdf.json`."""
    body: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return body


def ui_message(text: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    """The run input of a typed message: one human message of content blocks, no id."""
    return {"messages": [{"type": "human", "content": [{"type": "text", "text": text}, *blocks]}]}


def ui_file_block(data: bytes, filename: str, mime: str = "application/pdf") -> dict[str, Any]:
    """What Agent Chat UI's "Upload PDF or Image" puts into the message (src/lib/multimodal-utils.ts): a PDF
    names itself in metadata.filename, an image in metadata.name."""
    encoded = base64.b64encode(data).decode()
    if mime.startswith("image/"):
        return {"type": "image", "mimeType": mime, "data": encoded, "metadata": {"name": filename}}
    return {"type": "file", "mimeType": mime, "data": encoded, "metadata": {"filename": filename}}
