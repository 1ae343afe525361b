"""Every attached image is read or named, in a round that goes to the loop (issue 46, item 5).

"Summarise the attached documents" with a PDF and a PNG is no one-call request: its round goes to the loop, whose
step reads the documents with document.extract. The PNG reaches the model with that step's question where the
endpoint accepts images; anywhere else it is named below the answer as not read, with why. Asserted from what the
scripted server received and from the answer's message, through the real graph and ChatOpenAI client.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from core.context import Context
from core.schemas import DocumentRef
from graph.builder import build_graph
from tests.e2e.test_mixed_attachments import png_bytes
from tests.support.chat import ui_file_block, ui_message
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tests.unit.documents.builders import pdf_bytes

PROMPT = "Summarise the attached documents"
REPORT = "Revenue rose 12 percent in the third quarter."
ANSWER = "Revenue rose 12 percent in the third quarter; the chart shows the rise."
UNSEEN = "chart.png — not read: this model does not accept images"
UNREAD = "chart.png — not read: no step of this answer read it"


def script(llm: ScriptedLLM, documents: list[str], *, answer: str = ANSWER, language: str = "en") -> ScriptedLLM:
    """One step: document.extract of `documents`, answering the request (its aiPrompt)."""
    selection = {
        "action": "document.extract",
        "actionObjective": "read the documents and summarise them",
        "requiredInputDocuments": documents,
        "parametersContext": PROMPT,
        "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
    }
    intent = {
        "dataType": "answer",
        "expectedFormat": "markdown",
        "successCriteria": ["summarises"],
        "language": language,
    }
    llm.on("Intent", json.dumps(intent)).on("ActionSelection", selection)
    llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": PROMPT}})
    return llm.on("text", answer).on(
        "ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "decision": "stop"}
    )


@pytest.fixture
def seeing_llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(accept_images=True) as llm:
        yield llm


def ask(context: Context, checkpointer: Any, store: Any, text: str = PROMPT) -> dict[str, Any]:
    """The thread's state after a chat message with report.pdf and chart.png."""
    graph = build_graph(checkpointer=checkpointer, store=store)
    message = ui_message(
        text, ui_file_block(pdf_bytes(REPORT), "report.pdf"), ui_file_block(png_bytes(), "chart.png", "image/png")
    )
    config = {"configurable": {"thread_id": "loop-images"}}
    graph.invoke(message, config, context=context)
    values: dict[str, Any] = graph.get_state(config).values
    return values


def reading_call(llm: ScriptedLLM) -> RecordedRequest:
    """The call that answered the request over the documents (the image probe goes to the text route too)."""
    return next(r for r in llm.requests_for("text") if "USER REQUEST" in r.text)


def answer_of(out: dict[str, Any]) -> str:
    answer = out["messages"][-1]
    assert isinstance(answer, AIMessage)
    return answer.text


def test_a_loop_round_on_an_endpoint_refusing_images_names_the_png_as_not_read_below_the_answer(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script(scripted_llm, ["docList:input"])
    out = ask(context, checkpointer, store)

    assert out["status"] == "completed", out["stop_reason"]
    assert not out["direct"], "the round went to the loop"
    assert [DocumentRef.model_validate(d).name for d in out["input_documents"]] == ["report.pdf"]
    call = reading_call(scripted_llm)
    assert REPORT in call.text and not call.images, "the PDF was read, the PNG not sent"
    answer = answer_of(out)
    assert answer.startswith(ANSWER) and f"{ANSWER}\n\n{UNSEEN}" in answer
    assert out["notes"] == [UNSEEN]


def test_the_line_is_in_the_users_language_where_paor_has_it(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    answer = "Der Umsatz stieg im dritten Quartal um 12 Prozent; das Diagramm zeigt den Anstieg."
    script(scripted_llm, ["docList:input"], answer=answer, language="de")
    out = ask(replace(context, user_language="de"), checkpointer, store, "Fasse die angehängten Dokumente zusammen")

    assert f"{answer}\n\nchart.png — nicht gelesen: dieses Modell nimmt keine Bilder an" in answer_of(out)


def test_a_loop_round_on_an_endpoint_accepting_images_shows_the_png_to_the_step_that_reads_the_documents(
    seeing_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """The observed case: document.extract over docList:input answered from the PDF's text alone, and the answer
    neither used the PNG nor said it was left out."""
    script(seeing_llm, ["docList:input"])
    out = ask(replace(context, base_url=seeing_llm.base_url), checkpointer, store)

    assert out["status"] == "completed", out["stop_reason"]
    names = [DocumentRef.model_validate(d).name for d in out["input_documents"]]
    assert names == ["report.pdf", "chart.png"]
    call = reading_call(seeing_llm)
    assert REPORT in call.text, "the PDF's text was read"
    assert call.images == [f"data:image/png;base64,{base64.b64encode(png_bytes()).decode()}"], "and the PNG shown"
    assert "IMAGE chart.png:" in call.text
    answer = answer_of(out)
    assert answer.startswith(ANSWER) and "not read" not in answer and not out["notes"]


def test_a_png_no_step_of_the_loop_read_is_named_as_not_read_below_the_answer(
    seeing_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """The endpoint accepts images, but every step of the round read only the PDF: the answer made without the
    image is delivered, but never as completed (issue 53, item 4)."""
    script(seeing_llm, ["docItem:input/report.pdf"])
    out = ask(replace(context, base_url=seeing_llm.base_url), checkpointer, store)

    assert out["status"] == "incomplete", out["stop_reason"]
    assert "chart.png" in [DocumentRef.model_validate(d).name for d in out["input_documents"]]
    assert not reading_call(seeing_llm).images
    assert f"{ANSWER}\n\n{UNREAD}" in answer_of(out)
    assert out["notes"] == [UNREAD]


def test_an_image_named_in_documents_goes_where_an_attached_one_goes(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, tmp_path: Path
) -> None:
    """A run's `documents` (the CLI's, the API's) are inputs like attachments: an image among them is an input only
    where the model is shown images, and named as not read otherwise (it used to be sent, and refused)."""
    report, chart = tmp_path / "report.pdf", tmp_path / "chart.png"
    report.write_bytes(pdf_bytes(REPORT))
    chart.write_bytes(png_bytes())
    script(scripted_llm, ["docList:input"])
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "documents"}}
    out = graph.invoke({"prompt": PROMPT, "documents": [str(report), str(chart)]}, config, context=context)

    assert out["status"] == "completed", out["stop_reason"]
    assert [DocumentRef.model_validate(d).name for d in graph.get_state(config).values["input_documents"]] == [
        "report.pdf"
    ]
    assert out["notes"] == [UNSEEN] and f"{ANSWER}\n\n{UNSEEN}" in answer_of(out)
