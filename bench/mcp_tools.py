"""Stage-1 prompt tokens with 0 and 50 brought MCP tools, and whether the tool a request needs was offered.

The 50 tools are the real listings of five MCP servers (bench/mcp_tools.json: mcp-server-time, mcp-server-git,
@modelcontextprotocol/server-everything, -filesystem and -memory, captured with the `mcp` SDK). Each request runs
the real graph for one step against the scripted model; the Stage-1 request it receives is counted with
o200k_base (core.tokens) — once with no brought tools, once with all 50 declared (paor offers the relevant
ones), and once with all 50 offered (ranking off), the cost paor avoids.

    python -m bench.mcp_tools
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.tools import StructuredTool

from tools.catalog import CatalogEntry
from tools.extra.actions import ExtraActions
from tools.extra.entries import mcp_entry

HERE = Path(__file__).resolve().parent
REQUESTS: tuple[tuple[str, str], ...] = (
    ("What time is it in Tokyo right now?", "mcp.time.get_current_time"),
    ("Convert 9:30 in New York to Berlin time", "mcp.time.convert_time"),
    ("Show the last 5 commits of the repository at /srv/app", "mcp.git.git_log"),
    ("Which files are modified but not staged in /srv/app?", "mcp.git.git_diff_unstaged"),
    ("Create a branch named release-2 in the repo /srv/app", "mcp.git.git_create_branch"),
    ("Add the numbers 17 and 25", "mcp.everything.get-sum"),
    ("List the directory /data with file sizes", "mcp.filesystem.list_directory_with_sizes"),
    ("Search the knowledge graph memory for nodes about Alice", "mcp.memory.search_nodes"),
    ("Read the text file /data/notes.txt", "mcp.filesystem.read_text_file"),
    ("Record in memory the relation: Alice works at Acme", "mcp.memory.create_relations"),
)


def catalog_of_fifty() -> list[CatalogEntry]:
    """The 50 tools as paor's catalog entries, built exactly as for a live server's tools."""
    listed: dict[str, list[dict[str, Any]]] = json.loads((HERE / "mcp_tools.json").read_text())
    entries = []
    for server, tools in listed.items():
        for tool in tools:
            converted = StructuredTool(
                name=tool["name"],
                description=tool.get("description", ""),
                args_schema=tool["inputSchema"],
                coroutine=_unused,
                metadata=tool.get("annotations"),
            )
            entries.append(mcp_entry(server, converted, _no_call, 1024 * 1024))
    return entries


async def _unused(**_: Any) -> None:
    raise RuntimeError("benchmark tools are never called")


def _no_call(arguments: dict[str, Any]) -> Any:
    raise RuntimeError("benchmark tools are never called")


class _Listed(ExtraActions):
    """Brought actions from a fixed list (the benchmark needs no live servers)."""

    def __init__(self, entries: Sequence[CatalogEntry]) -> None:
        super().__init__()
        self._own = {e.display_name: e for e in entries}


@dataclass
class Measured:
    request: str
    needed: str
    tokens: dict[str, int]
    offered: int
    found: bool


@contextmanager
def _ranking_off() -> Iterator[None]:
    import nodes.select as select

    original = select.offered_entries
    select.offered_entries = lambda entries, *_args, **_kw: list(entries)  # type: ignore[assignment]
    try:
        yield
    finally:
        select.offered_entries = original  # type: ignore[assignment]


def stage1(request: str, needed: str, entries: Sequence[CatalogEntry]) -> tuple[int, list[str]]:
    """Prompt tokens of the Stage-1 request of one step, and the actions it offered."""
    import tempfile

    from langgraph.store.memory import InMemoryStore

    from core.context import Context
    from core.llm import Models
    from core.tokens import count_tokens
    from graph.builder import RECURSION_LIMIT, make_builder
    from nodes.services import Services
    from tests.mcp.scenarios import ANSWER_INTENT, offered_actions, selection
    from tests.support.scripted_llm import ScriptedLLM

    with ScriptedLLM() as llm, tempfile.TemporaryDirectory() as store_dir:
        llm.on("Intent", json.dumps(ANSWER_INTENT))
        llm.on("ActionSelection", selection(needed, "Answer the request", {}))
        llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {}})
        services = Services(Models(injected=llm.model()), actions=_Listed(entries) if entries else None)
        graph = make_builder(services).compile(store=InMemoryStore())
        context = Context(max_steps=1, learning=False, store_dir=store_dir, direct_answer=False)  # Stage 1 is measured
        graph.invoke({"prompt": request}, {"recursion_limit": RECURSION_LIMIT}, context=context)
        [asked] = llm.requests_for("ActionSelection")[:1]
        return count_tokens(asked.text), offered_actions(asked)


def measure() -> list[Measured]:
    fifty = catalog_of_fifty()
    results = []
    for request, needed in REQUESTS:
        none, _ = stage1(request, needed, [])
        ranked, offered = stage1(request, needed, fifty)
        with _ranking_off():
            everything, _ = stage1(request, needed, fifty)
        brought = [name for name in offered if name.startswith("mcp.")]
        results.append(
            Measured(request, needed, {"0": none, "50": ranked, "all": everything}, len(brought), needed in offered)
        )
    return results


def table(results: Sequence[Measured]) -> str:
    lines = [
        "| request | needed tool | offered | found | tokens, 0 tools | tokens, 50 tools | ratio | 50 all offered |",
        "|---|---|---:|:---:|---:|---:|---:|---:|",
    ]
    for r in results:
        ratio = r.tokens["50"] / r.tokens["0"]
        lines.append(
            f"| {r.request} | `{r.needed}` | {r.offered} | {'yes' if r.found else 'NO'} | {r.tokens['0']} | "
            f"{r.tokens['50']} | {ratio:.2f}× | {r.tokens['all']} ({r.tokens['all'] / r.tokens['0']:.2f}×) |"
        )
    return "\n".join(lines)


def main() -> None:
    results = measure()
    print(table(results))
    worst = max(r.tokens["50"] / r.tokens["0"] for r in results)
    found = sum(r.found for r in results)
    print(
        f"\nworst ratio {worst:.2f}× (target ≤ 2×); the needed tool was offered in {found} of {len(results)} requests"
    )


if __name__ == "__main__":
    main()
