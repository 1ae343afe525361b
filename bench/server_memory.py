"""`python -m bench.server_memory`: does the `langgraph dev` worker's memory stay flat across document runs?

One server with a client key (the shared-server set-up), the scripted report scenario (extract → German summary →
Word report). Each run uploads a PDF of its own (`POST /paor/documents`), runs a thread on it, downloads the Word
report and deletes the thread. The worker's resident memory (VmRSS of the `langgraph dev` process; the parse server
and its children are processes of their own) is read after every run. Target (issue 30): at most +50 MB after 50
runs, counted from the end of the warm-up (the first runs load the readers, the report writer and fill caches).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.common import print_report, tempdir

RUNS = 50
WARM_UP = 5
TARGET_MB = 50.0
KEY = "bench-memory-key-5d2e"


@dataclass
class MemoryResult:
    runs: int
    warm_up: int
    rss_mb: list[float] = field(default_factory=list)  # after each run
    seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def start_mb(self) -> float:
        return self.rss_mb[self.warm_up - 1] if len(self.rss_mb) >= self.warm_up else float("nan")

    @property
    def growth_mb(self) -> float:
        return self.rss_mb[-1] - self.start_mb if self.rss_mb else float("nan")


def server_pid(port: int) -> int:
    """The `langgraph dev` process serving `port` (it runs uvicorn itself)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"langgraph_cli" in b" ".join(command) and str(port).encode() in command:
            return int(proc.name)
    raise RuntimeError(f"no langgraph dev process serves port {port}")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(runs: int = RUNS, warm_up: int = WARM_UP) -> MemoryResult:
    from tests.support.langgraph_dev import langgraph_dev, scripted_env
    from tests.support.scenarios import NOTES, REPORT_PROMPT, script_report
    from tests.support.scripted_llm import ScriptedLLM
    from tests.unit.documents.builders import pdf_bytes

    result = MemoryResult(runs=runs, warm_up=warm_up)
    root = tempdir("server-memory")
    with ScriptedLLM() as llm:
        script_report(llm)
        env = scripted_env(llm.base_url, root / "paor-home", PAOR_SERVER_API_KEY=KEY)
        with langgraph_dev(root, env) as url:
            pid = server_pid(int(url.rsplit(":", 1)[1]))
            with httpx.Client(base_url=url, headers={"x-api-key": KEY}, timeout=300) as http:
                for n in range(runs):
                    started = time.perf_counter()
                    try:
                        _one(http, pdf_bytes(f"{NOTES} Run {n}."), REPORT_PROMPT)
                    except Exception as exc:  # a failed run is reported, the measurement goes on
                        result.failures.append(f"run {n}: {type(exc).__name__}: {exc}"[:300])
                    result.seconds.append(time.perf_counter() - started)
                    result.rss_mb.append(rss_mb(pid))
    return result


def _one(http: httpx.Client, pdf: bytes, prompt: str) -> None:
    reference = http.post("/paor/documents", params={"name": "notes.pdf"}, content=pdf).raise_for_status().json()
    thread = http.post("/threads", json={}).raise_for_status().json()["thread_id"]
    body = {"assistant_id": "paor", "input": {"prompt": prompt, "documents": [reference["reference"]]}}
    out = http.post(f"/threads/{thread}/runs/wait", json=body).raise_for_status().json()
    if out.get("status") != "completed" or not out.get("deliverables"):
        raise RuntimeError(f"the run ended {out.get('status')}: {out.get('stop_reason')}")
    for deliverable in out["deliverables"]:
        http.get(deliverable["url"]).raise_for_status()
    http.delete(f"/threads/{thread}").raise_for_status()
    http.delete(f"/paor/documents/{reference['reference']}").raise_for_status()


def table(result: MemoryResult) -> str:
    marks = sorted({1, result.warm_up, 10, 20, 30, 40, result.runs} & set(range(1, len(result.rss_mb) + 1)))
    lines = [
        "| after run | " + " | ".join(str(n) for n in marks) + " |",
        "|---|" + "---:|" * len(marks),
        "| worker RSS | " + " | ".join(f"{result.rss_mb[n - 1]:.0f} MB" for n in marks) + " |",
    ]
    mean = sum(result.seconds) / len(result.seconds) if result.seconds else float("nan")
    lines += [
        "",
        f"{result.runs} document runs (upload a PDF, extract → summary → Word report, download, delete the thread "
        f"and the upload); {mean:.2f} s per run; {len(result.failures)} failed"
        + (f" ({result.failures[0]})" if result.failures else "")
        + ".",
    ]
    return "\n".join(lines)


def verdicts(result: MemoryResult) -> list[str]:
    ok = result.growth_mb <= TARGET_MB and not result.failures
    return [
        f"worker memory across {result.runs} document runs ≤ +{TARGET_MB:g} MB after the warm-up: "
        f"{result.start_mb:.0f} MB after run {result.warm_up} → {result.rss_mb[-1]:.0f} MB after run {result.runs} "
        f"= {result.growth_mb:+.1f} MB → {'MET' if ok else 'NOT MET'}"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=RUNS)
    arguments = parser.parse_args()
    result = run(arguments.runs)
    print_report(table(result), verdicts(result))


if __name__ == "__main__":
    main()
