"""Wall time under a latency model, and model requests per step by node.

The same scripted tasks as bench.tokens (one ai.process action per step), with ~300- and ~3,000-token tool outputs.
Each model request is priced with `Latency` — per-request base + prompt tokens / prompt tok/s + output tokens /
output tok/s (o200k tokens) — and really sleeps a share of that (TIME_SCALE), so requests that run at the same time
(paor's judge and the next step's Stage 1) overlap as they would on a real endpoint. The modelled wall time is the
framework time (the run's time outside those sleeps) plus the slept time on the critical path, scaled back up.
Nothing is asserted.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import replace

from bench import tokens
from bench.common import TokenRun, print_report
from core.tokens import count_tokens
from tests.support.scripted_llm import Latency

STEPS = {300: (5, 10, 20, 40), tokens.TOOL_TOKENS: (5, 10, 20)}  # steps run per output size
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


#: The share of the modelled seconds each request really sleeps: enough for the overlap of concurrent requests to
#: be the model's (not the framework's milliseconds), little enough for the benchmark to finish in minutes.
TIME_SCALE = {300: 0.05, tokens.TOOL_TOKENS: 0.01}


def run_all(sizes: tuple[int, ...] = SIZES, steps: dict[int, tuple[int, ...]] | None = None) -> Results:
    tokens.run_all((2,), min(sizes))  # warm-up: imports and first-use caches are not framework time per run
    steps = steps or STEPS
    return {
        size: tokens.run_all(steps.get(size, (5,)), size, replace(LATENCY, time_scale=TIME_SCALE.get(size, 0.01)))
        for size in sizes
    }


def wall(run: TokenRun) -> float:
    return run.modelled_wall(LATENCY)


def sequential(run: TokenRun) -> int:
    """Requests one after another: requests whose sleeps overlapped count once."""
    if not run.spans:
        return len(run.calls)
    count, end = 0, float("-inf")
    for start, stop in sorted(run.spans):
        if start >= end:
            count += 1
        end = max(end, stop)
    return count


def requests_by_node(run: TokenRun) -> Counter[str]:
    return Counter(NODE_OF_ROUTE.get(label, label) for _, _, label in run.calls)


def table(results: Results) -> str:
    lines = [
        f"Latency model: {LATENCY.base_s} s per request + prompt tokens / {LATENCY.prompt_tps:,.0f} tok/s + output "
        f"tokens / {LATENCY.output_tps:,.0f} tok/s; requests that overlapped count once.",
        "",
        "| tool output | steps | system | model requests | per step | sequential per step | model s (critical "
        "path) | framework s | wall s | vs create_react_agent |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, by_steps in results.items():
        for steps, runs in by_steps.items():
            baseline = wall(runs[-1])
            for run in runs:
                lines.append(
                    f"| ~{size:,} tok | {steps} | {run.system} | {len(run.calls)} | {len(run.calls) / steps:.2f} "
                    f"| {sequential(run) / steps:.2f} | {wall(run) - run.framework_s:,.1f} | {run.framework_s:.2f} "
                    f"| {wall(run):,.1f} | {wall(run) / baseline:.2f}× |"
                )
    return "\n".join(lines)


def node_table(results: Results) -> str:
    """paor React's model requests per step, by the node that asks them (intent is once per run); validate's
    Stage 1 (asked alongside the judge for the next step) counts as select."""
    size = min(results)
    lines = [
        "| steps | " + " | ".join(NODES) + " | all | sequential | routing (intent, select, parameters) |",
        "|---:|" + "---:|" * (len(NODES) + 3),
    ]
    for steps, runs in results[size].items():
        counts = requests_by_node(runs[0])
        per = [counts.get(node, 0) / steps for node in NODES]
        routing = sum(counts.get(node, 0) for node in ROUTING) / steps
        lines.append(
            f"| {steps} | " + " | ".join(f"{v:.2f}" for v in per) + f" | {len(runs[0].calls) / steps:.2f} "
            f"| {sequential(runs[0]) / steps:.2f} | {routing:.2f} |"
        )
    return "\n".join(lines)


def prefix_table(results: Results) -> str:
    """The share of each node's prompt tokens an endpoint's prompt cache can reuse (the prefix a request shares with
    an earlier one), in the longest run with ~300-token outputs."""
    size = min(results)
    steps = max(results[size])
    lines = ["| system | node | requests | prompt tokens | reused prefix |", "|---|---|---:|---:|---:|"]
    for run in results[size][steps]:
        by_node: dict[str, list[int]] = {}
        for (_, _, label), (reused, prompt) in zip(run.calls, run.prefixes, strict=True):
            totals = by_node.setdefault(NODE_OF_ROUTE.get(label, label), [0, 0, 0])
            totals[0] += 1
            totals[1] += prompt
            totals[2] += reused
        for node, (count, prompt, reused) in by_node.items():
            lines.append(f"| {run.system} | {node} | {count} | {prompt:,} | {reused / max(prompt, 1):.0%} |")
    return f"{steps} steps:\n\n" + "\n".join(lines)


def stage1_tokens(results: Results) -> int:
    """The largest Stage-1 prompt (built-in actions) of paor React's runs with ~300-token outputs."""
    return max(
        tokens
        for runs in results[min(results)].values()
        for _, tokens, label in runs[0].calls
        if label == "ActionSelection"
    )


def verdicts(results: Results) -> list[str]:
    small, large = min(results), max(results)
    by_steps = results[small]

    def ratio(runs: list[TokenRun]) -> float:
        return wall(runs[0]) / wall(runs[-1])

    def verdict(value: float, target: float) -> str:
        return "MET" if value <= target else "NOT MET"

    lines = []
    for steps in (min(by_steps), max(by_steps)):
        per_step = sequential(by_steps[steps][0]) / steps
        lines.append(
            f"sequential model requests per paor React step ≤ 2.5 ({steps} steps): {per_step:.2f} "
            f"({len(by_steps[steps][0].calls) / steps:.2f} in all) → {verdict(per_step, 2.5)}"
        )
    for steps, target in ((5, 1.1), (20, 0.9)):
        if steps in by_steps:
            value = ratio(by_steps[steps])
            lines.append(
                f"wall time, ~{small}-token outputs, {steps} steps: paor React ≤ {target} × create_react_agent: "
                f"{value:.2f}× → {verdict(value, target)}"
            )
    large_hi = results[large][max(results[large])]
    lines.append(
        f"wall time, ~{large}-token outputs, {max(results[large])} steps: paor React ≤ 0.7 × create_react_agent: "
        f"{ratio(large_hi):.2f}× → {verdict(ratio(large_hi), 0.7)}"
    )
    stage1 = stage1_tokens(results)
    lines.append(f"Stage-1 prompt with the built-in actions ≤ 800 tokens (largest): {stage1} → {verdict(stage1, 800)}")
    return lines


def main() -> None:
    start = time.perf_counter()
    results = run_all()
    print_report(table(results) + "\n\n" + node_table(results) + "\n\n" + prefix_table(results), verdicts(results))
    print(f"\n(wall-time benchmark took {time.perf_counter() - start:.1f}s)", file=sys.stderr)


if __name__ == "__main__":
    main()
