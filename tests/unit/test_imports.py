"""Every module of graph, nodes, tools, prompts, cli and server imports (the same walk CI runs in an unlocked venv)."""

from __future__ import annotations

from tests.support.fresh_install import import_failures, module_names


def test_the_walk_finds_every_package_and_tool_module() -> None:
    names = module_names()
    assert {
        "graph.builder",
        "nodes.select",
        "tools.web.fetch",
        "tools.document.extract",
        "cli.app",
        "server.app",
    } <= set(names)
    assert len(names) > 60


def test_every_module_imports() -> None:
    assert import_failures() == []
