"""The suite takes nothing from the caller's environment: every variable the code reads is one the suite's
`pytest_configure` removes (tests/conftest.py), so a shell set up as README says runs the suite the same."""

from __future__ import annotations

import os
import re
from dataclasses import fields
from pathlib import Path

from core.context import _ENV_ALIASES, Context
from tests.conftest import CALLER_SETTINGS, scrub_caller_settings

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "graph", "nodes", "tools", "prompts", "cli", "server")
#: `os.environ.get("X")`, `os.environ["X"]`, `os.getenv("X")`, `"X" not in os.environ`, and constants named *_ENV
#: or *_VARIABLE that hold a variable's name.
READS = re.compile(
    r"""environ(?:\.get)?[\[(]\s*f?["']([A-Z][A-Z0-9_{}.()]+)["']"""
    r"""|getenv\(\s*["']([A-Z][A-Z0-9_]+)["']"""
    r"""|["']([A-Z][A-Z0-9_]+)["']\s+(?:not\s+)?in\s+os\.environ"""
    r"""|^[A-Z_]*(?:_ENV|_VARIABLE)\s*=\s*["']([A-Z][A-Z0-9_]+)["']""",
    re.MULTILINE,
)
#: Read, but harmless to inherit: where tiktoken caches its encodings; the server's jobs, which size thread pools only.
HARMLESS = {"TIKTOKEN_CACHE_DIR", "N_JOBS_PER_WORKER"}


def variables_the_code_reads() -> set[str]:
    found: set[str] = set()
    for package in PACKAGES:
        for source in (REPO / package).rglob("*.py"):
            for match in READS.finditer(source.read_text(encoding="utf-8")):
                found.add(next(group for group in match.groups() if group))
    for field in fields(Context):  # Context fills each field from the environment
        found.update(_ENV_ALIASES.get(field.name, (f"PAOR_{field.name.upper()}",)))
    return found


def test_every_variable_the_code_reads_is_removed_before_the_tests_run() -> None:
    read = variables_the_code_reads()

    assert {"OPENAI_API_KEY", "OPENAI_BASE_URL", "PAOR_HOME", "PAOR_DB", "TAVILY_BASE_URL", "PAOR_MODEL"} <= read
    assert {"PAOR_SERVER_API_KEY", "PAOR_CODE_EXECUTION"} <= read  # named through a constant
    assert sorted(name for name in read - HARMLESS if not name.startswith(CALLER_SETTINGS)) == []


def test_the_callers_settings_are_gone_and_the_suites_own_stay() -> None:
    env = {
        "OPENAI_API_KEY": "sk-…",
        "PAOR_HOME": "/nonexistent",
        "TAVILY_BASE_URL": "x",
        "LANGSMITH_TRACING": "true",
        "PAOR_TEST_DATABASE_URL": "postgresql://localhost/test",
        "PAOR_CHROMIUM": "/usr/bin/chromium",
        "NO_PROXY": "intranet.example",
        "PATH": "/usr/bin",
    }

    scrub_caller_settings(env)

    assert env == {
        "PAOR_TEST_DATABASE_URL": "postgresql://localhost/test",
        "PAOR_CHROMIUM": "/usr/bin/chromium",
        "NO_PROXY": "intranet.example,127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
        "PATH": "/usr/bin",
    }


def test_this_process_runs_without_the_callers_settings() -> None:
    inherited = {name for name in os.environ if name.startswith(CALLER_SETTINGS)}
    assert inherited <= {"PAOR_HOME", "OPENAI_API_KEY"} | {n for n in inherited if n.startswith("PAOR_TEST_")}
    assert os.environ["PAOR_HOME"].endswith("paor-home")  # the test's own (isolated_home)
