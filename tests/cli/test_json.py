"""`--json` puts exactly one JSON document on stdout for every outcome, also when the run cannot start: its
`status`, the one-line `error` and the `exit_code`, so a script never has to parse stderr."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.thread_lock import thread_lock
from tests.cli.conftest import Invoke
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def only_json(stdout: str) -> dict[str, Any]:
    document = json.loads(stdout)  # raises if stdout holds anything else
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["run", "   ", "--thread", "t"], "the prompt is empty"),
        (["run", PRIMES_PROMPT, "--thread", "t", "--doc", "missing.pdf"], "'missing.pdf' does not exist"),
        (["run", PRIMES_PROMPT, "--thread", "t", "--base-url", "127.0.0.1:9/v1"], "--base-url is not an http(s) URL"),
        (["resume", "t"], "unknown thread 't'"),
    ],
    ids=["empty-prompt", "missing-doc", "not-a-url", "unknown-thread"],
)
def test_a_run_that_cannot_start_prints_its_error_as_json(
    scripted_llm: ScriptedLLM, paor: Invoke, args: list[str], error: str
) -> None:
    script_primes(scripted_llm)

    result = paor(*args, "--json")

    assert result.exit_code == 2, result.output
    document = only_json(result.stdout)
    assert document["status"] == "error" and document["exit_code"] == 2 and document["thread"] == "t"
    assert error in document["error"] and "\n" not in document["error"]
    assert document["error"] in result.stderr  # the same line as without --json


def test_an_unreachable_endpoint_is_unavailable_with_exit_75_and_how_to_resume(
    scripted_llm: ScriptedLLM, paor: Invoke
) -> None:
    result = paor("run", PRIMES_PROMPT, "--thread", "t", "--base-url", "http://127.0.0.1:9/v1", "--json")

    assert result.exit_code == 75, result.output
    document = only_json(result.stdout)
    assert (document["status"], document["exit_code"], document["thread"]) == ("unavailable", 75, "t")
    assert "http://127.0.0.1:9/v1 refused the connection" in document["error"]
    assert document["error"].endswith("then `paor resume t`") and document["error"] in result.stderr


def test_a_thread_another_worker_runs_is_unavailable_with_exit_75(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    with thread_lock(None, "busy"):
        result = paor("run", PRIMES_PROMPT, "--thread", "busy", "--json")

    assert result.exit_code == 75, result.output
    document = only_json(result.stdout)
    assert (document["status"], document["exit_code"]) == ("unavailable", 75)
    assert "being run by another worker" in document["error"]


def test_a_run_waiting_for_an_answer_says_so_with_exit_3(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)

    result = paor("run", PRIMES_PROMPT, "--thread", "w", "--approve", "always", "--json")

    assert result.exit_code == 3, result.output
    document = only_json(result.stdout)
    assert (document["status"], document["exit_code"], document["thread"]) == ("waiting", 3, "w")
    assert document["interrupt"]["kind"] == "approve"


def test_every_finished_run_carries_its_exit_code(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)

    stopped = paor("run", PRIMES_PROMPT, "--max-steps", "1", "--json")

    assert stopped.exit_code == 1
    assert (only_json(stopped.stdout)["status"], only_json(stopped.stdout)["exit_code"]) == ("incomplete", 1)
