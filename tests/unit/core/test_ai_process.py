"""ai.process: the model over referenced documents, map-reduced when long; honours the asked output format."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from core.context import Context
from core.errors import ToolFailed
from core.schemas import ActionResult, ActionSelection, dump
from nodes.act import act
from nodes.services import Services
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tests.unit.core.factories import runtime, selection, state
from tools.ai_process import make_ai_process_tool, shape_output
from tools.base import ToolDeps, ToolOutput
from tools.documents import DocumentIndex, DocumentStore

MERGED = "All parts together: the contract runs for five years."
LONG_TEXT = "\n\n".join(
    f"Section {i}. The supplier delivers {i} units every month and the buyer pays within thirty days. " * 4
    for i in range(15)
)


def _run(llm: ScriptedLLM, context: Context, args: dict[str, Any], docs: list[Any] | None = None) -> ToolOutput:
    store = DocumentStore(context.store_path)
    refs = [store.put(data, label="input", name=name, mime=mime) for name, mime, data in docs or []]
    deps = ToolDeps(llm=llm.model(), store=store, context=context, index=DocumentIndex(refs), language="en")
    reply = make_ai_process_tool(deps).invoke({"type": "tool_call", "name": "ai_process", "args": args, "id": "t1"})
    assert isinstance(reply, ToolMessage) and isinstance(reply.artifact, ToolOutput)
    return reply.artifact


def _map_or_merge(request: RecordedRequest) -> str:
    return MERGED if "Combine the partial answers" in request.last_user else "The part says: deliveries monthly."


def test_long_document_is_answered_in_parts_then_merged(scripted_llm: ScriptedLLM, context: Context) -> None:
    context.chunk_tokens = 300
    scripted_llm.on("text", _map_or_merge)
    output = _run(
        scripted_llm,
        context,
        {"documentList": ["docList:input"], "aiPrompt": "Summarise the contract"},
        [("contract.txt", "text/plain", LONG_TEXT.encode())],
    )
    requests = scripted_llm.requests_for("text")
    maps = [r for r in requests if "This is part" in r.last_user]
    merges = [r for r in requests if "Combine the partial answers" in r.last_user]
    assert len(maps) >= 3 and len(merges) == 1 and len(requests) == len(maps) + 1
    assert requests[-1] is merges[0]
    assert f"part 1 of {len(maps)} of contract.txt" in maps[0].last_user
    assert all(len(r.last_user) < 4 * 300 + 1_500 for r in maps), "each map call carries one chunk only"
    [document] = output.documents
    assert document.name == "result.md" and document.data.decode() == MERGED


def test_short_document_is_answered_in_one_call(scripted_llm: ScriptedLLM, context: Context) -> None:
    scripted_llm.on("text", "Five years.")
    output = _run(
        scripted_llm,
        context,
        {"documentList": ["docItem:input/contract.txt"], "aiPrompt": "How long does it run?"},
        [("contract.txt", "text/plain", b"The contract runs for five years.")],
    )
    [request] = scripted_llm.requests_for("text")
    assert "The contract runs for five years." in request.last_user and "<untrusted" in request.last_user
    assert "Write in en" in request.system
    assert output.documents[0].data == b"Five years."


def test_json_output_is_unfenced_repaired_and_valid(scripted_llm: ScriptedLLM, context: Context) -> None:
    scripted_llm.on("text", '```json\n{"primes": [2, 3, 5,],}\n```')
    output = _run(scripted_llm, context, {"aiPrompt": "First three primes", "expectedDocumentFormats": ["json"]})
    [document] = output.documents
    assert (document.name, document.mime) == ("result.json", "application/json")
    assert json.loads(document.data) == {"primes": [2, 3, 5]}
    assert "one valid JSON value only" in scripted_llm.requests_for("text")[0].system


def test_each_asked_format_becomes_one_document(scripted_llm: ScriptedLLM, context: Context) -> None:
    scripted_llm.on("text", "n,prime\n1,2\n2,3")
    output = _run(scripted_llm, context, {"aiPrompt": "Primes", "expectedDocumentFormats": ["csv", "md", "csv"]})
    assert [(d.name, d.mime) for d in output.documents] == [("result.csv", "text/csv"), ("result.md", "text/markdown")]


def test_prose_when_json_was_asked_fails_the_tool() -> None:
    with pytest.raises(ToolFailed, match="not JSON although JSON was asked"):
        shape_output("I am sorry, I cannot do that.", "json")


def test_non_text_document_is_refused_with_a_hint_to_extract_it(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    pdf = DocumentStore(context.store_path).put(b"%PDF-1.7 binary", label="input", name="a.pdf", mime="application/pdf")
    chosen: ActionSelection = selection(requiredInputDocuments=["docList:input"])
    current = state(
        step=1,
        input_documents=[dump(pdf)],
        selection=dump(chosen),
        parameters={"documentList": ["docList:input"], "aiPrompt": "Summarise"},
    )
    result = ActionResult.model_validate(act(current, runtime(context), services)["result"])
    assert not result.success
    assert result.error and "a.pdf is application/pdf" in result.error and "document.extract" in result.error
    assert scripted_llm.requests == [], "the model is not asked about bytes it cannot read"


def test_empty_model_answer_fails_the_tool(scripted_llm: ScriptedLLM, context: Context) -> None:
    scripted_llm.on("text", "   ")
    with pytest.raises(ToolFailed, match="empty answer"):
        _run(scripted_llm, context, {"aiPrompt": "Primes"})


def test_the_answer_is_bounded_and_one_cut_at_the_bound_fails_the_call_with_the_reason(
    scripted_llm: ScriptedLLM, context: Context
) -> None:
    context.answer_tokens = 500
    scripted_llm.on("text", "7, " * 3000)
    with pytest.raises(ToolFailed, match="cut off at 500 tokens"):
        _run(scripted_llm, context, {"aiPrompt": "List the first million primes"})
    assert scripted_llm.requests_for("text")[0].body["max_completion_tokens"] == 500
