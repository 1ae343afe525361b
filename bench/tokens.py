"""Prompt tokens per LLM call, per step and per task: paor React, paor Actionplan, LangGraph's create_react_agent.

Every system runs the same task of N ai.process actions whose answers are ~3000 varied tokens each, through the
real ChatOpenAI client; every request is counted the same way (core.tokens.count_tokens over the message
texts, see bench.common.request_text).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from bench.common import (
    PROMPT,
    TokenRun,
    attribute,
    covered,
    plan_script,
    prepare_environment,
    print_report,
    prompt_tokens,
    react_script,
    tempdir,
    varied_text,
)
from bench.recording import cached_prefixes
from core.tokens import count_tokens

STEPS = (5, 10, 20)
TOOL_TOKENS = 3000
SHOWN_STEPS = (1, 2, 5, 10, 20)


def run_paor(mode: str, steps: int, tool_tokens: int = TOOL_TOKENS, latency: Any = None) -> TokenRun:
    """One paor run; with a sleeping `latency` (tests.support.scripted_llm.Latency) its spans show the overlap."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from core.context import Context
    from graph.builder import build_graph
    from tests.support.scripted_llm import ScriptedLLM

    root = tempdir(f"tokens-{mode}-{steps}")
    with ScriptedLLM(latency=latency) as llm:
        (react_script if mode == "React" else plan_script)(llm, steps, tool_tokens)
        context = Context(
            model="scripted",
            base_url=llm.base_url,
            max_retries=0,
            max_steps=steps,
            workflow_mode=mode,  # type: ignore[arg-type]
            token_budget=10_000_000,
            store_dir=str(root / "store"),
            documents_dir=str(root / "docs"),
        )
        graph = build_graph(checkpointer=InMemorySaver(), store=InMemoryStore())
        started = time.perf_counter()
        out = graph.invoke({"prompt": PROMPT}, {"configurable": {"thread_id": "bench"}}, context=context)
        framework_s = time.perf_counter() - started
        done = len(out.get("history") or [])
        if done != steps:
            raise RuntimeError(f"paor {mode} did {done} steps, not {steps}: {out.get('stop_reason')}")
        opener = "ActionSelection" if mode == "React" else "text"
        calls = judged_with_their_step(
            attribute(((r.route, r.body) for r in llm.requests), lambda route: route == opener, steps)
        )
        outputs = [count_tokens(r.answer) for r in llm.requests]
        spans = [r.span for r in llm.requests if r.span is not None]
        prefixes = cached_prefixes([r.body for r in llm.requests])
    scale = latency.time_scale if latency is not None else 0.0
    framework_s -= covered(spans)
    return TokenRun(
        f"paor {mode}", steps, calls, str(out.get("stop_reason")), outputs, framework_s, spans, scale, prefixes
    )


def judged_with_their_step(calls: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A judge belongs to the step whose action it reads: the next step's Stage 1, asked beside it, may reach the
    endpoint first (nodes/ahead.py)."""
    fixed, acting = [], 1
    for step, tokens, route in calls:
        if route == "text":
            acting = step
        fixed.append((acting if route == "ContentJudgement" else step, tokens, route))
    return fixed


def run_create_react_agent(steps: int, tool_tokens: int = TOOL_TOKENS, latency: Any = None) -> TokenRun:
    import warnings

    from langchain_core.messages import ToolMessage

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    from bench.stub import ReactStub, make_ai_process_tool

    stub = ReactStub(steps, lambda i: varied_text(i, tool_tokens), latency)
    model = stub.model()
    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent, still the reference
        warnings.simplefilter("ignore")
        agent = create_react_agent(model, [make_ai_process_tool(model)])
    started = time.perf_counter()
    out = agent.invoke({"messages": [("user", PROMPT)]}, {"recursion_limit": 4 * steps + 10})
    framework_s = time.perf_counter() - started
    done = sum(isinstance(m, ToolMessage) for m in out["messages"])
    if done != steps:
        raise RuntimeError(f"create_react_agent did {done} tool calls, not {steps}")
    calls: list[tuple[int, int, str]] = []
    step = 1
    for body in stub.bodies:
        if body.get("tools"):
            step = min(1 + sum(1 for m in body["messages"] if m.get("role") == "tool"), steps)
            calls.append((step, prompt_tokens(body), "agent"))
        else:
            calls.append((step, prompt_tokens(body), "tool llm"))
    outputs = [count_tokens(answer) for answer in stub.answers]
    scale = latency.time_scale if latency is not None else 0.0
    return TokenRun(
        "create_react_agent",
        steps,
        calls,
        outputs=outputs,
        framework_s=framework_s - covered(stub.spans),
        spans=stub.spans,
        time_scale=scale,
        prefixes=cached_prefixes(stub.bodies),
    )


def run_all(
    steps_list: tuple[int, ...] = STEPS, tool_tokens: int = TOOL_TOKENS, latency: Any = None
) -> dict[int, list[TokenRun]]:
    """Per step count: paor React, paor Actionplan, create_react_agent (the baseline, last)."""
    prepare_environment(tempdir("tokens"))
    results: dict[int, list[TokenRun]] = {}
    for steps in steps_list:
        results[steps] = [
            run_paor("React", steps, tool_tokens, latency),
            run_paor("Actionplan", steps, tool_tokens, latency),
            run_create_react_agent(steps, tool_tokens, latency),
        ]
    return results


def table(results: dict[int, list[TokenRun]]) -> str:
    lines = [
        "| steps | system | LLM calls | prompt tokens | vs create_react_agent | "
        + " | ".join(f"step {s}" for s in SHOWN_STEPS)
        + " | max step / step 2 |",
        "|---:|---|---:|---:|---:|" + "---:|" * len(SHOWN_STEPS) + "---:|",
    ]
    for steps, runs in results.items():
        baseline = runs[-1].total
        for run in runs:
            per = run.per_step()
            shown = [f"{per[s - 1]:,}" if s <= steps else "" for s in SHOWN_STEPS]
            growth = max(per[1:]) / per[1] if steps >= 2 and per[1] else float("nan")
            lines.append(
                f"| {steps} | {run.system} | {len(run.calls)} | {run.total:,} | {run.total / baseline:.2f}× | "
                + " | ".join(shown)
                + f" | {growth:.2f}× |"
            )
    return "\n".join(lines)


def verdicts(results: dict[int, list[TokenRun]]) -> list[str]:
    steps = max(results)
    react, plan, baseline = results[steps]
    per = react.per_step()
    peak = max(per[1:])
    flat = peak / per[1]
    share = react.total / baseline.total
    return [
        f"paor React prompt tokens per step flat (largest step ≤ 1.2 × step 2; step {steps}: {per[-1]:,}): "
        f"{peak:,} vs {per[1]:,} = {flat:.2f}× → {'MET' if flat <= 1.2 else 'NOT MET'}",
        f"paor React {steps}-step total ≤ 1/3 of create_react_agent: {react.total:,} vs {baseline.total:,} "
        f"= {share:.3f} → {'MET' if share <= 1 / 3 else 'NOT MET'}",
        f"paor Actionplan {steps}-step total vs create_react_agent: {plan.total:,} vs {baseline.total:,} "
        f"= {plan.total / baseline.total:.3f}",
    ]


def plot(results: dict[int, list[TokenRun]], path: Any) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = max(results)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    for run, style in zip(results[steps], ("o-", "s-", "^-"), strict=True):
        per = run.per_step()
        ax.plot(range(1, steps + 1), per, style, label=f"{run.system} (total {run.total:,})", markersize=4)
    ax.set_xlabel("step (one ai.process action of ~3000 output tokens)")
    ax.set_ylabel("prompt tokens in that step (o200k_base)")
    ax.set_title(f"Prompt tokens per step, {steps}-step task")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    start = time.perf_counter()
    results = run_all()
    print_report(table(results), verdicts(results))
    print(f"\n(token benchmark took {time.perf_counter() - start:.1f}s)", file=sys.stderr)


if __name__ == "__main__":
    main()
