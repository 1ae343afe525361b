"""A graph's own actions: the LangChain tools handed to `build_graph(tools=…)` and the tools of declared MCP servers.

`ExtraActions` is the catalog's `ActionSource` for one compiled graph. The MCP sessions open when a run first
needs the catalog and are reused by every step; they close when the last run that held them ends (its `finalize`,
see graph/instrument.py), when `close()` is called, or at interpreter exit — and a paor that is killed has its
servers ended by their launcher (core/lifeline.py): no server process outlives paor. The next run starts
them afresh, which also retries a server that failed before.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from core.context import paor_home
from core.errors import ConfigurationError
from prompts.templates import clip
from tools.catalog import BUILTIN_MODULES, CatalogEntry
from tools.extra.entries import langchain_entry, mcp_display_name, mcp_entry, openai_tool_name
from tools.mcp.config import McpConfig, Servers, ServerSpec, load_servers

if TYPE_CHECKING:  # the MCP SDK loads only where a server is declared (0.5 s of every process that has none)
    from tools.mcp.servers import McpServers

#: A LangChain tool's output cap (an MCP server's is its `maxOutputKb`).
LANGCHAIN_OUTPUT_CAP = 1024 * 1024
_BUILTIN_NAMES = {name for actions in BUILTIN_MODULES.values() for name in actions}
_open_sets: weakref.WeakSet[ExtraActions] = weakref.WeakSet()


class ExtraActions:
    """The actions a graph brings beyond the built-in ones."""

    def __init__(self, tools: Sequence[BaseTool] = (), servers: Servers | None = None, log_dir: Path | None = None):
        self.servers = servers or Servers()
        self.log_dir = log_dir or paor_home() / "logs" / "mcp"
        self.mcp: McpServers | None = None
        if self.servers.specs:
            from tools.mcp.servers import McpServers

            self.mcp = McpServers(self.servers.specs, self.log_dir)
        self._own = {entry.display_name: entry for entry in _langchain_entries(tools)}
        self._built: dict[tuple[str, int], CatalogEntry] = {}  # per listed tool object: models are built once
        self._unusable: dict[str, str] = {}
        self._holders: set[str] = set()
        self._lock = threading.Lock()
        _open_sets.add(self)

    @classmethod
    def build(cls, tools: Sequence[BaseTool] = (), mcp_config: McpConfig = None) -> ExtraActions | None:
        """None when there is nothing to bring (no tools, no servers declared)."""
        servers = load_servers(mcp_config)
        return cls(tools, servers) if tools or servers else None

    # -- ActionSource ------------------------------------------------------------------------------------------

    def entries(self) -> dict[str, CatalogEntry]:
        entries = dict(self._own)
        if self.mcp is None:
            return entries
        built: dict[tuple[str, int], CatalogEntry] = {}
        unusable: dict[str, str] = {}
        for server, tools in self.mcp.tools().items():
            cap = self._spec(server).maxOutputKb * 1024
            for tool in tools:
                key = (server, id(tool))
                try:
                    entry = self._built.get(key) or mcp_entry(server, tool, self._caller(server, tool.name), cap)
                except ValueError as exc:  # a tool whose schema is broken: only that tool is left out
                    unusable[mcp_display_name(server, tool.name)] = str(exc)
                    continue
                built[key] = entries[entry.display_name] = entry
        self._built, self._unusable = built, unusable
        return entries

    def record(self) -> dict[str, Any]:
        """What a thread remembers of the tools it ran with: server names, where their config came from, the
        LangChain tools' names; never an entry (its env and headers may hold secrets)."""
        return {**self.servers.record(), "tools": sorted(self._own)}

    def unavailable(self) -> dict[str, str]:
        failures = dict(self.servers.broken)
        if self.mcp is not None:
            failures.update(self.mcp.failures())
        withdrawn = {
            mcp_display_name(server, "*"): f"the MCP server {server} {why}" for server, why in failures.items()
        }
        return {**self._unusable, **withdrawn}

    # -- lifetime ----------------------------------------------------------------------------------------------

    def hold(self, run: str) -> None:
        """A run is using the sessions (taken by every node; idempotent)."""
        with self._lock:
            self._holders.add(run)

    def release(self, run: str) -> None:
        """A run ended; the sessions close when no other run holds them."""
        with self._lock:
            self._holders.discard(run)
            if self._holders:
                return
        self.close()

    def close(self) -> None:
        if self.mcp is not None:
            self.mcp.close()

    def describe(self) -> list[tuple[str, str]]:
        """(server, state) per declared server, for `paor doctor` (opens the sessions: close them afterwards)."""
        rows = [(name, f"unavailable: {why}") for name, why in self.servers.broken.items()]
        if self.mcp is not None:
            tools, failures = self.mcp.tools(), self.mcp.failures()
            for spec in self.servers.specs:
                state = (
                    f"{len(tools[spec.name])} tools" if spec.name in tools else f"unavailable: {failures[spec.name]}"
                )
                declared = f", declared as {spec.declared!r}" if spec.declared not in ("", spec.name) else ""
                rows.append((spec.name, clip(f"{state} ({spec.transport}: {spec.endpoint}{declared})", 300)))
        return rows

    def _spec(self, server: str) -> ServerSpec:
        return next(s for s in self.servers.specs if s.name == server)

    def _caller(self, server: str, tool: str) -> Any:
        mcp = self.mcp
        assert mcp is not None

        def call(arguments: dict[str, Any]) -> ToolMessage:
            return mcp.call(server, tool, arguments)

        return call


def _langchain_entries(tools: Sequence[BaseTool]) -> list[CatalogEntry]:
    entries: list[CatalogEntry] = []
    for tool in tools:
        if not isinstance(tool, BaseTool):
            raise ConfigurationError(
                f"build_graph(tools=…) takes LangChain tools (BaseTool), not {type(tool).__name__}"
            )
        try:
            entry = langchain_entry(tool, LANGCHAIN_OUTPUT_CAP)
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None
        taken = {e.display_name for e in entries} | {e.tool_name for e in entries}
        if entry.display_name in _BUILTIN_NAMES or openai_tool_name(entry.display_name) in {
            n.replace(".", "_") for n in _BUILTIN_NAMES
        }:
            raise ConfigurationError(f"the tool {tool.name!r} has the name of a built-in action; rename it")
        if entry.display_name in taken or entry.tool_name in taken:
            raise ConfigurationError(f"two tools are named {tool.name!r}; tool names must be unique")
        if entry.display_name.startswith("mcp."):
            raise ConfigurationError(f"the tool {tool.name!r} uses the mcp. prefix, which names MCP servers' tools")
        entries.append(entry)
    return entries


@atexit.register
def _close_all() -> None:
    """No server process outlives paor, whatever the caller forgot to close."""
    for actions in list(_open_sets):
        actions.close()
