"""Both servers serve the same graph the same way: what `langgraph dev` (langgraph.json) tells clients of paor,
`paor serve` (aegra.json) tells them too — an MCP client reads a tool's description from there."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def _graphs(name: str) -> dict[str, dict[str, str]]:
    return dict(json.loads((REPO / name).read_text(encoding="utf-8"))["graphs"])


def test_both_servers_describe_the_same_graphs_alike() -> None:
    development, production = _graphs("langgraph.json"), _graphs("aegra.json")
    assert development.keys() == production.keys()
    for name, graph in development.items():
        assert production[name]["path"] == graph["path"]
        assert "POST /paor/documents" in graph["description"]
        assert production[name]["description"] == graph["description"], name
