"""`python -m bench.registry_flood`: does one client's volume make another client's requests slower?

Issue 45 found it did: 49 runs carrying 9 MB of junk in `input` grew `langgraph dev`'s registry to 463 MB, and since
the whole registry was written after every creation, another client's `POST /threads` went from 10 ms to 567 ms and
its `GET /info` from 2 ms to 487 ms. This bench repeats the flood on one `langgraph dev` with two client keys and
the operator's default limits: Mallory sends runs with 9 MB of junk in `input` on her threads, two at a time, as
fast as her limits let her (the issue's flood); with `--everything`, also runs with the longest prompt paor reads
(200,000 characters) on threads she keeps, a thread flood past her quota (lowered to 40) and links without a key.
Alice, one request at a time and paced under her own rate, creates a thread and reads `/info`, first with the
server to herself, then during the flood. Target: Alice's p95 under the flood ≤ 2 × idle, for both; the
registry's file is reported after the flood.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import print_report, tempdir
from bench.fairness import FairnessResult, attacker_lines
from nodes.intent import MAX_PROMPT_CHARS

ALICE, MALLORY = "bench-flood-key-alice-5a2e", "bench-flood-key-mallory-c81d"
SAMPLES = 150
TARGET = 2.0
FLOOD_S = 20.0
JOBS_PER_WORKER = 10
LIMITS = {"PAOR_SERVER_MAX_THREADS": "40"}
#: Alice paces herself under her own rate (10 requests a second by default): her waits are the server's, not hers.
PACE_S = 0.12
MB = 1024 * 1024


@dataclass
class FloodResult:
    idle: dict[str, list[float]] = field(default_factory=lambda: {"POST /threads": [], "GET /info": []})
    flooded: dict[str, list[float]] = field(default_factory=lambda: {"POST /threads": [], "GET /info": []})
    mallory: Counter[str] = field(default_factory=Counter)
    registry_mb: float = 0.0
    journal_kb: float = 0.0
    failures: list[str] = field(default_factory=list)

    def ratio(self, what: str) -> float:
        p95 = FairnessResult.percentile
        return p95(self.flooded[what], 0.95) / p95(self.idle[what], 0.95)


async def _alice(http: httpx.AsyncClient, into: dict[str, list[float]], samples: int, result: FloodResult) -> None:
    for _ in range(samples):
        for what, method, path in (("POST /threads", "POST", "/threads"), ("GET /info", "GET", "/info")):
            started = time.perf_counter()
            answer = await http.request(method, path, **({"json": {}} if method == "POST" else {}))
            into[what].append(time.perf_counter() - started)
            await asyncio.sleep(PACE_S)
            if answer.status_code != 200:
                result.failures.append(f"Alice's {what}: {answer.status_code}")
            elif method == "POST":
                await http.delete(f"/threads/{answer.json()['thread_id']}")
                await asyncio.sleep(PACE_S)


async def _mallory(url: str, seen: Counter[str], stop: asyncio.Event, everything: bool) -> None:
    junk_9mb = {"assistant_id": "paor", "input": {"prompt": "x" * 9 * MB}}
    longest = {"assistant_id": "paor", "input": {"prompt": "y" * MAX_PROMPT_CHARS}, "context": {"max_steps": 1}}
    forged = f"/paor/threads/{uuid.uuid4()}/documents/input/x.txt?owner=someone&signature=forged"
    timeout = httpx.Timeout(120.0)
    keyed = {"x-api-key": MALLORY}
    async with (
        httpx.AsyncClient(base_url=url, headers=keyed, timeout=timeout, limits=httpx.Limits(max_connections=48)) as me,
        httpx.AsyncClient(base_url=url, timeout=timeout) as keyless,
    ):

        async def hit(client: httpx.AsyncClient, what: str, method: str, path: str, **kwargs: Any) -> None:
            try:
                answer = await client.request(method, path, **kwargs)
            except httpx.HTTPError as exc:
                seen[f"{what} → {type(exc).__name__}"] += 1
                await asyncio.sleep(0.05)
                return
            named = re.search(r"PAOR_SERVER_\w+", answer.text) if answer.status_code >= 400 else None
            seen[f"{what} → {answer.status_code}" + (f" ({named.group(0)})" if named else "")] += 1

        async def loop(client: httpx.AsyncClient, what: str, method: str, path: str, **kwargs: Any) -> None:
            while not stop.is_set():
                await hit(client, what, method, path, **kwargs)

        threads = [(await me.post("/threads", json={})).json()["thread_id"] for _ in range(4)]  # each keeps its input
        issues_flood = [loop(me, "run, 9 MB input", "POST", f"/threads/{t}/runs", json=junk_9mb) for t in threads[:2]]
        the_rest = [
            *(
                loop(me, "run, the longest prompt paor reads", "POST", f"/threads/{t}/runs", json=longest)
                for t in threads
            ),
            loop(me, "thread", "POST", "/threads", json={}),
            *(loop(keyless, "forged link, no key", "GET", forged) for _ in range(8)),
        ]
        await asyncio.gather(*issues_flood, *(the_rest if everything else []))


async def _measure(url: str, samples: int, result: FloodResult, everything: bool) -> None:
    async with httpx.AsyncClient(base_url=url, headers={"x-api-key": ALICE}, timeout=httpx.Timeout(120.0)) as alice:
        await _alice(alice, result.idle, 10, result)  # warm-up, not counted
        result.idle = FloodResult().idle
        await _alice(alice, result.idle, samples, result)
        stop = asyncio.Event()
        flood = asyncio.create_task(_mallory(url, result.mallory, stop, everything))
        await asyncio.sleep(3.0)
        ended = time.perf_counter() + FLOOD_S
        while time.perf_counter() < ended and len(result.flooded["GET /info"]) < samples:
            await _alice(alice, result.flooded, 1, result)
        stop.set()
        await asyncio.wait_for(flood, timeout=300)


def run(samples: int = SAMPLES, everything: bool = False) -> FloodResult:
    from tests.support.langgraph_dev import langgraph_dev, scripted_env
    from tests.support.scripted_llm import ScriptedLLM

    result = FloodResult()
    root = tempdir("registry-flood")
    with ScriptedLLM() as llm:
        env = scripted_env(llm.base_url, root / "paor-home", PAOR_SERVER_API_KEY=f"{ALICE},{MALLORY}", **LIMITS)
        with langgraph_dev(root, env, jobs_per_worker=JOBS_PER_WORKER) as url:
            asyncio.run(_measure(url, samples, result, everything))
            time.sleep(11)  # one periodic full write of the registry
            files = list(Path(root).rglob(".langgraph_ops.pckl*"))
            result.registry_mb = sum(f.stat().st_size for f in files if f.suffix == ".pckl") / MB
            result.journal_kb = sum(f.stat().st_size for f in files if f.suffix != ".pckl") / 1024
    return result


def table(result: FloodResult) -> str:
    p = FairnessResult.percentile
    lines = [
        "| Alice's request | idle p50 | idle p95 | flooded p50 | flooded p95 | ratio (p95) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for what in result.idle:
        idle, flooded = result.idle[what], result.flooded[what]
        lines.append(
            f"| {what} | {p(idle, 0.5) * 1000:.1f} ms | {p(idle, 0.95) * 1000:.1f} ms "
            f"| {p(flooded, 0.5) * 1000:.1f} ms | {p(flooded, 0.95) * 1000:.1f} ms | {result.ratio(what):.2f} × |"
        )
    lines += [
        "",
        f"Registry after the flood: {result.registry_mb:.2f} MB written whole, journal {result.journal_kb:.1f} KB.",
        "",
        *attacker_lines(result.mallory, result.failures),
    ]
    return "\n".join(lines)


def verdicts(result: FloodResult) -> list[str]:
    found = []
    for what in result.idle:
        ok = result.ratio(what) <= TARGET and not result.failures
        found.append(
            f"another client's {what} p95 under one client's run flood ≤ {TARGET:g} × idle: "
            f"{result.ratio(what):.2f} × → {'MET' if ok else 'NOT MET'}"
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument(
        "--everything", action="store_true", help="add runs paor accepts, a thread flood and keyless links"
    )
    args = parser.parse_args()
    result = run(args.samples, everything=args.everything)
    print_report(table(result), verdicts(result))


if __name__ == "__main__":
    main()
