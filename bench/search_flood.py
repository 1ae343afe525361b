"""`python -m bench.search_flood`: do one client's reads, within every quota, slow another client's requests?

Issue 51 found they did on `paor serve`: with 300 threads of 60 KB metadata each (within 500 × 64 KB), searched with
`limit: 1000` from 8 connections, another client's `POST /threads` median went from 28 to 765 ms (27 ×) and the
searching client received 6.3 GB in 35 s; the rate limit counted requests and request bytes, never what a request
made the server read and send. This bench repeats it on both servers, each with two client keys and the operator's
default limits: Mallory makes 300 such threads, then searches them with `limit: 1000` from 8 connections as fast as
her limits let her; Alice, one request at a time and paced under her own rate, creates threads, first with the
server to herself, then during the flood. Target (docs/shared-server.md): Alice's p95 under the flood ≤ 1.5 × idle.

    python -m bench.search_flood [--samples 100] [--server dev|serve|both]

`paor serve` needs what tests/engine needs: PAOR_TEST_AEGRA_PYTHON (a Python 3.12 venv with `.[aegra]`),
PAOR_TEST_DATABASE_URL (a PostgreSQL server where it may create a database) and redis-server on the PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

from bench.common import print_report, tempdir
from bench.fairness import FairnessResult, attacker_lines

ALICE, MALLORY = "bench-search-key-alice-3b1d", "bench-search-key-mallory-77e0"
SAMPLES = 100
TARGET = 1.5
THREADS = 300
METADATA_KB = 60
CONNECTIONS = 8
FLOOD_S = 20.0
#: Alice paces herself under her own rate (10 requests a second by default): her waits are the server's, not hers.
PACE_S = 0.12
MB = 1024 * 1024


@dataclass
class SearchFloodResult:
    server: str
    idle: list[float] = field(default_factory=list)
    flooded: list[float] = field(default_factory=list)
    mallory: Counter[str] = field(default_factory=Counter)
    received_mb: float = 0.0
    flood_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        p95 = FairnessResult.percentile
        return p95(self.flooded, 0.95) / p95(self.idle, 0.95)


async def _alice(http: httpx.AsyncClient, into: list[float], samples: int, result: SearchFloodResult) -> None:
    for _ in range(samples):
        started = time.perf_counter()
        answer = await http.post("/threads", json={})
        if answer.status_code == 200:
            into.append(time.perf_counter() - started)
        else:
            result.failures.append(f"POST /threads → {answer.status_code}")
        await asyncio.sleep(PACE_S)


async def _threads_of_mallory(http: httpx.AsyncClient) -> None:
    """Her threads, each with 60 KB of metadata, made at her own rate."""
    note = "x" * (METADATA_KB * 1024)
    for _ in range(THREADS):
        while (await http.post("/threads", json={"metadata": {"note": note}})).status_code == 429:
            await asyncio.sleep(1.0)


async def _search(http: httpx.AsyncClient, result: SearchFloodResult, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            async with http.stream("POST", "/threads/search", json={"limit": 1000}) as answer:
                async for chunk in answer.aiter_bytes():
                    result.received_mb += len(chunk) / MB
                result.mallory[f"search limit 1000 → {answer.status_code}"] += 1
                if answer.status_code == 429:
                    await asyncio.sleep(float(answer.headers.get("retry-after", "1")))
        except httpx.HTTPError as exc:
            result.mallory[f"search → {type(exc).__name__}"] += 1


async def _measure(url: str, samples: int, result: SearchFloodResult) -> None:
    timeout = httpx.Timeout(120.0)
    async with (
        httpx.AsyncClient(base_url=url, headers={"x-api-key": ALICE}, timeout=timeout) as alice,
        httpx.AsyncClient(base_url=url, headers={"x-api-key": MALLORY}, timeout=timeout) as mallory,
    ):
        await _threads_of_mallory(mallory)
        await _alice(alice, [], 10, result)  # warm-up, not counted
        await _alice(alice, result.idle, samples, result)
        stop = asyncio.Event()
        flood = [asyncio.create_task(_search(mallory, result, stop)) for _ in range(CONNECTIONS)]
        await asyncio.sleep(3.0)
        started = time.perf_counter()
        while time.perf_counter() - started < FLOOD_S and len(result.flooded) < samples:
            await _alice(alice, result.flooded, 1, result)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*flood), timeout=300)
        result.flood_s = time.perf_counter() - started + 3.0


def run(server: str, samples: int = SAMPLES) -> SearchFloodResult:
    from tests.support.scripted_llm import ScriptedLLM

    result = SearchFloodResult(server)
    root = tempdir(f"search-flood-{server}")
    keys = f"{ALICE},{MALLORY}"
    with ScriptedLLM() as llm:
        if server == "dev":
            from tests.support.langgraph_dev import langgraph_dev, scripted_env

            env = scripted_env(llm.base_url, root / "paor-home", PAOR_SERVER_API_KEY=keys)
            with langgraph_dev(root, env, jobs_per_worker=10) as url:
                asyncio.run(_measure(url, samples, result))
        else:
            from tests.support.paor_serve import MISSING, service

            if MISSING:
                raise SystemExit(f"bench.search_flood --server serve {MISSING}")
            with service(root, llm.base_url, keys) as running:
                [instance] = running.start(1)
                asyncio.run(_measure(instance.url, samples, result))
    return result


def table(results: list[SearchFloodResult]) -> str:
    p = FairnessResult.percentile
    lines = [
        "| server | Alice's POST /threads idle p50 / p95 | flooded p50 / p95 | ratio (p95) | Mallory received |",
        "|---|---:|---:|---:|---:|",
    ]
    for result in results:
        lines.append(
            f"| {result.server} | {p(result.idle, 0.5) * 1000:.1f} / {p(result.idle, 0.95) * 1000:.1f} ms "
            f"| {p(result.flooded, 0.5) * 1000:.1f} / {p(result.flooded, 0.95) * 1000:.1f} ms "
            f"| {result.ratio:.2f} × | {result.received_mb:.0f} MB in {result.flood_s:.0f} s |"
        )
    for result in results:
        lines += ["", f"{result.server}:", *attacker_lines(result.mallory, result.failures)]
    return "\n".join(lines)


def verdicts(results: list[SearchFloodResult]) -> list[str]:
    return [
        f"{result.server}: another client's POST /threads p95 under one client's search flood ≤ {TARGET:g} × idle: "
        f"{result.ratio:.2f} × → {'MET' if result.ratio <= TARGET and not result.failures else 'NOT MET'}"
        for result in results
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument("--server", choices=("dev", "serve", "both"), default="both")
    args = parser.parse_args()
    servers = ["dev", "serve"] if args.server == "both" else [args.server]
    results = [run(server, args.samples) for server in servers]
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
