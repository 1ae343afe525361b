"""`langgraph dev` under load: 50 threads run the primes scenario concurrently through the async SDK.

The server is started by tests/support/langgraph_dev.py (the repo's langgraph.json in a throwaway project folder,
a free loopback port, never 2024) with its own PAOR_HOME, so its SQLite checkpointer and learning store start
empty, and the scripted model of this process passed through the environment (OPENAI_BASE_URL, PAOR_MODEL).
Every run gets its own thread (`threads.create`, then `runs.wait`), all 50 at once with `asyncio.gather`; latency
is measured per run from thread creation to the final state.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import print_report, tempdir

RUNS = 50
# `langgraph dev` runs one run at a time unless told otherwise (its --help says 10; langgraph-api passes 1).
JOBS_PER_WORKER = (1, RUNS)
ASSISTANT = "paor"
RUN_TIMEOUT_S = 300.0


@dataclass
class LoadResult:
    runs: int
    completed: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    wall_s: float = 0.0
    startup_s: float = 0.0
    jobs_per_worker: int = 1
    server_errors: dict[str, int] = field(default_factory=dict)  # from the server log: error → runs

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def _server_errors(root: Path) -> dict[str, int]:
    """Why runs failed, from the server's log (the SDK only sees "An internal error occurred")."""
    counts: dict[str, int] = {}
    with contextlib.suppress(OSError):
        text = re.sub(r"\x1b\[[0-9;]*m", "", (root / "server.stdout").read_text(errors="replace"))
        for match in re.finditer(r"Run encountered an error in graph: <class '([\w.]+)'>\((.*?)\) \[", text):
            key = f"{match.group(1)}: {match.group(2)}"[:200]
            counts[key] = counts.get(key, 0) + 1
    return counts


async def _load(url: str, runs: int) -> tuple[list[Any], float]:
    from langgraph_sdk import get_client

    from tests.support.scenarios import PRIMES_PROMPT

    client = get_client(url=url, timeout=RUN_TIMEOUT_S)
    assistants = await client.assistants.search(graph_id=ASSISTANT)  # warm the API, not the learning store
    if not assistants:
        raise RuntimeError("the server has no paor assistant")

    async def one(i: int) -> tuple[float, dict[str, Any]]:
        start = time.perf_counter()
        thread = await client.threads.create(metadata={"bench": "server_load", "run": i})
        out = await client.runs.wait(thread["thread_id"], ASSISTANT, input={"prompt": PRIMES_PROMPT}, raise_error=True)
        return time.perf_counter() - start, out  # type: ignore[return-value]

    start = time.perf_counter()
    outcomes = await asyncio.gather(*(one(i) for i in range(runs)), return_exceptions=True)
    return outcomes, time.perf_counter() - start


def run_load(runs: int, jobs_per_worker: int) -> LoadResult:
    from tests.support.langgraph_dev import langgraph_dev, scripted_env
    from tests.support.scenarios import script_primes
    from tests.support.scripted_llm import ScriptedLLM

    result = LoadResult(runs=runs, jobs_per_worker=jobs_per_worker)
    root = tempdir(f"server-load-{jobs_per_worker}")
    with ScriptedLLM() as llm:
        script_primes(llm)
        env = scripted_env(llm.base_url, root / "paor-home")
        started = time.perf_counter()
        with langgraph_dev(root, env, jobs_per_worker=jobs_per_worker) as url:
            result.startup_s = time.perf_counter() - started
            outcomes, result.wall_s = asyncio.run(_load(url, runs))
    result.server_errors = _server_errors(root)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            result.errors.append(f"{type(outcome).__name__}: {outcome}"[:300])
            continue
        latency, out = outcome
        if isinstance(out, dict) and out.get("status") == "completed":
            result.completed += 1
            result.latencies.append(latency)
            result.steps.append(len(out.get("history") or []))
        else:
            result.errors.append(f"run ended {out.get('status') if isinstance(out, dict) else out!r}"[:300])
    return result


def run_all(runs: int = RUNS, jobs: tuple[int, ...] = JOBS_PER_WORKER) -> list[LoadResult]:
    """One load run per jobs-per-worker setting, each on a fresh server (empty database and store)."""
    return [run_load(runs, n) for n in jobs]


def table(results: list[LoadResult]) -> str:
    lines = [
        f"| `langgraph dev`, {results[0].runs} threads at once (primes scenario; async SDK `threads.create` + "
        "`runs.wait`, `asyncio.gather`) | runs completed | errors | p50 latency | p95 latency | runs/s "
        "| wall time | runs needing 2 steps |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        rate = r.completed / r.wall_s if r.wall_s else 0.0
        default = " (the `langgraph dev` default)" if r.jobs_per_worker == 1 else ""
        lines.append(
            f"| --n-jobs-per-worker {r.jobs_per_worker}{default} | {r.completed}/{r.runs} | {len(r.errors)} "
            f"| {r.percentile(0.5):.2f} s | {r.percentile(0.95):.2f} s | {rate:.2f} | {r.wall_s:.1f} s "
            f"| {sum(1 for s in r.steps if s > 1)} |"
        )
    lines += [
        "",
        "Each row is a fresh server (empty SQLite checkpointer and learning store; start-up "
        f"{', '.join(f'{r.startup_s:.1f} s' for r in results)}, not counted). Latency runs from thread creation to "
        "the final state and includes queueing. A run needs two steps (code first, then data) unless the strategy "
        "learned by an earlier run was already in the shared store when it selected its first action.",
    ]
    for r in results:
        if r.errors:
            seen = "; ".join(f"`{e}`" for e in sorted(set(r.errors))[:3])
            logged = "; ".join(f"{n}× `{e}`" for e, n in sorted(r.server_errors.items(), key=lambda kv: -kv[1])[:3])
            lines += [
                "",
                f"Errors with {r.jobs_per_worker} job(s)/worker: the client saw {seen}; the server logged "
                f"{logged or 'nothing more'}.",
            ]
    return "\n".join(lines)


def verdicts(results: list[LoadResult]) -> list[str]:
    out = []
    for r in results:
        ok = r.completed == r.runs and not r.errors
        rate = r.completed / r.wall_s if r.wall_s else 0.0
        out.append(
            f"`langgraph dev` load, {r.runs} threads, {r.jobs_per_worker} job(s)/worker: {r.runs}/{r.runs} complete "
            f"with zero errors: {r.completed}/{r.runs}, {len(r.errors)} errors, p50 {r.percentile(0.5):.2f} s, "
            f"p95 {r.percentile(0.95):.2f} s, {rate:.2f} runs/s → {'MET' if ok else 'NOT MET'}"
        )
    return out


def main() -> None:
    results = run_all()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
