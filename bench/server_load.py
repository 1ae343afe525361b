"""`python -m bench.server_load`: how many runs one `langgraph dev` serves at once (issue 34).

Each row starts a fresh `langgraph dev` (tests/support/langgraph_dev.py: the repo's langgraph.json in a throwaway
project folder, its own PAOR_HOME) with a given `--n-jobs-per-worker`, then starts every run of the row at once, each
on its own thread (`POST /threads`, then `POST /threads/{id}/runs/wait`, all gathered on one client with no
connection limit). The run is a one-line question that paor answers with one model call (the bare call of
nodes/direct.py, verified by code), and the scripted model holds each request 1.5 s, as a real endpoint takes that
long to answer: a run is then mostly waiting, so how many runs the server finishes per minute is bounded by how
many of them wait on the model at once (which the scripted server counts: peak, and mean over the row) until the
server's own CPU work per run is the bound.

Measured alongside: the latency of each run from thread creation to its final state (queueing included), the peak
memory of the server's process tree (the `langgraph dev` process and its children, proportional set size, so pages
they share count once), and the latency of `/ok`, polled every 50 ms from a thread of its own during the load.

The "before" row runs the fixed server with PAOR_THREADS=6: the 6 threads Python's default pool has on 2 cores,
which is what every server loop had before server/capacity.py sized it (core/capacity.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import print_report, tempdir
from bench.server_memory import server_pid
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scripted_llm import ScriptedLLM

PROMPT = "What is 12 multiplied by 11?"
ANSWER = "12 × 11 = 132"
#: How long the scripted model holds each request: a real endpoint's answer time.
HOLD_S = 1.5
OK_EVERY_S = 0.05
MEMORY_EVERY_S = 0.25
RUN_TIMEOUT_S = 600.0
#: The targets on 2 cores (issue 34).
IN_FLIGHT_TARGET, IN_FLIGHT_JOBS = 20, 40
WALL_TARGET_S, WALL_RUNS = 60.0, 200
MEMORY_TARGET_MB = 1024.0
OK_P99_TARGET_MS = 100.0


@dataclass(frozen=True)
class Load:
    """One row: `runs` started at once on a server running `jobs` at a time (None: `langgraph dev`'s default)."""

    runs: int
    jobs: int | None
    threads: int | None = None  # PAOR_THREADS; None: sized for the jobs (core/capacity.py)

    @property
    def label(self) -> str:
        jobs = "default (1 job)" if self.jobs is None else f"{self.jobs} jobs"
        return f"{jobs}, PAOR_THREADS={self.threads} (before the fix)" if self.threads else jobs


LOADS = (
    Load(runs=10, jobs=None),
    Load(runs=200, jobs=50, threads=6),
    Load(runs=10, jobs=50),
    Load(runs=50, jobs=50),
    Load(runs=200, jobs=50),
    Load(runs=200, jobs=IN_FLIGHT_JOBS),
)


class HeldLLM(ScriptedLLM):
    """The scripted model as a slow endpoint that counts the requests it is answering at once.

    Each request is held `hold_s`, or less once `release_at` requests have been in flight together: a test then
    proves concurrency by a count reached, not by how long anything took. A subclass, so that the shared scripted
    server stays as it is: every request it answers passes through `_completion`, on a thread of its own.
    """

    def __init__(self, hold_s: float, *, release_at: int | None = None) -> None:
        super().__init__()
        self.hold_s = hold_s
        self.release_at = release_at
        self.peak = 0
        self.spans: list[tuple[float, float]] = []  # (start, end) of each request, time.monotonic()
        self._in_flight = 0
        self._changed = threading.Condition()

    def start(self) -> HeldLLM:
        """http.server listens with a backlog of 5: a burst of new connections would wait out SYN retries."""
        super().start()
        if self._server is not None:
            self._server.socket.listen(1024)
        return self

    def __enter__(self) -> HeldLLM:
        return self.start()

    def _released(self) -> bool:
        return self.release_at is not None and self.peak >= self.release_at

    def _completion(self, body: dict[str, Any]) -> tuple[int, dict[str, str], list[bytes] | bytes]:
        started = time.monotonic()
        with self._changed:
            self._in_flight += 1
            self.peak = max(self.peak, self._in_flight)
            self._changed.notify_all()
            self._changed.wait_for(self._released, timeout=self.hold_s)
        try:
            return super()._completion(body)
        finally:
            with self._changed:
                self._in_flight -= 1
                self.spans.append((started, time.monotonic()))

    def mean_in_flight(self, start: float, end: float) -> float:
        """Requests in flight on average over [start, end] (time.monotonic())."""
        held = sum(max(0.0, min(b, end) - max(a, start)) for a, b in self.spans)
        return held / (end - start) if end > start else 0.0


def tree_memory_mb(root: int) -> float:
    """Proportional set size of `root` and its descendants (each shared page counted once over them)."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(proc.name))
    total_kb, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
    return total_kb / 1024


class Monitor:
    """Polls `/ok` every 50 ms and the server tree's memory every 250 ms, on a thread of its own, so that neither
    waits for the load's coroutines."""

    def __init__(self, url: str, pid: int) -> None:
        self.url, self.pid = url, pid
        self.ok_ms: list[float] = []
        self.ok_failures = 0
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="bench-monitor", daemon=True)

    def __enter__(self) -> Monitor:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        next_memory = 0.0
        with httpx.Client(base_url=self.url, timeout=30) as http:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    ok = http.get("/ok").status_code == 200
                except httpx.HTTPError:
                    ok = False
                self.ok_ms.append((time.perf_counter() - started) * 1000)
                self.ok_failures += not ok
                if time.monotonic() >= next_memory:
                    self.peak_mb = max(self.peak_mb, tree_memory_mb(self.pid))
                    next_memory = time.monotonic() + MEMORY_EVERY_S
                self._stop.wait(max(0.0, OK_EVERY_S - (time.perf_counter() - started)))


@dataclass
class LoadResult:
    load: Load
    completed: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    startup_s: float = 0.0
    peak_in_flight: int = 0
    mean_in_flight: float = 0.0
    peak_mb: float = 0.0
    ok_ms: list[float] = field(default_factory=list)
    ok_failures: int = 0
    server_errors: dict[str, int] = field(default_factory=dict)  # from the server log: error → runs

    @property
    def per_minute(self) -> float:
        return 60 * self.completed / self.wall_s if self.wall_s else 0.0

    @property
    def all_completed(self) -> bool:
        return self.completed == self.load.runs and not self.errors

    def latency(self, q: float) -> float:
        return percentile(self.latencies, q)

    def ok_p99(self) -> float:
        return percentile(self.ok_ms, 0.99)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def _server_errors(root: Path) -> dict[str, int]:
    """Why runs failed, from the server's log (the client only sees "An internal error occurred")."""
    counts: dict[str, int] = {}
    with contextlib.suppress(OSError):
        text = re.sub(r"\x1b\[[0-9;]*m", "", (root / "server.stdout").read_text(errors="replace"))
        for match in re.finditer(r"Run encountered an error in graph: <class '([\w.]+)'>\((.*?)\) \[", text):
            key = f"{match.group(1)}: {match.group(2)}"[:200]
            counts[key] = counts.get(key, 0) + 1
    return counts


async def _one(http: httpx.AsyncClient) -> float:
    """One run on a thread of its own: its latency from thread creation to the final state."""
    started = time.perf_counter()
    thread = (await http.post("/threads", json={})).raise_for_status().json()["thread_id"]
    body = {"assistant_id": "paor", "input": {"prompt": PROMPT}}
    out = (await http.post(f"/threads/{thread}/runs/wait", json=body)).raise_for_status().json()
    if out.get("status") != "completed":
        raise RuntimeError(f"run ended {out.get('status')}: {out.get('stop_reason') or out}")
    return time.perf_counter() - started


async def _load(url: str, runs: int) -> list[float | BaseException]:
    # Idle connections are dropped after 1 s, well before the server's keep-alive (5 s) closes them: a connection
    # the server closes as a request goes out on it fails that request.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=1.0)
    async with httpx.AsyncClient(base_url=url, timeout=RUN_TIMEOUT_S, limits=limits) as http:
        (await http.get("/ok")).raise_for_status()
        return await asyncio.gather(*(_one(http) for _ in range(runs)), return_exceptions=True)


def run_load(load: Load) -> LoadResult:
    result = LoadResult(load=load)
    root = tempdir(f"server-load-{load.runs}-{load.jobs}")
    extra = {"PAOR_THREADS": str(load.threads)} if load.threads else {}
    with HeldLLM(HOLD_S) as llm:
        llm.on("text", ANSWER)
        env = scripted_env(llm.base_url, root / "paor-home", **extra)
        booted = time.monotonic()
        with langgraph_dev(root, env, jobs_per_worker=load.jobs) as url:
            result.startup_s = time.monotonic() - booted
            with Monitor(url, server_pid(int(url.rsplit(":", 1)[1]))) as monitor:
                began = time.monotonic()
                outcomes = asyncio.run(_load(url, load.runs))
                ended = time.monotonic()
        result.wall_s = ended - began
        result.mean_in_flight = llm.mean_in_flight(began, ended)
        result.peak_in_flight = llm.peak
    result.peak_mb, result.ok_ms, result.ok_failures = monitor.peak_mb, monitor.ok_ms, monitor.ok_failures
    result.server_errors = _server_errors(root)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            result.errors.append(f"{type(outcome).__name__}: {outcome}"[:300])
        else:
            result.completed += 1
            result.latencies.append(outcome)
    return result


def run_all(loads: tuple[Load, ...] = LOADS) -> list[LoadResult]:
    """Each row on a fresh server (empty database, store and run registry)."""
    return [run_load(load) for load in loads]


def table(results: list[LoadResult]) -> str:
    lines = [
        f"| `langgraph dev`, runs started at once (one model call each, held {HOLD_S:g} s) | runs | completed "
        "| p50 latency | p95 latency | wall time | runs/min | model requests in flight, peak / mean "
        "| peak memory, server tree | `/ok` p99 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.load.label} | {r.load.runs} | {r.completed} | {r.latency(0.5):.1f} s | {r.latency(0.95):.1f} s "
            f"| {r.wall_s:.1f} s | {r.per_minute:.0f} | {r.peak_in_flight} / {r.mean_in_flight:.1f} "
            f"| {r.peak_mb:.0f} MB | {r.ok_p99():.0f} ms |"
        )
    lines += [
        "",
        "Each row is a fresh server (start-up "
        f"{', '.join(f'{r.startup_s:.0f} s' for r in results)}, not counted). Latency runs from thread creation to "
        "the final state and includes queueing; the mean in flight is over the row's wall time. `/ok` polled every "
        f"{OK_EVERY_S * 1000:.0f} ms ({sum(len(r.ok_ms) for r in results)} requests, "
        f"{sum(r.ok_failures for r in results)} failed).",
    ]
    for r in results:
        if r.errors:
            seen = "; ".join(f"`{e}`" for e in sorted(set(r.errors))[:3])
            logged = "; ".join(f"{n}× `{e}`" for e, n in sorted(r.server_errors.items(), key=lambda kv: -kv[1])[:3])
            lines += [
                "",
                f"Errors with {r.load.label}: the client saw {seen}; the server logged {logged or 'nothing'}.",
            ]
    return "\n".join(lines)


def _met(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def verdicts(results: list[LoadResult]) -> list[str]:
    fixed = [r for r in results if not r.load.threads]
    out = []
    for r in (r for r in fixed if r.load.jobs == IN_FLIGHT_JOBS):
        out.append(
            f"`langgraph dev`, {r.load.jobs} jobs: ≥ {IN_FLIGHT_TARGET} model requests in flight: peak "
            f"{r.peak_in_flight}, mean {r.mean_in_flight:.1f} → {_met(r.peak_in_flight >= IN_FLIGHT_TARGET)}"
        )
    for r in (r for r in fixed if r.load.runs == WALL_RUNS and r.load.jobs == 50):
        ok = r.all_completed and r.wall_s <= WALL_TARGET_S
        out.append(
            f"`langgraph dev`, 50 jobs: {WALL_RUNS} runs in ≤ {WALL_TARGET_S:.0f} s: {r.completed}/{r.load.runs} in "
            f"{r.wall_s:.1f} s ({r.per_minute:.0f} runs/min) → {_met(ok)}"
        )
    if fixed:
        memory = max(fixed, key=lambda r: r.peak_mb)
        ok_p99 = max(fixed, key=lambda r: r.ok_p99())
        out += [
            f"`langgraph dev` under load: server tree memory ≤ {MEMORY_TARGET_MB:.0f} MB: peak {memory.peak_mb:.0f} MB "
            f"({memory.load.label}, {memory.load.runs} runs) → {_met(memory.peak_mb <= MEMORY_TARGET_MB)}",
            f"`langgraph dev` under load: `/ok` p99 ≤ {OK_P99_TARGET_MS:.0f} ms: worst row {ok_p99.ok_p99():.0f} ms "
            f"({ok_p99.load.label}, {ok_p99.load.runs} runs) → {_met(ok_p99.ok_p99() <= OK_P99_TARGET_MS)}",
        ]
    failed = [r for r in results if not r.all_completed]
    out.append(
        f"`langgraph dev` under load: every run of every row completes with zero errors: "
        f"{sum(r.completed for r in results)}/{sum(r.load.runs for r in results)}"
        + "".join(f"; {r.load.label}, {r.load.runs} runs: {len(r.errors)} errors" for r in failed)
        + f" → {_met(not failed)}"
    )
    return out


def main() -> None:
    results = run_all()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
