"""The prompt from stdin (`paor run -`) or a file (`--prompt-file`), for prompts too long for a command line; one
that is refused is refused before anything is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from nodes.intent import MAX_PROMPT_CHARS
from tests.cli.conftest import Invoke
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def error_line(stderr: str) -> str:
    [line] = [line for line in stderr.splitlines() if line.startswith("paor:")]
    return line


def asked_intent_for(scripted_llm: ScriptedLLM) -> str:
    [intent] = scripted_llm.requests_for("Intent")
    return intent.text


def test_a_dash_reads_the_prompt_from_stdin(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)

    result = paor("run", "-", "--json", stdin=f"{PRIMES_PROMPT}\n")

    assert result.exit_code == 0, result.output
    assert PRIMES_PROMPT in asked_intent_for(scripted_llm)
    assert '"request": "-"' not in asked_intent_for(scripted_llm)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig"])
def test_prompt_file_reads_the_prompt_from_a_utf8_file(
    scripted_llm: ScriptedLLM, paor: Invoke, cli_env: Path, encoding: str
) -> None:
    script_primes(scripted_llm)
    (cli_env / "prompt.txt").write_text(f"{PRIMES_PROMPT} — bitte\n", encoding=encoding)

    result = paor("run", "--prompt-file", "prompt.txt", "--json")

    assert result.exit_code == 0, result.output
    assert f"{PRIMES_PROMPT} — bitte" in asked_intent_for(scripted_llm)
    assert "\ufeff" not in asked_intent_for(scripted_llm)


def test_prompt_file_dash_is_stdin(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)

    assert paor("run", "--prompt-file", "-", "--json", stdin=PRIMES_PROMPT).exit_code == 0
    assert PRIMES_PROMPT in asked_intent_for(scripted_llm)


@pytest.mark.parametrize(
    ("args", "stdin", "reason"),
    [
        (["run"], None, "no prompt: give it as an argument, `-` to read it from stdin, or --prompt-file FILE"),
        (["run", PRIMES_PROMPT, "--prompt-file", "p.txt"], None, "not both"),
        (["run", "--prompt-file", "missing.txt"], None, "--prompt-file missing.txt: no such file or directory"),
        (["run", "--prompt-file", "."], None, "--prompt-file .: is a directory"),
        (["run", "-"], b"caf\xe9 au lait", "the prompt on stdin is not UTF-8 text (byte 4)"),
        (["run", "-"], "  \n", "the prompt is empty"),
    ],
    ids=["none", "both", "missing-file", "folder", "not-utf8", "empty-stdin"],
)
def test_a_prompt_that_cannot_be_read_exits_2_with_one_line(
    scripted_llm: ScriptedLLM, paor: Invoke, args: list[str], stdin: str | bytes | None, reason: str
) -> None:
    result = paor(*args, stdin=stdin)

    assert result.exit_code == 2, result.output
    assert reason in error_line(result.stderr)
    assert "Traceback" not in result.output and scripted_llm.requests == []


@pytest.mark.parametrize(
    ("size", "reason"),
    [
        (2_000_000, f"the prompt has more than {MAX_PROMPT_CHARS} characters"),  # not even read in full
        (MAX_PROMPT_CHARS + 1, f"the prompt has {MAX_PROMPT_CHARS + 1} characters (limit {MAX_PROMPT_CHARS})"),
    ],
    ids=["2MB", "one-too-many"],
)
def test_an_oversized_prompt_is_refused_before_anything_is_stored(
    scripted_llm: ScriptedLLM, paor: Invoke, isolated_home: Path, cli_env: Path, size: int, reason: str
) -> None:
    result = paor("run", "-", "--thread", "big", stdin="x" * size)

    assert result.exit_code == 2, result.output
    assert reason in error_line(result.stderr)
    assert not isolated_home.exists()  # no database, no document store: nothing was written
    assert not (cli_env / "paor-out").exists() and scripted_llm.requests == []
