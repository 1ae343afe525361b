"""Every attachment shape a chat client sends, each as its client produces it, through the one normaliser.

Agent Chat UI's blocks are its real request bodies (tests/fixtures/chat, captured in the browser); LangChain's
come from langchain-core's own block factories; OpenAI's are what the OpenAI client (langchain-openai) puts on the
wire, captured here through an httpx mock transport.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import HumanMessage
from langchain_core.messages.content import create_file_block, create_image_block, create_plaintext_block
from langchain_openai import ChatOpenAI

from core.errors import DocumentRejected
from nodes.attachments import Attachment, Linked, Unreadable, chat_request, read_block

FIXTURES = Path(__file__).parents[2] / "fixtures" / "chat"
PDF = base64.b64encode(b"%PDF-1.7 a tiny document").decode()
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg=="


def agent_chat_ui_blocks(fixture: str) -> list[Any]:
    """The content of the human message in a request body Agent Chat UI sent."""
    body = json.loads((FIXTURES / fixture).read_text())
    (message,) = body["input"]["messages"]
    return list(message["content"])


def openai_wire_blocks(*blocks: Any) -> list[Any]:
    """The content the OpenAI client sends for a human message of LangChain standard blocks."""
    sent: list[dict[str, Any]] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        choice = {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        return httpx.Response(200, json={"id": "c", "object": "chat.completion", "created": 0, "choices": [choice]})

    client = httpx.Client(transport=httpx.MockTransport(endpoint))
    llm = ChatOpenAI(model="m", api_key="k", base_url="http://openai.test/v1", http_client=client, max_retries=0)
    llm.invoke([HumanMessage(content_blocks=[{"type": "text", "text": "Read this"}, *blocks])])  # type: ignore[list-item]
    return list(sent[0]["messages"][0]["content"])


def request_of(content: list[Any]) -> Any:
    request = chat_request({"messages": [HumanMessage(content=content, id="h1")], "request_message": None})
    assert request is not None
    return request


def test_agent_chat_ui_pdf_upload_is_an_attachment_named_as_uploaded_and_the_kept_message_has_no_bytes() -> None:
    content = agent_chat_ui_blocks("agent-chat-ui-pdf.json")
    assert content[1].keys() == {"type", "mimeType", "data", "metadata"}, "the shape Agent Chat UI sends"
    request = request_of(content)

    (attachment,) = request.attachments
    assert (attachment.name, attachment.mime) == ("bakery.pdf", "application/pdf")
    assert attachment.data(1_000_000).startswith(b"%PDF-")
    assert request.text == "Summarise the attached price list" and not request.unreadable
    kept = request.lean()
    assert kept.id == "h1" and "bakery.pdf" in str(kept.content)
    assert content[1]["data"][:40] not in str(kept.content)


def test_agent_chat_ui_image_upload_cannot_be_read_and_says_so() -> None:
    request = request_of(agent_chat_ui_blocks("agent-chat-ui-image.json"))

    (unreadable,) = request.unreadable
    assert str(unreadable).startswith("chart.png cannot be read: it is an image (image/png); paor reads PDF, DOCX")
    assert not request.attachments
    kept = str(request.lean().content)
    assert "chart.png" in kept and PNG[:30] not in kept


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            create_file_block(base64=PDF, mime_type="application/pdf", filename="../../etc/q3.pdf"),
            Attachment("q3.pdf", "application/pdf", PDF),
        ),
        (
            create_file_block(base64=PDF, mime_type="application/pdf"),
            Attachment("attachment-2.pdf", "application/pdf", PDF),
        ),
        (create_file_block(url="https://x.test/r.pdf", mime_type="application/pdf"), Linked("https://x.test/r.pdf")),
        (
            create_file_block(url=f"data:application/pdf;base64,{PDF}", filename="d.pdf"),
            Attachment("d.pdf", "application/pdf", PDF),
        ),
        (
            create_plaintext_block(text="café notes", title="notes.txt"),
            Attachment("notes.txt", "text/plain", base64.b64encode("café notes".encode()).decode()),
        ),
        (  # the older LangChain block (`source_type`), which langchain-core still translates
            {"type": "file", "source_type": "base64", "mime_type": "application/pdf", "data": PDF, "filename": "o.pdf"},
            Attachment("o.pdf", "application/pdf", PDF),
        ),
    ],
    ids=["base64", "base64-unnamed", "url", "data-url", "text-plain", "source_type"],
)
def test_langchain_standard_blocks(block: dict[str, Any], expected: Any) -> None:
    assert read_block(block, 2) == expected


def test_openai_file_and_image_url_blocks_as_the_openai_client_sends_them() -> None:
    content = openai_wire_blocks(
        create_file_block(base64=PDF, mime_type="application/pdf", filename="b.pdf"),
        create_image_block(base64=PNG, mime_type="image/png"),
    )
    assert content[1] == {
        "type": "file",
        "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "b.pdf"},
    }
    assert content[2] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}

    request = request_of(content)
    assert request.attachments == [Attachment("b.pdf", "application/pdf", PDF)]
    assert [str(u) for u in request.unreadable] == [
        "attachment-3.png cannot be read: it is an image (image/png); paor reads PDF, DOCX, XLSX, PPTX, HTML, CSV, "
        "JSON, Markdown and plain text"
    ]


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (create_file_block(file_id="file-abc", mime_type="application/pdf"), "names a file kept by another service"),
        ({"type": "file", "file": {"file_id": "file-xyz"}}, "(file-xyz), not its content"),
        (create_file_block(url="ftp://x.test/r.pdf", mime_type="application/pdf"), "a ftp link cannot be fetched"),
        ({"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF}"}, "block type 'input_file'"),
        ({"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"}, "it is an audio (audio/wav)"),
        ({"type": "file", "mimeType": "application/pdf"}, "the block carries no content"),
        ({"type": "file", "source_type": "text", "mime_type": "text/plain"}, "its block is malformed"),
        ({"type": "reasoning", "reasoning": "hm"}, "a 'reasoning' block is not an attachment"),
    ],
)
def test_a_block_paor_cannot_read_is_named_with_the_reason(block: dict[str, Any], reason: str) -> None:
    part = read_block(block, 2)
    assert isinstance(part, Unreadable) and reason in str(part)


def test_a_data_url_that_is_not_base64_is_decoded_as_text() -> None:
    part = read_block({"type": "file", "url": "data:text/plain,caf%C3%A9", "filename": "c.txt"}, 1)
    assert part == Attachment("c.txt", "text/plain", base64.b64encode("café".encode()).decode())


def test_an_attachment_over_the_cap_is_refused_before_it_is_decoded() -> None:
    big = Attachment("big.pdf", "application/pdf", "A" * 4_000)  # 3 000 bytes once decoded
    with pytest.raises(DocumentRejected, match=r"big\.pdf is larger than 2000 bytes"):
        big.data(2_000)
    with pytest.raises(DocumentRejected, match="not valid base64"):
        Attachment("bad.pdf", "application/pdf", "not base64!").data(2_000)
    assert Attachment("ok.txt", "text/plain", base64.b64encode(b"fine").decode()).data(2_000) == b"fine"
