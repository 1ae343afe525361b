"""MCP servers from the registries (PyPI: mcp-server-time, mcp-server-git; npm: server-everything and
server-filesystem via tests/mcp/setup.sh) and small servers built with the `mcp` SDK here, declared as a user
declares them."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.extra.actions import ExtraActions

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
EVERYTHING = HERE / "servers" / "node_modules" / ".bin" / "mcp-server-everything"
FILESYSTEM = HERE / "servers" / "node_modules" / ".bin" / "mcp-server-filesystem"
FAULTY = HERE / "faulty_server.py"
ORDERS = HERE / "orders_server.py"

Declare = Callable[..., Path]


def _installed(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed: pip install -e '.[dev]'")
    return found


@pytest.fixture
def time_server() -> dict[str, Any]:
    return {"command": _installed("mcp-server-time"), "args": ["--local-timezone", "Etc/UTC"]}


@pytest.fixture
def git_server() -> dict[str, Any]:
    return {"command": _installed("mcp-server-git")}


@pytest.fixture
def everything_server() -> dict[str, Any]:
    return {"command": "node", "args": [str(_npm(EVERYTHING)), "stdio"]}


def _npm(server: Path) -> Path:
    if not server.exists() or shutil.which("node") is None:
        pytest.skip(f"{server.name} is not installed: bash tests/mcp/setup.sh")
    return server


@pytest.fixture
def filesystem_server(tmp_path: Path) -> dict[str, Any]:
    """@modelcontextprotocol/server-filesystem, allowed to read tmp_path/files only."""
    folder = tmp_path / "files"
    folder.mkdir()
    return {"command": "node", "args": [str(_npm(FILESYSTEM)), str(folder)]}


def orders_server() -> dict[str, Any]:
    """tests/mcp/orders_server.py over stdio: tools with optional parameters."""
    return {"command": sys.executable, "args": [str(ORDERS)]}


def faulty_server(*behaviour: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A stdio server of tests/mcp/faulty_server.py that misbehaves as told (see its docstring)."""
    return {"command": sys.executable, "args": [str(FAULTY), *behaviour], "env": env or {}}


@pytest.fixture
def declare(tmp_path: Path) -> Declare:
    """`declare(name=entry, …)` writes an `{"mcpServers": …}` file and returns its path."""

    def write(**servers: dict[str, Any]) -> Path:
        path = tmp_path / "mcp.json"
        path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
        return path

    return write


@pytest.fixture
def extra_actions() -> Iterator[Callable[..., ExtraActions]]:
    """Build ExtraActions for a test and close every one of them at its end."""
    built: list[ExtraActions] = []

    def build(*args: Any, **kwargs: Any) -> ExtraActions:
        actions = ExtraActions(*args, **kwargs)
        built.append(actions)
        return actions

    yield build
    for actions in built:
        actions.close()
