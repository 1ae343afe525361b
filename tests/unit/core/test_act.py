"""act: runs the one tool; documents go to the content-addressed store, state keeps references only."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import tools.catalog as catalog_module
from core.context import Context
from core.errors import ActionNotDeclared, ModelUnavailable
from core.schemas import ActionResult, dump
from nodes.act import act
from nodes.services import Services
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import runtime, selection, state
from tools.documents import DocumentStore

BIG_ANSWER = "2, 3, 5, 7, 11\n" * 20_000  # ~300 KB: far too big for a checkpoint


def _act(services: Services, context: Context, *, round_: int = 1, step: int = 1, **overrides: Any) -> ActionResult:
    values: dict[str, Any] = {
        "selection": dump(selection()),
        "parameters": {"aiPrompt": "List the numbers", "expectedDocumentFormats": ["md"]},
    }
    current = state(round=round_, step=step, **{**values, **overrides})
    update = act(current, runtime(context), services)
    assert set(update) == {"result"}
    return ActionResult.model_validate(update["result"])


def _stored_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_tool_output_is_stored_by_content_and_state_holds_only_references(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("text", BIG_ANSWER)
    scripted_llm.obey_max_tokens = False  # a large answer from a server that does not cut at max_tokens
    first = _act(services, context, step=1)
    second = _act(services, context, step=2)

    digest = hashlib.sha256(BIG_ANSWER.strip().encode()).hexdigest()
    assert first.success and [d.sha256 for d in first.documents] == [digest]
    assert second.documents[0].sha256 == digest
    assert first.documents[0].label == "round1_task1_action1_process"
    assert second.documents[0].label == "round1_task1_action2_process"
    assert len(_stored_files(context.store_path)) == 1, "the same bytes are stored once"
    assert DocumentStore(context.store_path).read_text(first.documents[0]) == BIG_ANSWER.strip()
    assert len(json.dumps(dump(first))) < 2_000, "the result in state must not carry the payload"


def test_result_label_is_deterministic_from_round_and_step(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("text", "2, 3, 5")
    assert _act(services, context, round_=2, step=3).resultLabel == "round2_task1_action3_process"


@pytest.mark.usefixtures("test_actions")
def test_tool_exception_becomes_a_failed_result_with_the_reason(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    chosen = selection(action="test.echo", parametersSchema={"fields": []})
    result = _act(services, context, selection=dump(chosen), parameters={"fail": "the disk is on fire"})
    assert not result.success and result.documents == []
    assert result.error is not None and "ToolFailed" in result.error and "the disk is on fire" in result.error
    assert result.resultLabel == "round1_task1_action1_echo"
    assert result.called  # the tool ran and failed at its job: learning may hold it against the approach


def test_an_endpoint_failing_inside_a_tool_stops_the_step_as_an_outage_not_a_failed_result(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    # Nothing is scripted for "text": the server answers HTTP 500 to the plain call, which no fallback guards.
    with pytest.raises(ModelUnavailable, match="answered HTTP 500"):
        _act(services, context)


def test_a_tool_failure_is_a_failed_result_not_a_crash(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("text", "")  # an empty answer: the tool's own failure
    result = _act(services, context)
    assert not result.success and result.error and "empty answer" in result.error


def test_an_action_the_graph_does_not_have_stops_the_run_naming_it(services: Services, context: Context) -> None:
    chosen = selection(action="mcp.orders.create_ticket", parametersSchema={"fields": []})
    ran_with = {"servers": ["orders"], "config": "/srv/mcp.json", "tools": []}

    with pytest.raises(ActionNotDeclared) as raised:
        _act(services, context, selection=dump(chosen), parameters={}, tools=ran_with)

    assert str(raised.value) == (
        "the thread's next action mcp.orders.create_ticket cannot run here: no MCP server 'orders' is declared; "
        "the thread ran with the MCP servers orders from /srv/mcp.json"
    )
    assert isinstance(raised.value, ValueError)  # the LangGraph server shows a ValueError's message to the client


def test_an_action_withdrawn_here_is_a_failed_result_paor_could_not_call(
    services: Services, context: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(catalog_module._UNAVAILABLE, "mcp.orders.*", "the MCP server orders could not start")
    chosen = selection(action="mcp.orders.create_ticket", parametersSchema={"fields": []})

    result = _act(services, context, selection=dump(chosen), parameters={})

    assert not result.success and not result.called
    assert result.error == (
        "ActionUnavailable: mcp.orders.create_ticket is unavailable: the MCP server orders could not start"
    )


def test_invalid_arguments_are_a_failed_result_paor_could_not_call(services: Services, context: Context) -> None:
    result = _act(services, context, parameters={"aiPrompt": ""})
    assert not result.success and "aiPrompt" in (result.error or "")
    assert not result.called  # the tool's own schema refused paor's arguments: the tool never ran


@pytest.mark.usefixtures("test_actions")
def test_successful_tool_result_references_its_documents_with_name_and_mime(
    services: Services, context: Context
) -> None:
    chosen = selection(action="test.echo", parametersSchema={"fields": []})
    result = _act(services, context, selection=dump(chosen), parameters={"text": "hallo"})
    assert result.success and result.documents[0].name == "echo.txt" and result.documents[0].mime == "text/plain"
    assert result.summary == "echoed"
