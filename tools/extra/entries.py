"""Any LangChain tool — a user's `@tool`, or an MCP tool as langchain-mcp-adapters converts it — as a catalog entry.

Names: an MCP tool is `mcp.<server>.<tool>` (the server's name in the config, so a restarted server's tools keep
their name, and with it what was learned about them); a LangChain tool is its own name. The tool's description
is the Stage-1 summary (first sentence, clipped), its input schema the Stage-2 parameters. Approval follows the
MCP annotations (also read from a LangChain tool's metadata): `readOnlyHint: true` runs without asking under
`approve=side_effects`; anything else asks.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from prompts.templates import clip
from tools.base import ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry
from tools.extra.output import tool_output
from tools.extra.schema import arguments_model

SUMMARY_CHARS = 160
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")

#: Runs the tool with validated arguments and answers with its ToolMessage.
Invoke = Callable[[dict[str, Any]], ToolMessage]


def mcp_display_name(server: str, tool: str) -> str:
    return f"mcp.{server}.{tool}"


def mcp_entry(server: str, tool: BaseTool, invoke: Invoke, cap: int) -> CatalogEntry:
    return foreign_entry(tool, mcp_display_name(server, tool.name), invoke, cap, source=f"mcp:{server}")


def langchain_entry(tool: BaseTool, cap: int) -> CatalogEntry:
    def invoke(arguments: dict[str, Any]) -> ToolMessage:
        answer = tool.invoke({"type": "tool_call", "name": tool.name, "args": arguments, "id": "paor"})
        if isinstance(answer, ToolMessage):
            return answer
        return ToolMessage(content=str(answer), tool_call_id="paor", name=tool.name)

    return foreign_entry(tool, tool.name, invoke, cap, source="langchain")


def foreign_entry(tool: BaseTool, display_name: str, invoke: Invoke, cap: int, *, source: str) -> CatalogEntry:
    schema = tool.tool_call_schema if isinstance(tool.args_schema, type) else tool.args_schema
    model = arguments_model(display_name, schema)  # type: ignore[arg-type]
    tool_name = openai_tool_name(display_name)

    def factory(deps: ToolDeps) -> BaseTool:
        def run(**arguments: Any) -> tuple[str, ToolOutput]:
            # LangChain fills every optional field of the argument model with its default (None): an argument left
            # out must stay out, so the tool applies its own default (a server refuses `"tail": null`).
            given = {name: value for name, value in arguments.items() if value is not None}
            output = tool_output(tool.name, invoke(given), cap)
            return output.summary, output

        return artifact_tool(run, name=tool_name, description=tool.description or display_name, args_schema=model)

    return CatalogEntry(
        display_name=display_name,
        tool_name=tool_name,
        args_schema=model,
        factory=factory,
        purpose="lookup",
        summary=summary_of(tool.description or "", display_name),
        side_effects=(tool.metadata or {}).get("readOnlyHint") is not True,
        source=source,
    )


def summary_of(description: str, fallback: str) -> str:
    """The first sentence of a description, on one line: Stage 1 sees a short line per action."""
    first = _SENTENCE_END.split(" ".join(description.split()), maxsplit=1)[0]
    return clip(first or fallback, SUMMARY_CHARS)


def openai_tool_name(display_name: str) -> str:
    """`mcp.time.get_current_time` → `mcp_time_get_current_time`, at most 64 safe characters (a hash keeps long
    names distinct)."""
    safe = _UNSAFE.sub("_", display_name)
    if len(safe) <= 64:
        return safe
    digest = hashlib.sha256(display_name.encode()).hexdigest()[:8]
    return f"{safe[:55]}_{digest}"
