"""The schemas Stage 1 and Stage 2 send make invalid answers unrepresentable on grammar-constrained endpoints."""

from __future__ import annotations

from typing import Any

import pytest

from core.answer_shapes import shape_of, strict_variant
from core.context import Context
from core.schemas import ActionSelection, Intent, ParameterField, PlannedAction
from nodes.parameters import parameters
from nodes.select import select
from nodes.services import Services
from nodes.shapes import business_parameters, parameters_shape, selection_shape
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import parameters_answer, ref, runtime, selection, selection_payload, state
from tools.catalog import allowed_entries, lookup


def _branches(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {branch["properties"]["action"]["enum"][0]: branch for branch in schema["anyOf"]}


def test_each_action_branch_allows_only_that_actions_parameter_names() -> None:
    entries = allowed_entries()
    branches = _branches(selection_shape(entries, []).schema)

    assert set(branches) == {e.display_name for e in entries}
    for entry in entries:
        field = branches[entry.display_name]["properties"]["parametersSchema"]["properties"]["fields"]["items"]
        assert field["properties"]["name"]["enum"] == business_parameters(entry)
        assert "documentList" not in field["properties"]["name"]["enum"]
    process = branches["ai.process"]["properties"]
    assert set(branches["ai.process"]["required"]) == set(process)  # every spec field must be written
    assert process["requiredConnection"]["type"] == "null"


def test_document_references_are_an_enum_of_the_known_ones_or_none_at_all() -> None:
    known = ["docList:input", "docItem:input/notes.pdf"]
    with_documents = _branches(selection_shape(allowed_entries(), known).schema)["document.extract"]
    without = _branches(selection_shape(allowed_entries(), []).schema)["document.extract"]

    assert with_documents["properties"]["requiredInputDocuments"]["items"]["enum"] == known
    assert without["properties"]["requiredInputDocuments"]["maxItems"] == 0


def test_the_flat_variant_is_a_strict_root_object_over_every_allowed_action() -> None:
    shape = selection_shape(allowed_entries(["ai.process", "web.search"]), [])
    strict = shape.strict_schema

    assert strict is not None and strict["type"] == "object" and strict["additionalProperties"] is False
    assert strict["properties"]["action"]["enum"] == ["ai.process", "web.search"]
    names = strict["properties"]["parametersSchema"]["properties"]["fields"]["items"]["properties"]["name"]["enum"]
    assert "aiPrompt" in names and "query" in names


def test_stage2_schema_is_the_tools_real_argument_schema_with_its_enums() -> None:
    entry = lookup("ai.process")
    assert entry is not None
    fields = [ParameterField(name="aiPrompt", required=True), ParameterField(name="processingMode")]
    parameters_schema = parameters_shape(entry, fields).schema["properties"]["parameters"]

    assert set(parameters_schema["properties"]) == {"aiPrompt", "processingMode"}
    assert parameters_schema["properties"]["processingMode"]["enum"] == ["basic", "advanced", "detailed"]
    assert parameters_schema["required"] == ["aiPrompt"]
    assert parameters_schema["additionalProperties"] is False


def test_strict_variant_makes_optional_fields_nullable_and_refuses_free_form_objects() -> None:
    strict = shape_of(Intent).strict_schema
    assert strict is not None
    assert set(strict["required"]) == set(Intent.model_fields)
    assert strict["properties"]["language"]["type"] == ["string", "null"]
    assert "default" not in str(strict)
    assert strict_variant(PlannedAction.model_json_schema()) is None  # `parameters: dict[str, Any]`


def test_select_sends_the_branched_schema_as_a_grammar_to_llama_like_servers(
    llama_llm: ScriptedLLM, llama_services: Services, context: Context
) -> None:
    llama_llm.on("ActionSelection", selection_payload())
    documents = [ref(name="notes.txt")]
    select(state(input_documents=[d.model_dump() for d in documents]), runtime(context), llama_services)

    grammar = next(r for r in llama_llm.requests_for("ActionSelection") if r.schema_grammar)
    schema = grammar.body["response_format"]["schema"]
    assert "ai.process" in _branches(schema)
    docs = _branches(schema)["ai.process"]["properties"]["requiredInputDocuments"]["items"]["enum"]
    assert docs == ["docList:input", "docItem:input/notes.txt"]


def test_parameters_send_the_tools_enums_to_the_endpoint(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt="List the primes", processingMode="basic"))
    chosen = selection(
        parametersSchema={"fields": [{"name": "aiPrompt", "required": True}, {"name": "processingMode"}]}
    )
    parameters(state(selection=chosen.model_dump()), runtime(context), services)

    [request] = scripted_llm.requests_for("ParametersAnswer")
    sent = request.body["response_format"]["json_schema"]["schema"]["properties"]["parameters"]
    mode = sent["properties"]["processingMode"]  # optional, so strict mode sends it as nullable
    assert mode["anyOf"][0]["enum"] == ["basic", "advanced", "detailed"] and mode["anyOf"][1] == {"type": "null"}


@pytest.mark.parametrize("objective", ["What this one action must achieve.", "<objective>"])
def test_an_objective_copied_from_the_schema_is_rejected_and_retried(
    objective: str, scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(actionObjective=objective), selection_payload())
    update = select(state(), runtime(context), services)
    assert update["selection"]["actionObjective"] == selection().actionObjective
    assert "actionObjective repeat the shape's own description" in scripted_llm.requests_for("ActionSelection")[1].text


def test_stage1_schema_is_cached_per_catalog_and_documents() -> None:
    entries = allowed_entries()
    assert selection_shape(entries, ["docList:input"]) is selection_shape(entries, ["docList:input"])
    assert ActionSelection.answer_tokens == selection_shape(entries, []).max_tokens


def test_without_documents_actions_on_documents_are_not_offered_and_with_them_must_name_one(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload())
    select(state(), runtime(context), services)
    offered = scripted_llm.requests_for("ActionSelection")[-1]
    actions = offered.body["response_format"]["json_schema"]["schema"]["properties"]["action"]["enum"]
    assert "document.extract" not in actions and "document.generateReport" not in actions
    assert "ai.process" in actions
    assert "document.extract(" not in offered.text  # nor in the catalog text

    with_documents = _branches(selection_shape(allowed_entries(), ["docList:input"]).schema)
    assert with_documents["document.extract"]["properties"]["requiredInputDocuments"]["minItems"] == 1
    assert "minItems" not in with_documents["ai.process"]["properties"]["requiredInputDocuments"]


def test_an_action_on_documents_without_a_reference_is_rejected_with_the_reason(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    """Once the round's inputs are read (here: a later round's, read then), nothing fills the list for the model."""
    documents = [ref(name="notes.txt").model_dump()]
    extract = selection_payload(action="document.extract", parametersSchema={"fields": []})
    scripted_llm.on("ActionSelection", extract, {**extract, "requiredInputDocuments": ["docList:input"]})
    update = select(state(input_documents=documents, inputs_to_read=[]), runtime(context), services)
    assert update["selection"]["requiredInputDocuments"] == ["docList:input"]
    assert "document.extract works on documents" in scripted_llm.requests_for("ActionSelection")[1].text


@pytest.mark.parametrize("action", ["document.extract", "ai.process"])
def test_an_action_on_documents_naming_none_works_on_the_inputs_the_round_has_not_read(
    action: str, scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    """A small model's ai.process with an empty documentList answered a document request about nothing."""
    documents = [ref(name="notes.txt").model_dump(), ref(name="old.txt").model_dump()]
    scripted_llm.on("ActionSelection", selection_payload(action=action, parametersSchema={"fields": []}))
    to_read = ["docItem:input/notes.txt"]
    update = select(state(input_documents=documents, inputs_to_read=to_read), runtime(context), services)
    assert update["selection"]["requiredInputDocuments"] == to_read
    assert len(scripted_llm.requests_for("ActionSelection")) == 1


def test_a_required_parameter_stage1_left_out_is_still_asked_and_allowed_in_stage2(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    """A small model's Stage 1 named only processingMode; ai.process requires aiPrompt, so Stage 2 gets it too."""
    scripted_llm.on("ParametersAnswer", parameters_answer(aiPrompt="List the primes", processingMode="basic"))
    chosen = selection(parametersSchema={"fields": [{"name": "processingMode"}]})
    update = parameters(state(selection=chosen.model_dump()), runtime(context), services)

    assert update["parameters"]["aiPrompt"] == "List the primes"
    [request] = scripted_llm.requests_for("ParametersAnswer")
    sent = request.body["response_format"]["json_schema"]["schema"]["properties"]["parameters"]
    assert "aiPrompt" in sent["required"] and "aiPrompt" in request.text


def test_a_grammar_bounds_free_text_so_a_repeating_model_ends_its_string() -> None:
    shape = selection_shape(allowed_entries(), [])
    process = _branches(shape.schema)["ai.process"]["properties"]
    assert process["actionObjective"]["maxLength"] == 240 and process["learnings"]["maxItems"] == 3
    assert process["parametersSchema"]["properties"]["fields"]["maxItems"] == 6
    with_documents = _branches(selection_shape(allowed_entries(), ["docList:input"]).schema)["ai.process"]
    assert with_documents["properties"]["requiredInputDocuments"]["maxItems"] == 5
    assert "maxLength" not in str(shape.strict_schema)  # OpenAI's strict mode takes no string bounds


def test_the_shared_argument_schema_is_left_as_the_tool_declares_it() -> None:
    """`CatalogEntry.json_schema` is built once and shared by every step: a shape that trimmed it in place would
    change what every later Stage 2 is shown."""
    from nodes.arguments import stage2_fields

    for entry in allowed_entries():
        fields = stage2_fields(selection(action=entry.display_name, parametersSchema={"fields": []}), entry)
        parameters_shape(entry, fields)
        assert entry.json_schema == entry.args_schema.model_json_schema(), entry.display_name
