"""The runs-in-flight check (server/quotas.py) without a server: runs sent at once cannot pass on one count, and
a request that ends releases its place for good, also while another check is under way."""

from __future__ import annotations

import asyncio

import pytest

from server import inprocess, quotas

OWNER = "client-quota-test"


@pytest.fixture(autouse=True)
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "quota-key")
    monkeypatch.setenv("PAOR_SERVER_MAX_RUNS", "2")
    quotas._RESERVED.clear()
    quotas._RUN_LOCKS.clear()

    async def no_documents(owner: str, adding: int, *, starting_run: bool = False) -> None:
        return None

    monkeypatch.setattr(quotas, "documents_refusal", no_documents)


def test_runs_sent_at_once_pass_up_to_the_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    async def nothing_listed_yet(owner: str, at_most: int) -> set[str]:
        await asyncio.sleep(0.01)  # LangGraph inserts the runs after the checks: none is listed
        return set()

    monkeypatch.setattr(inprocess, "runs_in_flight", nothing_listed_yet)

    async def five() -> list[BaseException | None]:
        async def one(n: int) -> BaseException | None:
            quotas.REQUEST_RESERVATIONS.set([])
            try:
                await quotas.check_runs(OWNER, f"run-{n}")
            except Exception as exc:
                return exc
            return None

        return await asyncio.gather(*(one(n) for n in range(5)))

    outcomes = asyncio.run(five())
    assert [outcome is None for outcome in outcomes].count(True) == 2


def test_a_place_released_while_another_check_waits_stays_released(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check once wrote back the places it had read: one released meanwhile came back, for an hour."""
    release = asyncio.Event()

    async def listed_after_a_release(owner: str, at_most: int) -> set[str]:
        release.set()
        await asyncio.sleep(0.01)
        return set()

    async def scenario() -> dict[str, float]:
        mine: list[tuple[str, str]] = []
        quotas.REQUEST_RESERVATIONS.set(mine)
        await quotas.check_runs(OWNER, "first")  # holds its place until its request ends
        monkeypatch.setattr(inprocess, "runs_in_flight", listed_after_a_release)

        async def end_first_request() -> None:
            await release.wait()
            quotas.release(mine)

        await asyncio.gather(quotas.check_runs(OWNER, "second", reserve=False), end_first_request())
        return dict(quotas._RESERVED.get(OWNER, {}))

    async def none_listed(owner: str, at_most: int) -> set[str]:
        return set()

    monkeypatch.setattr(inprocess, "runs_in_flight", none_listed)
    assert asyncio.run(scenario()) == {}


def test_the_run_of_a_request_that_checked_ahead_takes_the_place_it_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """An MCP tools/call passed its look ahead, runs sent beside it filled the quota, and its own run was refused
    (LangGraph answered a bare 500): the place it checked for is held until its run takes it."""

    async def none_listed(owner: str, at_most: int) -> set[str]:
        return set()

    monkeypatch.setattr(inprocess, "runs_in_flight", none_listed)

    async def scenario() -> list[str]:
        outcomes: list[str] = []

        async def request(run: str) -> None:
            quotas.REQUEST_RESERVATIONS.set([])
            try:
                await quotas.check_runs(OWNER, run)
                outcomes.append(f"{run} passed")
            except Exception:
                outcomes.append(f"{run} refused")

        quotas.REQUEST_RESERVATIONS.set(held := [])
        await quotas.check_runs(OWNER, f"{quotas.AHEAD}mcp")  # the MCP call's look ahead
        await asyncio.gather(request("beside-1"), request("beside-2"))  # other requests, at once
        await quotas.check_runs(OWNER, "mcp-run")  # the call's own run, in the same request
        outcomes.append("mcp-run passed")
        quotas.release(held)
        return outcomes

    outcomes = asyncio.run(scenario())
    assert sorted(outcomes) == ["beside-1 passed", "beside-2 refused", "mcp-run passed"]
