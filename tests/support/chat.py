"""Messages as chat front ends send them (Agent Chat UI, any `useStream` app)."""

from __future__ import annotations

import base64
from typing import Any


def ui_message(text: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    """The run input of a typed message: one human message of content blocks, no id."""
    return {"messages": [{"type": "human", "content": [{"type": "text", "text": text}, *blocks]}]}


def ui_file_block(data: bytes, filename: str, mime: str = "application/pdf") -> dict[str, Any]:
    """What Agent Chat UI's "Upload PDF or Image" puts into the message."""
    kind = "image" if mime.startswith("image/") else "file"
    encoded = base64.b64encode(data).decode()
    return {
        "type": kind,
        "source_type": "base64",
        "mime_type": mime,
        "data": encoded,
        "metadata": {"filename": filename},
    }
