"""`langgraph dev` under load: 50 threads run the primes scenario concurrently through the async SDK.

The server runs as `tests/server/test_langgraph_dev.py` starts it: a throwaway project folder holding a copy of
langgraph.json and links to the source folders, a free loopback port (never 2024), no analytics, its own
PAOR_HOME (so its SQLite checkpointer and learning store start empty), and the scripted model of this process
passed through the environment (OPENAI_BASE_URL, PAOR_MODEL). Every run gets its own thread (`threads.create`,
then `runs.wait`), all 50 at once with `asyncio.gather`; latency is measured per run from thread creation to the
final state. The server's whole process group is stopped in a `finally`, whatever happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import tempdir

REPO = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("graph", "nodes", "tools", "prompts")
RUNS = 50
# `langgraph dev` runs one run at a time unless told otherwise (its --help says 10; langgraph-api passes 1).
JOBS_PER_WORKER = (1, RUNS)
ASSISTANT = "paor"
STARTUP_TIMEOUT_S = 60.0
RUN_TIMEOUT_S = 300.0
# Settings of the developer's shell that must not leak into the server.
_ENV_TO_DROP = ("OPENAI_BASE_URL", "PAOR_BASE_URL", "PAOR_DB", "TAVILY_API_KEY", "LANGSMITH_API_KEY")


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
    startup_failure: str = ""  # why the repo's own langgraph.json did not start, if it did not
    store_shim: bool = False
    server_errors: dict[str, int] = field(default_factory=dict)  # from the server log: error → runs

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def free_port() -> int:
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port != 2024:  # taken on these machines; the server would silently move elsewhere
            return port


def _project(root: Path, store_shim: bool = False) -> Path:
    """The repo's langgraph.json (a byte-identical copy) plus links to the source folders.

    `store_shim`: point `store.path` at a one-line module that imports `graph.persistence.store` instead of
    loading graph/persistence.py by file path (langgraph-api registers path-loaded store modules in sys.modules
    under the wrong name, so a `@dataclass` in that file fails to build). Only used when the repo's own
    configuration does not start, and reported as such."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "langgraph.json", root / "langgraph.json")
    for name in SOURCE_DIRS:
        (root / name).symlink_to(REPO / name, target_is_directory=True)
    if store_shim:
        (root / "bench_store_shim.py").write_text("from graph.persistence import store  # noqa: F401\n")
        config = json.loads((root / "langgraph.json").read_text())
        config["store"]["path"] = "./bench_store_shim.py:store"
        (root / "langgraph.json").write_text(json.dumps(config, indent=2))
    return root


def _server_errors(root: Path) -> dict[str, int]:
    """Why runs failed, from the server's log (the SDK only sees "An internal error occurred")."""
    counts: dict[str, int] = {}
    with contextlib.suppress(OSError):
        text = re.sub(r"\x1b\[[0-9;]*m", "", (root / "server.stdout").read_text(errors="replace"))
        for match in re.finditer(r"Run encountered an error in graph: <class '([\w.]+)'>\((.*?)\) \[", text):
            key = f"{match.group(1)}: {match.group(2)}"[:200]
            counts[key] = counts.get(key, 0) + 1
    return counts


class ServerDidNotStart(RuntimeError):
    pass


def _first_error(root: Path) -> str:
    """The exception line of the server's first traceback (its logs go to stdout and stderr)."""
    text = ""
    for name in ("server.stdout", "server.stderr"):
        with contextlib.suppress(OSError):
            text += re.sub(r"\x1b\[[0-9;]*m", "", (root / name).read_text(errors="replace"))
    if "Traceback" not in text:
        return text.strip().splitlines()[-1][:300] if text.strip() else "(no output)"
    trace = text.split("Traceback", 1)[1].splitlines()
    where = [line.strip() for line in trace if line.strip().startswith('File "') and "/project/" in line]
    errors = [line.strip() for line in trace if re.match(r"^\s*\w+(Error|Exception)\b", line)]
    return "; ".join([*(errors[-1:] or trace[-1:]), *where[-1:]])[:400]


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group, SIGKILL if it lingers; only this group, by its id."""
    if process.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def langgraph_dev(model_url: str, root: Path, jobs_per_worker: int = 1, store_shim: bool = False) -> Iterator[str]:
    """Start `langgraph dev` on a free loopback port; yield its URL; always stop it."""
    root.mkdir(parents=True, exist_ok=True)
    project = _project(root / "project", store_shim)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in _ENV_TO_DROP and not k.startswith("PAOR_")}
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_TRACING="false",
        PAOR_HOME=str(root / "paor-home"),
        OPENAI_BASE_URL=model_url,
        OPENAI_API_KEY="sk-bench-not-a-real-key",
        PAOR_MODEL="scripted",
        PAOR_MAX_RETRIES="0",
    )
    command = [
        sys.executable,
        "-m",
        "langgraph_cli",
        "dev",
        "--no-browser",
        "--no-reload",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--config",
        str(project / "langgraph.json"),
    ]
    command += ["--n-jobs-per-worker", str(jobs_per_worker)]
    stdout, stderr = root / "server.stdout", root / "server.stderr"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            command, cwd=project, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise ServerDidNotStart(f"langgraph dev exited with {process.returncode}: {_first_error(root)}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise ServerDidNotStart(f"no answer on {url}/ok in {STARTUP_TIMEOUT_S:.0f}s: {_first_error(root)}")
            time.sleep(0.25)
        yield url
    finally:
        stop(process)


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


def run_load(runs: int, jobs_per_worker: int, store_shim: bool) -> LoadResult:
    from tests.support.scenarios import script_primes
    from tests.support.scripted_llm import ScriptedLLM

    result = LoadResult(runs=runs, jobs_per_worker=jobs_per_worker, store_shim=store_shim)
    root = tempdir(f"server-load-{jobs_per_worker}")
    with ScriptedLLM() as llm:
        script_primes(llm)
        started = time.perf_counter()
        with langgraph_dev(llm.base_url, root, jobs_per_worker, store_shim=store_shim) as url:
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
    """One load run per jobs-per-worker setting, each on a fresh server (empty database and store), on the repo's
    langgraph.json. If that server does not start, the reason is kept and the load runs with only the store path
    routed through a shim module (see `_project`)."""
    results: list[LoadResult] = []
    failure, shim = "", False
    for n in jobs:
        try:
            result = run_load(runs, n, shim)
        except ServerDidNotStart as exc:
            if shim:
                raise
            failure, shim = str(exc), True
            result = run_load(runs, n, shim)
        result.startup_failure = failure
        results.append(result)
    return results


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
    first = results[0]
    if first.startup_failure:
        lines += [
            "",
            f"**The repo's langgraph.json did not start the server**: `{first.startup_failure}`. "
            + (
                "The figures above were measured with `store.path` routed through a one-line shim module "
                "(`from graph.persistence import store`); everything else as configured."
                if first.store_shim
                else ""
            ),
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
        shim = " (measured with the store shim: the repo's langgraph.json does not start)" if r.store_shim else ""
        out.append(
            f"`langgraph dev` load, {r.runs} threads, {r.jobs_per_worker} job(s)/worker: {r.runs}/{r.runs} complete "
            f"with zero errors: {r.completed}/{r.runs}, {len(r.errors)} errors, p50 {r.percentile(0.5):.2f} s, "
            f"p95 {r.percentile(0.95):.2f} s, {rate:.2f} runs/s → {'MET' if ok else 'NOT MET'}{shim}"
        )
    return out


def main() -> None:
    results = run_all()
    print(table(results))
    print()
    print("\n".join(f"- {line}" for line in verdicts(results)))


if __name__ == "__main__":
    main()
