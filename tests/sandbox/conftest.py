"""Tight limits so hostile programs are stopped within seconds, and a canary secret in paor's environment."""

from __future__ import annotations

import pytest

from tools.code.limits import Limits

#: Small enough that a fork bomb, a loop or a flood ends fast; large enough for Python plus sympy.
TIGHT = Limits(cpu_s=1, wall_s=2.5, memory_mb=512, file_mb=4, folder_mb=16, open_files=32, processes=4)


@pytest.fixture
def canary(monkeypatch: pytest.MonkeyPatch) -> str:
    """A secret in paor's own environment that no program may see."""
    value = "sk-canary-7f3a9c"
    monkeypatch.setenv("OPENAI_API_KEY", value)
    monkeypatch.setenv("PAOR_CANARY", value)
    return value
