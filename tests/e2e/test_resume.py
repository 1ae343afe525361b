"""A run killed during `act` of step 2 resumes from its checkpoint without redoing step 1's action."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

import tools.ai_process
from core.context import Context
from core.persistence import open_sqlite
from graph.builder import build_graph
from tests.support import deadlines
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, PRIMES_PROMPT, ai_process, script_primes
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

_RUN = textwrap.dedent(
    """
    import sys
    from graph.builder import build_graph
    from core.context import Context
    from core.persistence import open_sqlite

    db, base_url, store_dir = sys.argv[1:4]
    context = Context(model="scripted", base_url=base_url, max_retries=0, store_dir=store_dir)
    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        graph.invoke({"prompt": sys.argv[4]}, {"configurable": {"thread_id": "crash"}}, context=context)
    """
)


def test_process_killed_during_act_of_step_2_resumes_without_rerunning_step_1(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path
) -> None:
    child: list[subprocess.Popen[bytes]] = []
    killed = threading.Event()

    def kill_on_data_request(request: RecordedRequest) -> str:
        if DATA_PROMPT in request.text and not killed.is_set():
            os.kill(child[0].pid, signal.SIGKILL)  # the process dies while its step-2 tool call is in flight
            killed.set()
        return ai_process(request)

    script_primes(scripted_llm, tool_answer=kill_on_data_request)
    db = tmp_path / "crash.sqlite"
    child.append(
        subprocess.Popen(
            [sys.executable, "-c", _RUN, str(db), scripted_llm.base_url, str(context.store_path), PRIMES_PROMPT],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    )
    child[0].wait(timeout=deadlines.PROCESS_S)
    assert killed.is_set() and child[0].returncode == -signal.SIGKILL

    tool_calls = scripted_llm.requests_for("text")
    assert [CODE_PROMPT in r.text for r in tool_calls] == [True, False]

    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        config = {"configurable": {"thread_id": "crash"}}
        assert graph.get_state(config).next == ("act",)
        out = graph.invoke(None, config, context=context)

    assert out["status"] == "completed"
    resumed_calls = scripted_llm.requests_for("text")[len(tool_calls) :]
    assert len(resumed_calls) == 1 and DATA_PROMPT in resumed_calls[0].text  # step 1's tool was not called again
    assert [h["step"] for h in out["history"]] == [1, 2]


def test_interrupt_inside_a_tool_leaves_a_resumable_checkpoint(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    script_primes(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config: Any = {"configurable": {"thread_id": "ctrl-c"}}
    real_ask = tools.ai_process._ask

    def ctrl_c_on_step_2(deps: Any, task: str, *rest: Any, **options: Any) -> str:
        if DATA_PROMPT in task:
            raise KeyboardInterrupt
        return real_ask(deps, task, *rest, **options)

    monkeypatch.setattr(tools.ai_process, "_ask", ctrl_c_on_step_2)
    with pytest.raises(KeyboardInterrupt):
        graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)
    assert graph.get_state(config).next == ("act",)

    monkeypatch.undo()
    out = graph.invoke(None, config, context=context)
    assert out["status"] == "completed"
    prompts = [DATA_PROMPT in r.text for r in scripted_llm.requests_for("text")]
    assert prompts == [False, True]  # code asked once (step 1), data once (resumed step 2)
