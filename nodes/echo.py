"""Echoes: a deliverable that repeats paor's own words is no answer, however well it parses.

A small model asked again copies what the host told it ("The previous answer was not accepted: …"), a Stage-2
answer copies a field's description into `aiPrompt`, and a writer copies its instructions. Such text must never
reach `answer`: the check that finds it fails the attempt, so it can never replace an answer that did not echo
(nodes/answers.py). Host text is every prompt template, every protocol and tool field description and the lines
the host itself adds to a retry; a run of `RUN_WORDS` of their words in a row, not also in the user's own
request, is an echo. Shorter host markers (headers such as "USER REQUEST:") count where they appear verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path

from pydantic import BaseModel

import core.schemas as schemas

#: Words in a row that make an echo: long enough that ordinary answers never share them with a prompt by chance.
RUN_WORDS = 6
_PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
_PLACEHOLDER = re.compile(r"\$\{?\w+\}?")
_WORD = re.compile(r"[^\W_]+")
#: Lines the host writes into prompts in its own voice; matched verbatim (case kept), they are too short for runs.
HOST_MARKERS = (
    "USER REQUEST:",
    "SUCCESS CRITERIA:",
    "TASK:",
    "SOURCES:",
    "Computed exactly by code",
    "The previous answer was not accepted",
    "Stopped without meeting all criteria",
    "Best attempt:",
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _windows(words: list[str]) -> Iterator[tuple[str, ...]]:
    for i in range(len(words) - RUN_WORDS + 1):
        yield tuple(words[i : i + RUN_WORDS])


def _descriptions(models: Iterable[type[BaseModel]]) -> Iterator[str]:
    for model in models:
        for field in model.model_fields.values():
            if field.description:
                yield field.description


def _protocol_models() -> list[type[BaseModel]]:
    return [v for v in vars(schemas).values() if isinstance(v, type) and issubclass(v, schemas.Protocol)]


def _tool_models() -> list[type[BaseModel]]:
    from tools.catalog import catalog  # the catalog imports the tools, which are not loaded before a run

    schemas_ = [entry.args_schema for entry in catalog().values()]
    return [s for s in schemas_ if isinstance(s, type) and issubclass(s, BaseModel)]


def _host_texts() -> Iterator[str]:
    for template in sorted(_PROMPTS.glob("*.txt")):
        yield from _PLACEHOLDER.split(template.read_text(encoding="utf-8"))  # runs never cross a placeholder
    yield from _descriptions(_protocol_models())
    yield from _descriptions(_tool_models())
    yield schemas.GENERIC_CRITERION


@cache
def _runs() -> frozenset[tuple[str, ...]]:
    return frozenset(run for text in _host_texts() for run in _windows(_words(text)))


def echoed(answer: str, request: str = "", also: Sequence[str] = ()) -> str | None:
    """The host text `answer` repeats (a marker, or a run of words not in `request`), else None; `also` is what the
    host added to this step's prompt itself (a retry's note)."""
    for marker in HOST_MARKERS:
        if marker in answer and marker not in request:
            return marker
    asked = set(_windows(_words(request)))
    added = {run for text in also for run in _windows(_words(text))}
    for run in _windows(_words(answer)):
        if (run in _runs() or run in added) and run not in asked:
            return " ".join(run)
    return None
