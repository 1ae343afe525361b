"""The protocol objects refuse what the spec forbids, so no node can pass it on."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.schemas import (
    FORBIDDEN_PARAMETER_KEYS,
    ActionSelection,
    DocumentRef,
    Intent,
    Observation,
    ParametersAnswer,
    ParametersSchema,
    Preview,
    dump,
)
from tests.unit.core.factories import selection_payload

SHA = "a" * 64


@pytest.mark.parametrize("name", sorted(FORBIDDEN_PARAMETER_KEYS))
def test_parameters_schema_rejects_each_host_resolved_field(name: str) -> None:
    with pytest.raises(ValidationError, match=f"must not contain {name}"):
        ParametersSchema.model_validate({"fields": [{"name": "aiPrompt"}, {"name": name}]})


def test_forbidden_field_list_is_exactly_the_spec_list() -> None:
    assert {"documentList", "connectionReference", "history", "documents", "connections"} == FORBIDDEN_PARAMETER_KEYS


def test_parameters_schema_accepts_business_fields() -> None:
    schema = ParametersSchema.model_validate({"fields": [{"name": "aiPrompt", "type": "string", "required": True}]})
    assert [f.name for f in schema.fields] == ["aiPrompt"]


@pytest.mark.parametrize("reference", ["docList:input", "docItem:input/a.pdf"])
def test_required_input_documents_accept_doclist_and_docitem_references(reference: str) -> None:
    chosen = ActionSelection.model_validate(selection_payload(requiredInputDocuments=[reference]))
    assert chosen.requiredInputDocuments == [reference]


@pytest.mark.parametrize("reference", ["input/a.pdf", "/tmp/a.pdf", "https://example.org/a.pdf", "doclist:x"])
def test_required_input_documents_reject_anything_but_references(reference: str) -> None:
    with pytest.raises(ValidationError, match="docList:/docItem:"):
        ActionSelection.model_validate(selection_payload(requiredInputDocuments=[reference]))


def test_action_selection_needs_an_objective() -> None:
    with pytest.raises(ValidationError, match="actionObjective"):
        ActionSelection.model_validate(selection_payload(actionObjective=""))


def _preview(i: int) -> Preview:
    return Preview(name=f"d{i}.txt", mime="text/plain", snippet="x")


def test_observation_holds_at_most_five_previews() -> None:
    Observation(success=True, resultLabel="r", documentsCount=5, previews=[_preview(i) for i in range(5)])
    with pytest.raises(ValidationError, match="previews"):
        Observation(success=True, resultLabel="r", documentsCount=6, previews=[_preview(i) for i in range(6)])


def test_preview_snippet_is_bounded() -> None:
    with pytest.raises(ValidationError, match="snippet"):
        Preview(name="a", mime="text/plain", snippet="x" * 1000)


def test_document_ref_requires_a_lowercase_hex_sha256() -> None:
    DocumentRef(label="input", name="a.txt", mime="text/plain", size=1, sha256=SHA)
    for bad in ("a" * 63, "A" * 64, "g" * 64, "../" + "a" * 61):
        with pytest.raises(ValidationError, match="sha256"):
            DocumentRef(label="input", name="a.txt", mime="text/plain", size=1, sha256=bad)


def test_document_ref_item_reference_is_a_docitem_label() -> None:
    doc = DocumentRef(label="round1_task1_action1_process", name="result.md", mime="text/markdown", size=1, sha256=SHA)
    assert doc.item_reference == "docItem:round1_task1_action1_process/result.md"


def test_parameters_answer_round_trips_the_schema_alias() -> None:
    answer = ParametersAnswer.model_validate({"schema": "parameters_v1", "parameters": {"aiPrompt": "x"}})
    assert dump(answer) == {"schema": "parameters_v1", "parameters": {"aiPrompt": "x"}}
    with pytest.raises(ValidationError):
        ParametersAnswer.model_validate({"schema": "parameters_v2", "parameters": {}})


def test_intent_language_is_normalised_to_a_two_letter_code() -> None:
    assert Intent(dataType="text", expectedFormat="markdown", language=" DE-ch ").language == "de"


@pytest.mark.parametrize(
    ("given", "code"), [("German", "de"), ("de-CH", "de"), ("fr_FR", "fr"), ("en", "en"), ("..", "en"), ("", "en")]
)
def test_intent_language_names_and_regions_become_iso_codes(given: str, code: str) -> None:
    assert Intent(dataType="text", expectedFormat="markdown", language=given).language == code


@pytest.mark.parametrize("empty", [{"question": ""}, {"question": "  ", "suggestions": []}, {}])
def test_an_empty_clarification_is_no_question(empty: dict[str, object]) -> None:
    assert (
        Intent.model_validate({"dataType": "text", "expectedFormat": "markdown", "clarification": empty}).clarification
        is None
    )


def test_a_clarification_with_a_question_is_kept() -> None:
    asked = {"question": "Which city?", "suggestions": ["Bern"]}
    intent = Intent.model_validate({"dataType": "text", "expectedFormat": "markdown", "clarification": asked})
    assert intent.clarification is not None and intent.clarification.question == "Which city?"
