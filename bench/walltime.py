"""Wall time under a latency model, and model requests per step by node.

The same scripted tasks as bench.tokens (one ai.process action per step), with ~300- and ~3,000-token tool outputs.
Every run is measured against an instant model (its wall time is the framework's: graph, client, loopback HTTP),
and each of its model requests is priced with `Latency` — per-request base + prompt tokens / prompt tok/s + output
tokens / output tok/s (o200k tokens). Requests are sequential in all three systems, so the modelled wall time is
the framework time plus the sum of the request times. Nothing is asserted.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from bench import tokens
from bench.common import TokenRun, print_report
from graph.tokens import count_tokens
from tests.support.scripted_llm import Latency

STEPS = (5, 10, 20)
SIZES = (300, tokens.TOOL_TOKENS)
LATENCY = Latency(base_s=0.4, prompt_tps=5000, output_tps=60, count=count_tokens)
# Which node asks each request of a paor run (its route is the answer's schema; "text" is the action's own call).
NODE_OF_ROUTE = {
    "Intent": "intent",
    "ActionSelection": "select",
    "ParametersAnswer": "parameters",
    "text": "act",
    "ContentJudgement": "validate",
    "RefinementDecision": "refine",
    "ActionPlan": "plan",
}
NODES = ("intent", "select", "parameters", "act", "validate", "refine")
ROUTING = ("intent", "select", "parameters")

Results = dict[int, dict[int, list[TokenRun]]]  # tool tokens → steps → [React, Actionplan, create_react_agent]


def run_all(sizes: tuple[int, ...] = SIZES, steps: tuple[int, ...] = STEPS) -> Results:
    tokens.run_all((2,), min(sizes))  # warm-up: imports and first-use caches are not framework time per run
    return {size: tokens.run_all(steps, size) for size in sizes}


def wall(run: TokenRun) -> float:
    return run.framework_s + run.model_seconds(LATENCY)


def requests_by_node(run: TokenRun) -> Counter[str]:
    return Counter(NODE_OF_ROUTE.get(label, label) for _, _, label in run.calls)


def table(results: Results) -> str:
    lines = [
        f"Latency model: {LATENCY.base_s} s per request + prompt tokens / {LATENCY.prompt_tps:,.0f} tok/s + output "
        f"tokens / {LATENCY.output_tps:,.0f} tok/s.",
        "",
        "| tool output | steps | system | model requests | per step | model s | framework s | wall s "
        "| vs create_react_agent |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for size, by_steps in results.items():
        for steps, runs in by_steps.items():
            baseline = wall(runs[-1])
            for run in runs:
                lines.append(
                    f"| ~{size:,} tok | {steps} | {run.system} | {len(run.calls)} | {len(run.calls) / steps:.2f} "
                    f"| {run.model_seconds(LATENCY):,.1f} | {run.framework_s:.2f} | {wall(run):,.1f} "
                    f"| {wall(run) / baseline:.2f}× |"
                )
    return "\n".join(lines)


def node_table(results: Results) -> str:
    """paor React's model requests per step, by the node that asks them (intent is once per run)."""
    size = min(results)
    lines = [
        "| steps | " + " | ".join(NODES) + " | all | routing (intent, select, parameters) |",
        "|---:|" + "---:|" * (len(NODES) + 2),
    ]
    for steps, runs in results[size].items():
        counts = requests_by_node(runs[0])
        per = [counts.get(node, 0) / steps for node in NODES]
        routing = sum(counts.get(node, 0) for node in ROUTING) / steps
        lines.append(
            f"| {steps} | " + " | ".join(f"{v:.2f}" for v in per) + f" | {len(runs[0].calls) / steps:.2f} "
            f"| {routing:.2f} |"
        )
    return "\n".join(lines)


def verdicts(results: Results) -> list[str]:
    small, large = min(results), max(results)
    react5 = results[small][min(results[small])]
    react20 = results[small][max(results[small])]
    steps_hi = max(results[small])
    counts = requests_by_node(react5[0])
    steps_lo = min(results[small])
    per_step = len(react5[0].calls) / steps_lo
    routing = sum(counts.get(node, 0) for node in ROUTING) / steps_lo

    def ratio(runs: list[TokenRun]) -> float:
        return wall(runs[0]) / wall(runs[-1])

    def verdict(value: float, target: float) -> str:
        return "MET" if value <= target else "NOT MET"

    large_hi = results[large][max(results[large])]
    return [
        f"model requests per paor React step ≤ 3.2 ({steps_lo} steps): {per_step:.2f} → {verdict(per_step, 3.2)}",
        f"routing calls per paor React step ≤ 2.2 ({steps_lo} steps): {routing:.2f} → {verdict(routing, 2.2)}",
        f"wall time, ~{small}-token outputs, {steps_lo} steps: paor React ≤ 1.1 × create_react_agent: "
        f"{ratio(react5):.2f}× → {verdict(ratio(react5), 1.1)}",
        f"wall time, ~{small}-token outputs, {steps_hi} steps: paor React ≤ 0.9 × create_react_agent: "
        f"{ratio(react20):.2f}× → {verdict(ratio(react20), 0.9)}",
        f"wall time, ~{large}-token outputs, {max(results[large])} steps: paor React ≤ 0.7 × create_react_agent: "
        f"{ratio(large_hi):.2f}× → {verdict(ratio(large_hi), 0.7)}",
    ]


def main() -> None:
    start = time.perf_counter()
    results = run_all()
    print_report(table(results) + "\n\n" + node_table(results), verdicts(results))
    print(f"\n(wall-time benchmark took {time.perf_counter() - start:.1f}s)", file=sys.stderr)


if __name__ == "__main__":
    main()
