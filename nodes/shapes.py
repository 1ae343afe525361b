"""The answer shapes of Stage 1 and Stage 2, narrowed to this step so invalid answers cannot be written at all.

On an endpoint that enforces the schema by grammar (llama.cpp, vLLM) a model — however small — can then only
name an allowed action, only that action's parameters in `parametersSchema`, only known document references, and
in Stage 2 only the tool's real arguments with their enums. The parsers still validate every answer: endpoints
that merely take the schema as advice get the same rules as reasons to retry.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from core.answer_shapes import AnswerShape, Json
from core.schemas import (
    FORBIDDEN_PARAMETER_KEYS,
    ActionSelection,
    ContentJudgement,
    ParameterField,
    ParametersAnswer,
)
from tools.catalog import CatalogEntry

#: Most document references Stage 1 may choose from (newest first); older ones stay reachable through docList.
MAX_REFERENCES = 200


def business_parameters(entry: CatalogEntry) -> list[str]:
    """The parameters Stage 1 may describe: the tool's own, minus what the host attaches itself."""
    return [name for name in entry.parameter_names if name not in FORBIDDEN_PARAMETER_KEYS]


def selection_shape(entries: list[CatalogEntry], references: list[str]) -> AnswerShape:
    """ActionSelection with one branch per allowed action: the action's name fixes which parameter names its
    `parametersSchema` may hold. `flat_schema` is the root-object variant for OpenAI's strict mode."""
    actions = tuple(
        (e.display_name, tuple(business_parameters(e)), e.requires_documents)
        for e in sorted(entries, key=lambda e: e.display_name)
    )
    return _selection_shape(actions, tuple(references[:MAX_REFERENCES]))


@lru_cache(maxsize=64)
def _selection_shape(
    actions: tuple[tuple[str, tuple[str, ...], bool], ...], references: tuple[str, ...]
) -> AnswerShape:
    base = ActionSelection.model_json_schema()
    base.pop("$defs", None)
    documents = _string_array(list(references))
    needed = {**documents, "minItems": 1} if references else documents  # an action on documents names one
    branches = [
        _branch(base, name, list(parameters), needed if requires else documents)
        for name, parameters, requires in actions
    ]
    every_parameter = sorted({p for _, parameters, _ in actions for p in parameters})
    flat = _branch(base, "", every_parameter, documents, names=[name for name, _, _ in actions])
    schema: Json = branches[0] if len(branches) == 1 else {"description": base.get("description"), "anyOf": branches}
    return AnswerShape(ActionSelection.__name__, schema, ActionSelection.answer_tokens, flat_schema=flat)


#: Bounds a grammar enforces on Stage 1's answer, so a small model that starts repeating itself ends each string
#: and list instead of running into max_tokens (SmolLM2 wrote the same paragraph into `actionObjective` until it was
#: cut; Gemma 3 270M filled every string and still ran past 768 tokens when the bounds added up to more). Together
#: they keep the longest answer they allow under `ActionSelection.answer_tokens` (tests/local/test_grammars.py
#: measures it with a real vocabulary). The parser does not impose them (other endpoints may write more); an action
#: on more documents names their list (`docList:`), and Stage 2 always offers the tool's required parameters.
TEXT_BOUNDS = {"actionObjective": 240, "parametersContext": 480}
LIST_BOUNDS = {"learnings": 3}
ITEM_CHARS = 120
MAX_FIELDS = 6
MAX_DOCUMENTS = 5


def _branch(base: Json, action: str, parameters: list[str], documents: Json, names: list[str] | None = None) -> Json:
    properties: dict[str, Any] = copy.deepcopy(base["properties"])
    for name, chars in TEXT_BOUNDS.items():
        properties[name]["maxLength"] = chars
    for name, items in LIST_BOUNDS.items():
        properties[name] = {**properties[name], "maxItems": items, "items": {"type": "string", "maxLength": ITEM_CHARS}}
    properties["action"] = {**properties["action"], "type": "string", "enum": names or [action]}
    properties["requiredInputDocuments"] = {**properties["requiredInputDocuments"], **documents}
    properties["requiredConnection"] = {
        "description": properties["requiredConnection"].get("description"),
        "type": "null",
    }
    field = ParameterField.model_json_schema()
    field["properties"]["name"] = {"type": "string", "enum": parameters} if parameters else {"type": "string"}
    field["required"] = ["name", "type", "required", "description"]
    field["properties"]["description"] = {**field["properties"]["description"], "maxLength": ITEM_CHARS}
    fields: Json = {"type": "array", "items": field, "maxItems": MAX_FIELDS}
    if not parameters:
        fields["maxItems"] = 0
    properties["parametersSchema"] = {
        "type": "object",
        "properties": {"fields": fields},
        "required": ["fields"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "description": base.get("description"),
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _string_array(choices: list[str]) -> Json:
    if not choices:
        return {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    return {"type": "array", "items": {"type": "string", "enum": choices}, "maxItems": MAX_DOCUMENTS}


def parameters_shape(entry: CatalogEntry, fields: list[ParameterField]) -> AnswerShape:
    """ParametersAnswer whose `parameters` is the tool's real argument schema, limited to Stage 1's fields."""
    tool = entry.json_schema
    known = tool.get("properties", {})
    chosen = {
        f.name: _grammar_safe(known[f.name])
        for f in fields
        if f.name in known and f.name not in FORBIDDEN_PARAMETER_KEYS
    }
    required = [f.name for f in fields if f.name in chosen and (f.required or f.name in tool.get("required", []))]
    base = ParametersAnswer.model_json_schema(by_alias=True)
    schema: Json = {
        "type": "object",
        "description": base.get("description"),
        "properties": {
            "schema": {"type": "string", "enum": ["parameters_v1"]},
            "parameters": {"type": "object", "properties": chosen, "required": required, "additionalProperties": False},
        },
        "required": ["schema", "parameters"],
        "additionalProperties": False,
    }
    if tool.get("$defs"):
        schema["$defs"] = _grammar_safe(tool["$defs"])
    return AnswerShape(ParametersAnswer.__name__, schema, ParametersAnswer.answer_tokens)


@lru_cache(maxsize=32)
def judgement_shape(criteria: int) -> AnswerShape:
    """ContentJudgement with exactly one verdict per criterion it is asked about, and bounded notes: a grammar then
    cannot give too few verdicts (SmolLM2 did, and the step went unjudged)."""
    schema = ContentJudgement.model_json_schema()
    properties = schema["properties"]
    properties["criteriaMet"] = {**properties["criteriaMet"], "minItems": criteria, "maxItems": criteria}
    for name in ("issues", "improvementSuggestions"):
        properties[name] = {**properties[name], "maxItems": 5, "items": {"type": "string", "maxLength": ITEM_CHARS}}
    return AnswerShape(ContentJudgement.__name__, schema, ContentJudgement.answer_tokens)


#: llama.cpp expands a string bound into one grammar rule per character: it refuses bounds much above 800 and
#: crashes on code.execute's 20,000 (a segfault of the whole server). Longer bounds are left to the tool's own
#: validation of the arguments.
GRAMMAR_MAX_CHARS = 800


def _grammar_safe(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            key: _grammar_safe(value)
            for key, value in schema.items()
            if not (key == "maxLength" and isinstance(value, int) and value > GRAMMAR_MAX_CHARS)
        }
    if isinstance(schema, list):
        return [_grammar_safe(item) for item in schema]
    return schema
