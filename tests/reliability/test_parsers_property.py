"""Property tests: whatever the model answers, every parser of model output returns a valid object or raises a
typed error (ModelOutputInvalid and its subclasses, pydantic ValidationError) — never anything else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage
from pydantic import BaseModel, ValidationError

from core.context import Context
from core.errors import ModelOutputInvalid, StepFailed
from core.llm import _as_object, _payload, ask_json
from core.schemas import (
    ActionSelection,
    ContentJudgement,
    DocumentRef,
    Intent,
    ParametersAnswer,
    RefinementDecision,
)
from nodes.arguments import prepare_arguments
from nodes.plan import parse_plan
from nodes.select import parse_selection
from tools.catalog import allowed_entries, catalog
from tools.documents import DocumentIndex

TYPED = (ModelOutputInvalid, ValidationError)
FAST = settings(
    derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

ENTRIES = allowed_entries()
INDEX = DocumentIndex([DocumentRef(label="input", name="a.pdf", mime="application/pdf", size=1, sha256="0" * 64)])
KEYS = sorted(
    {
        "action",
        "actionObjective",
        "learnings",
        "requiredInputDocuments",
        "requiredConnection",
        "parametersContext",
        "parametersSchema",
        "parameters",
        "fields",
        "name",
        "type",
        "required",
        "description",
        "schema",
        "decision",
        "reason",
        "progress",
        "nextHint",
        "criteriaMet",
        "qualityScore",
        "issues",
        "dataType",
        "expectedFormat",
        "successCriteria",
        "language",
        "itemCount",
        "numberProperty",
        "freshness",
        "actions",
        "method",
        "documentList",
        "aiPrompt",
        "query",
        "title",
        "formats",
        "url",
        "__proto__",
        "",
    }
    | {name for entry in catalog().values() for name in entry.parameter_names}
)
TEXT = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    [
        "ai.process",
        "web.crawl",
        "shell.exec",
        "docList:input",
        "docItem:input/a.pdf",
        "../../etc/passwd",
        "parameters_v1",
        "continue",
        "stop",
        "numbers",
        "markdown",
        "en",
        "string",
        "prime",
        "NaN",
        "-1e400",
    ]
)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | TEXT
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | TEXT, children, max_size=5)
    ),
    max_leaves=20,
)
PAYLOAD = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8)


@st.composite
def _plausible_selection(draw: st.DrawFn) -> dict[str, Any]:
    """Selections close to valid ones, so both the accepting and the rejecting paths get exercised."""
    entry = draw(st.sampled_from(ENTRIES))
    names = st.sampled_from(entry.parameter_names) | st.sampled_from(entry.parameter_names) | st.sampled_from(KEYS)
    field = st.fixed_dictionaries(
        {"name": names},
        optional={
            "type": st.sampled_from(["string", "number", "integer", "boolean", "enum", "object", "array", "x"]),
            "required": st.booleans(),
            "description": TEXT,
        },
    )
    payload: dict[str, Any] = {
        "action": draw(
            st.one_of(
                st.just(entry.display_name),
                st.just(entry.tool_name),
                st.just(entry.display_name),
                TEXT,
                st.fixed_dictionaries({"method": TEXT, "name": TEXT}),
            )
        ),
        "actionObjective": draw(st.text(min_size=1, max_size=30) | TEXT),
    }
    optional = {
        "requiredInputDocuments": st.lists(
            st.sampled_from(["docList:input", "docItem:input/a.pdf"])
            | st.sampled_from(["docList:x", "../a.pdf"])
            | TEXT,
            max_size=2,
        ),
        "parametersSchema": st.fixed_dictionaries({"fields": st.lists(field, max_size=3)}),
        "learnings": st.lists(TEXT, max_size=2) | JSON,
        "requiredConnection": TEXT | st.none(),
        "parametersContext": TEXT,
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            payload[key] = draw(strategy)
    if draw(st.integers(0, 9)) == 0:
        payload["parameters"] = draw(JSON)
    return payload


@FAST
@given(PAYLOAD | _plausible_selection() | _plausible_selection())
def test_parse_selection_returns_a_catalog_action_or_a_typed_error(payload: dict[str, Any]) -> None:
    try:
        selection = parse_selection(payload, ENTRIES, INDEX)
    except TYPED as exc:
        event(f"rejected: {type(exc).__name__}")
        return
    event("accepted")
    assert selection.action in {e.display_name for e in ENTRIES}
    assert "parameters" not in payload
    INDEX.resolve_all(selection.requiredInputDocuments)


@FAST
@given(PAYLOAD)
def test_parse_plan_returns_catalog_actions_or_a_typed_error(payload: dict[str, Any]) -> None:
    try:
        plan = parse_plan(payload, ENTRIES)
    except TYPED:
        return
    assert all(a.action in {e.display_name for e in ENTRIES} for a in plan.actions)


_SELECTION = ActionSelection(action="ai.process", actionObjective="x", requiredInputDocuments=["docList:input"])
_INTENT = Intent(dataType="numbers", expectedFormat="raw_data", itemCount=10, numberProperty="prime")


def _value_for(spec: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Mostly-plausible values for one JSON-schema property, with some noise."""
    options = [spec, *spec.get("anyOf", [])]
    strategies: list[st.SearchStrategy[Any]] = [SCALARS]
    for option in options:
        if "enum" in option:
            strategies.append(st.sampled_from([*option["enum"], "bogus"]))
        kind = option.get("type")
        if kind == "string":
            strategies.append(TEXT)
        elif kind == "integer":
            strategies.append(st.integers(-5, 50))
        elif kind == "boolean":
            strategies.append(st.booleans())
        elif kind == "array":
            items = option.get("items", {})
            strategies.append(st.lists(_value_for(items) if items else TEXT, max_size=3))
    return st.one_of(strategies)


@st.composite
def _stage2(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    action = draw(st.sampled_from(sorted(catalog())))
    properties = catalog()[action].args_schema.model_json_schema().get("properties", {})
    names = draw(st.lists(st.sampled_from(sorted(properties)), unique=True, max_size=len(properties)))
    parameters = {name: draw(_value_for(properties[name])) for name in names}
    parameters.update(draw(st.dictionaries(st.sampled_from(KEYS), JSON, max_size=2)))
    envelope = draw(st.sampled_from([{}, {"schema": "parameters_v1"}, {"schema": "v2"}]) | PAYLOAD)
    return action, {**envelope, "parameters": parameters} if draw(st.booleans()) or not envelope else envelope


@FAST
@given(_stage2())
def test_stage2_answers_become_valid_tool_arguments_or_a_typed_error(case: tuple[str, dict[str, Any]]) -> None:
    action, payload = case
    entry = catalog()[action]
    try:
        arguments = prepare_arguments(
            entry, ParametersAnswer.model_validate(payload).parameters, _SELECTION, _INTENT, Context()
        )
    except TYPED as exc:
        event(f"rejected: {type(exc).__name__}")
        return
    event("accepted")
    entry.args_schema.model_validate(arguments)  # what act will run is valid for the real tool
    json.dumps(arguments)  # and storable in a checkpoint
    if "documentList" in entry.parameter_names:
        assert arguments["documentList"] == ["docList:input"]  # only the Stage-1 references, never the model's


@FAST
@given(st.sampled_from([Intent, RefinementDecision, ContentJudgement, ActionSelection, ParametersAnswer]), PAYLOAD)
def test_protocol_models_validate_or_raise_validation_error(model: type[BaseModel], payload: dict[str, Any]) -> None:
    try:
        value = model.model_validate(payload)
    except ValidationError:
        return
    json.dumps(value.model_dump(mode="json"))


_NASTY = st.sampled_from(
    [
        "",
        " ",
        "null",
        "[]",
        "{}",
        "[1,2]",
        '"str"',
        "{'a': 1}",
        '```json\n{"a": 1}\n```',
        '{"a": NaN}',
        '{"a": 1e999}',
        '{"a": "\\ud800"}',
        "\x00{}",
        "{" * 50,
        "}" * 50,
        "I'm sorry, I can't help with that.",
        '{"action": "ai.process",',
        '<tool_call>{"a":1}</tool_call>',
        '\ufeff{"a": 1}',
    ]
)


@FAST
@given(
    _NASTY
    | st.text(st.characters(codec="utf-8"), max_size=300)
    | JSON.map(json.dumps)
    | st.tuples(_NASTY, st.text(max_size=30)).map("".join)
)
def test_json_repair_returns_an_object_or_none(text: str) -> None:
    value = _as_object(text)
    assert value is None or (isinstance(value, dict) and value)


@FAST
@given(st.text(max_size=200) | JSON.map(json.dumps), st.booleans())
def test_payload_of_any_reply_is_text_and_an_object_or_none(text: str, as_invalid_tool_call: bool) -> None:
    if as_invalid_tool_call:
        message = AIMessage(
            content="",
            invalid_tool_calls=[{"name": "X", "args": text, "id": "1", "error": None, "type": "invalid_tool_call"}],
        )
    else:
        message = AIMessage(content=text)
    raw, payload = _payload(message)
    assert isinstance(raw, str)
    assert payload is None or isinstance(payload, dict)


@pytest.mark.parametrize("depth", [1_000, 5_000, 50_000])
def test_deeply_nested_answers_are_rejected_not_a_recursion_error(depth: int) -> None:
    assert _as_object("[" * depth) is None
    assert _as_object('{"a":' * depth) is None


def test_deeply_nested_answer_through_ask_json_is_a_typed_failure() -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    model = GenericFakeChatModel(messages=iter([AIMessage(content="[" * 5000)] * 2))
    with pytest.raises((StepFailed, ModelOutputInvalid)):  # what every node catches
        ask_json(model, [], RefinementDecision, RefinementDecision.model_validate, what="refinement")
