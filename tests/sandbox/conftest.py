"""Tight limits so hostile programs are stopped within seconds, and a canary secret in paor's environment."""

from __future__ import annotations

import pytest

from tests.support import deadlines
from tools.code.limits import Limits

#: Small enough that a fork bomb, a loop or a flood ends fast; large enough for Python plus sympy. The wall time
#: only bounds a hang: a loaded machine may take seconds to start the sandbox and Python, and a program that must
#: finish would otherwise be killed for it. CPU time, memory, files and processes stop hostile programs.
TIGHT = Limits(cpu_s=1, wall_s=deadlines.PROCESS_S, memory_mb=512, file_mb=4, folder_mb=16, open_files=32, processes=4)
#: For the one program the wall-time limit itself must stop: it sleeps far longer than this.
SHORT_WALL_S = 2.5


@pytest.fixture
def canary(monkeypatch: pytest.MonkeyPatch) -> str:
    """A secret in paor's own environment that no program may see."""
    value = "sk-canary-7f3a9c"
    monkeypatch.setenv("OPENAI_API_KEY", value)
    monkeypatch.setenv("PAOR_CANARY", value)
    return value
