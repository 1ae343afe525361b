"""Which attempt of a run an Aegra worker executes: a run taken over after its instance died says so.

Aegra's lease reaper gives a run whose instance stopped renewing its lease back to the queue and counts it in the
run's `execution_params["_retry_count"]`; the instance that takes it executes it again with the same input, and
LangGraph resumes it from its last checkpoint (tests/engine/test_crash.py). Nothing in the execution says it is a
second attempt: the chat showed "Working on it" with no hint, and an SDK stream went silent for 40 s, then went on
as if nothing had happened. Here the worker's load of a run reads that count, and the run's configuration carries it
as `metadata.run_attempt` (1 for a first execution, set by the server whatever a client sent), which Aegra's own
`metadata` stream event already reports and paor's graph announces (nodes/takeover.py).

A graceful stop hands a run still going at its drain deadline back to the queue without counting it (Aegra's
`_requeue_drained_runs`): the next instance resumed it from its last checkpoint and said nothing. Here that hand-back
is counted too, under a key of paor's own: Aegra's `_retry_count` bounds the reaper's retries, which a stop is not.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)
_WORKER = "aegra_api.services.worker_executor"
_LOAD = "_acquire_and_load"
_CONFIG = "_build_run_config"
_REQUEUE = "_requeue_drained_runs"
#: How often a graceful stop handed the run back, in its `execution_params`.
HANDED_BACK = "paor_handed_back"
#: Marks a function already wrapped here.
_WRAPPED = "__paor_attempts__"
#: Attempts read at a run's load, until its configuration is built (the same worker, a moment later).
_ATTEMPTS: dict[str, int] = {}


def install() -> None:
    """Wrap the worker's load of a run and the executor's build of its configuration. Idempotent."""
    import aegra_api.services.run_executor as executor
    import aegra_api.services.worker_executor as worker

    load = getattr(worker, _LOAD)
    if getattr(load, _WRAPPED, False):
        return
    setattr(worker, _LOAD, counting(load))
    setattr(worker, _REQUEUE, noting_hand_backs(getattr(worker, _REQUEUE)))
    setattr(executor, _CONFIG, with_attempt(getattr(executor, _CONFIG)))


def counting(load: Callable[[str, str], Awaitable[Any]]) -> Callable[[str, str], Awaitable[Any]]:
    """`load` (Aegra's `_acquire_and_load(run_id, worker_name)`) that notes the attempt of each run it loaded."""

    async def acquire_and_load(run_id: str, worker_name: str) -> Any:
        loaded = await load(run_id, worker_name)
        if loaded is not None:
            retries = await _retries(run_id)
            if retries:
                _ATTEMPTS[run_id] = retries + 1
                log.warning("run %s is taken over after its instance stopped (attempt %d)", run_id, retries + 1)
        return loaded

    setattr(acquire_and_load, _WRAPPED, True)
    return acquire_and_load


def noting_hand_backs(requeue: Callable[[list[str]], Awaitable[None]]) -> Callable[[list[str]], Awaitable[None]]:
    """`requeue` (Aegra's `_requeue_drained_runs(run_ids)`) that first counts the hand-back of each run that was
    executing; one only dequeued was never started. A failure to count loses the notice, never the hand-back."""

    async def requeue_drained_runs(run_ids: list[str]) -> None:
        try:
            await _count_hand_backs(run_ids)
        except Exception:
            log.warning("could not count the hand-back of runs %s; they resume without a notice", run_ids)
        await requeue(run_ids)

    return requeue_drained_runs


async def _count_hand_backs(run_ids: list[str]) -> None:
    from aegra_api.core.orm import Run, _get_session_maker
    from sqlalchemy import select, update

    async with _get_session_maker()() as session:
        executing = await session.execute(
            select(Run.run_id, Run.execution_params)
            .where(Run.run_id.in_(run_ids), Run.status == "running")
            .with_for_update()
        )
        for run_id, params in executing.fetchall():
            counted = {**(params or {}), HANDED_BACK: int((params or {}).get(HANDED_BACK) or 0) + 1}
            await session.execute(update(Run).where(Run.run_id == run_id).values(execution_params=counted))
        await session.commit()


def with_attempt(build: Callable[[Any], dict[str, Any]]) -> Callable[[Any], dict[str, Any]]:
    """`build` (Aegra's `_build_run_config(job)`) whose configuration names the attempt in its metadata."""

    def build_run_config(job: Any) -> dict[str, Any]:
        config = build(job)
        attempt = _ATTEMPTS.pop(str(job.identity.run_id), 1)
        config["metadata"] = {**(config.get("metadata") or {}), "run_attempt": attempt}
        return config

    return build_run_config


async def _retries(run_id: str) -> int:
    """How often the run was given back, by the reaper or a graceful stop: 0 for a first execution, and 0 where the
    count cannot be read (the run has its lease already: a failure here must not leave it unexecuted until the lease
    expires)."""
    from aegra_api.core.orm import Run, _get_session_maker
    from sqlalchemy import select

    try:
        async with _get_session_maker()() as session:
            params = await session.scalar(select(Run.execution_params).where(Run.run_id == run_id))
        return sum(int((params or {}).get(key) or 0) for key in ("_retry_count", HANDED_BACK))
    except Exception:  # the notice is lost, never the run
        log.warning("could not read how often run %s was taken over; it runs as a first attempt", run_id)
        return 0
