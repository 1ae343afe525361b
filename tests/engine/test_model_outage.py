"""`paor serve` with its model endpoint away (issue 52): the chat's stream ends with an error event naming what
stopped (Aegra said "ModelUnavailable: execution failed"), the thread's last AI message says it, and the message
sent again once the endpoint is back goes on with the round from the step that stopped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.fairness import script_one_step
from core.processes import free_port
from tests.support import deadlines
from tests.support.paor_serve import MISSING, Service, client, service, tail
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY = "outage-key-dora-77c2"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."
MESSAGE = {"type": "human", "content": "Write a haiku about the sea"}


@pytest.fixture
def away(tmp_path: Path) -> Iterator[tuple[Service, int]]:
    """One instance whose model endpoint is a port nothing listens on (yet)."""
    port = free_port()
    with service(tmp_path, f"http://127.0.0.1:{port}/v1", KEY, PAOR_MAX_STEPS="1") as running:
        running.start(1)
        yield running, port


def _stream(http: httpx.Client, thread: str) -> list[tuple[str, Any]]:
    body = {"assistant_id": "paor", "input": {"messages": [MESSAGE]}, "stream_mode": ["values"]}
    events: list[tuple[str, Any]] = []
    with http.stream("POST", f"/threads/{thread}/runs/stream", json=body, timeout=deadlines.HTTP_S) as answer:
        assert answer.status_code == 200, answer.read()
        kind = ""
        for line in answer.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((kind, json.loads(line.removeprefix("data: "))))
    return events


def test_an_outage_ends_the_stream_with_its_line_and_the_message_sent_again_goes_on(away: tuple[Service, int]) -> None:
    paor, port = away
    [instance] = paor.instances
    with client(instance, KEY) as dora:
        thread = dora.post("/threads", json={}).json()["thread_id"]
        errors = [data for kind, data in _stream(dora, thread) if kind == "error"]
        assert errors, tail(instance)
        assert errors[-1]["error"] == "ModelUnavailable", errors
        assert errors[-1]["message"].startswith("the model endpoint refused the connection"), errors
        assert "127.0.0.1" not in errors[-1]["message"], "the operator's network stays private"
        said = dora.get(f"/threads/{thread}/state").json()["values"]["messages"][-1]
        assert said["type"] == "ai" and said["content"].startswith("I could not finish this request"), said

        with ScriptedLLM(port=port) as llm:  # the endpoint is back, where it was
            script_one_step(llm, HAIKU)
            events = _stream(dora, thread)
        values = dora.get(f"/threads/{thread}/state").json()["values"]
    assert not [data for kind, data in events if kind == "error"], (events[-2:], tail(instance))
    assert values["round"] == 1 and HAIKU in values["answer"], values.get("stop_reason")
    assert [m["type"] for m in values["messages"]] == ["human", "ai"]
