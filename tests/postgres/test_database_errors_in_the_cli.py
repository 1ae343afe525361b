"""What a user sees when PostgreSQL refuses the login (a configuration error, exit 2) or goes away mid-run (try
again later, exit 75): paor's own line on stderr, never a library's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner, Result

from cli.app import app
from core.errors import ConfigurationError
from core.persistence import locked_persistence
from tests.postgres.conftest import REPO, OwnServer, PasswordLogin, RestartDuringStep2
from tests.support import deadlines
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


@pytest.fixture
def cli(scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("OPENAI_BASE_URL", scripted_llm.base_url)
    monkeypatch.setenv("PAOR_MODEL", "scripted")
    monkeypatch.setenv("PAOR_MAX_RETRIES", "0")
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def invoke(runner: CliRunner, *args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def paor_process(llm: ScriptedLLM, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`paor ARGS` as a real process: under pytest, library warnings go to pytest's log capture, not stderr."""
    env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "PAOR_MODEL": "scripted", "PAOR_MAX_RETRIES": "0"}
    command = [sys.executable, "-m", "cli", *args]
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=deadlines.PROCESS_S)


def test_a_wrong_password_is_a_configuration_error_exit_2_in_one_line(
    cli: CliRunner, password_login: PasswordLogin, scripted_llm: ScriptedLLM
) -> None:
    script_primes(scripted_llm)
    for args in (["run", PRIMES_PROMPT, "--thread", "t"], ["resume", "t"], ["history", "t"], ["strategies"]):
        result = invoke(cli, *args, "--db", password_login.wrong)
        assert result.exit_code == 2, (args, result.stderr)
        [line] = result.stderr.splitlines()
        assert line.startswith("paor: the database postgresql://") and "refused the login" in line, line
        assert "password authentication failed" in line and "PAOR_DATABASE_URL" in line
        assert str(urlsplit(password_login.wrong).password) not in result.output  # the password is never shown
    assert not scripted_llm.requests  # nothing was run
    # And in a real process, where Python would print any library warning on stderr:
    done = paor_process(scripted_llm, Path.cwd(), "run", PRIMES_PROMPT, "--db", password_login.wrong)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    with pytest.raises(ConfigurationError, match="refused the login"), locked_persistence("t", password_login.wrong):
        pass
    # The same role with its password works: it was the password, not the set-up.
    assert invoke(cli, "strategies", "--db", password_login.right).exit_code == 0


def test_a_database_lost_mid_run_ends_with_paors_line_and_no_library_noise(
    scripted_llm: ScriptedLLM, own_server: OwnServer, tmp_path: Path
) -> None:
    restart = RestartDuringStep2(own_server.pg_ctl)
    script_primes(scripted_llm, tool_answer=restart)
    done = paor_process(scripted_llm, tmp_path, "run", PRIMES_PROMPT, "--thread", "lost", "--db", own_server.url)
    assert restart.done.is_set()
    assert done.returncode == 75, done.stderr
    lines = done.stderr.splitlines()
    assert lines[-1].startswith("paor: the database") and "paor resume lost" in lines[-1], done.stderr
    assert [line for line in lines if "psycopg" in line or "error ignored" in line] == []
