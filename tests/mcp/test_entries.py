"""Brought tools as catalog entries: names, Stage-1 summary, Stage-2 schema, validation, approval and output."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, tool
from pydantic import ValidationError

from core.context import Context
from core.errors import ConfigurationError, ParametersInvalid
from core.schemas import ActionSelection, Intent
from nodes.approval import needs_approval
from nodes.arguments import prepare_arguments, stage2_fields
from nodes.shapes import parameters_shape
from tools.base import NewDocument, ToolOutput
from tools.extra.actions import ExtraActions
from tools.extra.entries import langchain_entry, mcp_entry, openai_tool_name, summary_of
from tools.extra.output import ToolReportedError, tool_output

SUM_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "a": {"type": "number", "description": "First number"},
        "b": {"type": "number", "description": "Second number"},
        "mode": {"type": "string", "enum": ["exact", "rounded"]},
    },
    "required": ["a", "b"],
}


def mcp_tool(name: str, schema: dict[str, Any], *, read_only: bool | None = None, description: str = "") -> Any:
    """A tool shaped as langchain-mcp-adapters converts one: a dict schema, the annotations as metadata."""
    return StructuredTool(
        name=name,
        description=description or f"The {name} tool. It does more.",
        args_schema=schema,
        coroutine=lambda **_: None,
        metadata={"readOnlyHint": read_only} if read_only is not None else None,
    )


def no_call(arguments: dict[str, Any]) -> ToolMessage:
    raise AssertionError("not called")


def selection(action: str) -> ActionSelection:
    return ActionSelection(action=action, actionObjective="do it")


def test_an_mcp_tool_is_named_by_server_and_tool_with_its_first_sentence_as_summary() -> None:
    entry = mcp_entry("every", mcp_tool("get-sum", SUM_SCHEMA), no_call, 1024)

    assert entry.display_name == "mcp.every.get-sum"
    assert entry.tool_name == "mcp_every_get-sum"
    assert entry.summary == "The get-sum tool."
    assert entry.parameter_names == ["a", "b", "mode"]
    assert entry.source == "mcp:every"
    assert openai_tool_name("mcp." + "x" * 80) != openai_tool_name("mcp." + "x" * 81)
    assert len(openai_tool_name("mcp." + "x" * 80)) == 64
    assert summary_of("Line one\nstill one. Two.", "f") == "Line one still one."


def test_stage_two_sees_the_tools_own_schema_and_the_host_validates_against_it() -> None:
    entry = mcp_entry("every", mcp_tool("get-sum", SUM_SCHEMA), no_call, 1024)
    chosen = selection(entry.display_name)
    fields = stage2_fields(chosen, entry)

    assert [(f.name, f.type, f.required) for f in fields] == [
        ("a", "number", True),
        ("b", "number", True),
        ("mode", "enum", False),
    ]
    shape = parameters_shape(entry, fields)
    assert shape.schema["properties"]["parameters"]["properties"]["mode"]["enum"] == ["exact", "rounded"]
    intent = Intent(dataType="answer", expectedFormat="markdown")
    assert prepare_arguments(entry, {"a": 1, "b": 2.5, "mode": None}, chosen, intent, Context()) == {"a": 1, "b": 2.5}
    with pytest.raises(ParametersInvalid, match="'one' is not of type 'number'"):
        prepare_arguments(entry, {"a": "one", "b": 2}, chosen, intent, Context())
    with pytest.raises(ParametersInvalid, match="'rounded'"):
        prepare_arguments(entry, {"a": 1, "b": 2, "mode": "fuzzy"}, chosen, intent, Context())
    with pytest.raises(ParametersInvalid, match="no parameters"):
        prepare_arguments(entry, {"a": 1, "b": 2, "c": 3}, chosen, intent, Context())


def test_read_only_annotated_tools_run_without_asking_under_side_effects_and_others_ask() -> None:
    context = Context(approve="side_effects")
    read_only = mcp_entry("s", mcp_tool("look", SUM_SCHEMA, read_only=True), no_call, 1024)
    writes = mcp_entry("s", mcp_tool("write", SUM_SCHEMA, read_only=False), no_call, 1024)
    unannotated = mcp_entry("s", mcp_tool("other", SUM_SCHEMA), no_call, 1024)

    assert not needs_approval(read_only, context)
    assert needs_approval(writes, context) and needs_approval(unannotated, context)
    assert needs_approval(read_only, Context(approve="always"))


def test_a_langchain_tool_keeps_its_name_and_its_pydantic_schema_and_runs_through_the_entry() -> None:
    @tool
    def word_count(text: str) -> int:
        """Count the words of a text."""
        return len(text.split())

    entry = langchain_entry(word_count, 1024)
    built = entry.factory(None)  # type: ignore[arg-type]  # foreign tools use no ToolDeps
    reply = built.invoke({"type": "tool_call", "name": entry.tool_name, "args": {"text": "a b c"}, "id": "1"})

    assert entry.display_name == "word_count" and entry.parameter_names == ["text"]
    assert entry.source == "langchain" and entry.side_effects  # no annotations: ask under side_effects
    assert isinstance(reply.artifact, ToolOutput)
    assert reply.artifact.documents[0].data == b"3" and reply.content == "3"


def test_tools_colliding_with_built_in_actions_or_each_other_are_refused() -> None:
    @tool
    def web_search(query: str) -> str:
        """Search."""
        return query

    @tool("mcp.fake")
    def fake(query: str) -> str:
        """Pretend to be an MCP tool."""
        return query

    with pytest.raises(ConfigurationError, match="built-in action"):
        ExtraActions([web_search])
    with pytest.raises(ConfigurationError, match="unique"):
        ExtraActions([web_search.model_copy(update={"name": "lookup"})] * 2)
    with pytest.raises(ConfigurationError, match=r"mcp\. prefix"):
        ExtraActions([fake])
    with pytest.raises(ConfigurationError, match="LangChain tools"):
        ExtraActions([print])  # type: ignore[list-item]


def test_an_invalid_input_schema_is_refused_with_the_tools_name() -> None:
    with pytest.raises(ValueError, match=r"mcp\.s\.broken is not a valid JSON schema"):
        mcp_entry("s", mcp_tool("broken", {"type": "object", "properties": {"a": {"type": 5}}}), no_call, 1024)


PNG = base64.b64encode(b"\x89PNG fake").decode()


def message(content: Any, artifact: Any = None, status: str = "success") -> ToolMessage:
    return ToolMessage(content=content, artifact=artifact, tool_call_id="1", status=status)  # type: ignore[arg-type]


def names(output: ToolOutput) -> list[tuple[str, str]]:
    return [(d.name, d.mime) for d in output.documents]


def test_text_json_images_resources_and_structured_content_become_documents() -> None:
    text = tool_output("t", message("plain words"), 10_000)
    as_json = tool_output("t", message([{"type": "text", "text": '{"a": 1}'}]), 10_000)
    mixed = tool_output(
        "get-tiny-image",
        message(
            [
                {"type": "text", "text": "Here it is"},
                {"type": "image", "base64": PNG, "mime_type": "image/png"},
                {"type": "file", "base64": base64.b64encode(b"blob").decode(), "mime_type": "text/plain"},
                {"type": "file", "url": "demo://resource/1", "mime_type": "text/plain"},
            ],
            artifact={"structured_content": {"temperature": 36}},
        ),
        10_000,
    )

    assert names(text) == [("t.md", "text/markdown")] and text.summary == "plain words"
    assert names(as_json) == [("t.json", "application/json")]
    assert names(mixed) == [
        ("get-tiny-image.md", "text/markdown"),
        ("get-tiny-image-structured.json", "application/json"),
        ("get-tiny-image-image1.png", "image/png"),
        ("get-tiny-image-file2.txt", "text/plain"),
    ]
    assert b"demo://resource/1" in mixed.documents[0].data
    assert json.loads(mixed.documents[1].data) == {"temperature": 36}
    assert mixed.documents[2].data == b"\x89PNG fake"


def test_structured_content_that_repeats_the_text_adds_no_document() -> None:
    repeated = tool_output("t", message('{"a": 1}', artifact={"structured_content": {"a": 1}}), 10_000)
    wrapped = tool_output("t", message("echo: hi", artifact={"structured_content": {"result": "echo: hi"}}), 10_000)

    assert names(repeated) == [("t.json", "application/json")]
    assert names(wrapped) == [("t.md", "text/markdown")]


def test_output_beyond_the_cap_is_cut_with_a_note_text_first() -> None:
    flood = tool_output(
        "flood", message(["x" * 5000, {"type": "image", "base64": PNG, "mime_type": "image/png"}]), 1000
    )

    assert names(flood) == [("flood.md", "text/markdown")]
    assert len(flood.documents[0].data) == 1000
    assert any("cut from 5000 to 1000 bytes" in n for n in flood.notes)
    assert any("flood-image1.png" in n and "left out" in n for n in flood.notes)
    cut_json = tool_output("j", message(json.dumps(["y" * 50] * 50)), 100)
    assert names(cut_json) == [("j.md", "text/markdown")]  # a cut JSON text is no longer JSON


def test_a_reported_error_fails_the_step_with_the_tools_words_and_empty_output_still_counts() -> None:
    with pytest.raises(ToolReportedError, match="Invalid timezone"):
        tool_output("get_current_time", message([{"type": "text", "text": "Invalid timezone"}], status="error"), 100)
    empty = tool_output("toggle", message([]), 100)
    assert names(empty) == [("toggle.md", "text/markdown")] and b"returned no content" in empty.documents[0].data
    own = ToolOutput(documents=[NewDocument.text("mine.md", "made by the tool")])
    assert tool_output("aware", message("ignored", artifact=own), 100) is own


def test_the_json_schema_model_rejects_what_the_schema_rejects() -> None:
    entry = mcp_entry("every", mcp_tool("get-sum", SUM_SCHEMA), no_call, 1024)
    with pytest.raises(ValidationError, match="'b' is a required property"):
        entry.args_schema.model_validate({"a": 1})
    assert entry.args_schema.model_json_schema() == SUM_SCHEMA
