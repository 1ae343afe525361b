"""The action catalog: dotted display names (`ai.process`) mapped to LangChain tools (`ai_process`).

A tool module registers a `CatalogEntry` when imported; `catalog()` imports the built-in modules once. Other
packages can `register()` their own actions the same way.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel

from tools.base import ToolDeps

BUILTIN_MODULES = (
    "tools.ai_process",
    "tools.web.search_tool",
    "tools.web.scrape_tool",
    "tools.web.crawl_tool",
    "tools.document.extract",
    "tools.document.generate_report",
    "tools.code.execute",
)
_OPENAI_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class CatalogEntry:
    display_name: str
    tool_name: str
    args_schema: type[BaseModel]
    factory: Callable[[ToolDeps], BaseTool]
    purpose: Literal["analysis", "lookup", "output"]
    summary: str
    unavailable: Callable[[], str | None] = lambda: None  # why the action cannot run on this machine, or None

    @property
    def parameter_names(self) -> list[str]:
        return list(self.args_schema.model_fields)


_REGISTRY: dict[str, CatalogEntry] = {}
_loaded = False


def register(entry: CatalogEntry) -> CatalogEntry:
    if not _OPENAI_TOOL_NAME.match(entry.tool_name):
        raise ValueError(f"tool name {entry.tool_name!r} is not OpenAI-safe (^[a-zA-Z0-9_-]+$)")
    if "." not in entry.display_name:
        raise ValueError(f"display name {entry.display_name!r} must be method.action")
    _REGISTRY[entry.display_name] = entry
    return entry


def catalog() -> dict[str, CatalogEntry]:
    global _loaded
    if not _loaded:
        for module in BUILTIN_MODULES:
            importlib.import_module(module)
        _loaded = True
    return {name: entry for name, entry in _REGISTRY.items() if entry.unavailable() is None}


def lookup(name: str) -> CatalogEntry | None:
    """Find an entry by display name (`ai.process`) or tool name (`ai_process`)."""
    entries = catalog()
    if name in entries:
        return entries[name]
    return next((e for e in entries.values() if e.tool_name == name), None)


def allowed_entries(allowed: Iterable[str] = ()) -> list[CatalogEntry]:
    """Entries the model may pick; an empty allow-list means every registered action."""
    entries = catalog()
    names = [n for n in allowed if n]
    if not names:
        return list(entries.values())
    unknown = [n for n in names if lookup(n) is None]
    if unknown:
        raise ValueError(f"allowed_methods names unknown actions {unknown}; known: {sorted(entries)}")
    return [e for e in (lookup(n) for n in names) if e is not None]


def render_tiny_catalog(entries: Iterable[CatalogEntry]) -> str:
    """Names and parameter names only, as spec 4 prescribes — the prompt never carries full schemas here."""
    return "\n".join(f"- {e.display_name}({','.join(e.parameter_names)}) — {e.summary}" for e in entries)
