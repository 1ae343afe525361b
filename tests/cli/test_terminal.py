"""The CLI on a real pseudo-terminal: a run asks before acting, the user types the answer; a run killed while it
waits for that answer resumes with `paor resume THREAD --answer …` and repeats no model request."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import deadlines
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

REPO = Path(__file__).resolve().parents[2]


def _spawn(args: list[str], env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`python -m cli ARGS` with stdin, stdout and stderr on a new pseudo-terminal; returns it and the master fd."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(slave)
    return process, master


def _read_until(master: int, marker: bytes, timeout_s: float = deadlines.PROCESS_S) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout_s
    while marker not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"{marker!r} never appeared; the terminal showed:\n{seen.decode(errors='replace')}")
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
    return seen


@pytest.fixture
def terminal_env(scripted_llm: ScriptedLLM, isolated_home: Path) -> dict[str, str]:
    script_primes(scripted_llm)
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OPENAI_BASE_URL": scripted_llm.base_url,
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        "PAOR_HOME": str(isolated_home),
        "TERM": "dumb",
    }


def test_an_approval_is_typed_at_the_terminal_and_the_run_goes_on(
    terminal_env: dict[str, str], scripted_llm: ScriptedLLM, tmp_path: Path
) -> None:
    process, master = _spawn(["run", PRIMES_PROMPT, "--thread", "tty", "--approve", "always"], terminal_env, tmp_path)
    try:
        for _ in range(2):  # the primes scenario takes two steps, each asked
            _read_until(master, b"approve, edit or reject?")
            os.write(master, b"approve\n")
        process.wait(timeout=deadlines.PROCESS_S)
    finally:
        os.close(master)
    assert process.returncode == 0
    assert len(scripted_llm.requests_for("text")) == 2  # each approved action ran once


def test_a_run_killed_while_waiting_for_an_answer_resumes_without_repeating_a_request(
    terminal_env: dict[str, str], scripted_llm: ScriptedLLM, tmp_path: Path
) -> None:
    process, master = _spawn(
        ["run", PRIMES_PROMPT, "--thread", "killed", "--approve", "always"], terminal_env, tmp_path
    )
    try:
        _read_until(master, b"approve, edit or reject?")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=deadlines.PROCESS_S)
    finally:
        os.close(master)
    asked_before = len(scripted_llm.requests)

    resumed = subprocess.run(
        [sys.executable, "-m", "cli", "resume", "killed", "--answer", "approve", "--yes"],
        env=terminal_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS_S,
        stdin=subprocess.DEVNULL,
    )

    assert resumed.returncode == 0, resumed.stderr
    requests = scripted_llm.requests
    assert [r.route for r in requests[:asked_before]] == ["Intent", "ActionSelection", "ParametersAnswer"]
    assert "Intent" not in [r.route for r in requests[asked_before:]]  # the analysis was not asked again
    assert requests[asked_before].route == "text"  # the approved action ran first, nothing before it
