"""The installed `paor` console script as a real process: a real Ctrl-C (SIGINT), once or twice, then `resume`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from tests.support import deadlines
from tests.support.scenarios import (
    CODE_PROMPT,
    DATA_PROMPT,
    FIRST_1000_PRIMES,
    PRIMES_PROMPT,
    ai_process,
    script_primes,
)
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM
from tests.support.terminal import default_signals


def start_paor(cwd: Path, base_url: str, *args: str) -> subprocess.Popen[str]:
    script = Path(sys.executable).with_name("paor")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "cli"]
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "PAOR_MODEL": "scripted", "PAOR_MAX_RETRIES": "0"}
    return subprocess.Popen(
        [*command, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )


DEADLINE_S = deadlines.PROCESS_S


class Stderr:
    """The lines a process writes to stderr, read as they come, so a test can wait for one of them."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        assert process.stderr is not None
        self._reader = threading.Thread(target=self._read, args=(process.stderr,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def wait_for(self, text: str, timeout_s: float = DEADLINE_S) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: any(text in line for line in self.lines), timeout_s):
                raise AssertionError(f"{text!r} never appeared on stderr:\n{''.join(self.lines)}")

    @property
    def text(self) -> str:
        self._reader.join(timeout=DEADLINE_S)
        return "".join(self.lines)


def test_sigint_during_step_2_exits_130_and_resume_prints_the_json_result(
    scripted_llm: ScriptedLLM, tmp_path: Path
) -> None:
    running: list[tuple[subprocess.Popen[str], Stderr]] = []
    sent = threading.Event()

    def ctrl_c_while_answering(request: RecordedRequest) -> str:
        if DATA_PROMPT in request.text and not sent.is_set():
            sent.set()
            process, stderr = running[0]
            process.send_signal(signal.SIGINT)  # the user presses Ctrl-C while step 2's tool call is in flight
            stderr.wait_for("press Ctrl-C again")  # paor has taken it: the answer arrives while it stops
        return ai_process(request)

    script_primes(scripted_llm, tool_answer=ctrl_c_while_answering)
    process = start_paor(tmp_path, scripted_llm.base_url, "run", PRIMES_PROMPT, "--thread", "sig", "--json")
    running.append((process, Stderr(process)))
    process.wait(timeout=DEADLINE_S)
    assert process.stdout is not None
    stdout, stderr = process.stdout.read(), running[0][1].text

    assert sent.is_set() and process.returncode == 130, stderr
    assert "interrupted; resume with: paor resume sig" in stderr and "Traceback" not in stderr
    assert json.loads(stdout) == {
        "thread": "sig",
        "status": "interrupted",
        "error": "interrupted; resume with: paor resume sig",
        "exit_code": 130,
    }

    resumed = start_paor(tmp_path, scripted_llm.base_url, "resume", "sig", "--json", "--out", "out")
    stdout, stderr = resumed.communicate(timeout=DEADLINE_S)

    assert resumed.returncode == 0, stderr
    assert "[r1 s1]" not in stderr and "\x1b[" not in stderr + stdout
    assert sum(CODE_PROMPT in r.text for r in scripted_llm.requests_for("text")) == 1  # step 1 was not redone
    payload = json.loads(stdout)
    assert payload["thread"] == "sig" and payload["status"] == "completed"
    written = Path(payload["deliverables"][0]["path"])
    assert written.parent == (tmp_path / "out" / "round-1").resolve()
    assert [int(n) for n in written.read_text().split(":", 1)[1].split(",")] == FIRST_1000_PRIMES


def test_ctrl_c_twice_exits_130_at_once_and_quietly_and_the_thread_resumes(
    scripted_llm: ScriptedLLM, tmp_path: Path
) -> None:
    running: list[tuple[subprocess.Popen[str], Stderr]] = []
    pressed = threading.Event()
    exited = threading.Event()

    def ctrl_c_twice_while_answering(request: RecordedRequest) -> str:
        if DATA_PROMPT in request.text and not pressed.is_set():
            pressed.set()
            process, stderr = running[0]
            process.send_signal(signal.SIGINT)  # the first press waits for this very answer ...
            stderr.wait_for("press Ctrl-C again")
            process.send_signal(signal.SIGINT)  # ... which the impatient second press does not
            exited.wait(DEADLINE_S)  # the answer is held until paor has exited: it must not wait for it
        return ai_process(request)

    script_primes(scripted_llm, tool_answer=ctrl_c_twice_while_answering)
    process = start_paor(tmp_path, scripted_llm.base_url, "run", PRIMES_PROMPT, "--thread", "twice")
    running.append((process, Stderr(process)))
    try:
        process.wait(timeout=DEADLINE_S)
    finally:
        exited.set()
    stderr = running[0][1].text

    assert pressed.is_set() and process.returncode == 130, stderr
    assert stderr.count("interrupted; resume with: paor resume twice") == 1
    assert "Traceback" not in stderr and "RuntimeError" not in stderr, stderr

    resumed = start_paor(tmp_path, scripted_llm.base_url, "resume", "twice", "--json")
    stdout, stderr = resumed.communicate(timeout=DEADLINE_S)

    assert resumed.returncode == 0, stderr
    assert json.loads(stdout)["status"] == "completed"
    assert sum(CODE_PROMPT in r.text for r in scripted_llm.requests_for("text")) == 1  # step 1 was kept
    assert sum(DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")) == 2  # the dropped step ran again
