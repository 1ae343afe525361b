"""`python -m bench.local_walltime`: a five-step task with a tool on llama.cpp, paor beside create_react_agent.

Issue 33's real-endpoint line: the same llama.cpp server (`paor serve-local`'s, SmolLM2-135M by default) serves
paor React (at most five steps, with `paor run --local`'s settings) and LangGraph's prebuilt `create_react_agent`,
both given the same LangChain tool, `population` (a lookup, no model); paor may also answer with ai.process. The
task asks for five lookups and their total. llama-cpp-python's server answers with a tool call only when the
request names the tool (`tool_choice`), so the baseline is made to call it five times and then to answer: five
steps. Each answer is bounded to the same number of tokens. Both run `--repeats` times, alternating, each after an
unrecorded request that resets the server's prompt cache; one recorder counts every request (bench.recording).
paor may stop after fewer steps: the table shows the steps each took, the time per step beside the time per task,
and whether the answer gave the right total. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from bench.common import print_report, tempdir
from bench.models import gguf_model
from bench.recording import Recorder
from bench.side_by_side import BARE, PAOR, recorded, settle
from core.context import Context
from core.llm import chat_openai, length_limit

STEPS = 5
POPULATION = {"Paris": 2_102_650, "Berlin": 3_755_251, "Madrid": 3_332_035, "Rome": 2_754_719, "Vienna": 2_005_760}
TASK = (
    f"Look up the population of each of these {len(POPULATION)} cities with the population tool, one city per "
    f"call: {', '.join(POPULATION)}. Then give the total."
)
ANSWER_TOKENS = 300  # the ~300-token outputs of bench.walltime
TARGET = 1.2


class City(BaseModel):
    city: str = Field(max_length=40, description="the city's name, e.g. Paris")


@tool(args_schema=City)
def population(city: str) -> str:
    """The population of a European capital (city proper, 2024)."""
    found = POPULATION.get(city.strip().title())
    return f"{city}: {found:,} inhabitants" if found else f"{city}: not in the table"


@dataclass
class Run:
    system: str
    seconds: float
    steps: int
    requests: int
    prompt_tokens: int
    status: str
    answer: str = ""

    @property
    def correct(self) -> bool:
        """The answer states the total, with or without thousands separators."""
        digits = re.sub(r"(?<=\d)[,\s.'’](?=\d{3}\b)", "", self.answer)
        return str(sum(POPULATION.values())) in digits

    @property
    def per_step(self) -> float:
        return self.seconds / max(self.steps, 1)


def run_paor(context: Context, recorder: Recorder, folder: Path) -> Run:
    """paor React with the tool as an action of its own (build_graph(tools=…)), besides ai.process."""
    from core.persistence import open_sqlite
    from graph.builder import build_graph

    recorder.system, first = PAOR, len(recorder.exchanges)
    run_context = dataclasses.replace(
        context,
        allowed_methods="population,ai.process",
        store_dir=str(folder / "store"),
        documents_dir=str(folder / "docs"),
    )
    started, status, steps, answer = time.monotonic(), "error", 0, ""
    with open_sqlite(folder / "paor.sqlite") as (saver, store):
        graph = build_graph(
            llm=recorded(chat_openai(context), recorder), checkpointer=saver, store=store, tools=[population]
        )
        try:
            out = graph.invoke({"prompt": TASK}, {"configurable": {"thread_id": folder.name}}, context=run_context)
            status, steps, answer = str(out.get("status")), len(out.get("history") or []), str(out.get("answer") or "")
        except Exception as exc:  # a benchmark reports every failure instead of stopping at the first
            status = f"error: {type(exc).__name__}: {str(exc)[:80]}"
    seconds = time.monotonic() - started
    exchanges = recorder.of(PAOR, first)
    return Run(PAOR, seconds, steps, len(exchanges), sum(e.prompt_tokens for e in exchanges), status, answer)


def react_agent(context: Context, recorder: Recorder) -> Any:
    """create_react_agent with the tool; the model is made to call it until it has run STEPS times."""
    from langchain_core.messages import ToolMessage

    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent, still the reference
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    llm = recorded(chat_openai(context), recorder, StringContent(httpx.HTTPTransport()))
    limit = length_limit(llm, ANSWER_TOKENS)
    forced = llm.bind_tools([population], tool_choice="population").bind(**limit)
    free = llm.bind_tools([population]).bind(**limit)

    def model(state: dict[str, Any], runtime: Any) -> Any:
        done = sum(isinstance(m, ToolMessage) for m in state["messages"])
        return forced if done < STEPS else free

    return create_react_agent(model, [population])


class StringContent(httpx.BaseTransport):
    """Sends an assistant's tool call with "" as its content, not null: llama-cpp-python's server refuses null
    (HTTP 500, "Input should be a valid string"), which LangChain sends for a message that only calls tools."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/chat/completions"):
            body = json.loads(request.read())
            for message in body.get("messages") or []:
                if message.get("content") is None:
                    message["content"] = ""
            headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
            request = httpx.Request(request.method, request.url, headers=headers, json=body)
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def run_react(agent: Any, recorder: Recorder) -> Run:
    from langchain_core.messages import ToolMessage

    recorder.system, first = BARE, len(recorder.exchanges)
    started, status, steps, answer = time.monotonic(), "completed", 0, ""
    try:
        out = agent.invoke({"messages": [("user", TASK)]}, {"recursion_limit": 4 * STEPS + 10})
        steps = sum(isinstance(m, ToolMessage) for m in out["messages"])
        answer = str(out["messages"][-1].text)
    except Exception as exc:  # a benchmark reports every failure instead of stopping at the first
        status = f"error: {type(exc).__name__}: {str(exc)[:80]}"
    seconds = time.monotonic() - started
    exchanges = recorder.of(BARE, first)
    return Run(BARE, seconds, steps, len(exchanges), sum(e.prompt_tokens for e in exchanges), status, answer)


def run_all(base_url: str, model: str, repeats: int) -> list[Run]:
    from cli.local_model import LOCAL_SETTINGS

    context = Context(model=model, base_url=base_url, max_steps=STEPS, **LOCAL_SETTINGS)
    recorder, root = Recorder(), tempdir("local-walltime")
    agent = react_agent(context, recorder)
    runs = []
    for i in range(repeats):
        for system in (PAOR, BARE):
            settle(context)
            run = run_paor(context, recorder, root / f"run{i}") if system == PAOR else run_react(agent, recorder)
            runs.append(run)
            print(f"  {i + 1}/{repeats} {run.system}: {run.steps} steps, {run.seconds:.1f}s, {run.status}", flush=True)
            print(f"    answer: {run.answer[:300]!r}", flush=True)
    return runs


def table(runs: list[Run]) -> str:
    lines = [
        "| system | run | steps | model requests | prompt tokens | wall s | s per step | total right | status |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for system in (PAOR, BARE):
        for i, r in enumerate(r for r in runs if r.system == system):
            lines.append(
                f"| {system} | {i + 1} | {r.steps} | {r.requests} | {r.prompt_tokens:,} | {r.seconds:.1f} "
                f"| {r.per_step:.1f} | {'yes' if r.correct else 'no'} | {r.status} |"
            )
    return "\n".join(lines)


def verdicts(runs: list[Run], model: str) -> list[str]:
    def median(system: str, value: str) -> float:
        return statistics.median(getattr(r, value) for r in runs if r.system == system)

    task, step = median(PAOR, "seconds") / median(BARE, "seconds"), median(PAOR, "per_step") / median(BARE, "per_step")
    steps = f"{median(PAOR, 'steps'):g} vs {median(BARE, 'steps'):g} steps"
    return [
        f"{model}, five-step task ({steps}): paor wall time ≤ {TARGET} × create_react_agent: per task {task:.2f}× → "
        f"{'MET' if task <= TARGET else 'NOT MET'}; per step {step:.2f}× → {'MET' if step <= TARGET else 'NOT MET'}"
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.local_walltime", description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", help="serve this GGUF file instead of the bundled SmolLM2")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    from cli.local_model import serve_local

    path, alias = (Path(args.gguf), Path(args.gguf).stem) if args.gguf else gguf_model("smollm2")
    with serve_local(model=path, alias=alias) as base_url:
        runs = run_all(base_url, alias, args.repeats)
    print_report(table(runs), verdicts(runs, alias))


if __name__ == "__main__":
    main()
