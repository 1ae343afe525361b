"""A tool's own JSON schema as the pydantic argument model the catalog, Stage 2 and validation work with.

Stage 2 is shown the schema exactly as the tool declares it (`model_json_schema()` returns it, enums, bounds and
`$defs` included), and the host validates an answer against it with `jsonschema` — the same rules the server
will apply — before the call is made. One field per declared property (any value; the schema decides) keeps the
catalog's parameter names and the `model_dump` of prepare_arguments working as for built-in tools.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

Json = dict[str, Any]


class JsonSchemaArguments(BaseModel):
    """Base of models built by `arguments_model`; `tool_schema` is the declared JSON schema."""

    model_config = ConfigDict(extra="forbid")
    tool_schema: ClassVar[Json] = {"type": "object", "properties": {}}

    @model_validator(mode="before")
    @classmethod
    def _valid_by_the_tools_schema(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise ValueError("the arguments must be an object")
        from jsonschema import validators  # on first use: a graph without own tools never loads it (0.1–0.2 s)
        from jsonschema.exceptions import best_match

        given = {k: v for k, v in value.items() if v is not None}  # null means "not given"
        validator = validators.validator_for(cls.tool_schema)(cls.tool_schema)
        error = best_match(validator.iter_errors(given))
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "arguments"
            raise ValueError(f"{where}: {error.message}")
        return given

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> Json:
        return copy.deepcopy(cls.tool_schema)


def arguments_model(name: str, schema: Mapping[str, Any] | type[BaseModel] | None) -> type[BaseModel]:
    """A pydantic model as is; a JSON schema (MCP's `inputSchema`, a dict `args_schema`) as a validating model."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema
    from jsonschema import validators
    from jsonschema.exceptions import SchemaError

    declared: Json = dict(schema or {})
    declared.setdefault("type", "object")
    declared.setdefault("properties", {})
    try:
        validators.validator_for(declared).check_schema(declared)
    except SchemaError as exc:
        raise ValueError(f"the input schema of {name} is not a valid JSON schema: {exc.message}") from None
    required = set(declared.get("required") or [])
    fields: dict[str, Any] = {
        key: (Any, Field(... if key in required else None, description=str(spec.get("description") or "")))
        for key, spec in declared["properties"].items()
        if isinstance(spec, Mapping)
    }
    model = create_model(f"{_class_name(name)}Arguments", __base__=JsonSchemaArguments, **fields)
    model.tool_schema = declared
    return model


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in "".join(c if c.isalnum() else " " for c in name).split()) or "Tool"
