"""The run's configuration names the attempt a worker executes, whatever a client wrote (server/aegra_attempts.py)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from server import aegra_attempts


def job(run_id: str) -> Any:
    return SimpleNamespace(identity=SimpleNamespace(run_id=run_id))


def test_a_first_execution_is_attempt_one_even_where_the_client_claimed_another() -> None:
    build = aegra_attempts.with_attempt(lambda _: {"metadata": {"run_attempt": 7, "owner": "alice"}})
    assert build(job("r1"))["metadata"] == {"run_attempt": 1, "owner": "alice"}


def test_a_run_the_reaper_gave_back_is_executed_as_its_next_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    async def retries(run_id: str) -> int:
        return {"taken": 1}.get(run_id, 0)

    async def load(run_id: str, worker: str) -> object:
        return object()

    monkeypatch.setattr(aegra_attempts, "_retries", retries)
    acquire = aegra_attempts.counting(load)
    build = aegra_attempts.with_attempt(lambda _: {})
    asyncio.run(acquire("taken", "w-1"))
    asyncio.run(acquire("fresh", "w-1"))
    assert build(job("taken"))["metadata"]["run_attempt"] == 2
    assert build(job("fresh"))["metadata"]["run_attempt"] == 1
    assert build(job("taken"))["metadata"]["run_attempt"] == 1, "noted once, for the execution that loaded it"


def test_a_run_handed_back_at_a_drain_deadline_is_requeued_even_where_counting_it_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    requeued: list[list[str]] = []

    async def count(run_ids: list[str]) -> None:
        raise ConnectionError("database away")

    async def requeue(run_ids: list[str]) -> None:
        requeued.append(run_ids)

    monkeypatch.setattr(aegra_attempts, "_count_hand_backs", count)
    asyncio.run(aegra_attempts.noting_hand_backs(requeue)(["r1", "r2"]))
    assert requeued == [["r1", "r2"]]
