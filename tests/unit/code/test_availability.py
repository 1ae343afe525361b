"""code.execute is listed only where the machine isolates the network, or the operator opted in."""

from __future__ import annotations

import pytest

from tools.catalog import allowed_entries, catalog, lookup
from tools.code import isolation

NO_ISOLATION = isolation.Isolation("none", "bubblewrap: not installed; unshare: not installed")


def test_the_action_is_listed_where_isolation_works() -> None:
    assert isolation.detect().kind != "none"
    assert "code.execute" in catalog()


def test_the_action_is_absent_without_isolation_unless_the_operator_opts_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "detect", lambda: NO_ISOLATION)
    monkeypatch.delenv(isolation.OPT_IN_VARIABLE, raising=False)
    assert "code.execute" not in catalog()
    assert lookup("code_execute") is None
    assert "code.execute" not in [e.display_name for e in allowed_entries()]
    reason = isolation.unavailable_reason()
    assert reason and "install bubblewrap" in reason and "PAOR_CODE_EXECUTION=unsandboxed-network" in reason

    monkeypatch.setenv(isolation.OPT_IN_VARIABLE, "yes")  # only the exact value opts in
    assert "code.execute" not in catalog()
    monkeypatch.setenv(isolation.OPT_IN_VARIABLE, isolation.OPT_IN_VALUE)
    assert "code.execute" in catalog()
