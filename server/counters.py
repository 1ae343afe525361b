"""Where the server layer counts (server/engine.py `Counters`): in this process's memory (`langgraph dev`, one
process), or in Redis (`paor serve`, several processes that are one service: a client's rate and its runs in flight
are then the service's, whichever instance each request reaches).

While Redis cannot be reached, nothing is counted, so nothing that needs counting is served: each such request is
refused with 503 and `Retry-After` (`CountersUnavailable`), and the service serves again as soon as Redis answers
(redis-py reconnects). Letting requests through uncounted would lift every client's quota for as long as Redis is
away; a 500 would tell the client neither what happened nor when to try again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from langgraph_sdk import Auth

log = logging.getLogger(__name__)


class Bucket:
    """A token bucket in memory (server/engine.py `Rate`)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = burst, time.monotonic()

    def wait_for(self, amount: float) -> float:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        return max(0.0, (amount - self.tokens) / self.rate)

    def rested(self) -> bool:
        return self.wait_for(self.burst) == 0.0

    def reserve(self, amount: float) -> float:
        wait = self.wait_for(amount)
        self.tokens -= amount
        return wait

    async def take(self, amount: float, within: float = float("inf")) -> float:
        wait = self.wait_for(amount)
        if wait <= within:
            self.tokens -= amount
        return wait


class MemoryCounters:
    """Counters of one process."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._reserved: dict[str, dict[str, float]] = {}

    def rate(self, name: str, per_s: float, burst: float) -> Bucket:
        return Bucket(per_s, burst)

    def turn(self, name: str) -> AbstractAsyncContextManager[None]:
        return self._locks.setdefault(name, asyncio.Lock())

    async def reserved(self, owner: str) -> set[str]:
        places, now = self._reserved.get(owner, {}), time.monotonic()
        for run in [run for run, until in places.items() if until <= now]:
            del places[run]
        return set(places)

    async def reserve(self, owner: str, run: str, seconds: float) -> None:
        self._reserved.setdefault(owner, {})[run] = time.monotonic() + seconds

    async def unreserve(self, owner: str, runs: Iterable[str]) -> None:
        places = self._reserved.get(owner, {})
        for run in runs:
            places.pop(run, None)


#: A token bucket in one Redis hash, on Redis's clock (instances' clocks may differ): KEYS[1] the bucket; ARGV the
#: rate a second, the burst, the amount, the longest wait that still takes. Answers the wait, as a string.
_TAKE = """
local rate, burst, amount, within = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local kept = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(kept[1]) or burst, tonumber(kept[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = math.max(0, (amount - tokens) / rate)
if wait <= within then tokens = tokens - amount end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 60)
return tostring(wait)
"""
#: Places a run holds, in one sorted set per client scored by their expiry on Redis's clock.
_RESERVED = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tostring(now))
if ARGV[1] then
  redis.call('ZADD', KEYS[1], tostring(now + tonumber(ARGV[2])), ARGV[1])
  local keep = math.ceil(tonumber(ARGV[2])) + 60
  if redis.call('TTL', KEYS[1]) < keep then redis.call('EXPIRE', KEYS[1], keep) end
end
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""
PREFIX = "paor:"
#: The longest a turn is held before Redis gives it to the next (its holder was killed).
TURN_S = 30.0


#: Seconds a client refused while Redis is away is asked to wait (Aegra's own Redis client retries for about 2 s).
UNAVAILABLE_RETRY_S = 5


class CountersUnavailable(Auth.exceptions.HTTPException):
    """Redis, where the service counts, did not answer: 503 with `Retry-After` (the URL, which may hold a password,
    is never named)."""

    def __init__(self) -> None:
        super().__init__(
            status_code=503,
            detail="this service cannot reach Redis, where it counts each client's requests and runs, so it serves "
            "nothing that needs counting until Redis answers again; try again shortly",
            headers={"Retry-After": str(UNAVAILABLE_RETRY_S)},
        )


class TurnBusy(Auth.exceptions.HTTPException):
    """A client's checks queued for their turn longer than `TURN_S` (its own requests at once, not Redis: a 503 that
    named Redis under such load sent the operator looking for an outage that was not there)."""

    def __init__(self) -> None:
        super().__init__(
            status_code=429,
            detail=f"this client's requests waited {TURN_S:g} s in line for their quota checks, which take turns; "
            "send fewer at once",
            headers={"Retry-After": str(UNAVAILABLE_RETRY_S)},
        )


#: The longest a count waits for Redis's answer (it takes well under a millisecond): a Redis that hangs without
#: closing its connections (a partition, a stopped process) would otherwise hold every request, for good.
ANSWER_S = 5.0


@asynccontextmanager
async def _counting(seconds: float = ANSWER_S) -> AsyncIterator[None]:
    """Redis's errors, and no answer within `seconds`, as `CountersUnavailable` (redis is imported only where Redis
    counts)."""
    from redis.exceptions import RedisError

    try:
        async with asyncio.timeout(seconds):
            yield
    except (RedisError, TimeoutError) as exc:
        log.warning("Redis did not answer a count (%s): refusing with 503 until it does", type(exc).__name__)
        raise CountersUnavailable() from exc


class RedisBucket:
    def __init__(self, redis: Any, key: str, per_s: float, burst: float) -> None:
        self.redis, self.key, self.per_s, self.burst = redis, key, per_s, burst

    async def take(self, amount: float, within: float = float("inf")) -> float:
        bounded = within if within != float("inf") else 1e18
        async with _counting():
            wait = await self.redis.eval(_TAKE, 1, self.key, self.per_s, self.burst, amount, bounded)
        return float(wait)

    def rested(self) -> bool:
        return True  # kept in Redis: this process may forget it


class RedisCounters:
    """Counters every instance of the service shares, in Redis (redis-py's client and lock)."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    def rate(self, name: str, per_s: float, burst: float) -> RedisBucket:
        return RedisBucket(self.redis, f"{PREFIX}rate:{name}", per_s, burst)

    @asynccontextmanager
    async def turn(self, name: str) -> AsyncIterator[None]:
        """A turn no other instance holds; one not given within `TURN_S` is refused as Redis being away."""
        lock = self.redis.lock(f"{PREFIX}turn:{name}", timeout=TURN_S, sleep=0.02, blocking_timeout=TURN_S)
        async with _counting(TURN_S + ANSWER_S):
            if not await lock.acquire():  # Redis answered all along: this client's own checks queue that long
                raise TurnBusy()
        try:
            yield
        finally:
            with contextlib.suppress(CountersUnavailable):  # gone or expired: Redis gives the turn on after `TURN_S`
                async with _counting():
                    await lock.release()

    async def reserved(self, owner: str) -> set[str]:
        async with _counting():
            return {str(run) for run in await self.redis.eval(_RESERVED, 1, f"{PREFIX}reserved:{owner}")}

    async def reserve(self, owner: str, run: str, seconds: float) -> None:
        async with _counting():
            await self.redis.eval(_RESERVED, 1, f"{PREFIX}reserved:{owner}", run, seconds)

    async def unreserve(self, owner: str, runs: Iterable[str]) -> None:
        if names := list(runs):
            async with _counting():
                await self.redis.zrem(f"{PREFIX}reserved:{owner}", *names)
