"""finalize: answer, deliverables (refs of the best step), status, stop reason and totals."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo

from core.context import Context
from core.schemas import DocumentRef, RefinementDecision, dump
from nodes.finalize import ANSWER_CHARS, cut_at_boundary, finalize
from nodes.services import Services
from server.urls import document_url
from tests.unit.core.factories import entry, runtime, state
from tools.documents import DocumentStore


@pytest.fixture
def services(offline_services: Services) -> Services:
    """This node never calls a model."""
    return offline_services


@pytest.fixture
def context(offline_context: Context) -> Context:
    return offline_context


def _stored(context: Context, text: str, step: int, name: str = "result.md") -> dict[str, Any]:
    doc = DocumentStore(context.store_path).put_text(text, label=f"round1_task1_action{step}_process", name=name)
    return dump(doc)


def _decision(decision: str, reason: str) -> dict[str, Any]:
    return dump(RefinementDecision(decision=decision, reason=reason))  # type: ignore[arg-type]


def _finalize(services: Services, context: Context, **overrides: Any) -> dict[str, Any]:
    return finalize(state(**overrides), runtime(context), services)


def test_met_criteria_complete_the_run_with_the_best_steps_documents(services: Services, context: Context) -> None:
    code = _stored(context, "def primes(): ...", 1)
    data = _stored(context, "2, 3, 5, 7", 2)
    history = [
        entry(step=1, action="ai.process", documents=[code], qualityScore=0.2),
        entry(step=2, action="ai.process", documents=[data], success=True, qualityScore=1.0),
    ]
    telemetry = {"round": 1, "seconds": 0.25, "inputTokens": 100, "outputTokens": 20, "nodes": {}}
    out = _finalize(
        services,
        context,
        step=2,
        history=history,
        telemetry=telemetry,
        decision=_decision("stop", "all success criteria met (quality 1.00)"),
    )
    assert out["status"] == "completed"
    assert out["stop_reason"] == "all success criteria met (quality 1.00)"
    assert out["answer"] == "2, 3, 5, 7"
    assert out["deliverables"] == [data]
    assert out["totals"] == {"steps": 2, "tokens": 120, "inputTokens": 100, "outputTokens": 20, "seconds": 0.25}


def test_unmet_criteria_leave_the_run_incomplete_with_the_best_attempt(services: Services, context: Context) -> None:
    worse = _stored(context, "def primes(): ...", 1)
    better = _stored(context, "2, 3, 5, 8", 2)
    history = [
        entry(step=1, documents=[worse], qualityScore=0.2),
        entry(step=2, documents=[better], qualityScore=0.6),
        entry(step=3, summary="selection failed"),
    ]
    out = _finalize(services, context, step=3, history=history, decision=_decision("stop", "max_steps (3) reached"))
    assert out["status"] == "incomplete" and out["stop_reason"] == "max_steps (3) reached"
    assert out["deliverables"] == [better]
    assert out["answer"] == "2, 3, 5, 8"  # the answer only: why it stopped is in status and stop_reason


def test_success_below_the_quality_threshold_is_not_completed(services: Services, context: Context) -> None:
    doc = _stored(context, "2, 3, 5", 1)
    history = [entry(step=1, documents=[doc], success=True, qualityScore=0.5)]
    out = _finalize(services, context, step=1, history=history, decision=_decision("stop", "good enough"))
    assert out["status"] == "incomplete" and out["deliverables"] == [doc]


def test_long_answer_is_truncated_and_points_to_the_document(services: Services, context: Context) -> None:
    text = "word " * 10_000
    doc = _stored(context, text, 1, name="long.md")
    out = _finalize(services, context, history=[entry(step=1, documents=[doc], success=True, qualityScore=1.0)])
    assert len(out["answer"]) < ANSWER_CHARS + 200
    assert out["answer"].startswith(text[: ANSWER_CHARS - 5]) and out["answer"].split("\n\n")[0].endswith("word")
    assert "truncated; the full text is in long.md" in out["answer"]


@pytest.mark.parametrize(
    ("text", "kept_end"),
    [
        (", ".join(str(n) for n in range(5000, 7000)), ", 5665"),  # an item list: never "…, 566" of 5666
        ("The tide turns. " * 400, "The tide turns."),  # sentences: the last whole one
        ("x" * 5000, "x"),  # no boundary at all: cut where the allowance ends
    ],
    ids=["items", "sentences", "no-boundary"],
)
def test_a_cut_answer_ends_at_an_item_or_a_sentence_never_inside_one(text: str, kept_end: str) -> None:
    cut = cut_at_boundary(text, 4000)
    assert len(cut) <= 4000 and cut.endswith(kept_end) and text.startswith(cut)
    if "," in text:
        assert cut.rsplit(", ", 1)[1] in text.split(", "), "the last item kept is whole"


def test_server_runs_link_each_deliverable_and_the_cut_answer_to_its_download(
    services: Services, context: Context
) -> None:
    long = _stored(context, "7919, " * 2000, 1, name="result.md")
    history = [entry(step=1, documents=[long], success=True, qualityScore=1.0)]
    server = replace(services, links=document_url)
    on_thread = replace(runtime(context), execution_info=ExecutionInfo("c1", "", "t1", thread_id="t-42"))

    out = finalize(state(history=history), on_thread, server)

    url = f"/paor/threads/t-42/documents/{long['label']}/result.md"
    assert out["deliverables"] == [{**long, "url": url}]
    assert out["answer"].endswith(f"(truncated; the full text is in result.md, {url})")  # a path: no link yet
    assert "url" not in _finalize(services, context, history=history)["deliverables"][0], "no links outside the server"


def test_binary_deliverables_are_named_in_the_answer(services: Services, context: Context) -> None:
    pdf = dump(DocumentStore(context.store_path).put(b"%PDF-1.7", label="r", name="report.pdf", mime="application/pdf"))
    out = _finalize(services, context, history=[entry(step=1, documents=[pdf], success=True, qualityScore=0.9)])
    assert out["answer"] == "report.pdf"
    assert DocumentRef.model_validate(out["deliverables"][0]).name == "report.pdf"


def test_no_deliverable_says_so_with_the_reason(services: Services, context: Context) -> None:
    out = _finalize(services, context, history=[entry(step=1)], decision=_decision("stop", "no progress"))
    assert out["status"] == "incomplete" and out["deliverables"] == []
    assert out["answer"] == ""  # no answer, and no status dressed as one
    assert out["messages"][-1].content == "No answer was produced (no progress)."


def test_only_the_current_rounds_steps_count(services: Services, context: Context) -> None:
    old = _stored(context, "old answer", 1)
    out = _finalize(
        services,
        context,
        round=2,
        history=[entry(round_=1, step=1, documents=[old], success=True, qualityScore=1.0)],
    )
    assert out["status"] == "incomplete" and out["deliverables"] == [] and out["totals"]["steps"] == 0
