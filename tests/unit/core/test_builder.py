"""The graph's shape and routing: which node follows which, in React and in Actionplan mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models import _client_utils
from langgraph.checkpoint.memory import InMemorySaver

from core.context import MAX_STEPS_LIMIT, Context
from core.llm import chat_openai
from graph.builder import (
    RECURSION_LIMIT,
    after_intent,
    after_learn,
    after_parameters,
    after_plan_step,
    after_refine,
    after_select,
    build_graph,
    make_builder,
    next_planned,
    warm,
)
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

ACTIONPLAN = {"workflow_mode": "Actionplan"}
PLAN = {"plan": [{"action": "ai.process"}, {"action": "document.generateReport"}]}


def test_the_graph_has_every_node_and_the_fixed_edges() -> None:
    builder = make_builder()
    nodes = {
        *("intent", "direct", "select", "parameters", "act", "validate", "learn", "refine", "finalize"),
        *("plan", "plan_step", "refuse"),
    }
    assert set(builder.nodes) == nodes
    assert builder.edges == {
        ("__start__", "intent"),
        ("direct", "act"),
        ("act", "validate"),
        ("validate", "learn"),
        ("finalize", "__end__"),
    }
    routed = {source: next(iter(branches)) for source, branches in builder.branches.items()}
    assert routed == {
        "intent": "after_intent",
        "select": "after_select",
        "parameters": "after_parameters",
        "learn": "after_learn",
        "refine": "after_refine",
        "plan": "next_planned",
        "plan_step": "after_plan_step",
    }


def test_the_compiled_graph_never_ends_on_the_recursion_limit() -> None:
    graph = build_graph(llm=GenericFakeChatModel(messages=iter([])))
    assert graph.config is not None and graph.config["recursion_limit"] == RECURSION_LIMIT
    assert RECURSION_LIMIT > 6 * MAX_STEPS_LIMIT  # six nodes per step, plus intent and finalize
    assert graph.name == "paor"


@pytest.mark.parametrize(
    ("route", "state", "expected"),
    [
        (after_intent, {}, "select"),
        (after_intent, {"direct": True}, "direct"),
        (after_intent, {**ACTIONPLAN, "direct": True}, "plan"),
        (after_intent, {"refused": "empty", "direct": True}, "refuse"),
        (after_intent, ACTIONPLAN, "plan"),
        (after_select, {"selection": {"action": "ai.process"}}, "parameters"),
        (after_select, {"selection": None}, "refine"),
        (after_parameters, {"step_error": "missing aiPrompt"}, "refine"),
        (after_parameters, {"step_error": None}, "act"),
        (after_learn, {}, "refine"),
        (after_learn, {**ACTIONPLAN, **PLAN, "step": 1}, "plan_step"),
        (after_learn, {**ACTIONPLAN, **PLAN, "step": 2}, "finalize"),
        (after_refine, {"decision": {"decision": "continue"}}, "select"),
        (after_refine, {"decision": {"decision": "stop"}}, "finalize"),
        (after_refine, {}, "finalize"),
        (next_planned, {**PLAN, "step": 0}, "plan_step"),
        (next_planned, {**PLAN, "step": 2}, "finalize"),
        (next_planned, {}, "finalize"),
        (after_plan_step, {**PLAN, "step": 1, "parameters": {"aiPrompt": "x"}}, "act"),
        (after_plan_step, {**PLAN, "step": 1, "parameters": None}, "plan_step"),
        (after_plan_step, {**PLAN, "step": 2, "parameters": None}, "finalize"),
    ],
)
def test_each_node_routes_to_the_next_one_the_state_calls_for(route: Any, state: dict[str, Any], expected: str) -> None:
    assert route(state) == expected


def test_build_graph_runs_on_the_model_it_is_given(scripted_llm: ScriptedLLM, tmp_path: Path) -> None:
    script_primes(scripted_llm)
    given = ChatOpenAI(model="scripted", base_url=scripted_llm.base_url, api_key="sk-test", max_retries=0)
    unreachable = Context(model="scripted", base_url="http://127.0.0.1:9/v1", store_dir=str(tmp_path / "store"))
    graph = build_graph(llm=given, checkpointer=InMemorySaver())
    out = graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": "given"}}, context=unreachable)
    assert out["status"] == "completed" and scripted_llm.requests_for("Intent")


def test_warm_loads_the_configured_endpoints_http_clients_so_the_first_run_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 31, item 8: the first run after a server started spent seconds loading; creating the endpoint's HTTP
    clients alone loads the CA bundle twice."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1-warm-test")
    built = _client_utils._cached_sync_httpx_client.cache_info().misses
    warm()
    assert _client_utils._cached_sync_httpx_client.cache_info().misses == built + 1
    chat_openai(Context())  # what the first run builds
    assert _client_utils._cached_sync_httpx_client.cache_info().misses == built + 1, "the first run built none"
