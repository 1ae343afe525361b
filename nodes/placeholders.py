"""Placeholder detection: a value that repeats the host's own words is no value at all.

Small models fill a JSON shape by copying what the request showed them: the schema's field descriptions ("What this
one action must achieve"), placeholders ("<parameter name>", "…") or a tool parameter's own description ("The
task, stated as what to deliver."). Such an answer parses and validates, then the step runs on
no request at all and the filler it produces can even pass a lenient judge. Stage 1, Stage 2 and learning treat
these values as protocol errors; this module says which values they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from pydantic import BaseModel

from core.schemas import ActionSelection, ParameterField
from prompts.templates import normalised

#: Every refusal of a copied description says this (benchmarks count such refusals apart from broken shapes).
PLACEHOLDER_REFUSAL = "description or placeholder"
_ANGLED = re.compile(r"^\s*<[^<>]*>\s*$")
#: Values that say nothing whatever the schema: a type name, an ellipsis, a to-do.
_EMPTY_WORDS = frozenset({"string", "str", "todo", "tbd", "n a", "example", "placeholder"})


def _descriptions(model: type[BaseModel]) -> Iterator[str]:
    for field in model.model_fields.values():
        if field.description:
            yield field.description


def _example_values(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _example_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _example_values(item)


@cache
def _protocol_texts() -> frozenset[str]:
    """The texts the Stage-1 and Stage-2 shapes show, never as content."""
    texts = [*_descriptions(ActionSelection), *_descriptions(ParameterField)]
    return frozenset(n for n in map(normalised, texts) if n)


def is_placeholder(value: str, host_texts: Iterable[str] = ()) -> bool:
    """True for a value that is a placeholder or repeats a host text (protocol descriptions, plus
    `host_texts`: e.g. the selected tool's own parameter descriptions)."""
    if _ANGLED.match(value):
        return True
    text = normalised(value)
    if not text or text in _EMPTY_WORDS:  # "…", "...", "-": punctuation only
        return True
    return text in _protocol_texts() or text in {normalised(t) for t in host_texts}


def repeats_host_text(value: str) -> bool:
    """A line of a deliverable that is one of the protocol's own descriptions or example values (punctuation-only
    lines such as a Markdown rule, or a tag, are content there, unlike in a parameter)."""
    text = normalised(value)
    return bool(text) and text in _protocol_texts()


def schema_descriptions(model: type[BaseModel]) -> list[str]:
    """A tool's argument descriptions, which Stage 2 is shown and must not hand back as values."""
    return list(_descriptions(model))


def placeholder_values(values: object, host_texts: Iterable[str] = ()) -> list[str]:
    """Every non-blank string inside `values` (nested in lists and dicts) that is a placeholder; a blank optional
    value is no claim, so it is left to the tool's schema."""
    texts = list(host_texts)
    return [v for v in _example_values(values) if v.strip() and is_placeholder(v, texts)]
