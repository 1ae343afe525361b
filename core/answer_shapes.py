"""What one protocol call asks the model for: a named JSON schema and a bound on the answer's length.

The schema comes from the pydantic models of `core/schemas.py` (or is narrowed from them per call, as Stage 1's
per-action branches are). Endpoints enforce it in different dialects: grammar-based servers (llama.cpp, vLLM) take
any JSON schema; OpenAI's strict mode wants a root object whose every property is required (optional ones become
nullable) and no free-form objects — `strict_schema` is that variant, or None where the shape cannot be strict.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from pydantic import BaseModel

Json = dict[str, Any]

DEFAULT_ANSWER_TOKENS = 1024
# Keywords OpenAI's strict mode rejects; pydantic still checks them when the answer is parsed.
_NOT_STRICT_KEYWORDS = frozenset({"default", "minLength", "maxLength", "title"})
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")


@dataclass(frozen=True)
class AnswerShape:
    name: str
    schema: Json
    max_tokens: int = DEFAULT_ANSWER_TOKENS
    #: A root-object variant of `schema` for endpoints that reject a root `anyOf` (OpenAI strict, tool parameters).
    flat_schema: Json | None = None

    @cached_property
    def schema_text(self) -> str:
        return json.dumps(self.schema, separators=(",", ":"), ensure_ascii=False)

    @cached_property
    def strict_schema(self) -> Json | None:
        return strict_variant(self.flat_schema or self.schema)

    def as_tool(self) -> Json:
        """The shape as a function tool, for endpoints whose only constraint is forced function calling."""
        description = str(self.schema.get("description") or f"Answer as {self.name}.")
        parameters = self.flat_schema or self.schema
        return {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": parameters},
        }


@cache
def shape_of(model: type[BaseModel]) -> AnswerShape:
    """The shape of a protocol class; its `answer_tokens` class attribute bounds the answer (pydantic rebuilds the
    JSON schema on every call, about 1 ms, so shapes are cached)."""
    tokens = getattr(model, "answer_tokens", DEFAULT_ANSWER_TOKENS)
    return AnswerShape(model.__name__, model.model_json_schema(), int(tokens))


def strict_variant(schema: Json) -> Json | None:
    """The schema as OpenAI's strict mode accepts it, or None when it has a free-form object or a root `anyOf`."""
    if schema.get("type") != "object":
        return None
    strict = copy.deepcopy(schema)
    return strict if _make_strict(strict) else None


def _make_strict(node: Json) -> bool:
    for keyword in _NOT_STRICT_KEYWORDS & node.keys():
        node.pop(keyword)
    if node.get("additionalProperties") not in (None, False):
        return False  # a free-form object (dict[str, Any]) cannot be strict
    kind = node.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return False
        required = set(node.get("required", []))
        for name, spec in properties.items():
            if name not in required:
                properties[name] = _nullable(spec)
        node["required"] = list(properties)
        node["additionalProperties"] = False
    children = [
        *(child for key in _SUBSCHEMA_MAPS for child in (node.get(key) or {}).values()),
        *(child for key in _SUBSCHEMA_LISTS for child in node.get(key) or []),
        *([node["items"]] if isinstance(node.get("items"), dict) else []),
    ]
    return all(_make_strict(child) for child in children if isinstance(child, dict))


def _nullable(spec: Json) -> Json:
    kind = spec.get("type")
    if isinstance(kind, str) and "enum" not in spec:
        return {**spec, "type": [kind, "null"]} if kind != "null" else spec
    if isinstance(kind, list):
        return spec if "null" in kind else {**spec, "type": [*kind, "null"]}
    if "anyOf" in spec:
        branches = spec["anyOf"]
        has_null = any(b.get("type") == "null" for b in branches if isinstance(b, dict))
        return spec if has_null else {**spec, "anyOf": [*branches, {"type": "null"}]}
    return {"anyOf": [spec, {"type": "null"}]}
