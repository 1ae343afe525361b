"""A PDF and a PNG in one chat message, through the real graph and the real ChatOpenAI client (issue 31, item 2).

The PDF is always read; the PNG reaches the model as an image where the endpoint accepts images, and is named as
left out, with the reason, where it does not. Each case is asserted from what the scripted server received.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from PIL import Image

from core.capabilities import NAMESPACE, endpoint_key, forget_all
from core.context import Context
from core.llm import Models
from core.schemas import DocumentRef
from graph.builder import build_graph
from tests.support.chat import ui_file_block, ui_message
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tests.unit.documents.builders import pdf_bytes

PROMPT = "Does the chart agree with the report?"
REPORT = "Revenue rose 12 percent in the third quarter."
ANSWER = "Yes: the report says revenue rose 12 percent, and the chart shows it rising."

EXTRACTED = "docList:round1_task1_action1_extract"
IMAGE = "docItem:input/chart.png"


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def script(llm: ScriptedLLM, *, image: bool) -> ScriptedLLM:
    """Extract the PDF, then answer over its text (and the image where it was read)."""
    steps = {
        1: ("document.extract", ["docItem:input/report.pdf"], {}),
        2: ("ai.process", [EXTRACTED, IMAGE] if image else [EXTRACTED], {"aiPrompt": PROMPT}),
    }

    def selection(request: RecordedRequest) -> dict[str, Any]:
        step = int(re.search(r"This is step (\d+)", request.text).group(1))  # type: ignore[union-attr]
        action, documents, parameters = steps[step]
        fields = [{"name": name, "type": "string", "required": True} for name in parameters]
        return {
            "action": action,
            "actionObjective": f"step {step}: compare the chart with the report",
            "requiredInputDocuments": documents,
            "parametersContext": PROMPT,
            "parametersSchema": {"fields": fields},
        }

    def parameters(request: RecordedRequest) -> dict[str, Any]:
        action = re.search(r"SELECTED ACTION: (\S+)", request.text).group(1)  # type: ignore[union-attr]
        return {"schema": "parameters_v1", "parameters": next(p for a, _, p in steps.values() if a == action)}

    intent = {"dataType": "answer", "expectedFormat": "markdown", "successCriteria": ["compares"], "language": "en"}
    llm.on("Intent", json.dumps(intent)).on("ActionSelection", selection).on("ParametersAnswer", parameters)
    return llm.on("text", ANSWER).on("ContentJudgement", _judgement)


def _judgement(request: RecordedRequest) -> dict[str, Any]:
    """The extracted text alone does not compare anything; the answer does."""
    met = ANSWER in request.text
    return {"criteriaMet": [met], "qualityScore": 0.9 if met else 0.2, "decision": "stop" if met else "continue"}


@pytest.fixture
def seeing_llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(accept_images=True) as llm:
        yield llm


def _ask(context: Context, checkpointer: Any, store: Any, thread: str) -> dict[str, Any]:
    """The thread's state after the message: the run's output and its input documents."""
    graph = build_graph(checkpointer=checkpointer, store=store)
    message = ui_message(
        PROMPT, ui_file_block(pdf_bytes(REPORT), "report.pdf"), ui_file_block(png_bytes(), "chart.png", "image/png")
    )
    config = {"configurable": {"thread_id": thread}}
    graph.invoke(message, config, context=context)
    values: dict[str, Any] = graph.get_state(config).values
    return values


def _answer_call(llm: ScriptedLLM) -> RecordedRequest:
    """The ai.process call that wrote the answer (the probe also went to the text route, with one token)."""
    return next(r for r in llm.requests_for("text") if "USER REQUEST" in r.text)


def _probes(llm: ScriptedLLM) -> list[RecordedRequest]:
    return [r for r in llm.requests_for("text") if "USER REQUEST" not in r.text]


def test_an_endpoint_that_accepts_images_gets_the_png_as_an_image_next_to_the_pdf_text(
    seeing_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script(seeing_llm, image=True)
    seeing = replace(context, base_url=seeing_llm.base_url)
    out = _ask(seeing, checkpointer, store, "mixed-seen")

    assert out["status"] == "completed", out["stop_reason"]
    inputs = [DocumentRef.model_validate(d) for d in out["input_documents"]]
    assert [(r.name, r.mime) for r in inputs] == [("report.pdf", "application/pdf"), ("chart.png", "image/png")]
    call = _answer_call(seeing_llm)
    assert REPORT in call.text, "the PDF was read"
    assert call.images == [f"data:image/png;base64,{base64.b64encode(png_bytes()).decode()}"]
    assert "IMAGE chart.png:" in call.text
    (probe,) = _probes(seeing_llm)
    assert probe.images and probe.body.get("max_tokens") == 1
    answer = out["messages"][-1]
    assert isinstance(answer, AIMessage) and answer.text.startswith(ANSWER)
    assert "Left out" not in answer.text and not out["notes"]
    kept = store.get(NAMESPACE, endpoint_key(Models().for_context(seeing)))
    assert kept is not None and kept.value["images"] is True


def test_an_endpoint_without_image_input_answers_over_the_pdf_and_the_answer_names_the_png_left_out(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script(scripted_llm, image=False)
    out = _ask(context, checkpointer, store, "mixed-unseen")

    assert out["status"] == "completed", out["stop_reason"]
    inputs = [DocumentRef.model_validate(d) for d in out["input_documents"]]
    assert [r.name for r in inputs] == ["report.pdf"]
    call = _answer_call(scripted_llm)
    assert REPORT in call.text and not call.images, "the PDF was read, the PNG not sent"
    left_out = "chart.png — not read: this model does not accept images"
    assert out["notes"] == [left_out]
    human, answer = out["messages"]
    assert answer.text.startswith(ANSWER) and left_out in answer.text
    assert "[attached, not readable: chart.png]" in str(human.content)
    assert "report.pdf" in str(human.content)

    # the endpoint's answer is remembered in the store: the next image, in a new process, costs no probe
    forget_all()
    _ask(context, checkpointer, store, "mixed-unseen-again")
    assert len(_probes(scripted_llm)) == 1
