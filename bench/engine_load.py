"""`python -m bench.engine_load`: does `paor serve` scale out? The same 200 runs on one instance, then on two.

Each phase starts a new PostgreSQL database, a new Redis and its `paor serve` instances (tests/support/paor_serve.py:
real processes from the Python 3.12 venv of the `aegra` extra; PAOR_TEST_AEGRA_PYTHON, PAOR_TEST_DATABASE_URL and
redis-server are needed). Every instance is given a fixed number of run slots, WORKER_COUNT=1 × N_JOBS_PER_WORKER=8
(Aegra's defaults are 3 × 10): a slot count per instance is what scaling out adds, and with it one instance is the
bottleneck of the first phase. The operator's per-client limits are raised above what the bench asks
(PAOR_SERVER_MAX_RUNS, PAOR_SERVER_MAX_REQUESTS, PAOR_SERVER_MAX_REQUESTS_PER_S, PAOR_SERVER_MAX_THREADS; by default
a client has 4 runs in flight and 10 requests a second), so that the bench measures the engine, not the quotas.

The run is a simple request done in one ai.process step (bench/fairness.py `script_one_step`, run context
`max_steps=1, direct_answer=False`): four model calls (intent, action selection, the step's text, the judgement),
and the scripted model takes 1.5 s to answer each (scripted_llm `Latency(base_s=1.5)`, no per-token time, slept in
real time), as a real endpoint does. A run is then ~6 s of waiting on the model and little else, so the runs a
phase finishes per minute are bounded by the slots that wait on the model at once, until CPU is the bound.

Two clients (two API keys) start every run at once, spread evenly over the instances and the keys, as a real
client does with threads: `POST /threads`, `POST /threads/{id}/runs`, then `GET …/runs/{run_id}/join`, all
200 sent at once (each client's run creations then wait for their turn at its runs quota, server/quotas.py
`check_runs`, while each holds one of Aegra's database connections: that once starved the pool, until paor's
questions got connections of their own, server/engine_aegra.py `_pool`). A run counts as completed
only when its join answers the scripted answer; anything else is a lost run. Before the measured load, each phase
warms up with one run per slot (not counted): the first runs of a process import and build what later runs reuse,
which would read as a leak otherwise.

Measured per phase: runs per minute (runs over the wall time from the first request to the last join's answer),
the latency of each run (thread creation to the join's answer; Aegra's join polls every 2 s), the model requests in
flight (mean over the load, and peak), the resident set size of each instance's process tree (from /proc: when
it answered `/ok`, after the warm-up, at its peak and after the load), the runs each instance executed (its log),
the runs' statuses in the database, warnings and errors in the instances' logs, and where the machine's CPU went
(the instances, the PostgreSQL backends of the phase's database, its Redis, this process, and everything else on
the machine, which on a shared machine includes other people's work).

Targets: two instances finish ≥ 1.6 × the runs per minute of one; no run is lost; memory is flat (each instance's
RSS after the load within 10 % of its RSS after the warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.common import print_report, tempdir
from bench.fairness import script_one_step
from tests.support.paor_serve import MISSING, Instance, service
from tests.support.scripted_llm import Latency, ScriptedLLM

KEYS = ("bench-engine-key-alice-5c2e", "bench-engine-key-bob-a71f")
RUNS = 200
#: How long the scripted model takes to answer each request: a real endpoint's answer time.
HOLD_S = 1.5
PROMPT = "Summarise the state of residential solar storage in three sentences"
ANSWER = "Storage is growing fast. Prices fell. Subsidies differ by region."
#: One ai.process step through the loop (not the direct answer): four model calls a run.
CONTEXT = {"max_steps": 1, "direct_answer": False}
MODEL_CALLS = 4
WORKER_COUNT, JOBS_PER_WORKER = 1, 8
SLOTS_PER_INSTANCE = WORKER_COUNT * JOBS_PER_WORKER
ENGINE = {"WORKER_COUNT": str(WORKER_COUNT), "N_JOBS_PER_WORKER": str(JOBS_PER_WORKER)}
#: The operator's per-client limits, each above what the bench asks of one client.
LIMITS = {
    "PAOR_SERVER_MAX_RUNS": str(RUNS),  # runs queued or running: every run of a client is queued at once
    "PAOR_SERVER_MAX_REQUESTS": str(4 * RUNS),  # requests open at once per instance: each run's join stays open
    "PAOR_SERVER_MAX_REQUESTS_PER_S": "1000",  # three requests a run, all at once
    "PAOR_SERVER_MAX_THREADS": str(4 * RUNS),  # a thread a run, warm-up included
}
PHASES = (1, 2)
TARGET_RATIO = 1.6
MEMORY_GROWTH_TARGET = 0.10
SAMPLE_EVERY_S = 0.5
RUN_TIMEOUT_S = 900.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class SlowModel(ScriptedLLM):
    """The scripted model answering each request in `HOLD_S`, listening with a backlog a burst of new connections
    fits in (http.server's is 5)."""

    def __init__(self) -> None:
        super().__init__(latency=Latency(base_s=HOLD_S, count=lambda _text: 0, time_scale=1.0))

    def start(self) -> SlowModel:
        super().start()
        if self._server is not None:
            self._server.socket.listen(1024)
        return self

    def __enter__(self) -> SlowModel:
        return self.start()

    def in_flight(self, start: float, end: float) -> tuple[float, int]:
        """Requests answered at once over [start, end] (time.perf_counter()): mean and peak."""
        spans = [r.span for r in list(self.requests) if r.span and r.span[1] > start and r.span[0] < end]
        held = sum(max(0.0, min(b, end) - max(a, start)) for a, b in spans)
        events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
        peak = now = 0
        for _, change in events:
            now += change
            peak = max(peak, now)
        return (held / (end - start) if end > start else 0.0), peak


# --- the instances' processes, from /proc ----------------------------------------------------------------------


def _tree(root: int) -> list[int]:
    """`root` and its descendants."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(proc.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def rss_mb(root: int) -> float:
    """Resident set size of `root`'s process tree (VmRSS summed)."""
    total_kb = 0
    for pid in _tree(root):
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
    return total_kb / 1024


def _cpu_of(pids: list[int]) -> float:
    """CPU time (user + system) of these processes."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / CLOCK_TICKS


def cpu_s(root: int) -> float:
    """CPU time (user + system) of `root`'s process tree."""
    return _cpu_of(_tree(root))


def _matching(predicate: Callable[[int, str], bool]) -> list[int]:
    """The processes whose (parent, command line) match."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if predicate(parent, (proc / "cmdline").read_text().replace("\0", " ")):
                    found.append(int(proc.name))
    return found


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the machine since boot, every core."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    total = sum(values[:8])  # guest time is counted in user already
    idle = values[3] + values[4]
    return (total - idle) / CLOCK_TICKS, total / CLOCK_TICKS


def own_cpu_s() -> float:
    times = os.times()
    return times.user + times.system


@dataclass
class Cpu:
    """CPU seconds since boot (or a process's start) of what a phase runs on, and of the machine."""

    instances: list[float]
    redis: float  # the phase's redis-server, a child of this process
    postgres: float  # the PostgreSQL backends serving the phase's database
    bench: float  # this process: the clients and the scripted model
    busy: float  # the machine's, every process and core
    total: float  # the machine's, busy or idle

    @classmethod
    def now(cls, pids: list[int], database: str) -> Cpu:
        me, name = os.getpid(), database.rsplit("/", 1)[1]
        redis = _matching(lambda parent, command: parent == me and "redis-server" in command)
        backends = _matching(lambda _parent, command: command.startswith("postgres: ") and f" {name} " in command)
        busy, total = machine_cpu()
        return cls([cpu_s(p) for p in pids], _cpu_of(redis), _cpu_of(backends), own_cpu_s(), busy, total)

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(
            [a - b for a, b in zip(self.instances, other.instances, strict=True)],
            self.redis - other.redis,
            self.postgres - other.postgres,
            self.bench - other.bench,
            self.busy - other.busy,
            self.total - other.total,
        )

    @property
    def others(self) -> float:
        """Every other process of the machine (other users' too, when it is shared) and the kernel."""
        return self.busy - sum(self.instances) - self.redis - self.postgres - self.bench


class MemoryPeak:
    """The peak RSS of each instance's process tree, sampled on a thread of its own."""

    def __init__(self, instances: list[Instance]) -> None:
        self.pids = [i.process.pid for i in instances]
        self.peaks = [rss_mb(pid) for pid in self.pids]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="bench-memory", daemon=True)

    def __enter__(self) -> MemoryPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY_S):
            self.peaks = [max(peak, rss_mb(pid)) for peak, pid in zip(self.peaks, self.pids, strict=True)]


# --- the instances' logs ---------------------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_LEVEL = re.compile(r"\[(warning|error|critical|exception) *\] (.*?)(?: \[[\w.]+\]|$)")


def _log(instance: Instance) -> str:
    return _ANSI.sub("", instance.log.read_text(errors="replace"))


def executed(instance: Instance) -> int:
    """Runs the instance's workers finished, from its log."""
    return _log(instance).count("Worker finished run")


def log_problems(instance: Instance) -> Counter[str]:
    """Warnings, errors and tracebacks in the instance's log, by level and message (ids and addresses masked)."""
    text = _log(instance)
    found: Counter[str] = Counter()
    for match in _LEVEL.finditer(text):
        message = _PORT.sub("{address}", _ID.sub("{id}", match.group(2).strip()))
        found[f"{match.group(1)}: {message[:160]}"] += 1
    found["Traceback"] += text.count("Traceback (most recent call last)")
    return +found


#: Aegra's own start-up warning: the routes it does not put its auth on are paor's, which carry their own.
EXPECTED_WARNINGS = ("warning: enable_custom_route_auth does not cover these custom routes",)


# --- the load --------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    latency_s: float | None = None
    queued_s: float | None = None  # when its run was accepted (`POST …/runs` answered), from the load's start
    error: str = ""


def _error(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        where = _ID.sub("{id}", exc.request.url.path)
        return f"HTTP {exc.response.status_code} on {where}: {_ID.sub('{id}', exc.response.text[:150])}"
    return f"{type(exc).__name__}: {exc}"[:200]


async def _one(http: httpx.AsyncClient, began: float) -> Outcome:
    """One run on a thread of its own, as a client does: create the thread, start the run, then join it."""
    started = time.perf_counter()
    body = {"assistant_id": "paor", "input": {"prompt": PROMPT}, "context": CONTEXT}
    try:
        created = await http.post("/threads", json={})
        created.raise_for_status()
        thread = created.json()["thread_id"]
        run = await http.post(f"/threads/{thread}/runs", json=body)
        run.raise_for_status()
        queued = time.perf_counter() - began
        joined = await http.get(f"/threads/{thread}/runs/{run.json()['run_id']}/join")
        joined.raise_for_status()
        out = joined.json()
    except httpx.HTTPError as exc:
        return Outcome(error=_error(exc))
    except (ValueError, KeyError) as exc:
        return Outcome(error=f"{type(exc).__name__}: {exc}"[:200])
    if "__error__" in out:
        return Outcome(error=f"run failed: {out['__error__']}"[:200])
    if ANSWER not in str(out.get("answer")):
        return Outcome(error=f"run ended {out.get('status')!r} without the answer: {str(out.get('answer'))[:80]!r}")
    return Outcome(latency_s=time.perf_counter() - started, queued_s=queued)


async def _load(instances: list[Instance], runs: int) -> list[Outcome]:
    """`runs` started at once, run i on instance i mod N, the keys taking turns on each instance."""
    # Idle connections are dropped after 1 s, before the server's keep-alive (5 s) closes them under a request.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=1.0)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            [
                await stack.enter_async_context(
                    httpx.AsyncClient(
                        base_url=instance.url, timeout=RUN_TIMEOUT_S, limits=limits, headers={"x-api-key": key}
                    )
                )
                for key in KEYS
            ]
            for instance in instances
        ]
        n, began = len(instances), time.perf_counter()
        return await asyncio.gather(*(_one(clients[i % n][(i // n) % len(KEYS)], began) for i in range(runs)))


@dataclass
class PhaseResult:
    instances: int
    startup_s: float = 0.0
    warmup_lost: int = 0
    completed: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    in_flight_mean: float = 0.0
    in_flight_peak: int = 0
    model_requests: int = 0
    #: Per instance, MB: when it answered `/ok`, after the warm-up, the peak during the load, after the load.
    rss_ready: list[float] = field(default_factory=list)
    rss_start: list[float] = field(default_factory=list)
    rss_peak: list[float] = field(default_factory=list)
    rss_end: list[float] = field(default_factory=list)
    executed: list[int] = field(default_factory=list)  # runs each instance executed during the load
    statuses: dict[str, int] = field(default_factory=dict)  # the database's runs by status, warm-up included
    problems: list[Counter[str]] = field(default_factory=list)  # per instance
    cpu: Cpu | None = None  # during the load
    queued_s: float = 0.0  # when the last run was accepted, from the load's start

    @property
    def slots(self) -> int:
        return self.instances * SLOTS_PER_INSTANCE

    @property
    def per_minute(self) -> float:
        return 60 * self.completed / self.wall_s if self.wall_s else 0.0

    @property
    def lost(self) -> int:
        return RUNS - self.completed

    def latency(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]

    def growth(self, i: int) -> float:
        return self.rss_end[i] / self.rss_start[i] - 1 if self.rss_start[i] else float("nan")

    @property
    def ceiling_per_minute(self) -> float:
        """What the slots would finish if a run were nothing but its model calls."""
        return 60 * self.slots / (MODEL_CALLS * HOLD_S)


def _statuses(database: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(database) as conn:
        rows = conn.execute("SELECT status, count(*) FROM runs GROUP BY status ORDER BY status").fetchall()
    return {str(status): int(count) for status, count in rows}


def run_phase(count: int) -> PhaseResult:
    """`RUNS` runs over `count` instances on a new database and Redis."""
    result = PhaseResult(instances=count)
    root = tempdir(f"engine-load-{count}")
    with SlowModel() as model:
        script_one_step(model, ANSWER)
        with service(root, model.base_url, ",".join(KEYS), **ENGINE, **LIMITS) as running:
            booted = time.monotonic()
            instances = running.start(count)
            result.startup_s = time.monotonic() - booted
            pids = [i.process.pid for i in instances]
            result.rss_ready = [rss_mb(pid) for pid in pids]
            warmup = asyncio.run(_load(instances, result.slots))
            result.warmup_lost = sum(1 for o in warmup if o.error)
            result.errors += [f"warm-up: {o.error}" for o in warmup if o.error]
            before = [executed(i) for i in instances]
            result.rss_start = [rss_mb(pid) for pid in pids]
            with MemoryPeak(instances) as memory:
                cpu_before = Cpu.now(pids, running.database)
                began = time.perf_counter()
                outcomes = asyncio.run(_load(instances, RUNS))
                ended = time.perf_counter()
                result.cpu = Cpu.now(pids, running.database) - cpu_before
            result.rss_end = [rss_mb(pid) for pid in pids]
            result.rss_peak = [max(p, e) for p, e in zip(memory.peaks, result.rss_end, strict=True)]
            result.executed = [executed(i) - b for i, b in zip(instances, before, strict=True)]
            result.statuses = _statuses(running.database)
            result.problems = [log_problems(i) for i in instances]
        result.wall_s = ended - began
        result.in_flight_mean, result.in_flight_peak = model.in_flight(began, ended)
        result.model_requests = len(model.requests)
    result.queued_s = max((o.queued_s for o in outcomes if o.queued_s is not None), default=float("nan"))
    for outcome in outcomes:
        if outcome.error:
            result.errors.append(outcome.error)
        elif outcome.latency_s is not None:
            result.completed += 1
            result.latencies.append(outcome.latency_s)
    return result


def run_all() -> list[PhaseResult]:
    return [run_phase(count) for count in PHASES]


# --- the report ------------------------------------------------------------------------------------------------


def _mb(values: list[float]) -> str:
    return " / ".join(f"{v:.0f}" for v in values)


def _plural(count: int) -> str:
    return f"{count} instance{'s' if count > 1 else ''}"


def table(results: list[PhaseResult]) -> str:
    lines = [
        f"| `paor serve`, {RUNS} runs started at once ({MODEL_CALLS} model calls each, {HOLD_S:g} s per answer) "
        "| run slots | completed | lost | all queued after | wall time | runs/min | p50 / p95 latency "
        "| model requests in flight, mean / peak | runs executed per instance "
        "| RSS per instance (MB): ready → after warm-up → peak → after the load |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        rss = " ; ".join(
            f"{a:.0f} → {b:.0f} → {c:.0f} → {d:.0f}"
            for a, b, c, d in zip(r.rss_ready, r.rss_start, r.rss_peak, r.rss_end, strict=True)
        )
        lines.append(
            f"| {_plural(r.instances)} on one database + Redis | {r.slots} | {r.completed}/{RUNS} | {r.lost} "
            f"| {r.queued_s:.1f} s | {r.wall_s:.1f} s | {r.per_minute:.1f} | {r.latency(0.5):.1f} / "
            f"{r.latency(0.95):.1f} s | {r.in_flight_mean:.1f} / {r.in_flight_peak} "
            f"| {' / '.join(str(e) for e in r.executed)} | {rss} |"
        )
    lines += [
        "",
        f"Operator's settings of every instance: WORKER_COUNT={WORKER_COUNT}, N_JOBS_PER_WORKER={JOBS_PER_WORKER} "
        f"({SLOTS_PER_INSTANCE} run slots an instance); "
        + ", ".join(f"{k}={v}" for k, v in LIMITS.items())
        + f" (defaults 4, 32, 10, 500). Clients: {len(KEYS)} keys, the runs spread evenly over them and over the "
        "instances, all sent at once. Each phase is a new database and Redis, "
        "its instances started in "
        + ", ".join(f"{r.startup_s:.0f} s" for r in results)
        + " (not counted), then warmed up with one run a slot (not counted). If a run were only its model calls, "
        "the slots would finish " + ", ".join(f"{r.ceiling_per_minute:.0f}" for r in results) + " runs/min.",
    ]
    for r in results:
        if r.cpu is None:
            continue
        cpu = r.cpu
        lines.append(
            f"CPU during the load, {_plural(r.instances)}: the machine "
            f"{100 * cpu.busy / cpu.total if cpu.total else float('nan'):.0f} % busy over {os.cpu_count()} cores "
            f"({cpu.busy:.0f} s of {cpu.total:.0f} s): instances {' / '.join(f'{c:.0f}' for c in cpu.instances)} s "
            f"({sum(cpu.instances) / RUNS * 1000:.0f} ms a run), PostgreSQL backends of its database "
            f"{cpu.postgres:.0f} s, Redis {cpu.redis:.0f} s, this process (clients, scripted model) {cpu.bench:.0f} s, "
            f"every other process of the machine {cpu.others:.0f} s. Database: runs "
            + ", ".join(f"{status} {n}" for status, n in r.statuses.items())
            + f" (warm-up included); model requests {r.model_requests} "
            f"({r.model_requests / (RUNS + r.slots):.1f} a run)."
        )
    for r in results:
        for n, problems in enumerate(r.problems):
            shown = {k: v for k, v in problems.items() if k not in EXPECTED_WARNINGS}
            if shown:
                listed = "; ".join(f"{v}× `{k}`" for k, v in sorted(shown.items(), key=lambda kv: -kv[1])[:5])
                lines.append(f"Log of instance {n + 1} of {r.instances}: {listed}.")
        if r.errors:
            seen = "; ".join(f"{v}× `{k}`" for k, v in Counter(r.errors).most_common(4))
            lines.append(f"Lost with {_plural(r.instances)}: {seen}.")
    return "\n".join(lines)


def _met(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def verdicts(results: list[PhaseResult]) -> list[str]:
    by_count = {r.instances: r for r in results}
    out = []
    if 1 in by_count and 2 in by_count:
        one, two = by_count[1], by_count[2]
        ratio = two.per_minute / one.per_minute if one.per_minute else float("nan")
        out.append(
            f"`paor serve` scales out: two instances ≥ {TARGET_RATIO:g} × the runs/min of one: "
            f"{two.per_minute:.1f} vs {one.per_minute:.1f} runs/min = {ratio:.2f} × → {_met(ratio >= TARGET_RATIO)}"
        )
    lost = sum(r.lost for r in results)
    warmup_lost = sum(r.warmup_lost for r in results)
    out.append(
        "No run lost: every run completes with the expected answer: "
        + "; ".join(f"{r.instances} instance(s) {r.completed}/{RUNS}" for r in results)
        + (f" (and {warmup_lost} of the warm-up runs lost)" if warmup_lost else "")
        + f" → {_met(lost == 0 and warmup_lost == 0)}"
    )
    growths = [(r.instances, n, r.growth(n)) for r in results for n in range(r.instances)]
    worst = max(growths, key=lambda g: g[2])
    out.append(
        f"Memory flat: each instance's RSS after the load within {MEMORY_GROWTH_TARGET:.0%} of its RSS after the "
        "warm-up: "
        + "; ".join(f"{c} instance(s), #{n + 1}: {g:+.1%}" for c, n, g in growths)
        + f" (worst {worst[2]:+.1%}) → {_met(worst[2] <= MEMORY_GROWTH_TARGET)}"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_load", description=__doc__.split("\n", 1)[0])
    parser.parse_args()
    if MISSING:
        raise SystemExit(f"bench.engine_load {MISSING}")
    results = run_all()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
