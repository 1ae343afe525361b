"""Parsing an upload cannot take the host. Through a real run, a decompression bomb under the zip checks (~190 MB
of XML at ~80:1 in a few MB) fails its document.extract step with a typed reason while the process running the
graph grows by well under 1.5 GB, no parse is left running and the parse server is idle right after; the CLI
exits promptly when interrupted in the middle of such a parse."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.context import Context
from core.errors import DocumentRejected
from nodes import act
from tests.reliability.conftest import DIRECT_SELECTION, invoke, script_direct
from tests.support import deadlines
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.documents.bombs import (
    GB,
    children_of,
    docx_bomb,
    peak_rss_growth,
    server_children,
    state_of,
    wait_gone,
    wait_idle,
    xlsx_bomb,
)
from tools.document import confine, limits, parsing
from tools.document.frames import send_frame

REPO = Path(__file__).resolve().parents[2]
PROMPT = "Extract the text of this document"
EXTRACT = {
    "Intent": [json.dumps({"dataType": "text", "expectedFormat": "markdown", "successCriteria": ["the text"]})],
    "ActionSelection": [
        {
            **DIRECT_SELECTION,
            "action": "document.extract",
            "actionObjective": "Extract the text of the input document",
            "requiredInputDocuments": ["docList:input"],
            "parametersSchema": {"fields": []},
        }
    ],
    "ParametersAnswer": [{"schema": "parameters_v1", "parameters": {}}],
}


@pytest.mark.parametrize(
    ("name", "bomb", "memory_mb", "tool_timeout_s", "reason"),
    [
        ("bomb.docx", docx_bomb, 384, 120.0, "bomb.docx needs more than 384 MB of memory to read"),
        ("bomb.xlsx", xlsx_bomb, 1024, 4.0, "bomb.xlsx took longer than 3.0s to read and was stopped"),
    ],
    ids=["docx-at-the-memory-limit", "xlsx-at-the-deadline"],
)
def test_a_bomb_fails_its_step_and_the_run_stays_bounded(
    scripted_llm: ScriptedLLM,
    rctx: Context,
    graph: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    bomb: Callable[[], bytes],
    memory_mb: int,
    tool_timeout_s: float,
    reason: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(bomb())
    monkeypatch.setattr(limits, "PARSE_MEMORY_MB", memory_mb)
    # The parse must stop at its own deadline (a second before tool_timeout_s) and say why. The step's timeout,
    # one second later, would race it on a loaded machine: it waits here only to catch a hang (tested apart).
    step_timeout = act.run_with_timeout
    monkeypatch.setattr(act, "run_with_timeout", lambda call, _timeout_s: step_timeout(call, deadlines.PROCESS_S))
    script_direct(scripted_llm, **EXTRACT)
    with peak_rss_growth() as grown:
        out = invoke(graph, replace(rctx, tool_timeout_s=tool_timeout_s), "bomb", prompt=PROMPT, documents=[str(path)])
    first = out["history"][0]
    assert first["action"] == "document.extract" and first["outcome"] == "failed"
    assert "no document could be read" in first["findings"][0] and reason in first["findings"][0]
    assert grown[0] < 1.5 * GB
    assert server_children() == []
    wait_idle(parsing.server_pid() or 0)


def test_the_cli_exits_promptly_in_the_middle_of_a_parse(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.xlsx"
    bomb.write_bytes(xlsx_bomb())  # read for minutes: CPU-bound, under the memory limit for a long while
    script_direct(scripted_llm, **EXTRACT)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OPENAI_BASE_URL": scripted_llm.base_url,
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        "PAOR_HOME": str(isolated_home),
    }
    cli = subprocess.Popen(
        [sys.executable, "-m", "cli", "run", PROMPT, "--doc", str(bomb)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        server, child = _parse_under_way(cli)
        os.kill(cli.pid, signal.SIGINT)  # Ctrl-C
        assert cli.wait(timeout=deadlines.PROCESS_S) == 130
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.stderr is not None and "interrupted; resume with" in cli.stderr.read().decode()
    wait_gone(child)
    wait_gone(server)


def test_a_parse_child_dies_with_its_server_after_giving_up_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server gone (killed by Ctrl-C, or by the OOM killer), its child goes: also a child that became nobody,
    which cleared the parent-death signal it had set as root, and one waiting for its document, which uses no CPU
    time, so no limit of its own ever ends it."""
    hold = threading.Event()

    def held(sock: Any, payload: bytes) -> None:
        hold.wait()  # the document does not come until the test says so
        send_frame(sock, payload)

    monkeypatch.setattr(parsing, "send_frame", held)
    outcome: list[BaseException] = []

    def parse() -> None:
        try:
            parsing.read_document(b"held", "held.txt", timeout_s=2 * deadlines.PROCESS_S)
        except DocumentRejected as exc:
            outcome.append(exc)

    worker = threading.Thread(target=parse, daemon=True)
    worker.start()
    child = 0
    try:
        assert deadlines.wait_until(lambda: bool(parsing.server_pid() and server_children())), "no parse child"
        server = parsing.server_pid() or 0
        child = server_children()[0]
        assert deadlines.wait_until(lambda: _confined(child)), "the parse child did not confine itself"
        os.kill(server, signal.SIGKILL)
        wait_gone(child)
        wait_gone(server)
    finally:
        if child and state_of(child) not in (None, "Z", "X"):
            os.kill(child, signal.SIGKILL)  # a child that outlived its server would wait for ever
        hold.set()
        worker.join(deadlines.PROCESS_S)
    assert outcome, "the read ended as the child did, rejected"


def _confined(pid: int) -> bool:
    """The child went through its whole confinement (its user, then its capabilities, are the last it gives up)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        processes = [line for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if "Max processes" in line]
    except OSError:
        return False
    return "CapEff:\t0000000000000000" in status and processes[0].split()[2] == str(confine.PROCESSES)


def _parse_under_way(cli: subprocess.Popen[bytes], within_s: float = deadlines.PROCESS_S) -> tuple[int, int]:
    """(parse server, its parse child) of the CLI, once a parse has started."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        assert cli.poll() is None, "the CLI ended before any parse started"
        for pid in children_of(cli.pid):
            if b"parse_server" in Path(f"/proc/{pid}/cmdline").read_bytes():
                parses = [child for child in children_of(pid) if state_of(child) not in (None, "Z")]
                if parses:
                    return pid, parses[0]
        time.sleep(0.05)
    raise AssertionError("no parse started in a child process")
