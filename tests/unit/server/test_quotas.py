"""The runs-in-flight check (server/quotas.py) without a server, on both engines' counters (server/counters.py:
memory for `langgraph dev`, a real Redis for `paor serve`): runs sent at once cannot pass on one count — on
`paor serve` also when they reach different instances —, and a request that ends releases its place for good, also
while another check is under way."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.processes import free_port
from server import engine, quotas
from server.counters import CountersUnavailable, MemoryCounters, RedisCounters
from tests.support.redis_server import REDIS_SERVER, redis_server

OWNER = "client-quota-test"
Listing = Callable[[str, int], Awaitable[set[str]]]


class Instance:
    """An engine whose runs-in-flight listing the test scripts, on the counters it is given."""

    one_process = True

    def __init__(self, counters: Any) -> None:
        self.counters = counters
        self.listing: Listing = none_listed

    async def runs_in_flight(self, owner: str, at_most: int) -> set[str]:
        return await self.listing(owner, at_most)

    async def count(self, owner: str, resource: str) -> int:
        await asyncio.sleep(0.01)  # the server inserts the new threads after the checks: none is counted yet
        return 0


async def none_listed(owner: str, at_most: int) -> set[str]:
    return set()


#: The instance a request reached (each task sets its own).
REACHED: contextvars.ContextVar[Instance] = contextvars.ContextVar("reached")


class Service:
    """The engine of the process under test, answering as the instance the current request reached."""

    one_process = True

    @property
    def counters(self) -> Any:
        return REACHED.get().counters

    async def runs_in_flight(self, owner: str, at_most: int) -> set[str]:
        return await REACHED.get().runs_in_flight(owner, at_most)

    async def count(self, owner: str, resource: str) -> int:
        return await REACHED.get().count(owner, resource)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not REDIS_SERVER:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
def instances(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Instance]]:
    """Makes engine instances: one process's (memory), or instances of one service sharing a Redis."""
    made: list[Any] = []

    def make() -> Instance:
        if request.param == "memory":
            counters: Any = made[0].counters if made else MemoryCounters()  # one process: one memory
        else:
            import redis.asyncio as aioredis

            counters = RedisCounters(aioredis.Redis.from_url(request.getfixturevalue("redis_url")))
        made.append(instance := Instance(counters))
        return instance

    if request.param == "redis":
        import redis

        redis.Redis.from_url(request.getfixturevalue("redis_url")).flushall()
    yield make


@pytest.fixture(autouse=True)
def keyed(monkeypatch: pytest.MonkeyPatch, no_document_quota: None) -> Iterator[None]:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "quota-key")
    monkeypatch.setenv("PAOR_SERVER_MAX_RUNS", "2")
    engine.use(Service())  # type: ignore[arg-type]
    yield
    engine.use(None)


def test_runs_sent_at_once_pass_up_to_the_quota(instances: Callable[[], Instance]) -> None:
    """Five runs at once, spread over two instances: two pass (per-process counting once let each instance pass
    two)."""

    async def nothing_listed_yet(owner: str, at_most: int) -> set[str]:
        await asyncio.sleep(0.01)  # the server inserts the runs after the checks: none is listed
        return set()

    pair = [instances(), instances()]
    for instance in pair:
        instance.listing = nothing_listed_yet

    async def five() -> list[BaseException | None]:
        async def one(n: int) -> BaseException | None:
            quotas.REQUEST_RESERVATIONS.set([])
            REACHED.set(pair[n % 2])  # this request's instance
            try:
                await quotas.check_runs(OWNER, f"run-{n}")
            except Exception as exc:
                return exc
            return None

        return await asyncio.gather(*(asyncio.create_task(one(n)) for n in range(5)))

    outcomes = asyncio.run(five())
    assert [outcome is None for outcome in outcomes].count(True) == 2


def test_threads_created_at_once_on_two_instances_pass_up_to_the_quota(
    instances: Callable[[], Instance], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted, then inserted: five creations at once over two instances all passed a quota of two on the same
    count (44 threads of 40 in the red team's run)."""
    monkeypatch.setenv("PAOR_SERVER_MAX_THREADS", "2")
    pair = [instances(), instances()]

    async def five() -> list[BaseException | None]:
        async def one(n: int) -> BaseException | None:
            quotas.REQUEST_RESERVATIONS.set([])
            REACHED.set(pair[n % 2])
            try:
                await quotas.check_count(OWNER, "threads")
            except Exception as exc:
                return exc
            return None

        return await asyncio.gather(*(asyncio.create_task(one(n)) for n in range(5)))

    assert [outcome is None for outcome in asyncio.run(five())].count(True) == 2


def test_each_decision_is_logged_with_the_counts_it_was_made_on(
    instances: Callable[[], Instance], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An operator asked why a client was refused reads the counts in the log (and a pass that should not have
    been shows there too): the server's rows and the places requests in flight hold."""
    monkeypatch.setenv("PAOR_SERVER_MAX_THREADS", "1")
    REACHED.set(instances())

    async def twice() -> None:
        quotas.REQUEST_RESERVATIONS.set([])
        await quotas.check_count(OWNER, "threads")
        with pytest.raises(Exception, match="PAOR_SERVER_MAX_THREADS=1"):
            await quotas.check_count(OWNER, "threads")

    with caplog.at_level("INFO", logger="server.quotas"):
        asyncio.run(twice())
    assert [record.getMessage() for record in caplog.records] == [
        f"quota passed: {OWNER} threads: 0 listed and 0 being made, at most 1",
        f"quota refused: {OWNER} threads: 0 listed and 1 being made, at most 1",
    ]


def test_a_place_released_while_another_check_waits_stays_released(instances: Callable[[], Instance]) -> None:
    """A check once wrote back the places it had read: one released meanwhile came back, for an hour."""
    release = asyncio.Event()
    instance = instances()

    async def listed_after_a_release(owner: str, at_most: int) -> set[str]:
        release.set()
        await asyncio.sleep(0.01)
        return set()

    async def scenario() -> set[str]:
        REACHED.set(instance)
        mine: list[tuple[str, str]] = []
        quotas.REQUEST_RESERVATIONS.set(mine)
        await quotas.check_runs(OWNER, "first")  # holds its place until its request ends
        instance.listing = listed_after_a_release

        async def end_first_request() -> None:
            await release.wait()
            await quotas.release(mine)

        await asyncio.gather(quotas.check_runs(OWNER, "second", reserve=False), end_first_request())
        return await instance.counters.reserved(OWNER)

    assert asyncio.run(scenario()) == set()


def test_a_place_held_by_a_request_outlives_a_shorter_place_taken_after_it(redis_url: str) -> None:
    """Each reservation set the client's set to expire a minute after its own end: a cron's 3-second place taken
    while a request held its place for the request's length dropped that place 63 seconds later, so the request's
    run no longer counted against the client's quota."""
    import redis
    import redis.asyncio as aioredis

    redis.Redis.from_url(redis_url).flushall()

    async def scenario() -> None:
        counters = RedisCounters(aioredis.Redis.from_url(redis_url))
        await counters.reserve(OWNER, "held-by-a-request", quotas.HELD_S)
        await counters.reserve(OWNER, "a-crons-run", quotas.RESERVE_S)

    asyncio.run(scenario())
    assert redis.Redis.from_url(redis_url).ttl(f"paor:reserved:{OWNER}") > quotas.HELD_S


def test_the_run_of_a_request_that_checked_ahead_takes_the_place_it_held(instances: Callable[[], Instance]) -> None:
    """An MCP tools/call passed its look ahead, runs sent beside it filled the quota, and its own run was refused
    (LangGraph answered a bare 500): the place it checked for is held until its run takes it."""
    instance = instances()

    async def scenario() -> list[str]:
        REACHED.set(instance)
        outcomes: list[str] = []

        async def request(run: str) -> None:
            quotas.REQUEST_RESERVATIONS.set([])
            try:
                await quotas.check_runs(OWNER, run)
                outcomes.append(f"{run} passed")
            except Exception:
                outcomes.append(f"{run} refused")

        held: list[tuple[str, str]] = []
        quotas.REQUEST_RESERVATIONS.set(held)
        await quotas.check_runs(OWNER, f"{quotas.AHEAD}mcp")  # the MCP call's look ahead
        await asyncio.gather(request("beside-1"), request("beside-2"))  # other requests, at once
        await quotas.check_runs(OWNER, "mcp-run")  # the call's own run, in the same request
        outcomes.append("mcp-run passed")
        await quotas.release(held)
        return outcomes

    outcomes = asyncio.run(scenario())
    assert sorted(outcomes) == ["beside-1 passed", "beside-2 refused", "mcp-run passed"]


def test_a_check_while_redis_does_not_answer_is_refused_with_503_and_when_to_retry() -> None:
    """Nothing counted, nothing served: neither passed uncounted nor a bare error (the connection was dropped)."""
    import redis.asyncio as aioredis

    nobody = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0")
    REACHED.set(Instance(RedisCounters(nobody)))
    with pytest.raises(CountersUnavailable) as refused:
        asyncio.run(quotas.check_runs(OWNER, "run-while-away"))
    assert refused.value.status_code == 503 and refused.value.headers == {"Retry-After": "5"}
    assert "Redis" in refused.value.detail
