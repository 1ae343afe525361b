"""An input image of a loop round is shown to the model by the step that reads the documents, or named below the
answer as not read, with why (issue 46, item 5): document.extract answering an aiPrompt shows the images it reads as
ai.process does, and `closing_notes` names each image no step of the round showed the model — and each other input
document no step read (issue 53, item 4)."""

from __future__ import annotations

import base64
from dataclasses import replace
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from core.context import Context
from core.errors import ToolFailed
from core.schemas import DocumentRef, HistoryEntry, dump
from nodes.attachments import (
    LEFT_OUT,
    NO_IMAGES,
    UNREAD,
    Attachment,
    closing_notes,
    left_out,
    not_read,
    with_left_out,
)
from nodes.attachments import Image as AttachedImage
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.test_mixed_attachments import png
from tests.unit.documents.builders import pdf_bytes
from tools.base import ToolDeps, ToolOutput
from tools.document.extract import make_document_extract_tool
from tools.documents import DocumentIndex, DocumentStore

REPORT = "Revenue rose 12 percent."
PDF_REF = DocumentRef(label="input", name="report.pdf", mime="application/pdf", size=10, sha256="a" * 64)
PNG_REF = DocumentRef(label="input", name="chart.png", mime="image/png", size=10, sha256="b" * 64)
UNREAD_LINE = "chart.png — not read: no step of this answer read it"


# -- document.extract shows the model the images it reads, with its question --------------------------------------


def _deps(llm: ScriptedLLM, context: Context, *docs: tuple[str, str, bytes]) -> ToolDeps:
    store = DocumentStore(context.store_path)
    refs = [store.put(data, label="input", name=name, mime=mime) for name, mime, data in docs]
    context = replace(context, base_url=llm.base_url)
    return ToolDeps(llm=llm.model(), store=store, context=context, index=DocumentIndex(refs), language="en")


def _extract(deps: ToolDeps, args: dict[str, Any]) -> tuple[str, ToolOutput]:
    tool = make_document_extract_tool(deps)
    message = tool.invoke({"type": "tool_call", "id": "call-1", "name": tool.name, "args": args})
    assert isinstance(message, ToolMessage) and isinstance(message.artifact, ToolOutput), message.content
    return str(message.content), message.artifact


def test_extract_answering_an_ai_prompt_shows_the_model_the_image_after_the_pdf_text(context: Context) -> None:
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", "Revenue rose, as the chart shows.")
        deps = _deps(
            llm, context, ("report.pdf", "application/pdf", pdf_bytes(REPORT)), ("chart.png", "image/png", png())
        )
        _, output = _extract(deps, {"documentList": ["docList:input"], "aiPrompt": "Summarise them"})

        (call,) = llm.requests
        assert REPORT in call.text and "IMAGE chart.png:" in call.text
        assert call.images == [f"data:image/png;base64,{base64.b64encode(png()).decode()}"]
        assert [d.name for d in output.documents] == ["report.md", "analysis.md"]
        assert "chart.png → shown to the model" in output.summary


def test_extract_without_a_question_calls_no_model_and_says_the_image_was_not_read(
    scripted_llm: ScriptedLLM, context: Context
) -> None:
    deps = _deps(
        scripted_llm, context, ("report.pdf", "application/pdf", pdf_bytes(REPORT)), ("chart.png", "image/png", png())
    )
    _, output = _extract(deps, {"documentList": ["docList:input"]})

    assert not scripted_llm.requests
    assert [d.name for d in output.documents] == ["report.md"]
    assert any(note.startswith("chart.png is an image: only the model reads it") for note in output.notes)


def test_extract_of_an_image_alone_answers_over_the_image_or_fails_saying_why(context: Context) -> None:
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", "A rising red bar.")
        deps = _deps(llm, context, ("chart.png", "image/png", png()))
        _, output = _extract(deps, {"documentList": ["docList:input"], "aiPrompt": "Describe it"})
        assert [d.name for d in output.documents] == ["analysis.md"] and len(llm.requests[0].images) == 1

        with pytest.raises(ToolFailed, match=r"no document could be read: chart\.png is an image"):
            make_document_extract_tool(deps).invoke({"documentList": ["docList:input"]})


def test_the_answer_keeps_its_name_whatever_the_documents_are_called(context: Context) -> None:
    """`closing_notes` knows an extraction answered its question by the analysis' name."""
    with ScriptedLLM(accept_images=True) as llm:
        llm.on("text", "The analysis says revenue rose.")
        deps = _deps(llm, context, ("analysis.pdf", "application/pdf", pdf_bytes(REPORT)))
        _, output = _extract(deps, {"documentList": ["docList:input"], "aiPrompt": "Summarise it"})
        assert [d.name for d in output.documents] == ["analysis-2.md", "analysis.md"]


# -- closing_notes: each input image no step of the round showed the model ------------------------------------------


def _state(*, language: str = "en", notes: list[str] | None = None, direct: bool = False) -> dict[str, Any]:
    return {
        "input_documents": [dump(PDF_REF), dump(PNG_REF)],
        "intent": {"language": language},
        "notes": notes or [],
        "direct": direct,
    }


def _step(action: str, parameters: dict[str, Any], *delivered: str) -> HistoryEntry:
    label = "round1_task1_action1_step"
    documents = [
        DocumentRef(label=label, name=name, mime="text/markdown", size=1, sha256="c" * 64) for name in delivered
    ]
    return HistoryEntry(round=1, step=1, action=action, parameters=parameters, documents=documents)


PDF_LINE = "report.pdf — not read: no step of this answer read it"


@pytest.mark.parametrize(
    "step",
    [
        _step("ai.process", {"documentList": ["docList:input"], "aiPrompt": "Summarise"}, "result.md"),
        _step(
            "document.extract", {"documentList": ["docList:input"], "aiPrompt": "Summarise"}, "report.md", "analysis.md"
        ),
    ],
    ids=["ai.process over the inputs", "document.extract answering over the inputs"],
)
def test_an_image_a_step_showed_the_model_is_not_named(step: HistoryEntry) -> None:
    assert closing_notes(_state(), [step]) == []


@pytest.mark.parametrize(
    ("step", "unread"),
    [
        (_step("document.extract", {"documentList": ["docList:input"]}, "report.md"), [UNREAD_LINE]),
        (
            _step(
                "document.extract",
                {"documentList": ["docItem:input/report.pdf"], "aiPrompt": "Sum"},
                "report.md",
                "analysis.md",
            ),
            [UNREAD_LINE],
        ),
        (
            _step("ai.process", {"documentList": ["docItem:input/chart.png"], "aiPrompt": "Describe"}, "result.md"),
            [PDF_LINE],
        ),
        (_step("ai.process", {"documentList": ["docList:input"], "aiPrompt": "Summarise"}), [PDF_LINE, UNREAD_LINE]),
        (
            _step(
                "ai.process",
                {"documentList": ["docList:round1_task1_action1_extract"], "aiPrompt": "Summarise"},
                "result.md",
            ),
            [PDF_LINE, UNREAD_LINE],
        ),
        (_step("code.execute", {"documentList": ["docList:input"], "code": "print(1)"}, "stdout.txt"), [UNREAD_LINE]),
    ],
    ids=[
        "extract without a question",
        "extract of the PDF only",
        "ai.process over the image only",
        "ai.process that failed",
        "ai.process over a result",
        "an action that shows no model anything",
    ],
)
def test_an_input_no_step_read_is_named_below_the_answer_with_why(step: HistoryEntry, unread: list[str]) -> None:
    """A document is read by a step that delivered from it; an image only where the step showed it the model."""
    notes = closing_notes(_state(notes=["code.execute is unavailable: no sandbox"]), [step])

    assert notes == ["code.execute is unavailable: no sandbox", *unread]
    assert with_left_out("The answer.", notes) == "\n\n".join(["The answer.", "\n".join(unread)])


def test_the_line_is_in_the_users_language_and_said_once() -> None:
    lines = closing_notes(_state(language="de"), [])
    assert lines == [
        f"{name} — nicht gelesen: kein Schritt dieser Antwort hat es gelesen" for name in ("report.pdf", "chart.png")
    ]
    assert closing_notes(_state(language="de", notes=lines), []) == lines, "a finalize run again adds nothing"
    assert closing_notes(_state(language="sv"), []) == [PDF_LINE, UNREAD_LINE], "English where paor lacks the language"


def test_a_one_call_rounds_images_are_its_bare_calls() -> None:
    assert closing_notes(_state(direct=True), []) == []


def test_an_image_the_model_cannot_see_is_named_as_the_one_call_path_names_it() -> None:
    image = AttachedImage(
        "chart.png", "it is an image", Attachment("chart.png", "image/png", base64.b64encode(png()).decode())
    )
    unseen = image.unseen(NO_IMAGES)
    assert left_out([unseen]) == [f"chart.png — not read: {NO_IMAGES}"] == [not_read("chart.png", NO_IMAGES)]
    assert left_out([unseen], "fr") == ["chart.png — non lu: ce modèle n'accepte pas les images"]
    assert str(unseen) == "chart.png cannot be read: it is an image (image/png), and this model does not accept images"
    assert not_read("chart.png", UNREAD, "es") == "chart.png — no leído: ningún paso de esta respuesta lo leyó"


def test_the_answer_shows_every_attachment_left_out_and_no_other_note() -> None:
    notes = ["asked: which year? — answered: 2024", f"{LEFT_OUT}memo.wav cannot be read: it is an audio", UNREAD_LINE]
    assert with_left_out("A.", notes) == f"A.\n\n{LEFT_OUT}memo.wav cannot be read: it is an audio\n{UNREAD_LINE}"
