"""Checked before the first request: the folders and database paor writes, the keys it sends and the endpoints it
calls. A problem is one line naming the setting and the path or variable, exit 2, never a traceback; `paor doctor`
reports the same problems."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from core.persistence import open_persistence
from tests.cli.conftest import Invoke
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

MakeReadOnly = Callable[[Path], None]


def refused(result: object, scripted_llm: ScriptedLLM) -> str:
    """The one error line of a run that stopped before its first request."""
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    assert scripted_llm.requests == []
    [line] = [line for line in result.stderr.splitlines() if line.startswith("paor:")]  # type: ignore[attr-defined]
    return line


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    """A plain file where a folder would have to be created."""
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return path


# --- folders and the database -----------------------------------------------------------------------------------


def test_a_paor_home_that_cannot_be_created_exits_2_naming_it(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch, a_file: Path
) -> None:
    monkeypatch.setenv("PAOR_HOME", str(a_file / "home"))

    line = refused(paor("run", PRIMES_PROMPT), scripted_llm)

    assert f"PAOR_HOME {a_file / 'home'} cannot be created: {a_file} is a file" in line
    doctor = paor("doctor")
    assert doctor.exit_code == 2 and "ready" not in doctor.stdout
    assert f"✗ PAOR_HOME {a_file / 'home'} cannot be created" in doctor.stdout


def test_a_paor_home_nobody_may_write_exits_2_and_doctor_says_so(
    scripted_llm: ScriptedLLM, paor: Invoke, isolated_home: Path, make_read_only: MakeReadOnly
) -> None:
    with open_persistence():  # an existing database, in a folder that then becomes read-only
        pass
    make_read_only(isolated_home)

    line = refused(paor("run", PRIMES_PROMPT), scripted_llm)

    assert f"PAOR_HOME {isolated_home} is not writable (permission denied)" in line
    doctor = paor("doctor")
    assert doctor.exit_code == 2 and f"✗ PAOR_HOME {isolated_home} is not writable" in doctor.stdout
    assert "not a usable SQLite database" not in doctor.stdout


def test_a_read_only_database_is_reported_as_read_only(
    scripted_llm: ScriptedLLM, paor: Invoke, isolated_home: Path, make_read_only: MakeReadOnly
) -> None:
    database = isolated_home / "paor.sqlite"
    with open_persistence():
        pass
    make_read_only(database)

    line = refused(paor("run", PRIMES_PROMPT), scripted_llm)

    assert f"the database {database} (PAOR_HOME) is read-only (permission denied)" in line
    doctor = paor("doctor")
    assert doctor.exit_code == 2 and f"✗ the database {database} (PAOR_HOME) is read-only" in doctor.stdout
    assert "not a usable SQLite database" not in doctor.output


def test_a_db_whose_folder_cannot_be_created_exits_2_naming_db(
    scripted_llm: ScriptedLLM, paor: Invoke, a_file: Path
) -> None:
    line = refused(paor("run", PRIMES_PROMPT, "--db", str(a_file / "paor.sqlite")), scripted_llm)

    assert f"the database {a_file / 'paor.sqlite'} (--db) cannot be written" in line
    assert f"{a_file} is a file" in line


def test_an_out_folder_that_cannot_be_created_is_refused_before_the_run_not_after_it(
    scripted_llm: ScriptedLLM, paor: Invoke, a_file: Path
) -> None:
    script_primes(scripted_llm)

    line = refused(paor("run", PRIMES_PROMPT, "--out", str(a_file / "out")), scripted_llm)

    assert f"the output folder {a_file / 'out'} cannot be created: {a_file} is a file" in line


# --- keys and endpoints -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("sk-…", "'…' (U+2026, horizontal ellipsis) at character 4"),
        ("sk-abc def", "U+0020 (space) at character 7"),
        ("sk-abc\n", "U+000A (a control character) at character 7"),
        ("sk-schlüssel", "'ü' (U+00FC, latin small letter u with diaeresis) at character 8"),
    ],
    ids=["ellipsis", "space", "newline", "non-ascii"],
)
def test_a_key_that_cannot_be_a_key_exits_2_naming_the_variable_before_any_request(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch, key: str, shown: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)

    result = paor("run", PRIMES_PROMPT)

    line = refused(result, scripted_llm)
    assert f"OPENAI_API_KEY contains {shown}" in line and "set OPENAI_API_KEY to the key itself" in line
    assert key.strip() not in result.output


def test_a_broken_tavily_key_is_named_too(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-…")

    assert "TAVILY_API_KEY contains '…'" in refused(paor("run", PRIMES_PROMPT), scripted_llm)


@pytest.mark.parametrize(
    ("variable", "value", "args", "flaw"),
    [
        ("OPENAI_BASE_URL", "localhost:8080/v1", [], "no http:// or https:// at its start"),
        ("PAOR_BASE_URL", "http:///v1", [], "no host"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:99999/v1", [], "Port out of range"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1 ", [], "it contains whitespace"),
        ("TAVILY_BASE_URL", "api.tavily.com", [], "no http:// or https:// at its start"),
        ("--base-url", "", ["--base-url", "ftp://127.0.0.1/v1"], "no http:// or https:// at its start"),
    ],
    ids=["no-scheme", "no-host", "bad-port", "whitespace", "tavily", "option"],
)
def test_an_endpoint_that_is_not_a_url_exits_2_naming_where_it_came_from(
    scripted_llm: ScriptedLLM,
    paor: Invoke,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    args: list[str],
    flaw: str,
) -> None:
    if value:
        monkeypatch.delenv("OPENAI_BASE_URL")
        monkeypatch.setenv(variable, value)
        if variable == "TAVILY_BASE_URL":
            monkeypatch.setenv("OPENAI_BASE_URL", scripted_llm.base_url)

    line = refused(paor("run", PRIMES_PROMPT, *args), scripted_llm)

    assert f"{variable} is not an http(s) URL ({flaw}" in line


def test_doctor_names_a_broken_key_without_probing_with_it_or_printing_it(
    paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-SECRETPART…")

    result = paor("doctor")

    assert result.exit_code == 2, result.output
    assert "OPENAI_API_KEY  set, but not a usable key" in result.stdout
    assert "endpoint        not probed" in result.stdout
    assert "✗ OPENAI_API_KEY contains '…'" in result.stdout
    assert "SECRETPART" not in result.output and "Traceback" not in result.output
