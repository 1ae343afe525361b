"""Shared pieces: an isolated environment, varied tool output, prompt-token counting, the paor runs."""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.tokens import count_tokens, encoding

# The same intent for every paor run: prose whose criteria code cannot decide, so the model judges each step.
INTENT = {
    "dataType": "analysis",
    "expectedFormat": "markdown",
    "successCriteria": ["covers every regional market", "cites a source for each figure"],
    "qualityRequirements": {"accuracy": 0.9, "completeness": 0.9},
    "language": "en",
}
PROMPT = "Write a market analysis of residential solar storage, region by region, with sourced figures."

_WORDS = [
    "market",
    "growth",
    "storage",
    "battery",
    "solar",
    "residential",
    "region",
    "demand",
    "price",
    "capacity",
    "install",
    "grid",
    "policy",
    "subsidy",
    "tariff",
    "lithium",
    "iron",
    "phosphate",
    "inverter",
    "household",
    "adoption",
    "forecast",
    "revenue",
    "margin",
    "supplier",
    "vendor",
    "share",
    "europe",
    "asia",
    "america",
    "africa",
    "oceania",
    "germany",
    "italy",
    "spain",
    "japan",
    "australia",
    "california",
    "texas",
    "brazil",
    "india",
    "survey",
    "report",
    "analyst",
    "estimate",
    "quarter",
    "annual",
    "decline",
    "increase",
    "stable",
    "volatile",
    "regulation",
    "incentive",
    "utility",
    "peak",
    "shaving",
    "backup",
    "resilience",
    "outage",
    "warranty",
    "cycle",
    "chemistry",
    "module",
    "kilowatt",
    "hour",
    "cost",
    "per",
    "unit",
    "financing",
    "lease",
    "loan",
    "payback",
    "period",
    "installer",
    "channel",
    "distribution",
    "retrofit",
    "new",
    "build",
    "consumer",
    "segment",
]


def prepare_environment(root: Path) -> None:
    """What tests/conftest.py does: own PAOR_HOME, a dummy key, no inherited endpoint or step settings."""
    os.environ["PAOR_HOME"] = str(root / "paor-home")
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-real-key")
    for name in ("OPENAI_BASE_URL", "PAOR_MODEL", "PAOR_MAX_STEPS", "PAOR_BASE_URL", "TAVILY_API_KEY"):
        os.environ.pop(name, None)


def tempdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=f"paor-bench-{prefix}-"))


@functools.lru_cache(maxsize=256)
def varied_text(seed: int, tokens: int = 3000) -> str:
    """Deterministic, varied markdown prose of exactly `tokens` o200k tokens (a realistic ai.process answer)."""
    rng = random.Random(seed)
    parts = [f"# Regional analysis, part {seed}\n"]
    while True:
        for _ in range(40):
            sentence = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 22)))
            figure = f"{rng.randint(1, 999)}.{rng.randint(0, 9)} {rng.choice(['MWh', 'GW', '%', 'USD/kWh'])}"
            parts.append(f"{sentence.capitalize()} ({figure}, source {rng.randint(1, 300)}).")
            if rng.random() < 0.15:
                parts.append(f"\n\n## {rng.choice(_WORDS).title()} {rng.choice(_WORDS)}\n")
        text = " ".join(parts)
        ids = encoding().encode(text, disallowed_special=())
        if len(ids) >= tokens:
            return encoding().decode(ids[:tokens])


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content if isinstance(p, dict | str)
        )
    return ""


def request_text(body: dict[str, Any]) -> str:
    """The prompt text of one chat-completions request, the same way for every system: every message's content
    plus the arguments of tool calls carried in the history. Tool and response-format schemas are left out for
    all systems alike."""
    texts = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if text := content_text(message.get("content")):
            texts.append(text)
        for call in message.get("tool_calls") or []:
            texts.append(str((call.get("function") or {}).get("arguments", "")))
    return "\n".join(texts)


def prompt_tokens(body: dict[str, Any]) -> int:
    return count_tokens(request_text(body))


@dataclass
class TokenRun:
    """Prompt tokens of one run: one (step, tokens, label) per LLM call; `outputs` the output tokens of each call
    (same order) and `framework_s` the run's wall time without the model's (an instant model, or the time the
    requests did not sleep)."""

    system: str
    steps: int
    calls: list[tuple[int, int, str]] = field(default_factory=list)
    notes: str = ""
    outputs: list[int] = field(default_factory=list)
    framework_s: float = 0.0
    #: With a sleeping latency model: when each model request slept, and the share of real time it slept for.
    spans: list[tuple[float, float]] = field(default_factory=list)
    time_scale: float = 0.0
    #: (reused, prompt) tokens of each request: the prefix it shares with an earlier one (bench.recording).
    prefixes: list[tuple[int, int]] = field(default_factory=list)

    def modelled_wall(self, latency: Any) -> float:
        """Framework time plus the model's time on the critical path: requests that overlapped (the judge and the
        next Stage 1) count once; without spans every request is one after another."""
        if not self.spans:
            return self.framework_s + self.model_seconds(latency)
        return self.framework_s + covered(self.spans) / self.time_scale

    def model_seconds(self, latency: Any) -> float:
        """What the model requests would take, one after another, on an endpoint with `latency` (a `Latency`)."""
        return sum(
            latency.base_s + tokens / latency.prompt_tps + out / latency.output_tps
            for (_, tokens, _), out in zip(self.calls, self.outputs, strict=True)
        )

    @property
    def total(self) -> int:
        return sum(t for _, t, _ in self.calls)

    def per_step(self) -> list[int]:
        out = [0] * self.steps
        for step, tokens, _ in self.calls:
            out[min(max(step, 1), self.steps) - 1] += tokens
        return out


def covered(spans: Iterable[tuple[float, float]]) -> float:
    """The length of the union of time intervals."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(spans):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def attribute(
    requests: Iterable[tuple[str, dict[str, Any]]], starts_step: Callable[[str], bool], steps: int
) -> list[tuple[int, int, str]]:
    """Assign each (route, body) to a step: a request whose route starts a step opens the next one; requests
    before the first opener count for step 1, requests after the last for step N."""
    calls, step = [], 0
    for route, body in requests:
        if starts_step(route):
            step += 1
        calls.append((min(max(step, 1), steps), prompt_tokens(body), route))
    return calls


def react_script(llm: Any, steps: int, tool_tokens: int = 3000, answer: Callable[[int], str] | None = None) -> None:
    """paor React: one ai.process per step; the judge finds the criteria unmet until step `steps`."""
    judged = itertools.count(1)
    produced = itertools.count(1)

    def selection(request: Any) -> dict[str, Any]:
        return {
            "action": "ai.process",
            "actionObjective": "Write the next regional section of the analysis",
            "learnings": ["Each section must cite its figures"],
            "requiredInputDocuments": [],
            "requiredConnection": None,
            "parametersContext": "Write the section for the next region not yet covered, citing sources.",
            "parametersSchema": {
                "fields": [{"name": "aiPrompt", "type": "string", "required": True, "description": "the task"}]
            },
        }

    def parameters(request: Any) -> dict[str, Any]:
        return {"schema": "parameters_v1", "parameters": {"aiPrompt": "Write the next regional section with sources."}}

    def judgement(request: Any) -> dict[str, Any]:
        met = next(judged) >= steps
        return {
            "criteriaMet": [met, met],
            "qualityScore": 0.95 if met else 0.5,
            "issues": [] if met else ["regions are still missing"],
            "improvementSuggestions": [] if met else ["Cover the next missing region."],
            "decision": "stop" if met else "continue",
        }

    make = answer or (lambda i: varied_text(i, tool_tokens))
    (
        llm.on("Intent", json.dumps(INTENT))
        .on("ActionSelection", selection)
        .on("ParametersAnswer", parameters)
        .on("text", lambda request: make(next(produced)))
        .on("ContentJudgement", judgement)
    )


def plan_script(llm: Any, steps: int, tool_tokens: int = 3000) -> None:
    """paor Actionplan: one plan of `steps` ai.process actions."""
    produced = itertools.count(1)
    actions = [
        {
            "action": "ai.process",
            "actionObjective": f"Write regional section {i}",
            "parameters": {"aiPrompt": f"Write regional section {i} with sources."},
        }
        for i in range(1, steps + 1)
    ]
    judgement = {"criteriaMet": [False, False], "qualityScore": 0.5, "issues": ["regions are still missing"]}
    (
        llm.on("Intent", json.dumps(INTENT))
        .on("ActionPlan", json.dumps({"actions": actions}))
        .on("text", lambda request: varied_text(next(produced), tool_tokens))
        .on("ContentJudgement", judgement)
    )


def print_report(table: str, verdicts: Iterable[str]) -> None:
    """What every benchmark module prints when run alone: its table, then one line per target."""
    print(table)
    print()
    print("\n".join(f"- {line}" for line in verdicts))
