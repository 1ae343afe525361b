"""Layers that only point down (issue 55): the ground (core/), then prompts, tools, nodes, the agent that assembles
the graph (graph/), and the front ends (cli/, server/). Every import of every module counts, at the top or inside
a function or an `if TYPE_CHECKING:` block: an import from a lower layer to a higher one fails here, and so does a
circle of modules, however long."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS = {"core": 0, "prompts": 1, "tools": 2, "nodes": 3, "graph": 4, "server": 5, "cli": 5}
#: The deprecated names of modules that moved down to core/ (CHANGELOG.md): re-exports, pointing down.
SHIMS = {"graph.context", "graph.persistence", "graph.schemas"}


def modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in (REPO / package).rglob("*.py"):
            name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The paor modules `path` imports, wherever the import stands."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                yield name


def edges() -> dict[str, set[str]]:
    known = modules()
    return {name: {t for t in imports(path, known) if t != name} for name, path in known.items()}


def layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = sorted(
        f"{source} → {target}"
        for source, targets in edges().items()
        for target in targets
        if layer(target) > layer(source)
    )
    assert upward == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert circles(edges()) == []


def test_the_deprecated_names_only_point_down() -> None:
    graph = edges()
    assert set(graph) >= SHIMS
    assert all(target.startswith("core.") for shim in SHIMS for target in graph[shim])


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_a_circle_of_any_length_is_found(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(graph) == expected


def test_an_import_inside_a_function_counts(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from nodes.select import choose\n", encoding="utf-8")
    assert list(imports(module, {"nodes.select": module})) == ["nodes.select"]
