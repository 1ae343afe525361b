"""A run taken over after its server stopped tells its client so (issue 53, item 6).

`paor serve` names the attempt a worker executes in the run's metadata (`run_attempt`, server/aegra_attempts.py;
the kill itself is tests/engine/test_crash.py). Here the graph is stopped before a step's action, as a killed server
leaves it, and the same run goes on as attempt 2: its first node sends the notice on the stream before its work, and
the chat's interim message carries it under the step it is on; later nodes, and a first attempt, say nothing.
"""

from __future__ import annotations

import uuid
from typing import Any

from core.context import Context
from graph.builder import build_graph
from nodes.takeover import TAKEN_OVER
from tests.e2e.test_loop_images import script
from tests.support.chat import ui_file_block, ui_message
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.documents.builders import pdf_bytes


def interim_texts(values: dict[str, Any]) -> list[str]:
    return [m.text for m in values["messages"] if str(m.id).startswith("understood-")]


def test_the_first_node_of_a_later_attempt_announces_it_once_on_the_stream_and_in_the_chat(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script(scripted_llm, ["docList:input"], language="de")
    graph = build_graph(checkpointer=checkpointer, store=store)
    config: dict[str, Any] = {"configurable": {"thread_id": "taken-over"}, "run_id": str(uuid.uuid4())}
    message = ui_message("Fasse den Bericht zusammen", ui_file_block(pdf_bytes("Umsatz 4,2 Mio."), "bericht.pdf"))
    first = list(graph.stream(message, config, context=context, stream_mode="custom", interrupt_before=["act"]))
    assert not [e for e in first if "notice" in e], "a first attempt announces nothing"
    assert graph.get_state(config).next == ("act",)

    again = {**config, "metadata": {"run_attempt": 2}}
    events = list(graph.stream(None, again, context=context, stream_mode=["custom", "values"]))

    notices = [data for mode, data in events if mode == "custom" and "notice" in data]
    assert notices == [{"notice": "taken over", "attempt": 2, "message": TAKEN_OVER["de"]}]
    first_custom = next(data for mode, data in events if mode == "custom")
    assert first_custom == notices[0], "the notice comes before the first node's own work"
    shown = [text for mode, data in events if mode == "values" for text in interim_texts(data)]
    step = "Step 1 of at most 5: document.extract — read the documents and summarise them"
    assert any(text.endswith(f"{step}\n\n{TAKEN_OVER['de']}") for text in shown), shown
    final = graph.get_state(config).values
    assert final["status"] == "completed", final["stop_reason"]
    assert TAKEN_OVER["de"] not in final["messages"][-1].text, "the answer is the answer only"
