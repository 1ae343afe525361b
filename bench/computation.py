"""The primes task ("Calculate the first 1000 prime numbers") through code.execute vs ai.process.

Three scripted runs through the real graph, ChatOpenAI client and sandbox: ai.process where the model types
the 1000 primes at once (its best case), ai.process as in issue 2 (code first, then the data once it learned),
and code.execute (the model writes a program; the sandbox prints the primes). Every run must deliver exactly
the first 1000 primes. Prompt tokens are counted over every request's messages, completion tokens over every
scripted answer (both o200k_base); wall time is noisy and shown for orientation only.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from bench.common import prepare_environment, print_report, prompt_tokens, tempdir
from core.tokens import count_tokens

SYSTEMS = ("ai.process (model types the primes)", "ai.process (code first, then data)", "code.execute")


@dataclass
class ComputationRun:
    system: str
    steps: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class _Counting:
    """Wraps the scripted server's `on` so every answer it gives is counted as completion tokens."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.completion_tokens = 0

    def on(self, route: str, response: Any) -> _Counting:
        def answer(request: Any) -> Any:
            value = response(request) if callable(response) else response
            self.completion_tokens += count_tokens(value if isinstance(value, str) else json.dumps(value))
            return value

        self.llm.on(route, answer)
        return self


def _script(system: str, llm: _Counting) -> None:
    from tests.support.code_scenarios import PRIMES_PROGRAM, script_code
    from tests.support.scenarios import DATA_PROMPT, PRIMES_INTENT, ai_process, script_primes, selection
    from tests.support.scripted_llm import RecordedRequest

    if system == SYSTEMS[2]:
        script_code(llm, PRIMES_PROGRAM)  # type: ignore[arg-type]
    elif system == SYSTEMS[1]:
        script_primes(llm)  # type: ignore[arg-type]
    else:
        fresh = RecordedRequest(route="ActionSelection", body={})  # no evidence yet that code fails
        direct = {**selection(fresh), "parametersContext": "Ask for the numbers directly, as data, not code."}
        llm.on("Intent", json.dumps(PRIMES_INTENT)).on("ActionSelection", direct)
        llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"aiPrompt": DATA_PROMPT}})
        llm.on("text", ai_process)


def run(system: str) -> ComputationRun:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from core.context import Context
    from core.schemas import DocumentRef
    from graph.builder import build_graph
    from nodes.checks import extract_numbers
    from tests.support.scenarios import FIRST_1000_PRIMES, PRIMES_PROMPT
    from tests.support.scripted_llm import ScriptedLLM
    from tools.documents import DocumentStore

    root = tempdir("computation")
    with ScriptedLLM() as llm:
        counting = _Counting(llm)
        _script(system, counting)
        context = Context(
            model="scripted",
            base_url=llm.base_url,
            max_retries=0,
            store_dir=str(root / "store"),
            documents_dir=str(root / "docs"),
        )
        graph = build_graph(checkpointer=InMemorySaver(), store=InMemoryStore())
        start = time.perf_counter()
        out = graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "primes"}}, context=context)
        seconds = time.perf_counter() - start
        deliverable = DocumentRef.model_validate(out["deliverables"][0])
        if extract_numbers(DocumentStore(context.store_path).read_text(deliverable)) != FIRST_1000_PRIMES:
            raise RuntimeError(f"{system} did not deliver the first 1000 primes: {out.get('stop_reason')}")
        calls = [prompt_tokens(r.body) for r in llm.requests]
    return ComputationRun(system, len(out["history"]), len(calls), sum(calls), counting.completion_tokens, seconds)


def run_all() -> list[ComputationRun]:
    prepare_environment(tempdir("computation"))
    run(SYSTEMS[0])  # warm-up: imports and the first client connection would count for the first system
    return [run(system) for system in SYSTEMS]


def table(runs: list[ComputationRun]) -> str:
    base = runs[0]
    lines = [
        "| system | steps | LLM calls | prompt tokens | completion tokens | completion vs typed primes | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        lines.append(
            f"| {r.system} | {r.steps} | {r.calls} | {r.prompt_tokens:,} | {r.completion_tokens:,} | "
            f"{r.completion_tokens / base.completion_tokens:.2f}× | {r.seconds:.2f} |"
        )
    return "\n".join(lines)


def verdicts(runs: list[ComputationRun]) -> list[str]:
    typed, _, code = runs
    return [
        f"code.execute writes {code.completion_tokens:,} completion tokens where typing the primes takes "
        f"{typed.completion_tokens:,} ({code.completion_tokens / typed.completion_tokens:.2f}×), in "
        f"{code.steps} step(s) and {code.calls} LLM calls; the primes come from sympy in the sandbox, not from "
        "the model's memory"
    ]


def main() -> None:
    runs = run_all()
    print_report(table(runs), verdicts(runs))


if __name__ == "__main__":
    main()
