"""Issue 46, item 6: a structured-output mode that an endpoint refused, naming it, is refused once per endpoint — the
first stage that asks pays that request, every later stage of the run and every later process skips the mode.

The scripted server answers `json_schema` with llama.cpp's HTTP 500 ("response_format not supported"). Each test
starts from what a new process holds (`forget_all`: no cached record; a new graph: no cached model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

import core.capabilities
from core.capabilities import forget_all
from core.context import Context
from core.persistence import open_sqlite
from graph.builder import build_graph
from tests.support import deadlines
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

REFUSED = "json_schema"
#: The stages of the primes run that ask for structured output (its judge is code: primes are checked, not judged).
STAGES = {"Intent", "ActionSelection", "ParametersAnswer"}


def _mode(request: RecordedRequest) -> str | None:
    response_format = request.body.get("response_format")
    return response_format.get("type") if isinstance(response_format, dict) else None


def _refused(requests: list[RecordedRequest]) -> int:
    return sum(_mode(r) == REFUSED for r in requests)


def _run_in_a_new_process(llama: ScriptedLLM, store: BaseStore | None, tmp_path: Path, thread: str) -> dict[str, Any]:
    forget_all()  # what a new process holds: nothing cached, only the store remembers
    graph = build_graph(llm=llama.model(), checkpointer=InMemorySaver(), store=store)
    context = Context(model="scripted", base_url=llama.base_url, store_dir=str(tmp_path / "store"))
    return graph.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": thread}}, context=context)


def test_a_refused_mode_is_sent_once_across_every_stage_of_a_new_process_and_never_by_the_next(
    tmp_path: Path,
) -> None:
    store = InMemoryStore()
    with ScriptedLLM(reject_response_formats={REFUSED}) as llama:
        script_primes(llama)
        first = _run_in_a_new_process(llama, store, tmp_path, "first")
        in_first = list(llama.requests)
        second = _run_in_a_new_process(llama, store, tmp_path, "second")
        in_second = llama.requests[len(in_first) :]

    assert first["status"] == second["status"] == "completed"
    structured = {r.route for r in in_first if _mode(r) is not None}
    assert structured >= STAGES, "the run asked several stages for structured output"
    assert _refused(in_first) == 1, [(r.route, _mode(r)) for r in in_first]
    assert _refused(in_second) == 0
    assert {r.route for r in in_second if _mode(r) == "json_object"} >= STAGES  # llama.cpp's schema grammar instead


def test_without_a_store_the_process_keeps_what_it_learned_past_the_cache_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache re-reads the store after CACHE_S so an operator's reset arrives; with no store to re-read, dropping
    the record forgot the refusal and every minute's first stage paid it again."""
    monkeypatch.setattr(core.capabilities, "CACHE_S", 0.0)
    with ScriptedLLM(reject_response_formats={REFUSED}) as llama:
        script_primes(llama)
        forget_all()
        given = build_graph(llm=llama.model(), checkpointer=InMemorySaver())
        context = Context(model="scripted", base_url=llama.base_url, store_dir=str(tmp_path / "store"))
        for thread in ("first", "second"):
            out = given.invoke({"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": thread}}, context=context)
            assert out["status"] == "completed"
        assert _refused(llama.requests) == 1


def test_a_new_paor_process_on_the_same_database_never_sends_the_refused_mode(tmp_path: Path) -> None:
    """The first run in this process, the second in a new interpreter (`paor run`): the database is all they share."""
    database = tmp_path / "paor.sqlite"
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedLLM(reject_response_formats={REFUSED}) as llama:
        script_primes(llama)
        with open_sqlite(database) as (_, store):
            first = _run_in_a_new_process(llama, store, tmp_path, "first")
        in_first = len(llama.requests)
        script_primes(llama)
        env = {**os.environ, "OPENAI_BASE_URL": llama.base_url, "PAOR_MODEL": "scripted", "PAOR_MAX_RETRIES": "0"}
        done = subprocess.run(
            [sys.executable, "-m", "cli", "run", PRIMES_PROMPT, "--db", str(database)],
            cwd=work,
            env={**env, "PAOR_HOME": str(tmp_path / "home")},
            capture_output=True,
            text=True,
            timeout=deadlines.PROCESS_S,
        )
        in_second = llama.requests[in_first:]
    assert first["status"] == "completed" and _refused(llama.requests[:in_first]) == 1
    assert done.returncode == 0, done.stderr[-3000:]
    assert {r.route for r in in_second} >= STAGES, "the new process asked every stage"
    assert _refused(in_second) == 0
