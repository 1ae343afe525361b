"""Scale-out: runs/s and p95 run latency of the primes scenario with 1, 2 and 4 worker processes sharing one
PostgreSQL database, against SQLite with one worker.

`python -m bench.workers` (needs PAOR_TEST_DATABASE_URL, e.g. the cluster .ci/run starts, and paor[postgres]).
Every configuration gets a fresh database, warmed by one run that learns the strategy (so every timed run is the
one-step primes run), then RUNS_PER_WORKER threads per worker. Workers (tests/postgres/worker.py) start together
after their imports; a run is lock + open state + graph + checkpoints, against the scripted loopback model served
by this process (which, being one Python process, is part of what is measured at 4 workers).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.support.scenarios import script_primes
from tests.support.scripted_llm import ScriptedLLM

REPO = Path(__file__).resolve().parents[1]
RUNS_PER_WORKER = int(os.environ.get("PAOR_BENCH_RUNS_PER_WORKER", "25"))
STARTUP_S = 8.0


@dataclass
class Result:
    backend: str
    workers: int
    runs: int
    wall_s: float
    latencies: list[float]

    @property
    def runs_per_s(self) -> float:
        return self.runs / self.wall_s if self.wall_s else 0.0

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    @property
    def p95(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _worker(db: str, base_url: str, store: Path, threads: list[str], start_at: float = 0.0) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.postgres.worker", "--db", db, "--base-url", base_url]
    command += ["--store-dir", str(store), "--threads", ",".join(threads), "--start-at", str(start_at)]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _lines(process: subprocess.Popen[str]) -> list[dict[str, object]]:
    out, err = process.communicate(timeout=600)
    if process.returncode != 0:
        raise RuntimeError(f"worker failed ({process.returncode}): {err[-2000:]}")
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def measure(backend: str, db: str, workers: int, llm: ScriptedLLM, store: Path) -> Result:
    _lines(_worker(db, llm.base_url, store, ["warm-up"]))  # learns the strategy; not timed
    start_at = time.time() + STARTUP_S
    processes = [
        _worker(db, llm.base_url, store, [f"b{w}-{i}" for i in range(RUNS_PER_WORKER)], start_at)
        for w in range(workers)
    ]
    reports = [line for process in processes for line in _lines(process)]
    bad = [r for r in reports if r.get("status") != "completed"]
    if bad:
        raise RuntimeError(f"{len(bad)} runs did not complete: {bad[:3]}")
    wall = max(float(str(r["end"])) for r in reports) - start_at
    return Result(backend, workers, len(reports), wall, [float(str(r["seconds"])) for r in reports])


def _fresh_database(server: str) -> tuple[str, str]:
    import psycopg

    name = f"paor_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(server)
    return name, urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def _drop_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def table(results: list[Result]) -> str:
    baseline = results[0].runs_per_s
    rows = [
        "| backend | workers | runs | wall s | runs/s | vs SQLite×1 | p50 s | p95 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        ratio = r.runs_per_s / baseline if baseline else 0.0
        rows.append(
            f"| {r.backend} | {r.workers} | {r.runs} | {r.wall_s:.2f} | {r.runs_per_s:.1f} | {ratio:.2f}× "
            f"| {r.p50:.3f} | {r.p95:.3f} |"
        )
    return "\n".join(rows)


def run_all(server: str) -> list[Result]:
    results: list[Result] = []
    with ScriptedLLM() as llm, tempfile.TemporaryDirectory(prefix="paor-bench-workers-") as tmp:
        script_primes(llm)
        root = Path(tmp)
        results.append(measure("SQLite", str(root / "paor.sqlite"), 1, llm, root / "store-sqlite"))
        for workers in (1, 2, 4):
            name, url = _fresh_database(server)
            try:
                results.append(measure("PostgreSQL", url, workers, llm, root / f"store-pg{workers}"))
            finally:
                _drop_database(server, name)
    return results


def main() -> None:
    server = os.environ.get("PAOR_TEST_DATABASE_URL", "").strip()
    if not server:
        sys.exit("bench.workers: set PAOR_TEST_DATABASE_URL to a PostgreSQL server (e.g. the cluster .ci/run starts)")
    results = run_all(server)
    print(f"## Scale-out: primes scenario, {RUNS_PER_WORKER} runs per worker (scripted loopback model)\n")
    print(table(results))


if __name__ == "__main__":
    main()
