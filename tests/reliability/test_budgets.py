"""Budgets end whole-graph runs with their own reason; 100 steps never hit LangGraph's recursion limit."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from core.context import Context
from tests.reliability.conftest import invoke, script_direct
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

# A model that always wants another step: each step delivers ten primes (an intermediate result, not a failure,
# so the three-failures rule never fires) with fresh parameters, and refinement always says continue. Each batch
# differs: a result equal to an earlier one would be no progress (nodes/repeats.py).
SOME_PRIMES = "2, 3, 5, 7, 11, 13, 17, 19, 23, 29"


def _next_batch() -> Any:
    batches = itertools.count(1)
    return lambda request: f"{SOME_PRIMES} (batch {next(batches)})"


def script_endless(llm: ScriptedLLM, tool_answer: Any = None) -> ScriptedLLM:
    tool_answer = tool_answer or _next_batch()
    counter = itertools.count(1)

    def parameters(request: RecordedRequest) -> dict[str, Any]:
        return {"schema": "parameters_v1", "parameters": {"aiPrompt": f"List more primes, batch {next(counter)}"}}

    return script_direct(llm, ParametersAnswer=[parameters], text=[tool_answer])


def test_max_steps_stops_the_run_with_its_reason(scripted_llm: ScriptedLLM, rctx: Context, graph: Any) -> None:
    script_endless(scripted_llm)
    rctx.max_steps = 3
    out = invoke(graph, rctx, "max-steps")
    assert out["status"] == "incomplete"
    assert out["stop_reason"] == "max_steps (3) reached"
    assert [h["step"] for h in out["history"]] == [1, 2, 3]
    assert all(h["outcome"] == "progress" for h in out["history"])
    assert "Stopped" not in out["answer"] and out["answer"]  # the best attempt itself; why is in stop_reason


def test_token_budget_stops_the_run_with_its_reason(scripted_llm: ScriptedLLM, rctx: Context, graph: Any) -> None:
    script_endless(scripted_llm)
    rctx.max_steps = 50
    rctx.token_budget = 2_000
    out = invoke(graph, rctx, "tokens")
    assert out["status"] == "incomplete"
    assert out["stop_reason"].startswith("token budget spent (")
    assert out["totals"]["tokens"] >= 2_000
    assert len(out["history"]) < 50


def test_time_budget_stops_the_run_with_its_reason(scripted_llm: ScriptedLLM, rctx: Context, graph: Any) -> None:
    def slow_answer(request: RecordedRequest) -> str:
        time.sleep(0.15)
        return SOME_PRIMES

    script_endless(scripted_llm, slow_answer)
    rctx.max_steps = 50
    rctx.time_budget_s = 0.2
    out = invoke(graph, rctx, "time")
    assert out["status"] == "incomplete"
    assert out["stop_reason"].startswith("time budget spent (")
    assert len(out["history"]) <= 3  # of 50 allowed: the budget, not max_steps, ended it


def test_max_steps_100_runs_every_step_without_a_recursion_error(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_endless(scripted_llm)
    rctx.max_steps = 100
    rctx.token_budget = 100_000_000
    out = invoke(graph, rctx, "hundred")  # GraphRecursionError would escape here
    assert out["stop_reason"] == "max_steps (100) reached"
    assert [h["step"] for h in out["history"]] == list(range(1, 101))


def test_max_steps_above_the_limit_is_clamped_to_100(scripted_llm: ScriptedLLM, rctx: Context) -> None:
    assert Context(max_steps=10_000).max_steps == 100
    assert Context(max_steps=0).max_steps == 1
    assert Context.from_env(max_steps=-5).max_steps == 1


def test_failing_selections_until_max_steps_never_hit_the_recursion_limit(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    """Failed selections skip to refine (fewer nodes per step); alternating failures avoid the 3-failure stop."""
    good = {
        "action": "ai.process",
        "actionObjective": "List primes",
        "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
    }
    script_endless(scripted_llm)
    scripted_llm._queues["ActionSelection"] = [json.dumps({"bad": 1}), json.dumps({"bad": 1}), good] * 40 + [good]
    rctx.max_steps = 100
    rctx.token_budget = 100_000_000
    out = invoke(graph, rctx, "mixed-hundred")
    assert out["stop_reason"] == "max_steps (100) reached"
    assert len(out["history"]) == 100
