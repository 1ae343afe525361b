"""`paor history` and `paor strategies` after the primes run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def test_history_lists_the_steps_newest_first_with_outcome_quality_and_summary(
    scripted_llm: ScriptedLLM, paor: Invoke
) -> None:
    script_primes(scripted_llm)
    assert paor("run", PRIMES_PROMPT, "--thread", "h").exit_code == 0

    result = paor("history", "h")

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "thread h: 2 steps, newest first"
    newest, oldest = lines[1:3]
    assert newest.startswith("r1 s2  ai.process  round1_task1_action2_process  ✓ quality 1.00")
    assert "criteria met" in newest
    assert oldest.startswith("r1 s1  ai.process  round1_task1_action1_process  ✗ quality 0.20")
    assert "delivered code, not numbers" in oldest


def test_history_of_an_unknown_thread_exits_2(paor: Invoke) -> None:
    result = paor("history", "nope")

    assert result.exit_code == 2
    assert "unknown thread 'nope'" in result.stderr


def test_strategies_show_what_was_learned(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)
    assert paor("run", PRIMES_PROMPT).exit_code == 0

    result = paor("strategies")

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("numbers-raw_data-prime  success 50% (1/2 attempts)")
    assert "successful action: ai.process" in out
    assert "prompt style: aiPrompt" in out and "directly as comma-separated numbers" in out
    assert "avoid: ai.process" in out and "delivered code" in out

    assert "numbers-raw_data-prime" in paor("strategies", "--pattern", "prime").stdout
    assert paor("strategies", "--pattern", "report").stdout.strip() == "no strategies learned yet for 'report'"


def test_strategies_before_any_run_creates_no_database(paor: Invoke, isolated_home: Path) -> None:
    result = paor("strategies")

    assert result.exit_code == 0
    assert result.stdout.strip() == "no strategies learned yet"
    assert not (isolated_home / "paor.sqlite").exists()


def test_strategies_show_the_note_direct_answers_learned(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    request = "Fasse die wichtigsten Vorteile von Heimspeichern für Solarstrom in einem kurzen Absatz zusammen."
    english = (
        "Home batteries store the surplus solar power of the day for the evening, which raises self-consumption "
        "and lowers the bill; they keep essential devices running during outages and ease the grid at peak times."
    )
    german = (
        "Heimspeicher speichern den überschüssigen Solarstrom des Tages für den Abend. Dadurch steigt der "
        "Eigenverbrauch, die Stromrechnung sinkt und wichtige Geräte laufen bei einem Stromausfall weiter."
    )
    scripted_llm.on("text", lambda r: german if "language 'de'" in r.text else english)
    assert paor("run", request).exit_code == 0

    out = paor("strategies").stdout
    assert "direct answers in 'de': the first call adds \"Write the deliverable in language 'de'.\"" in out


def test_endpoints_show_what_paor_remembers_and_reset_forgets_it(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: what one run learned of the endpoint holds for every later run and client; an operator can see it
    and take it back. A temperature the endpoint would refuse is refused before anything is sent."""
    monkeypatch.setenv("PAOR_TEMPERATURE", "5")
    refused = paor("run", "Name the three primary colours")
    assert refused.exit_code == 2 and "temperature 5 is outside 0–2" in refused.stderr
    assert scripted_llm.requests == []
    monkeypatch.delenv("PAOR_TEMPERATURE")
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llama:
        script_primes(llama)
        result = paor("run", PRIMES_PROMPT, "--base-url", llama.base_url)
        assert result.exit_code == 0, result.output
        endpoint = llama.base_url

    shown = paor("endpoints")
    assert shown.exit_code == 0, shown.output
    assert f"|{endpoint}" in shown.stdout and "refused json_schema ×" in shown.stdout

    assert "forgotten: " in paor("endpoints", "--reset").stdout
    assert paor("endpoints").stdout.strip() == "nothing remembered of any endpoint yet"
