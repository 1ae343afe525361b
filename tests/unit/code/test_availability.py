"""code.execute is listed only where the machine isolates the network, or the operator opted in."""

from __future__ import annotations

import pytest

from tools import catalog
from tools.code import execute, isolation

NO_ISOLATION = isolation.Isolation("none", "bubblewrap: not installed; unshare: not installed")


@pytest.fixture
def fresh_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """Copies of the registry, so withdrawing code.execute here does not leak into other tests."""
    catalog.catalog()
    monkeypatch.setattr(catalog, "_REGISTRY", dict(catalog._REGISTRY))
    monkeypatch.setattr(catalog, "_UNAVAILABLE", dict(catalog._UNAVAILABLE))


def test_the_action_is_listed_where_isolation_works() -> None:
    assert isolation.detect().kind != "none"
    assert "code.execute" in catalog.catalog() and "code.execute" not in catalog.unavailable()


def test_the_action_is_unavailable_without_isolation_unless_the_operator_opts_in(
    monkeypatch: pytest.MonkeyPatch, fresh_catalog: None
) -> None:
    monkeypatch.setattr(isolation, "detect", lambda: NO_ISOLATION)
    monkeypatch.delenv(isolation.OPT_IN_VARIABLE, raising=False)
    execute.publish()
    assert "code.execute" not in catalog.catalog() and catalog.lookup("code_execute") is None
    assert "code.execute" not in [e.display_name for e in catalog.allowed_entries()]
    reason = catalog.unavailable()["code.execute"]
    assert "install bubblewrap" in reason and "PAOR_CODE_EXECUTION=unsandboxed-network" in reason

    monkeypatch.setenv(isolation.OPT_IN_VARIABLE, "yes")  # only the exact value opts in
    execute.publish()
    assert "code.execute" not in catalog.catalog()

    monkeypatch.setenv(isolation.OPT_IN_VARIABLE, isolation.OPT_IN_VALUE)
    execute.publish()
    assert "code.execute" in catalog.catalog()
