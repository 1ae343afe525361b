"""A round whose request brings a document is never `completed` on an answer made without it (issue 53, item 4).

Observed with SmolLM2 on docs/server.md's own example: a 1-page PDF, one `ai.process` step with an empty
documentList, and "all success criteria met (quality 1.00)" for "The report process is a step in the document
list." Through the real graph and ChatOpenAI client against the scripted server: a Stage 1 naming no document works
on the round's unread inputs; a step that reads another document fails the check, and the round that never reads
its document ends `incomplete`, the answer naming the document in the user's language.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from core.context import Context
from graph.builder import build_graph
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.documents.builders import pdf_bytes

REPORT = "The quarterly report shows revenue of 4.2 million euros."
ANSWER = "Revenue was 4.2 million euros in the quarter."


def selection(action: str, documents: list[str]) -> dict[str, Any]:
    return {
        "action": action,
        "actionObjective": "summarise the report",
        "requiredInputDocuments": documents,
        "parametersContext": "Summarise the report",
        "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
    }


def script(llm: ScriptedLLM, *selections: dict[str, Any], language: str = "en") -> None:
    """Stage 1 answers `selections` in turn (the last one again after); every judge is content."""
    intent = {
        "dataType": "answer",
        "expectedFormat": "markdown",
        "successCriteria": ["summarises"],
        "language": language,
    }
    llm.replace("Intent", json.dumps(intent)).replace("ActionSelection", *selections)
    llm.replace("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Summarise the report"}})
    llm.replace("text", ANSWER)
    llm.replace("ContentJudgement", {"criteriaMet": [True], "qualityScore": 1.0, "decision": "stop"})


def run(context: Context, checkpointer: Any, store: Any, prompt: str, documents: list[str], thread: str) -> dict:
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": thread}}
    return graph.invoke({"prompt": prompt, "documents": documents}, config, context=context)


def answer_of(out: dict[str, Any]) -> str:
    message = out["messages"][-1]
    assert isinstance(message, AIMessage)
    return message.text


def test_a_step_naming_no_document_reads_the_rounds_document(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, tmp_path: Path
) -> None:
    """The small model's two choices, each naming no document: ai.process cannot take the PDF and says so (the
    next Stage 1 reads why), document.extract answers from its text."""
    report = tmp_path / "report.pdf"
    report.write_bytes(pdf_bytes(REPORT))
    script(scripted_llm, selection("ai.process", []), selection("document.extract", []))
    out = run(context, checkpointer, store, "Summarise this report", [str(report)], "empty-list")

    assert out["status"] == "completed", out["stop_reason"]
    first, second = out["history"]
    assert first["parameters"]["documentList"] == second["parameters"]["documentList"] == ["docItem:input/report.pdf"]
    assert "extract it with document.extract" in scripted_llm.requests_for("ActionSelection")[1].text
    reading = [r for r in scripted_llm.requests_for("text") if "USER REQUEST" in r.text]
    assert reading and REPORT in reading[0].text, "the model answered from the report's text"
    assert "not read" not in answer_of(out)


def test_a_round_that_never_reads_its_document_is_not_completed_and_says_which(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, tmp_path: Path
) -> None:
    """Round 2 brings a new document, but every step works on round 1's only: the judge's "met" counts for nothing,
    the next Stage 1 is told which document to read, and the round ends incomplete naming it, in German."""
    first, second = tmp_path / "q1.pdf", tmp_path / "q2.pdf"
    first.write_bytes(pdf_bytes(REPORT))
    second.write_bytes(pdf_bytes("Revenue fell to 3.1 million euros."))
    script(scripted_llm, selection("document.extract", []), language="de")
    out = run(context, checkpointer, store, "Fasse den Bericht zusammen", [str(first)], "follow-up")
    assert out["status"] == "completed", out["stop_reason"]

    script(scripted_llm, selection("document.extract", ["docItem:input/q1.pdf"]), language="de")
    out = run(context, checkpointer, store, "Und jetzt diesen", [str(first), str(second)], "follow-up")

    assert out["status"] == "incomplete", out["stop_reason"]
    steps = [e for e in out["history"] if e["round"] == 2]
    delivered = [e for e in steps if e["documents"]]
    assert delivered and all("inputs read" in e["checksFailed"] for e in delivered)
    assert not any(e["outcome"] == "met" for e in steps)
    told = [
        r for r in scripted_llm.requests_for("ActionSelection") if "Read q2.pdf: name docItem:input/q2.pdf" in r.text
    ]
    assert told, "the next Stage 1 was told which document to read"
    assert f"{ANSWER}\n\nq2.pdf — nicht gelesen: kein Schritt dieser Antwort hat es gelesen" in answer_of(out)
    assert "q1.pdf" not in answer_of(out), "round 1's document, read then, is not asked for again"
