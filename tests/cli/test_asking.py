"""The CLI and a run's questions: exit 3 with the resume command on a pipe, `--answer`, `--yes`, a TTY's prompts."""

from __future__ import annotations

import json

import pytest

import cli.driver
from tests.cli.conftest import Invoke
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def test_a_waiting_run_exits_3_with_the_resume_command_and_resume_answer_finishes_it(
    scripted_llm: ScriptedLLM, paor: Invoke
) -> None:
    script_primes(scripted_llm)

    waiting = paor("run", PRIMES_PROMPT, "--thread", "ask-1", "--approve", "always")

    assert waiting.exit_code == 3, waiting.output
    assert "answer with `paor resume ask-1 --answer …`" in waiting.stderr
    assert "approve ai.process" in waiting.stderr and "Traceback" not in waiting.output
    assert scripted_llm.requests_for("text") == []

    edited = json.dumps({"decision": "edit", "parameters": {"aiPrompt": DATA_PROMPT}})
    done = paor("resume", "ask-1", "--answer", edited)

    assert done.exit_code == 0, done.output
    assert "Here are the first 1000 prime numbers" in done.stdout
    assert [DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")] == [True]
    assert len(scripted_llm.requests_for("ActionSelection")) == 1  # the resume repeated no model request

    again = paor("resume", "ask-1", "--answer", "approve")
    assert again.exit_code == 2 and "not waiting for an answer" in again.stderr


def test_json_output_of_a_waiting_run_carries_the_interrupt_payload(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)

    waiting = paor("run", PRIMES_PROMPT, "--thread", "ask-json", "--approve", "always", "--json")

    assert waiting.exit_code == 3
    document = json.loads(waiting.stdout)
    assert document["status"] == "waiting" and document["thread"] == "ask-json"
    assert document["interrupt"]["kind"] == "approve" and document["interrupt"]["action"] == "ai.process"
    assert document["interrupt"]["parameters"]["aiPrompt"] == CODE_PROMPT


def test_yes_approves_every_action(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)

    done = paor("run", PRIMES_PROMPT, "--thread", "ask-yes", "--approve", "always", "--yes")

    assert done.exit_code == 0, done.output
    assert [DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")] == [False, True]


def test_a_rejected_action_is_never_asked_again_and_the_stop_names_the_rejection(
    scripted_llm: ScriptedLLM, paor: Invoke
) -> None:
    script_primes(scripted_llm)
    assert paor("run", PRIMES_PROMPT, "--thread", "ask-no", "--approve", "always").exit_code == 3

    done = paor("resume", "ask-no", "--answer", '{"decision": "reject", "reason": "not like this"}')

    # The scripted model keeps proposing the rejected action: Stage 1 is refused it, and the round stops at once
    # (exit 1, not 3: nothing is asked again), saying what the user rejected.
    assert done.exit_code == 1, done.output
    assert "ai.process → round1_task1_action1_process  rejected: not like this" in done.stderr
    assert "you rejected ai.process: “not like this”; no other allowed action can do this" in done.stderr
    assert "the user rejected ai.process in this round ('not like this')" in scripted_llm.requests[-1].text
    assert scripted_llm.requests_for("text") == []


def test_on_a_terminal_the_user_is_asked_with_prompts(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_primes(scripted_llm)
    monkeypatch.setattr(cli.driver, "_interactive", lambda: True)
    answers = iter(["edit", "not json", json.dumps({"aiPrompt": DATA_PROMPT})])
    monkeypatch.setattr("rich.prompt.Prompt.ask", lambda *a, **k: next(answers))

    done = paor("run", PRIMES_PROMPT, "--thread", "ask-tty", "--approve", "always")

    assert done.exit_code == 0, done.output
    assert "not JSON" in done.stderr
    assert [DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")] == [True]


def test_history_shows_the_question_asked_and_its_answer(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    from tests.e2e.test_clarify import AMBIGUOUS, _script

    _script(scripted_llm)
    waiting = paor("run", AMBIGUOUS, "--thread", "asked", "--ask")
    assert waiting.exit_code == 3, waiting.output
    paor("resume", "asked", "--answer", "about the first 1000 primes")
    shown = paor("history", "asked")
    assert "asked:" in shown.stdout and "answered: about the first 1000 primes" in shown.stdout
