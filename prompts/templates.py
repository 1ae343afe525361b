"""Loading prompt templates (text files with `$placeholders`) and fencing untrusted text."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from string import Template

_FENCE = re.compile(r"</?\s*untrusted[^>]*>", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")


@cache
def template(name: str) -> Template:
    return Template(files("prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8"))


def fill(name: str, **values: object) -> str:
    """Fill a template; a missing placeholder is a bug, so `substitute` (not `safe_substitute`)."""
    return template(name).substitute({k: str(v) for k, v in values.items()}).strip()


def untrusted(text: str, source: str) -> str:
    """Delimit content from tools or documents so the model treats it as data; forged fences are defused."""
    cleaned = _FENCE.sub("[fence removed]", text)
    safe_source = re.sub(r"[^\w.:/@-]", "_", source)[:120]
    return f'<untrusted source="{safe_source}">\n{cleaned}\n</untrusted>'


def clip(text: object, limit: int | None = None) -> str:
    """One line (model text spans lines), cut to `limit` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if limit is None or len(flat) <= limit else flat[: limit - 1] + "…"


def normalised(text: str) -> str:
    """A text's words, case-folded: case, punctuation and spacing do not make two texts different (a copied
    description stays a copy; a task that only restates the request is the request)."""
    return " ".join(_WORD.findall(text.casefold()))
