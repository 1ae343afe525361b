"""The action catalog: dotted display names (`ai.process`) mapped to LangChain tools (`ai_process`).

A tool module registers a `CatalogEntry` when imported; `catalog()` imports the built-in modules once. Other
packages can `register()` their own actions the same way. A module that cannot be imported (a broken upstream
release, a missing system library) takes only its own actions down: they are listed by `unavailable()` with the
reason, left out of every prompt and schema, and every other action still works.

A graph may bring actions of its own (LangChain tools, MCP servers: `tools.extra`): while one of its nodes runs,
`extended_by()` adds that graph's `ActionSource` to what `catalog()`, `unavailable()` and `lookup()` answer, so
two graphs in one process never see each other's tools. Their unavailable entries may name a whole server
(`mcp.<server>.*`).
"""

from __future__ import annotations

import importlib
import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any, Literal, Protocol

from langchain_core.tools import BaseTool
from pydantic import BaseModel

from core.errors import ActionNotDeclared, ActionUnavailable, ConfigurationError
from tools.base import ToolDeps

log = logging.getLogger(__name__)

#: Each built-in tool module and the actions it registers (named here so a module that fails to import can
#: still say which actions it took down).
BUILTIN_MODULES: dict[str, tuple[str, ...]] = {
    "tools.ai_process": ("ai.process",),
    "tools.web.search_tool": ("web.search",),
    "tools.web.scrape_tool": ("web.scrape",),
    "tools.web.crawl_tool": ("web.crawl",),
    "tools.document.extract": ("document.extract",),
    "tools.document.generate_report": ("document.generateReport",),
    "tools.code.execute": ("code.execute",),
}
_OPENAI_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class CatalogEntry:
    display_name: str
    tool_name: str
    args_schema: type[BaseModel]
    factory: Callable[[ToolDeps], BaseTool]
    purpose: Literal["analysis", "lookup", "output"]
    summary: str
    #: The action works on documents named in requiredInputDocuments (and cannot run without one).
    requires_documents: bool = False
    #: The action leaves the machine (web.*), writes a deliverable (document.generateReport) or runs model-written
    #: code (code.execute: sandboxed and offline, but the user may want to read the program first), so
    #: `Context.approve = "side_effects"` asks the user before it runs.
    side_effects: bool = False
    #: Where a brought action comes from ("mcp:<server>", "langchain"); empty for paor's own. Stage 1 is offered
    #: brought actions by relevance when there are many (tools.extra.ranking).
    source: str = ""
    #: The parameter that states the task in words (ai.process's aiPrompt): Stage 1's objective and
    #: parametersContext already say it, so code fills it and Stage 2 is asked only for what else is needed.
    instruction: str = ""

    @property
    def parameter_names(self) -> list[str]:
        return list(self.args_schema.model_fields)

    @property
    def json_schema(self) -> dict[str, Any]:
        """The arguments' JSON schema, shared: read it, never change it."""
        return _json_schema(self.args_schema)


@lru_cache(maxsize=256)  # bounded: a server builds brought tools' argument classes anew for each run
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """pydantic builds the schema anew on every call (about 2 ms for ai.process's), and a step reads it twice."""
    return model.model_json_schema()


class ActionSource(Protocol):
    """A graph's own actions (tools.extra.actions.ExtraActions)."""

    def entries(self) -> dict[str, CatalogEntry]: ...

    def unavailable(self) -> dict[str, str]: ...


_REGISTRY: dict[str, CatalogEntry] = {}
_UNAVAILABLE: dict[str, str] = {}
_SOURCE: ContextVar[ActionSource | None] = ContextVar("paor_action_source", default=None)
_loaded = False  # every built-in module has registered its actions
_started = False
_LOADING = threading.RLock()  # runs load the catalog on first use, from threads of their own


@contextmanager
def extended_by(source: ActionSource | None) -> Iterator[None]:
    """Within this block (and the threads it copies its context to), the catalog includes `source`'s actions."""
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def register(entry: CatalogEntry) -> CatalogEntry:
    if not _OPENAI_TOOL_NAME.match(entry.tool_name):
        raise ValueError(f"tool name {entry.tool_name!r} is not OpenAI-safe (^[a-zA-Z0-9_-]+$)")
    if "." not in entry.display_name:
        raise ValueError(f"display name {entry.display_name!r} must be method.action")
    _REGISTRY[entry.display_name] = entry
    return entry


def mark_unavailable(display_name: str, reason: str) -> None:
    """Withdraw an action with the reason (a tool module may call this when its backend is missing)."""
    _REGISTRY.pop(display_name, None)
    _UNAVAILABLE[display_name] = reason


def _load_builtins() -> None:
    """Once: another thread waits until every module has registered (a half-loaded catalog would offer a run only
    some of its actions); a module that asks for the catalog while it loads, in this thread, gets what is there."""
    global _loaded, _started
    if _loaded:
        return
    with _LOADING:
        if _started:  # loaded meanwhile, or asked for by a module this thread is loading
            return
        _started = True
        for module, actions in BUILTIN_MODULES.items():
            try:
                importlib.import_module(module)
            except Exception as exc:  # any import-time failure of one backend must leave the others working
                reason = f"{module} cannot be imported ({type(exc).__name__}: {exc})"
                log.warning("%s unavailable: %s", ", ".join(actions), reason)
                for action in actions:
                    mark_unavailable(action, reason)
        _loaded = True


def catalog() -> dict[str, CatalogEntry]:
    """Every action that can run here."""
    _load_builtins()
    source = _SOURCE.get()
    return {**_REGISTRY, **source.entries()} if source is not None else dict(_REGISTRY)


def unavailable() -> dict[str, str]:
    """Actions that cannot run here, each with its reason (`paor doctor` and a run's notes show them)."""
    _load_builtins()
    source = _SOURCE.get()
    return {**_UNAVAILABLE, **source.unavailable()} if source is not None else dict(_UNAVAILABLE)


def _withdrawn(name: str, missing: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in missing)


def lookup(name: str) -> CatalogEntry | None:
    """Find an entry by display name (`ai.process`) or tool name (`ai_process`)."""
    entries = catalog()
    if name in entries:
        return entries[name]
    return next((e for e in entries.values() if e.tool_name == name), None)


def require(name: str, ran_with: Mapping[str, Any] | None = None) -> CatalogEntry:
    """The entry of an action a thread selected. `ActionUnavailable` when it is withdrawn here (its server is
    declared but failed: the step fails, as for any broken backend); `ActionNotDeclared` when this graph does not
    have it at all — a thread resumed with other tools — naming the tools the thread ran with (`ran_with`, see
    tools.extra.actions.ExtraActions.record)."""
    entry = lookup(name)
    if entry is not None:
        return entry
    reason = next((why for pattern, why in unavailable().items() if fnmatchcase(name, pattern)), None)
    if reason is not None:
        raise ActionUnavailable(f"{name} is unavailable: {reason}")
    server = name.split(".")[1] if name.startswith("mcp.") and name.count(".") >= 2 else None
    missing = f"no MCP server {server!r} is declared" if server else "no such action is registered"
    servers, config = list((ran_with or {}).get("servers") or []), (ran_with or {}).get("config")
    earlier = f"; the thread ran with the MCP servers {', '.join(servers)} from {config}" if servers else ""
    raise ActionNotDeclared(f"the thread's next action {name} cannot run here: {missing}{earlier}")


def allowed_entries(allowed: Iterable[str] = ()) -> list[CatalogEntry]:
    """Entries the model may pick; an empty allow-list means every available action.

    An allowed action that is unavailable here is left out (`unavailable_notes` says why); naming an action that
    does not exist at all is a configuration error, and so is an allow-list of which nothing can run."""
    entries = catalog()
    missing = unavailable()
    names = [n for n in allowed if n]
    if not names:
        return list(entries.values())
    unknown = [n for n in names if lookup(n) is None and not _withdrawn(n, missing)]
    if unknown:
        known = sorted([*entries, *missing])
        raise ConfigurationError(f"allowed_methods names unknown actions {unknown}; known: {known}")
    chosen = [e for e in (lookup(n) for n in names) if e is not None]
    if not chosen:
        raise ConfigurationError(f"none of the allowed actions {names} is available here: {unavailable_notes(names)}")
    return chosen


def unavailable_notes(allowed: Iterable[str] = ()) -> list[str]:
    """One line per action the run would have been allowed but cannot use here, with the reason."""
    names = {n for n in allowed if n}
    return [
        f"{action} is unavailable: {reason}"
        for action, reason in sorted(unavailable().items())
        if not names or any(fnmatchcase(name, action) for name in names)
    ]


def render_tiny_catalog(entries: Iterable[CatalogEntry]) -> str:
    """Names and parameter names only, as spec 4 prescribes — the prompt never carries full schemas here. An
    action that takes every parameter of one listed before it, and more, says so instead of repeating them
    (web.scrape is web.search and its extraction: 34 tokens become 14)."""
    lines: list[str] = []
    earlier: list[CatalogEntry] = []
    for entry in entries:
        names = list(entry.parameter_names)
        base = next((e for e in earlier if _extends(names, list(e.parameter_names))), None)
        if base is not None:
            names = [f"{base.display_name}'s parameters", *names[len(base.parameter_names) :]]
        lines.append(f"- {entry.display_name}({','.join(names)}) — {entry.summary}")
        earlier.append(entry)
    return "\n".join(lines)


def _extends(names: list[str], base: list[str]) -> bool:
    """`names` starts with every one of `base`'s (at least four: fewer cost less than naming the action) and adds."""
    return len(base) >= 4 and len(names) > len(base) and names[: len(base)] == base
