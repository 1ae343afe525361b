"""Every module of graph, nodes, tools, prompts, cli and server imports (the same walk CI runs in an unlocked venv)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import deadlines, fresh_install
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


def test_the_fresh_install_guard_runs_as_a_script_outside_the_repository(tmp_path: Path) -> None:
    """CI runs it from a temporary folder, where only the installed paor is importable and `tests` is not."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, fresh_install.__file__],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS_S,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "0 import failures, doctor exit 0" in done.stdout
