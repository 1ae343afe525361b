"""Smoke test against a real model server: llama.cpp serving SmolLM2-135M-Instruct (extra `paor[local]`).

The model is weak, so this checks the protocol and the HTTP path — llama.cpp answers `json_schema` with HTTP 500,
so every answer comes through its schema grammar (`json_object` + `schema`) — never the answer's content.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.capabilities import Capabilities, endpoint_key
from core.context import Context
from core.llm import Models
from core.schemas import HistoryEntry
from graph.builder import build_graph
from tests.local import LLAMA_THREADS, NEEDS_SMOLLM2
from tests.support import deadlines

pytestmark = [NEEDS_SMOLLM2, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def local_url() -> Iterator[str]:
    from cli.local_model import serve_local

    with serve_local(threads=LLAMA_THREADS) as url:
        yield url


@pytest.fixture
def local_context(local_url: str, tmp_path: Path) -> Context:
    from cli.local_model import LOCAL_MODEL_NAME

    return Context(
        model=LOCAL_MODEL_NAME,
        base_url=local_url,
        max_steps=2,
        max_retries=0,
        request_timeout_s=120,
        allowed_methods="ai.process",  # no web access in CI; the model stays the only thing on the far side
        time_budget_s=150,
        store_dir=str(tmp_path / "store"),
        documents_dir=str(tmp_path / "docs"),
        direct_answer=False,  # the protocol path (Stage 1, Stage 2, the grammar); the one-call path is tested below
    )


def test_the_server_lists_the_bundled_model(local_url: str) -> None:
    from cli.local_model import LOCAL_MODEL_NAME, local_model_path

    assert local_model_path().suffix == ".gguf"
    models = httpx.get(f"{local_url}/models", timeout=10).json()
    assert LOCAL_MODEL_NAME in [m["id"] for m in models["data"]]


def test_whole_graph_runs_against_llama_cpp(local_context: Context, checkpointer: Any, store: Any) -> None:
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "local-smoke"}}
    started = time.monotonic()
    out = graph.invoke({"prompt": "List three primary colours."}, config, context=local_context)
    elapsed = time.monotonic() - started

    assert out["status"] in {"completed", "incomplete"}
    assert isinstance(out.get("stop_reason"), str) and out["stop_reason"].strip()
    history = [HistoryEntry.model_validate(h) for h in out.get("history") or []]
    assert len(history) <= local_context.max_steps
    assert isinstance(out.get("answer", ""), str)
    assert graph.get_state(config).next == ()  # the run ended at END, not mid-graph
    # llama.cpp answers json_schema with HTTP 500: its schema grammar took over, and the database remembers it.
    key = endpoint_key(Models().for_context(local_context))
    assert Capabilities(store).accepted(key) == "json_object_schema"
    assert store.get(("paor", "endpoints"), key).value["accepted"] == "json_object_schema"
    print(f"local smoke: {out['status']} after {elapsed:.1f}s, {len(history)} step(s): {out['stop_reason']}")


def test_a_one_line_question_is_answered_in_one_step_with_the_computed_result(
    local_context: Context, checkpointer: Any, store: Any
) -> None:
    """Issues 26 and 29 on the real model: read by code, answered by the bare call, checked by computing the product;
    a bare answer that misses it is asked once more with the product code computed (SmolLM2 says "12 times 11 is
    13" when asked bare)."""
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "local-direct"}}
    out = graph.invoke(
        {"prompt": "What is 12 multiplied by 11?"}, config, context=replace(local_context, direct_answer=True)
    )

    history = [HistoryEntry.model_validate(h) for h in out.get("history") or []]
    assert out["status"] == "completed" and "132" in out["answer"], out["answer"]
    assert len(history) <= 2 and all("computed" in h.checksFailed for h in history[:-1])


def test_a_streamed_answer_is_not_cut_short_by_a_request_that_arrives_meanwhile(local_url: str) -> None:
    """A chat streams the deliverable while another run asks the same server: llama-cpp-python's default closed the
    first connection mid-answer (the run's step failed as if the model were away); the second request waits."""
    from langchain_openai import ChatOpenAI

    from cli.local_model import LOCAL_MODEL_NAME
    from core.llm import length_limit

    llm = ChatOpenAI(model=LOCAL_MODEL_NAME, base_url=local_url, api_key="local", temperature=0, max_retries=0)
    streaming, answer, failures = threading.Event(), [], []

    def stream() -> None:
        try:
            whole = None
            for chunk in llm.stream("Write a long story about a dragon.", **length_limit(llm, 60)):
                streaming.set()
                whole = chunk if whole is None else whole + chunk
            answer.append(whole)
        except Exception as exc:  # the assertion below names it
            failures.append(exc)
        finally:
            streaming.set()

    reader = threading.Thread(target=stream)
    reader.start()
    assert streaming.wait(deadlines.PROCESS_S)
    other = llm.invoke("Hi", **length_limit(llm, 4))
    reader.join(deadlines.PROCESS_S)
    assert not failures, failures
    assert answer and answer[0].response_metadata.get("finish_reason") == "length", answer
    assert other.text
