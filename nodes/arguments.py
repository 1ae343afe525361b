"""Host-side parameter handling (spec 3, "Defaults & Validation"): code, not prompts, decides the defaults.

Stage 2 proposes business parameters; here they are checked for forbidden and unknown keys, soft-filled with
code-level defaults, joined with the Stage-1 document references, and validated by the tool's real args schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from core.context import Context
from core.errors import ParametersInvalid
from core.llm import explain
from core.schemas import (
    FORBIDDEN_PARAMETER_KEYS,
    MACHINE_READABLE_FORMATS,
    ActionSelection,
    HistoryEntry,
    Intent,
    ParameterField,
)
from nodes.common import fingerprint
from nodes.placeholders import PLACEHOLDER_REFUSAL, placeholder_values, schema_descriptions
from prompts.templates import clip
from tools.catalog import CatalogEntry

_REPORT_FORMATS = {"docx": ["docx", "md"], "pdf": ["pdf", "md"], "html": ["html", "md"], "markdown": ["md"]}
_JSON_TYPES = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}


def stage2_fields(selection: ActionSelection, entry: CatalogEntry) -> list[ParameterField]:
    """Stage 1's schema when it gave one — plus any parameter the tool requires that it left out, so Stage 2 can
    always answer validly — else the tool's own business parameters."""
    own = _tool_fields(entry)
    if selection.parametersSchema.fields:
        named = {f.name for f in selection.parametersSchema.fields}
        return [*selection.parametersSchema.fields, *(f for f in own if f.required and f.name not in named)]
    return own


def _tool_fields(entry: CatalogEntry) -> list[ParameterField]:
    schema = entry.json_schema
    required = set(schema.get("required", []))
    fields = []
    for name, spec in schema.get("properties", {}).items():
        if name in FORBIDDEN_PARAMETER_KEYS:
            continue
        kind = "enum" if "enum" in spec else _JSON_TYPES.get(spec.get("type", ""), "string")
        if spec.get("type") == "array":
            kind = "array"
        fields.append(
            ParameterField.model_validate(
                {"name": name, "type": kind, "required": name in required, "description": spec.get("description", "")}
            )
        )
    return fields


def prepare_arguments(
    entry: CatalogEntry,
    proposed: dict[str, Any],
    selection: ActionSelection,
    intent: Intent,
    context: Context,
    earlier: Mapping[str, HistoryEntry] | None = None,
    *,
    users_words: bool = False,
) -> dict[str, Any]:
    """Validated tool arguments, or `ParametersInvalid` with a reason Stage 2 can fix. With `users_words` the values
    are the user's own request (the direct path), never a placeholder copied by a model: "TODO" or "?" is asked."""
    forbidden = sorted(set(proposed) & FORBIDDEN_PARAMETER_KEYS)
    if forbidden:
        raise ParametersInvalid(
            f"parameters must not contain {forbidden}: the host attaches documents and connections itself"
        )
    unknown = sorted(set(proposed) - set(entry.parameter_names))
    if unknown:
        raise ParametersInvalid(f"{entry.display_name} has no parameters {unknown}; use {entry.parameter_names}")
    copied = [] if users_words else placeholder_values(proposed, schema_descriptions(entry.args_schema))
    if copied:
        raise ParametersInvalid(
            f"{clip(copied[0], 120)!r} is a {PLACEHOLDER_REFUSAL}, not a value: fill each parameter with what "
            "this request needs (its subject, numbers and wording)"
        )
    arguments = {
        **code_defaults(entry, intent, context),
        **{k: v for k, v in proposed.items() if v is not None},
    }
    _narrative_unless_asked(arguments, intent)
    if "documentList" in entry.parameter_names:
        arguments["documentList"] = list(selection.requiredInputDocuments)
    try:
        validated = entry.args_schema.model_validate(arguments)
    except ValidationError as exc:
        raise ParametersInvalid(explain(exc)) from exc
    result = validated.model_dump(mode="json", exclude_none=True)
    repeated = (earlier or {}).get(fingerprint(entry.display_name, result))
    if repeated is not None:
        raise ParametersInvalid(_repeat_refusal(repeated))
    return result


def _repeat_refusal(repeated: HistoryEntry) -> str:
    if repeated.outcome == "failed":
        return "exactly this action with these parameters already failed in this round; change the approach"
    delivered = ", ".join(ref.item_reference for ref in repeated.documents) or "its result"
    return (
        f"exactly this action with these parameters already ran in this round (step {repeated.step}, {delivered}); "
        "use that result or change the parameters"
    )


def _narrative_unless_asked(arguments: dict[str, Any], intent: Intent) -> None:
    """Spec rule, enforced in code: machine-readable formats only when the user asked for one (a small model
    likes to ask ai.process for JSON, then fails the step on an answer that is not JSON)."""
    formats = arguments.get("expectedDocumentFormats")
    if isinstance(formats, list) and intent.expectedFormat not in MACHINE_READABLE_FORMATS:
        arguments["expectedDocumentFormats"] = [f for f in formats if f not in MACHINE_READABLE_FORMATS] or ["md"]


def code_defaults(entry: CatalogEntry, intent: Intent, context: Context) -> dict[str, Any]:
    """Soft defaults for optional parameters the tool has: language, depth, recency, output format."""
    names = set(entry.parameter_names)
    analysis = entry.purpose == "analysis" or intent.dataType in ("analysis", "report")
    defaults: dict[str, Any] = {}
    if "language" in names:
        defaults["language"] = intent.language or context.user_language or "en"
    if "searchDepth" in names:
        defaults["searchDepth"] = "advanced" if analysis else "basic"
    if "extractDepth" in names:
        defaults["extractDepth"] = "advanced" if analysis else "basic"
    if "timeRange" in names and intent.freshness:
        defaults["timeRange"] = intent.freshness
    if "expectedDocumentFormats" in names:
        machine = intent.expectedFormat in MACHINE_READABLE_FORMATS
        defaults["expectedDocumentFormats"] = [intent.expectedFormat if machine else "md"]
    if "formats" in names and intent.expectedFormat in _REPORT_FORMATS:
        defaults["formats"] = _REPORT_FORMATS[intent.expectedFormat]
    return defaults
