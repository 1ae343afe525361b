"""A multi-tool run: a user's document → extract → German summary → Word report, through the real graph."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import docx

from graph.builder import build_graph
from graph.context import Context
from graph.schemas import DocumentRef, HistoryEntry
from nodes.strategies import NAMESPACE
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tools.documents import DocumentStore

NOTES = (
    "The city council approved the new cycling plan on Monday. It adds forty kilometres of protected bike lanes, "
    "lowers the speed limit near schools and funds three hundred new bicycle parking spaces by the end of next year."
)
GERMAN_SUMMARY = (
    "Der Stadtrat hat am Montag den neuen Radverkehrsplan beschlossen. Er schafft vierzig Kilometer geschützte "
    "Radwege, senkt die Geschwindigkeit in der Nähe von Schulen und finanziert bis Ende nächsten Jahres dreihundert "
    "neue Fahrradstellplätze für die Bürgerinnen und Bürger der Stadt."
)
_STEPS = {
    1: ("document.extract", ["docList:input"], []),
    2: ("ai.process", ["docList:round1_task1_action1_extract"], ["aiPrompt"]),
    3: ("document.generateReport", ["docList:round1_task1_action2_process"], ["title"]),
}
_PARAMETERS = {
    "document.extract": {},
    "ai.process": {"aiPrompt": "Fasse das Dokument auf Deutsch zusammen."},
    "document.generateReport": {"title": "Radverkehrsplan"},
}


def _selection(request: RecordedRequest) -> dict[str, Any]:
    step = int(re.search(r"This is step (\d+)", request.text).group(1))  # type: ignore[union-attr]
    action, documents, fields = _STEPS[step]
    return {
        "action": action,
        "actionObjective": f"step {step} towards the German Word report",
        "requiredInputDocuments": documents,
        "parametersContext": "German summary as a Word report",
        "parametersSchema": {"fields": [{"name": f, "type": "string", "required": True} for f in fields]},
    }


def _parameters(request: RecordedRequest) -> dict[str, Any]:
    action = re.search(r"SELECTED ACTION: (\S+)", request.text).group(1)  # type: ignore[union-attr]
    return {"schema": "parameters_v1", "parameters": _PARAMETERS[action]}


def test_document_to_german_word_report(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    intent = {
        "dataType": "report",
        "expectedFormat": "docx",
        "successCriteria": ["summarises the document", "written in German", "delivered as a Word document"],
        "language": "de",
    }
    scripted_llm.on("Intent", json.dumps(intent)).on("ActionSelection", _selection)
    scripted_llm.on("ParametersAnswer", _parameters).on("text", GERMAN_SUMMARY)
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": []})

    graph = build_graph(checkpointer=checkpointer, store=store)
    out = graph.invoke(
        {"prompt": "Summarise this document in German as a Word report", "documents": [str(notes)]},
        {"configurable": {"thread_id": "report"}},
        context=context,
    )

    assert out["status"] == "completed", out["stop_reason"]
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert [(h.action, h.outcome) for h in history] == [
        ("document.extract", "progress"),
        ("ai.process", "progress"),
        ("document.generateReport", "met"),
    ]
    assert history[0].parameters["documentList"] == ["docList:input"]
    assert "docList:round1_task1_action1_extract" in scripted_llm.requests_for("ActionSelection")[1].text
    assert len(scripted_llm.requests_for("ContentJudgement")) == 1  # only the final report needed the model's eye

    word = next(DocumentRef.model_validate(d) for d in out["deliverables"] if d["name"].endswith(".docx"))
    document = docx.Document(io.BytesIO(DocumentStore(context.store_path).read_bytes(word)))
    body = "\n".join(p.text for p in document.paragraphs)
    assert "Radverkehrsplan" in body and "vierzig Kilometer" in body

    # Intermediate steps are progress, not failures: nothing was put on an avoid-list.
    learned = [item.value for item in store.search(NAMESPACE)]
    assert learned and all(not s["avoid"] for s in learned)
    assert notes.read_text(encoding="utf-8") == NOTES  # the user's file is untouched
