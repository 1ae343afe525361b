"""Several attachments in one message: each readable one is read, each other one named with its reason, and the
round goes on; an image is read only where the endpoint accepts images, which is asked once per endpoint."""

from __future__ import annotations

import base64
import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.store.memory import InMemoryStore
from PIL import Image as Picture

from core.capabilities import NAMESPACE, endpoint_key, forget_all
from core.context import Context
from core.errors import DocumentRejected, ToolFailed
from nodes.attachments import (
    LEFT_OUT,
    NO_IMAGES,
    ChatRequest,
    Image,
    Read,
    chat_request,
    image_refusal,
    image_type,
    read_attachments,
    read_block,
    with_left_out,
)
from tests.support.scripted_llm import HTTPError, ScriptedLLM
from tools.ai_process import make_ai_process_tool
from tools.base import ToolDeps
from tools.documents import DocumentIndex, DocumentStore

PDF = b"%PDF-1.7 a tiny document"
MB = 1024 * 1024


def png(size: tuple[int, int] = (2, 2)) -> bytes:
    buffer = io.BytesIO()
    Picture.new("RGB", size, (10, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def block(data: bytes, name: str, mime: str) -> dict[str, Any]:
    """An attachment as Agent Chat UI sends it (an image names itself in metadata.name)."""
    kind, key = ("image", "name") if mime.startswith("image/") else ("file", "filename")
    return {"type": kind, "mimeType": mime, "data": base64.b64encode(data).decode(), "metadata": {key: name}}


def request(*blocks: dict[str, Any], text: str = "Compare them") -> ChatRequest:
    content = [{"type": "text", "text": text}, *blocks]
    chat = chat_request({"messages": [HumanMessage(content=content, id="h1")], "request_message": None})
    assert chat is not None
    return chat


class Asked:
    """A `why_no_images` that counts how often it was asked."""

    def __init__(self, answer: str | None) -> None:
        self.answer, self.times = answer, 0

    def __call__(self) -> str | None:
        self.times += 1
        return self.answer


def read(chat: ChatRequest, tmp_path: Path, asked: Asked, limit: int = MB) -> Read:
    return read_attachments(chat, DocumentStore(tmp_path / "store"), limit, asked)


# -- reading the attachments of one message -------------------------------------------------------------------


def test_an_image_block_is_unreadable_to_paors_readers_but_keeps_its_content_for_a_model() -> None:
    part = read_block(block(png(), "chart.png", "image/png"), 2)
    assert isinstance(part, Image) and part.content.mime == "image/png"
    assert str(part).startswith("chart.png cannot be read: it is an image (image/png); paor reads PDF")
    assert not isinstance(read_block({"type": "image", "url": "https://x.test/c.png"}, 2), Image), "links stay out"


def test_where_the_model_sees_images_a_pdf_and_a_png_are_both_input_documents(tmp_path: Path) -> None:
    asked = Asked(None)
    taken = read(
        request(block(PDF, "report.pdf", "application/pdf"), block(png(), "chart.png", "image/png")), tmp_path, asked
    )

    assert [(ref.name, ref.mime, ref.label) for ref in taken.documents] == [
        ("report.pdf", "application/pdf", "input"),
        ("chart.png", "image/png", "input"),
    ]
    assert DocumentStore(tmp_path / "store").read_bytes(taken.documents[1]) == png()
    assert not taken.notes and not taken.request.unreadable and asked.times == 1
    assert "[attached as input documents: report.pdf, chart.png]" in str(taken.request.lean().content)


def test_where_it_does_not_the_pdf_is_read_and_the_png_is_named_with_the_reason(tmp_path: Path) -> None:
    taken = read(
        request(block(PDF, "report.pdf", "application/pdf"), block(png(), "chart.png", "image/png")),
        tmp_path,
        Asked(NO_IMAGES),
    )

    assert [ref.name for ref in taken.documents] == ["report.pdf"]
    assert taken.notes == ["chart.png — not read: this model does not accept images"]
    kept = str(taken.request.lean().content)
    assert "[attached as input documents: report.pdf]" in kept and "[attached, not readable: chart.png]" in kept


def test_every_file_that_can_be_read_is_read_and_each_other_one_says_why(tmp_path: Path) -> None:
    audio = {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav", "filename": "memo.wav"}
    chat = request(
        block(PDF, "report.pdf", "application/pdf"),
        block(b"\x00\x01junk", "broken.pdf", "application/pdf"),
        block(b"x" * 3000, "big.txt", "text/plain"),
        block(b"not a picture", "fake.png", "image/png"),
        audio,
    )
    asked = Asked(None)
    taken = read(chat, tmp_path, asked, limit=2000)

    assert [ref.name for ref in taken.documents] == ["report.pdf"]
    notes = [note.removeprefix(LEFT_OUT) for note in taken.notes]
    assert notes[0].startswith("memo.wav cannot be read: it is an audio (audio/wav)")
    assert notes[1].startswith("broken.pdf is of an unknown type and cannot be read")
    assert notes[2] == "big.txt is larger than 2000 bytes (max_document_mb)"
    assert notes[3] == "fake.png is not a PNG, JPEG, GIF or WebP image"
    assert len(notes) == 4 and asked.times == 1


def test_nothing_readable_refuses_the_round_with_every_reason_unless_a_link_may_be(tmp_path: Path) -> None:
    unreadable = (block(b"\x00\x01junk", "broken.pdf", "application/pdf"), block(png(), "chart.png", "image/png"))
    with pytest.raises(
        DocumentRejected, match=r"chart\.png cannot be read: it is an image.*; broken\.pdf is of an unknown type"
    ):
        read(request(*unreadable), tmp_path, Asked(NO_IMAGES))

    link = {"type": "file", "url": "https://x.test/r.pdf", "mime_type": "application/pdf"}
    taken = read(request(*unreadable, link), tmp_path, Asked(NO_IMAGES))
    assert not taken.documents and len(taken.notes) == 2 and taken.request.urls == ["https://x.test/r.pdf"]


def test_a_message_without_images_never_asks_about_them(tmp_path: Path) -> None:
    asked = Asked(NO_IMAGES)
    taken = read(request(block(PDF, "report.pdf", "application/pdf")), tmp_path, asked)
    assert asked.times == 0 and len(taken.documents) == 1 and not taken.notes
    assert read(request(), tmp_path, asked).documents == [] and asked.times == 0


def test_image_types_are_told_by_their_first_bytes() -> None:
    assert image_type(png()) == "image/png"
    assert image_type(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert image_type(b"GIF89a...") == "image/gif"
    assert image_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert image_type(b"") is None and image_type(PDF) is None


def test_the_answer_shows_the_attachments_left_out_below_it_and_no_other_note() -> None:
    notes = ["code.execute is unavailable: no sandbox", f"{LEFT_OUT}chart.png cannot be read: it is an image"]
    assert with_left_out("The answer.", notes) == f"The answer.\n\n{LEFT_OUT}chart.png cannot be read: it is an image"
    assert with_left_out("The answer.", notes[:1]) == "The answer."


# -- whether the endpoint accepts images: asked once, remembered ----------------------------------------------


def test_an_endpoint_that_accepts_images_is_asked_once_cheaply_and_remembered_in_the_store() -> None:
    store = InMemoryStore()
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", "OK")
        assert image_refusal(llm.model(), store) is None
        forget_all()  # a new process: only the store remembers
        assert image_refusal(llm.model(), store) is None

        (probe,) = llm.requests
        assert probe.images[0].startswith("data:image/png;base64,") and probe.body["max_tokens"] == 1
        kept = store.get(NAMESPACE, endpoint_key(llm.model()))
        assert kept is not None and kept.value["images"] is True


def test_an_endpoint_refusing_images_is_remembered_as_such_next_to_its_json_capability() -> None:
    store = InMemoryStore()
    with ScriptedLLM() as llm:
        llm.on("text", "OK")
        assert image_refusal(llm.model(), store) == NO_IMAGES
        forget_all()
        assert image_refusal(llm.model(), store) == NO_IMAGES
        assert len(llm.requests) == 1
        kept = store.get(NAMESPACE, endpoint_key(llm.model()))
        assert kept is not None and kept.value["images"] is False and kept.value["accepted"] is None


def test_a_failure_that_says_nothing_about_images_is_not_remembered() -> None:
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", HTTPError(503, "busy"), "OK")
        assert "could not be asked" in str(image_refusal(llm.model(max_retries=0), None))
        assert image_refusal(llm.model(), None) is None
        assert len(llm.requests) == 2


def test_a_refusal_of_a_setting_says_nothing_about_images_for_every_client() -> None:
    """Issue 45: a client's run with `temperature = 5` got a 400 on the image probe, and images were switched off
    for all clients, for good. Only a refusal that names images is a "no"."""
    store = InMemoryStore()
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", HTTPError(400, "temperature: Input should be less than or equal to 2"), "OK")
        assert "could not be asked" in str(image_refusal(llm.model(), store))
        assert store.get(NAMESPACE, endpoint_key(llm.model())) is None
        assert image_refusal(llm.model(), store) is None


def test_a_model_that_is_not_openai_compatible_is_not_probed() -> None:
    fake = GenericFakeChatModel(messages=iter([AIMessage(content="never asked")]))
    assert "OpenAI-compatible" in str(image_refusal(fake, None))
    assert next(fake.messages).content == "never asked"


# -- ai.process shows the model the images it is given --------------------------------------------------------


def _deps(llm: ScriptedLLM, context: Context, *docs: tuple[str, str, bytes]) -> ToolDeps:
    store = DocumentStore(context.store_path)
    refs = [store.put(data, label="input", name=name, mime=mime) for name, mime, data in docs]
    return ToolDeps(llm=llm.model(), store=store, context=context, index=DocumentIndex(refs), language="en")


def test_ai_process_sends_an_image_after_the_text_sources_named(context: Context) -> None:
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", "The chart rises, as the notes say.")
        deps = _deps(
            llm,
            replace(context, base_url=llm.base_url),
            ("notes.md", "text/markdown", b"Sales rose."),
            ("chart.png", "image/png", png()),
        )
        args = {"documentList": ["docList:input"], "aiPrompt": "Do they agree?"}
        make_ai_process_tool(deps).invoke(args)

        (call,) = llm.requests
        content = call.messages[-1]["content"]
        assert [part["type"] for part in content] == ["text", "text", "image_url"]
        assert "Sales rose." in content[0]["text"] and content[1]["text"] == "IMAGE chart.png:"
        assert call.images == [f"data:image/png;base64,{base64.b64encode(png()).decode()}"]


def test_ai_process_still_asks_for_a_pdf_to_be_extracted_first(scripted_llm: ScriptedLLM, context: Context) -> None:
    deps = _deps(scripted_llm, context, ("report.pdf", "application/pdf", PDF), ("chart.png", "image/png", png()))
    with pytest.raises(ToolFailed, match=r"extract it with document\.extract"):
        make_ai_process_tool(deps).invoke({"documentList": ["docList:input"], "aiPrompt": "Compare"})
