"""code.execute is listed only where the machine isolates the network, or the operator opted in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.isolation import each_isolation, needs_isolation
from tools import catalog
from tools.code import available, execute, isolation
from tools.code.probe import run_probe

NO_ISOLATION = isolation.Isolation("none", "bubblewrap: not installed; unshare: not installed")


@pytest.fixture
def fresh_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """Copies of the registry, so withdrawing code.execute here does not leak into other tests."""
    catalog.catalog()
    monkeypatch.setattr(catalog, "_REGISTRY", dict(catalog._REGISTRY))
    monkeypatch.setattr(catalog, "_UNAVAILABLE", dict(catalog._UNAVAILABLE))


@needs_isolation()
def test_the_action_is_listed_where_isolation_works() -> None:
    assert "code.execute" in catalog.catalog() and "code.execute" not in catalog.unavailable()


def test_the_action_is_unavailable_without_isolation_unless_the_operator_opts_in(
    monkeypatch: pytest.MonkeyPatch, fresh_catalog: None
) -> None:
    monkeypatch.setattr(available, "detect", lambda: NO_ISOLATION)
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


@pytest.fixture
def undetected() -> Iterator[None]:
    """`detect` caches its answer per process: start and end with a fresh one."""
    available.detect.cache_clear()
    yield
    available.detect.cache_clear()


def test_an_isolation_failing_its_probe_is_not_used_and_the_run_notes_say_why(
    monkeypatch: pytest.MonkeyPatch, fresh_catalog: None, undetected: None
) -> None:
    problems = {"bubblewrap": "bwrap is not installed", "unshare": "unshare: Operation not permitted"}
    monkeypatch.setattr(available, "probe", problems.get)
    monkeypatch.delenv(isolation.OPT_IN_VARIABLE, raising=False)
    execute.publish()
    assert "code.execute" not in catalog.catalog()
    [note] = [note for note in catalog.unavailable_notes() if note.startswith("code.execute")]
    assert "bubblewrap: bwrap is not installed" in note and "unshare: unshare: Operation not permitted" in note
    assert available.status().startswith("off: no isolation keeps the sandbox's promises here")


def test_the_first_isolation_that_passes_its_probe_is_used(monkeypatch: pytest.MonkeyPatch, undetected: None) -> None:
    monkeypatch.setattr(available, "probe", {"bubblewrap": "bwrap is not installed", "unshare": None}.get)
    assert available.detect().kind == "unshare"


@pytest.mark.parametrize("kind", each_isolation())
def test_the_probe_names_what_the_sandbox_user_cannot_read(
    kind: isolation.Kind, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "module.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(isolation, "readable_paths", lambda: [str(hidden)])
    problem = run_probe(kind)
    assert problem is not None and f"cannot read {hidden}" in problem and f"chmod -R o+rX {hidden}" in problem


@pytest.mark.parametrize(
    ("uid_map", "users"),
    [
        ("0 0 4294967295\n", isolation.RUN_UIDS),  # root of the host: a user of each run's own
        ("0 100000 65536\n", [isolation.NOBODY]),  # root of a container whose range holds nobody, not those
        ("0 1000 1\n", [None]),  # root of a rootless container: no nobody to become, its own user namespace instead
    ],
)
def test_root_runs_programs_as_a_user_of_the_runs_own_where_the_ids_exist(
    uid_map: str, users: range | list[int | None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = tmp_path / "map"
    table.write_text(uid_map, encoding="ascii")
    monkeypatch.setattr(isolation, "ID_MAPS", (str(table), str(table)))
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    drawn = {isolation.sandbox_user() for _ in range(20)}
    assert drawn <= set(users)
    assert len(drawn) == (20 if isinstance(users, range) else 1)  # one per run: none shares another's limit


def test_a_drawn_user_is_never_an_account_of_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    accounts = {isolation.RUN_UIDS.start, isolation.RUN_UIDS.start + 1}
    draws = iter([*accounts, isolation.RUN_UIDS.start + 2])
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    monkeypatch.setattr(isolation, "ID_MAPS", ())
    monkeypatch.setattr(isolation.secrets, "choice", lambda _: next(draws))
    monkeypatch.setattr(isolation, "_is_account", lambda uid: uid in accounts)
    assert isolation.sandbox_user() == isolation.RUN_UIDS.start + 2
