"""`build_graph` writes each checkpoint before the next node starts.

LangGraph has no public way to bind a default durability to a compiled graph, so `graph.builder.durability_key`
reaches into its internals; this test fails loudly when LangGraph moves or stops honouring that key. A slow
checkpointer makes the difference visible: with "sync" the selection request finds the intent node's checkpoint
already written; with LangGraph's default ("async") the write is still under way when the next node asks.
"""

from __future__ import annotations

import threading
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from core.context import Context
from graph.builder import build_graph, durability_key
from tests.support.scenarios import PRIMES_PROMPT, script_primes, selection
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

#: How long the write of the intent checkpoint is held when nothing releases it earlier.
WRITE_DELAY_S = 0.3
#: With background writes the probe releases it: this only bounds a broken run.
RELEASED_BY_THE_PROBE_S = 60.0


class SlowSaver(InMemorySaver):
    """The checkpoint that holds the intent takes a while to write, as on a slow disk or a remote database: it is
    held until the selection request has looked (or `hold_s` has passed). An event, not a sleep: however slowly a
    loaded machine gets to the selection request, the write cannot have finished by itself before it."""

    def __init__(self, hold_s: float) -> None:
        super().__init__()
        self.hold_s = hold_s
        self.looked = threading.Event()

    def put(self, config: Any, checkpoint: Any, *args: Any, **kwargs: Any) -> Any:
        if checkpoint["channel_values"].get("intent"):
            self.looked.wait(self.hold_s)
        return super().put(config, checkpoint, *args, **kwargs)


def intent_saved_when_selection_starts(
    scripted_llm: ScriptedLLM, context: Context, hold_s: float = WRITE_DELAY_S, **invoke: Any
) -> bool:
    saver = SlowSaver(hold_s)
    config: Any = {"configurable": {"thread_id": "durable", "checkpoint_ns": ""}}
    seen: list[bool] = []

    def select_and_look(request: RecordedRequest) -> dict[str, object]:
        saved = saver.get_tuple(config)
        seen.append(bool(saved and saved.checkpoint["channel_values"].get("intent")))
        saver.looked.set()
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
    assert not intent_saved_when_selection_starts(
        scripted_llm, context, hold_s=RELEASED_BY_THE_PROBE_S, durability="async"
    )


def test_a_graph_without_a_checkpointer_runs(scripted_llm: ScriptedLLM, context: Context) -> None:
    """Nothing to write synchronously: LangGraph's sync durability must not be bound then."""
    script_primes(scripted_llm)
    out = build_graph().invoke({"prompt": PRIMES_PROMPT}, context=context)
    assert out["status"] == "completed"
