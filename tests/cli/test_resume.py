"""`paor resume`: Ctrl-C leaves a resumable thread; resuming finishes it without redoing finished steps."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import tools.ai_process
from tests.cli.conftest import Invoke
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def ctrl_c_when_asked(monkeypatch: pytest.MonkeyPatch, prompt: str) -> Callable[..., str]:
    """Make the ai.process tool raise KeyboardInterrupt (as Ctrl-C would) when its task holds `prompt`."""
    real_ask = tools.ai_process._ask

    def ask(*args: object, **kwargs: object) -> str:
        if prompt in str(args[1]):
            raise KeyboardInterrupt
        return real_ask(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tools.ai_process, "_ask", ask)
    return real_ask


def test_ctrl_c_exits_130_and_resume_completes_without_redoing_step_1(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_primes(scripted_llm)
    real_ask = ctrl_c_when_asked(monkeypatch, DATA_PROMPT)  # Ctrl-C during step 2's action

    interrupted = paor("run", PRIMES_PROMPT, "--thread", "ctrl-c")

    assert interrupted.exit_code == 130, interrupted.output
    assert "interrupted; resume with: paor resume ctrl-c" in interrupted.stderr
    assert "Traceback" not in interrupted.output

    monkeypatch.setattr(tools.ai_process, "_ask", real_ask)
    resumed = paor("resume", "ctrl-c")

    assert resumed.exit_code == 0, resumed.output
    assert "[r1 s1]" not in resumed.stderr  # step 1 is not shown again because it is not run again
    assert "[r1 s2] act" in resumed.stderr and "finalize   completed" in resumed.stderr
    asked_data = [DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")]
    assert asked_data == [False, True]  # the code prompt once (step 1), the data prompt once (resumed step 2)
    assert "Here are the first 1000 prime numbers" in resumed.stdout


def test_resume_keeps_the_options_the_run_was_started_with(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_primes(scripted_llm)
    real_ask = ctrl_c_when_asked(monkeypatch, CODE_PROMPT)  # Ctrl-C during step 1's action
    assert paor("run", PRIMES_PROMPT, "--thread", "one-step", "--max-steps", "1").exit_code == 130

    monkeypatch.setattr(tools.ai_process, "_ask", real_ask)
    resumed = paor("resume", "one-step", "--json")

    assert resumed.exit_code == 1, resumed.output  # still --max-steps 1: stops after the code answer
    assert '"status": "incomplete"' in resumed.stdout


def test_resuming_a_finished_thread_says_so_and_exits_per_its_status(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)
    assert paor("run", PRIMES_PROMPT, "--thread", "done").exit_code == 0
    calls = len(scripted_llm.requests)

    result = paor("resume", "done")

    assert result.exit_code == 0, result.output
    assert "thread done already finished (completed); nothing to resume" in result.stderr
    assert len(scripted_llm.requests) == calls


def test_resuming_an_unknown_thread_exits_2(paor: Invoke) -> None:
    result = paor("resume", "no-such-thread")

    assert result.exit_code == 2
    assert "unknown thread 'no-such-thread'" in result.stderr


def test_a_new_prompt_on_an_interrupted_thread_points_to_resume(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_primes(scripted_llm)
    ctrl_c_when_asked(monkeypatch, DATA_PROMPT)
    assert paor("run", PRIMES_PROMPT, "--thread", "busy").exit_code == 130

    result = paor("run", "something else", "--thread", "busy")

    assert result.exit_code == 2
    assert "continue it with: paor resume busy" in result.stderr
