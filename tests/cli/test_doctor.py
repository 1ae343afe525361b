"""`paor doctor`: configuration, keys as set/missing only, and whether the endpoint answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.scripted_llm import ScriptedLLM

FAKE_OPENAI_KEY = "sk-doctor-FAKEKEY-4242-visible"
FAKE_TAVILY_KEY = "tvly-doctor-FAKEKEY-9191"


def test_doctor_reports_a_reachable_endpoint_and_never_prints_the_keys(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_OPENAI_KEY)
    monkeypatch.setenv("TAVILY_API_KEY", FAKE_TAVILY_KEY)

    result = paor("doctor")

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "model           scripted" in out
    assert f"base URL        {scripted_llm.base_url}" in out
    assert f"PAOR_HOME       {isolated_home}" in out
    assert "OPENAI_API_KEY  set" in out and "TAVILY_API_KEY  set" in out
    assert "endpoint        reachable (HTTP 200)" in out
    for secret in (FAKE_OPENAI_KEY, FAKE_TAVILY_KEY, "FAKEKEY", "4242", "9191"):
        assert secret not in result.output


def test_doctor_exits_2_when_the_endpoint_is_unreachable(paor: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")

    result = paor("doctor")

    assert result.exit_code == 2, result.output
    assert "endpoint        unreachable" in result.stdout
    assert "TAVILY_API_KEY  missing" in result.stdout


def test_doctor_warns_when_the_server_would_be_reachable_beyond_loopback_without_a_key(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PAOR_SERVER_API_KEY", raising=False)
    warning = "without PAOR_SERVER_API_KEY lets anyone who reaches it"

    local = paor("doctor")
    exposed = paor("doctor", "--server-host", "0.0.0.0")
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "k-doctor-SECRET-1")
    keyed = paor("doctor", "--server-host", "0.0.0.0")

    assert "server auth     off (PAOR_SERVER_API_KEY unset)" in local.stdout and warning not in local.stdout
    assert warning in exposed.stdout and "0.0.0.0" in exposed.stdout
    assert exposed.exit_code == 0, "a warning, not a failure"
    assert "server auth     on (PAOR_SERVER_API_KEY)" in keyed.stdout and warning not in keyed.stdout
    assert "SECRET" not in keyed.output


def test_doctor_shows_which_isolation_code_execute_runs_under(paor: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.code import available, isolation

    found = available.detect()  # this machine's: none where neither isolation keeps the promises
    expected = f"sandboxed by {found.kind}" if found.kind != "none" else "off: no isolation keeps the sandbox's"
    assert f"code.execute    {expected}" in paor("doctor").stdout

    monkeypatch.setattr(available, "detect", lambda: isolation.Isolation("none", "bwrap: not installed"))
    monkeypatch.delenv(isolation.OPT_IN_VARIABLE, raising=False)
    assert (
        "code.execute    off: no isolation keeps the sandbox's promises here (bwrap: not installed)"
        in paor("doctor").stdout
    )
    monkeypatch.setenv(isolation.OPT_IN_VARIABLE, isolation.OPT_IN_VALUE)
    assert "code.execute    on WITHOUT isolation" in paor("doctor").stdout
