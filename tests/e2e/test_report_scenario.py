"""A multi-tool run: a user's document → extract → German summary → Word report, through the real graph."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import docx

from core.context import Context
from core.schemas import DocumentRef, HistoryEntry
from graph.builder import build_graph
from nodes.strategies import NAMESPACE
from tests.support.scenarios import NOTES, REPORT_PROMPT, script_report
from tests.support.scripted_llm import ScriptedLLM
from tools.documents import DocumentStore


def test_document_to_german_word_report(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    script_report(scripted_llm)

    graph = build_graph(checkpointer=checkpointer, store=store)
    out = graph.invoke(
        {"prompt": REPORT_PROMPT, "documents": [str(notes)]},
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
