"""Reading chat messages: which message is the request, what its blocks become, what the answer message says."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graph.errors import DocumentRejected
from nodes.chat import Attachment, answer_message, chat_request


def _state(*messages: Any, taken: str | None = None) -> Any:
    return {"prompt": "an older prompt", "messages": list(messages), "request_message": taken}


def test_the_newest_untaken_human_message_is_the_request_and_a_taken_one_is_not() -> None:
    first = HumanMessage(content="first", id="h1")
    second = HumanMessage(content=[{"type": "text", "text": "second"}, {"type": "text", "text": "part"}], id="h2")
    answer = AIMessage(content="done", id="a1")

    request = chat_request(_state(first, answer, second, taken="h1"))
    assert request is not None and request.text == "second\npart" and request.message.id == "h2"
    assert chat_request(_state(first, answer, second, taken="h2")) is None, "then `prompt` is the request"
    assert chat_request(_state()) is None


@pytest.mark.parametrize(
    ("block", "name", "mime"),
    [
        # Agent Chat UI's "Upload PDF or Image"
        (
            {
                "type": "file",
                "source_type": "base64",
                "mime_type": "application/pdf",
                "data": "JVBERg==",
                "metadata": {"filename": "../../etc/q3.pdf"},
            },
            "q3.pdf",
            "application/pdf",
        ),
        (
            {
                "type": "image",
                "source_type": "base64",
                "mime_type": "image/png",
                "data": "iVBORw==",
                "metadata": {"name": "chart.png"},
            },
            "chart.png",
            "image/png",
        ),
        # LangChain standard blocks and OpenAI-style ones
        ({"type": "file", "base64": "JVBERg==", "mime_type": "application/pdf"}, "attachment-2.pdf", "application/pdf"),
        (
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
            "attachment-2.png",
            "image/png",
        ),
        (
            {"type": "file", "file": {"filename": "b.pdf", "file_data": "data:application/pdf;base64,JVBERg=="}},
            "b.pdf",
            "application/pdf",
        ),
    ],
)
def test_file_and_image_blocks_become_attachments_named_without_path_parts(
    block: dict[str, Any], name: str, mime: str
) -> None:
    message = HumanMessage(content=[{"type": "text", "text": "Read this"}, block], id="h1")
    request = chat_request(_state(message))
    assert request is not None
    (attachment,) = request.attachments
    assert (attachment.name, attachment.mime) == (name, mime)
    kept = request.lean()
    assert kept.id == "h1" and name in str(kept.content)
    assert attachment.base64 not in str(kept.content)


def test_a_url_block_becomes_a_document_source() -> None:
    message = HumanMessage(content=[{"type": "text", "text": "Read"}, {"type": "image", "url": "https://x.test/a.png"}])
    request = chat_request(_state(message))
    assert request is not None and request.urls == ["https://x.test/a.png"] and not request.attachments


def test_an_attachment_over_the_cap_is_refused_before_it_is_decoded() -> None:
    big = Attachment("big.pdf", "application/pdf", "A" * 4_000)  # 3 000 bytes once decoded
    with pytest.raises(DocumentRejected, match=r"big\.pdf is larger than 2000 bytes"):
        big.data(2_000)
    with pytest.raises(DocumentRejected, match="not valid base64"):
        Attachment("bad.pdf", "application/pdf", "not base64!").data(2_000)
    assert Attachment("ok.txt", "text/plain", base64.b64encode(b"fine").decode()).data(2_000) == b"fine"


def test_the_answer_message_links_each_deliverable() -> None:
    served = answer_message("The answer.", [{"name": "r.md", "url": "/paor/threads/t/documents/l/r.md"}])
    local = answer_message("The answer.", [{"name": "r.md"}])
    assert served.text == "The answer.\n\nDeliverables:\n- [r.md](/paor/threads/t/documents/l/r.md)"
    assert local.text.endswith("- r.md") and answer_message("Only text.", []).text == "Only text."
    assert served.id and served.id != local.id
