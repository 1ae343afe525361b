"""`python -m bench.fairness`: does one client at its quotas, sending bombs and huge bodies, starve another?

One `langgraph dev` on loopback with two client keys and the operator's limits (server/settings.py `LIMITS`; the
thread, store and document quotas lowered so that Mallory reaches them within the run), `--n-jobs-per-worker 10`
(a shared server's setting: above every client's runs-in-flight quota). The scripted model answers like an endpoint
with latency (0.3 s per request plus tokens), so a run waits on its model as a real one does.

Alice runs a simple request (one ai.process step) again and again, one at a time, and the latency of each (thread
creation to final state) is measured: first with the server to herself, then while Mallory attacks with every
coroutine she may have open at once — runs to her runs-in-flight quota and beyond, 12 MB bodies to LangGraph's
routes, 9.5 MB thread metadata and store values (under the body limit: LangGraph parses them), threads and store
items past her quotas, uploads at her document quota (deleting one whenever she is refused, so that her runs still
start), and an MCP `tools/list` flood. Target (issue 30): Alice's p95 under attack ≤ 2 × her
idle p95.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.common import print_report, tempdir

ALICE, MALLORY = "bench-fair-key-alice-71c3", "bench-fair-key-mallory-0e9a"
RUNS = 20
TARGET = 2.0
JOBS_PER_WORKER = 10
PROMPT = "Summarise the state of residential solar storage in three sentences"
#: Lowered so that Mallory meets them in a short run; the rest are the operator's defaults.
LIMITS = {"PAOR_SERVER_MAX_THREADS": "40", "PAOR_SERVER_MAX_STORE_ITEMS": "50", "PAOR_SERVER_MAX_DOCUMENTS_MB": "20"}
CONTEXT = {"max_steps": 1, "direct_answer": False}
MB = 1024 * 1024


@dataclass
class FairnessResult:
    idle: list[float] = field(default_factory=list)
    attacked: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    mallory: Counter[str] = field(default_factory=Counter)  # "what → status" → count
    attack_s: float = 0.0

    @staticmethod
    def percentile(values: list[float], q: float) -> float:
        if not values:
            return float("nan")
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]

    @property
    def ratio(self) -> float:
        return self.percentile(self.attacked, 0.95) / self.percentile(self.idle, 0.95)


ANSWER = "Storage is growing fast. Prices fell. Subsidies differ by region."


def script_one_step(llm: Any, answer: str = ANSWER) -> None:
    """The scripted model for a request done in one ai.process step whose text is `answer`, judged met."""
    intent = {"dataType": "text", "expectedFormat": "markdown", "successCriteria": ["the answer"], "language": "en"}
    selection = {
        "action": "ai.process",
        "actionObjective": "Answer",
        "requiredInputDocuments": [],
        "parametersContext": "Answer the request.",
        "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
    }
    llm.on("Intent", json.dumps(intent)).on("ActionSelection", selection)
    llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": "Answer the request."}})
    llm.on("text", answer).on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": []})


def attacker_lines(seen: Counter[str], failures: list[str]) -> list[str]:
    """Mallory's requests by answer, and the first failures of the measured client, as markdown lines."""
    lines = ["| Mallory's request → answer | count |", "|---|---:|"]
    lines += [f"| {what} | {count} |" for what, count in sorted(seen.items())]
    if failures:
        lines += ["", f"Failures: {'; '.join(sorted(set(failures))[:3])}"]
    return lines


async def _alice_runs(http: httpx.AsyncClient, runs: int, into: list[float], failures: list[str]) -> None:
    for _ in range(runs):
        started = time.perf_counter()
        try:
            thread = (await http.post("/threads", json={})).raise_for_status().json()["thread_id"]
            body = {"assistant_id": "paor", "input": {"prompt": PROMPT}, "context": CONTEXT}
            out = (await http.post(f"/threads/{thread}/runs/wait", json=body)).raise_for_status().json()
            if out.get("status") != "completed":
                failures.append(f"Alice's run ended {out.get('status')}")
            into.append(time.perf_counter() - started)
            await http.delete(f"/threads/{thread}")
        except httpx.HTTPError as exc:
            failures.append(f"Alice: {type(exc).__name__}: {exc}"[:300])


async def _mallory(http: httpx.AsyncClient, seen: Counter[str], stop: asyncio.Event) -> None:
    identity = await _identity(http)
    huge = b'{"metadata": {"pad": "' + b"x" * (12 * MB) + b'"}}'
    big_metadata = b'{"metadata": {"pad": "' + b"x" * int(9.5 * MB) + b'"}}'
    big_value = json.dumps({"namespace": [identity, "bomb"], "key": "k", "value": {"pad": "x" * int(9.5 * MB)}})
    run_body = {"assistant_id": "paor", "input": {"prompt": PROMPT}, "context": CONTEXT}
    json_headers = {"content-type": "application/json"}
    counter = iter(range(10**9))

    async def hit(what: str, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        try:
            response = await http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            seen[f"{what} → {type(exc).__name__}"] += 1
            return None
        limit = re.search(r"PAOR_SERVER_\w+", response.text) if response.status_code >= 400 else None
        seen[f"{what} → {response.status_code}" + (f" ({limit.group(0)})" if limit else "")] += 1
        return response

    async def runs() -> None:  # past the runs-in-flight quota: a run each as soon as the last one ended
        thread = (await http.post("/threads", json={})).json().get("thread_id")
        while not stop.is_set():
            if await hit("run", "POST", "/runs/wait", json=run_body) is None:
                await asyncio.sleep(0.05)
        if thread:
            await http.delete(f"/threads/{thread}")

    async def loop(what: str, method: str, path: str, **kwargs: Any) -> None:
        while not stop.is_set():
            await hit(what, method, path, **kwargs)

    async def threads() -> None:
        while not stop.is_set():
            await hit("thread", "POST", "/threads", json={"metadata": {"n": next(counter)}})

    async def store() -> None:
        while not stop.is_set():
            item = {"namespace": [identity, "spam"], "key": f"k{next(counter)}", "value": {"v": 1}}
            await hit("store item", "PUT", "/store/items", json=item)

    async def uploads() -> None:  # 2 MB of text each, never the same: at the document quota, and staying there
        held: list[str] = []
        while not stop.is_set():
            content = os.urandom(MB).hex().encode()
            answer = await hit("upload 2 MB", "POST", "/paor/documents", params={"name": "a.txt"}, content=content)
            if answer is not None and answer.status_code == 201:
                held.append(answer.json()["reference"])
            elif answer is not None and answer.status_code == 413 and held:  # just under the quota: runs still start
                await hit("delete an upload", "DELETE", f"/paor/documents/{held.pop(0)}")

    mcp = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    mcp_headers = {"accept": "application/json, text/event-stream"}
    await asyncio.gather(
        *(runs() for _ in range(6)),
        loop("12 MB body", "POST", "/runs/wait", content=huge, headers=json_headers),
        loop("12 MB body", "POST", "/threads", content=huge, headers=json_headers),
        loop("9.5 MB metadata", "POST", "/threads", content=big_metadata, headers=json_headers),
        loop("9.5 MB store value", "PUT", "/store/items", content=big_value.encode(), headers=json_headers),
        threads(),
        store(),
        uploads(),
        loop("MCP tools/list", "POST", "/mcp", json=mcp, headers=mcp_headers),
    )


async def _identity(http: httpx.AsyncClient) -> str:
    created = (await http.post("/threads", json={})).json()
    await http.delete(f"/threads/{created['thread_id']}")
    return str(created["metadata"]["owner"])


async def _measure(url: str, runs: int, result: FairnessResult) -> None:
    timeout = httpx.Timeout(300.0)
    async with (
        httpx.AsyncClient(base_url=url, headers={"x-api-key": ALICE}, timeout=timeout) as alice,
        httpx.AsyncClient(
            base_url=url, headers={"x-api-key": MALLORY}, timeout=timeout, limits=httpx.Limits(max_connections=64)
        ) as mallory,
    ):
        await _alice_runs(alice, 2, [], result.failures)  # warm-up: readers, graph, first requests
        await _alice_runs(alice, runs, result.idle, result.failures)
        stop = asyncio.Event()
        attack = asyncio.create_task(_mallory(mallory, result.mallory, stop))
        await asyncio.sleep(3.0)  # Mallory reaches her quotas first
        started = time.perf_counter()
        await _alice_runs(alice, runs, result.attacked, result.failures)
        result.attack_s = time.perf_counter() - started
        stop.set()
        await asyncio.wait_for(attack, timeout=300)


def run(runs: int = RUNS) -> FairnessResult:
    from tests.support.langgraph_dev import langgraph_dev, scripted_env
    from tests.support.scripted_llm import Latency, ScriptedLLM

    result = FairnessResult()
    root = tempdir("fairness")
    with ScriptedLLM(latency=Latency(base_s=0.3, output_tps=100.0, time_scale=1.0)) as llm:
        script_one_step(llm)
        env = scripted_env(llm.base_url, root / "paor-home", PAOR_SERVER_API_KEY=f"{ALICE},{MALLORY}", **LIMITS)
        with langgraph_dev(root, env, jobs_per_worker=JOBS_PER_WORKER) as url:
            asyncio.run(_measure(url, runs, result))
    return result


def table(result: FairnessResult) -> str:
    p = FairnessResult.percentile
    lines = [
        "| Alice's simple run (thread + `runs/wait`, one ai.process step) | runs | p50 | p95 |",
        "|---|---:|---:|---:|",
        f"| the server to herself | {len(result.idle)} | {p(result.idle, 0.5):.2f} s | {p(result.idle, 0.95):.2f} s |",
        f"| while Mallory attacks | {len(result.attacked)} | {p(result.attacked, 0.5):.2f} s "
        f"| {p(result.attacked, 0.95):.2f} s |",
        "",
        f"Mallory's requests during the {result.attack_s:.0f} s of Alice's runs under attack (and the 3 s before), "
        "by answer:",
        "",
        *attacker_lines(result.mallory, result.failures),
    ]
    return "\n".join(lines)


def verdicts(result: FairnessResult) -> list[str]:
    ok = result.ratio <= TARGET and not result.failures
    p = FairnessResult.percentile
    return [
        f"another client's p95 latency for a simple run while one client attacks at its quotas ≤ {TARGET:g} × idle: "
        f"{p(result.attacked, 0.95):.2f} s vs {p(result.idle, 0.95):.2f} s = {result.ratio:.2f} × "
        f"→ {'MET' if ok else 'NOT MET'}"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=RUNS)
    result = run(parser.parse_args().runs)
    print_report(table(result), verdicts(result))


if __name__ == "__main__":
    main()
