"""The CLI runs in-process against the scripted model, in a fresh PAOR_HOME and working directory per test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.app import app
from tests.support.scripted_llm import ScriptedLLM

Invoke = Callable[..., Result]


@pytest.fixture
def cli_env(scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Point the CLI at the scripted endpoint; returns the working directory it runs in."""
    monkeypatch.setenv("OPENAI_BASE_URL", scripted_llm.base_url)
    monkeypatch.setenv("PAOR_MODEL", "scripted")
    monkeypatch.setenv("PAOR_MAX_RETRIES", "0")
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    return workdir


@pytest.fixture
def paor(cli_env: Path) -> Invoke:
    """`paor(*args, stdin=…)` runs one CLI command; stdout and stderr stay separate (`result.stdout`,
    `result.stderr`)."""
    runner = CliRunner()

    def invoke(*args: str, stdin: str | bytes | None = None) -> Result:
        result = runner.invoke(app, list(args), input=stdin)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # an unexpected crash: show its traceback, not just a wrong exit code
        return result

    return invoke
