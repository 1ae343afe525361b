"""Model faults degrade steps instead of crashing the run; bad input gets a typed error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.context import Context
from core.errors import DocumentRejected, InvalidRequest, ModelUnavailable
from graph.builder import build_graph
from tests.support.scenarios import PRIMES_INTENT, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import HTTPError, ScriptedLLM


def test_endpoint_overloaded_on_every_selection_stops_the_step_as_an_outage_not_three_failed_steps(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    scripted_llm.on("Intent", json.dumps(PRIMES_INTENT)).on("ActionSelection", HTTPError(503, "overloaded"))
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "503"}}
    with pytest.raises(ModelUnavailable, match="answered HTTP 503 after the client's retries; try again"):
        graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)
    stopped = graph.get_state(config)
    assert stopped.next == ("select",) and stopped.values.get("history", []) == []


def test_malformed_json_once_is_repaired_or_retried(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_primes(scripted_llm)
    scripted_llm.on("Intent", "{not json at all", json.dumps(PRIMES_INTENT))  # queue: garbage first
    out = build_graph(checkpointer=checkpointer, store=store).invoke(
        {"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "garbage"}}, context=context
    )
    assert out["status"] == "completed"


@pytest.mark.parametrize("prompt", ["", "   \n\t "])
def test_empty_prompt_is_a_typed_error(context: Context, checkpointer: Any, prompt: str) -> None:
    with pytest.raises(InvalidRequest, match="empty"):
        build_graph(checkpointer=checkpointer).invoke(
            {"prompt": prompt}, {"configurable": {"thread_id": "empty"}}, context=context
        )


def test_missing_input_document_is_a_typed_error(context: Context, checkpointer: Any) -> None:
    with pytest.raises(DocumentRejected, match="does not exist"):
        build_graph(checkpointer=checkpointer).invoke(
            {"prompt": "Summarise this", "documents": ["/nonexistent/report.pdf"]},
            {"configurable": {"thread_id": "missing"}},
            context=context,
        )


def test_two_input_documents_with_one_name_both_stay_addressable(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, tmp_path: Any
) -> None:
    script_primes(scripted_llm)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.txt").write_text(f"notes from {folder}", encoding="utf-8")
    graph = build_graph(checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "same-name"}}
    graph.invoke(
        {"prompt": PRIMES_PROMPT, "documents": [str(tmp_path / "a" / "notes.txt"), str(tmp_path / "b" / "notes.txt")]},
        config,
        context=context,
    )
    names = [d["name"] for d in graph.get_state(config).values["input_documents"]]
    assert names == ["notes.txt", "notes-2.txt"]
    assert "docItem:input/notes-2.txt" in scripted_llm.requests_for("ActionSelection")[0].text
