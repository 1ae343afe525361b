"""`build_graph` writes each checkpoint before the next node starts.

LangGraph has no public way to bind a default durability to a compiled graph, so `graph.builder.durability_key`
reaches into its internals; this test fails loudly when LangGraph moves or stops honouring that key. A slow
checkpointer makes the difference visible: with "sync" the selection request finds the intent node's checkpoint
already written; with LangGraph's default ("async") the write is still under way when the next node asks.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import build_graph, durability_key
from graph.context import Context
from tests.support.scenarios import PRIMES_PROMPT, script_primes, selection
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

WRITE_DELAY_S = 0.3


class SlowSaver(InMemorySaver):
    """Each checkpoint takes a while to write, as on a slow disk or a remote database."""

    def put(self, *args: Any, **kwargs: Any) -> Any:
        time.sleep(WRITE_DELAY_S)
        return super().put(*args, **kwargs)


def intent_saved_when_selection_starts(scripted_llm: ScriptedLLM, context: Context, **invoke: Any) -> bool:
    saver = SlowSaver()
    config: Any = {"configurable": {"thread_id": "durable", "checkpoint_ns": ""}}
    seen: list[bool] = []

    def select_and_look(request: RecordedRequest) -> dict[str, object]:
        saved = saver.get_tuple(config)
        seen.append(bool(saved and saved.checkpoint["channel_values"].get("intent")))
        return selection(request)

    script_primes(scripted_llm).on("ActionSelection", select_and_look)
    build_graph(checkpointer=saver).invoke({"prompt": PRIMES_PROMPT}, config, context=context, **invoke)
    return seen[0]


def test_the_key_is_still_where_langgraph_reads_it() -> None:
    from langgraph.pregel import main

    assert durability_key() in main.__dict__.values(), "LangGraph moved its durability config key"


def test_each_checkpoint_is_written_before_the_next_node_starts(scripted_llm: ScriptedLLM, context: Context) -> None:
    assert intent_saved_when_selection_starts(scripted_llm, context)


def test_the_slow_saver_does_expose_background_writes(scripted_llm: ScriptedLLM, context: Context) -> None:
    """The control: with LangGraph's background writes the same probe sees no intent yet, so the test above can fail."""
    assert not intent_saved_when_selection_starts(scripted_llm, context, durability="async")


def test_a_graph_without_a_checkpointer_runs(scripted_llm: ScriptedLLM, context: Context) -> None:
    """Nothing to write synchronously: LangGraph's sync durability must not be bound then."""
    script_primes(scripted_llm)
    out = build_graph().invoke({"prompt": PRIMES_PROMPT}, context=context)
    assert out["status"] == "completed"
