"""paor under `langgraph dev`: the real server, the repo's langgraph.json, the SDK client and the SQLite file.

One server (tests/support/langgraph_dev.py: the repo's langgraph.json in a throwaway project folder, no `.env`)
serves the whole module. The model is the scripted loopback server of this process.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from core.processes import free_port
from core.schemas import HistoryEntry
from tests.support import deadlines
from tests.support import langgraph_dev as langgraph_dev_module
from tests.support.langgraph_dev import PortTaken, langgraph_dev, scripted_env
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip(
    "langgraph_sdk", reason="the server extra is not installed: pip install -e '.[server]'"
)
sdk_errors = pytest.importorskip("langgraph_sdk.errors")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

ASSISTANT = "paor"
ALL_NODES = {"intent", "select", "parameters", "act", "validate", "learn", "refine", "finalize"}


@dataclass
class Server:
    url: str
    home: Path
    llm: ScriptedLLM

    @property
    def database(self) -> Path:
        return self.home / "paor.sqlite"

    def context(self) -> dict[str, Any]:
        return {"model": "scripted", "base_url": self.llm.base_url, "max_retries": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("langgraph-dev")
    home = tmp / "paor-home"
    with ScriptedLLM() as llm:
        script_primes(llm)
        with langgraph_dev(tmp, scripted_env(llm.base_url, home)) as url:
            yield Server(url=url, home=home, llm=llm)


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    return langgraph_sdk.get_sync_client(url=server.url, timeout=deadlines.HTTP_S)


@pytest.fixture(scope="module")
def primes_run(server: Server, client: Any) -> tuple[str, dict[str, Any]]:
    """The primes scenario, once, through `runs.wait` on a fresh thread."""
    thread = client.threads.create()
    out = client.runs.wait(
        thread["thread_id"], ASSISTANT, input={"prompt": PRIMES_PROMPT}, context=server.context(), raise_error=True
    )
    assert isinstance(out, dict), out
    return thread["thread_id"], out


def test_the_server_loads_paor_from_langgraph_json(client: Any) -> None:
    assistants = client.assistants.search(graph_id=ASSISTANT)
    assert [a["graph_id"] for a in assistants] == [ASSISTANT]


def test_primes_scenario_completes_over_http(primes_run: tuple[str, dict[str, Any]]) -> None:
    _, out = primes_run
    assert out.get("status") == "completed", out
    assert "criteria met" in out["stop_reason"]
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert [h.step for h in history] == [1, 2]
    assert not history[0].success and history[1].success
    assert out["deliverables"], "the numbers are delivered as a document"


def test_thread_state_and_history(client: Any, primes_run: tuple[str, dict[str, Any]]) -> None:
    thread_id, out = primes_run
    state = client.threads.get_state(thread_id)
    assert state["next"] == []
    assert state["values"]["status"] == "completed"
    assert state["values"]["history"] == out["history"]
    assert set(state["values"]["telemetry"]["nodes"]) >= ALL_NODES

    checkpoints = client.threads.get_history(thread_id, limit=100)
    assert len(checkpoints) >= 1 + 6 * 2 + 1  # input, intent … finalize over two steps
    assert checkpoints[0]["checkpoint"]["checkpoint_id"] == state["checkpoint"]["checkpoint_id"]


def test_stream_carries_progress_events_and_values(
    server: Server, client: Any, primes_run: tuple[str, dict[str, Any]]
) -> None:
    thread = client.threads.create()
    progress: list[dict[str, Any]] = []
    values: list[dict[str, Any]] = []
    for part in client.runs.stream(
        thread["thread_id"],
        ASSISTANT,
        input={"prompt": PRIMES_PROMPT},
        context=server.context(),
        stream_mode=["custom", "values"],
    ):
        assert part.event != "error", part.data
        if part.event == "custom":
            progress.append(part.data)
        elif part.event == "values":
            values.append(part.data)

    assert progress and all(event["event"] == "progress" for event in progress)
    nodes = [event["node"] for event in progress]
    assert set(nodes) == ALL_NODES and nodes[0] == "intent" and nodes[-1] == "finalize"
    assert [e["decision"] for e in progress if e["node"] == "refine"][-1] == "stop"
    assert values and values[-1]["status"] == "completed"
    # The strategy learned by the first run is recalled on this new thread: data on the first attempt.
    assert [h["step"] for h in values[-1]["history"]] == [1]


def test_schemas_expose_input_output_and_context(client: Any) -> None:
    assistant = client.assistants.search(graph_id=ASSISTANT)[0]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    assert {"prompt", "messages", "documents"} <= set(schemas["input_schema"]["properties"])
    assert not schemas["input_schema"].get("required"), "a chat client sends messages, an API client a prompt"
    assert {"answer", "status", "history"} <= set(schemas["output_schema"]["properties"])
    context_fields = schemas["context_schema"]["properties"]
    assert "model" in context_fields and context_fields["model"].get("description")
    assert {"base_url", "max_steps"} <= set(context_fields)


def test_checkpoints_and_strategies_land_in_sqlite(server: Server, primes_run: tuple[str, dict[str, Any]]) -> None:
    thread_id, _ = primes_run
    assert server.database.is_file(), f"no database at {server.database}"
    with contextlib.closing(sqlite3.connect(server.database, timeout=deadlines.HTTP_S)) as conn:
        (checkpoints,) = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread_id,)).fetchone()
        prefixes = [row[0] for row in conn.execute("SELECT DISTINCT prefix FROM store")]
    assert checkpoints > 0, f"no checkpoints for thread {thread_id}"
    assert any(prefix.startswith("paor.strategies") for prefix in prefixes), prefixes


def test_unknown_thread_is_a_clean_404(client: Any) -> None:
    with pytest.raises(sdk_errors.NotFoundError):
        client.threads.get_state(str(uuid.uuid4()))


def test_an_approval_interrupt_shows_in_the_thread_and_a_resume_command_completes_the_run(
    server: Server, client: Any
) -> None:
    """Human in the loop over HTTP: the thread waits with the documented payload; `command={"resume": …}` goes on."""
    thread = client.threads.create()["thread_id"]
    context = {**server.context(), "approve": "always"}
    client.runs.wait(thread, ASSISTANT, input={"prompt": PRIMES_PROMPT}, context=context, raise_error=True)
    payloads = []
    for _ in range(6):  # one approval per step; the primes scenario takes two
        state = client.threads.get_state(thread)
        waiting = [i["value"] for task in state["tasks"] for i in task.get("interrupts") or []]
        if not waiting:
            break
        payloads += waiting
        client.runs.wait(
            thread, ASSISTANT, command={"resume": {"decision": "approve"}}, context=context, raise_error=True
        )
    final = client.threads.get_state(thread)["values"]
    assert final["status"] == "completed"
    assert payloads and all(p["kind"] == "approve" and p["action"] == "ai.process" for p in payloads)
    assert all("aiPrompt" in p["parameters"] and "documentList" not in p["parameters"] for p in payloads)


def test_a_rejection_over_http_is_asked_once_and_the_thread_says_what_was_rejected(server: Server, client: Any) -> None:
    """Issue 46, item 4 over HTTP: the scripted model proposes only ai.process; once the user rejects it, it is not
    asked again, the step's history entry and the chat's step line say "rejected: …", and the round stops naming it."""
    thread = client.threads.create()["thread_id"]
    context = {**server.context(), "approve": "always"}
    client.runs.wait(thread, ASSISTANT, input={"prompt": PRIMES_PROMPT}, context=context, raise_error=True)
    reject = {"resume": {"decision": "reject", "reason": "not this way"}}
    client.runs.wait(thread, ASSISTANT, command=reject, context=context, raise_error=True)

    state = client.threads.get_state(thread)
    assert [i for task in state["tasks"] for i in task.get("interrupts") or []] == []  # not asked again
    final = state["values"]
    stop = "you rejected ai.process: “not this way”; no other allowed action can do this"
    assert (final["status"], final["stop_reason"]) == ("incomplete", stop)
    assert stop in final["messages"][-1]["content"]
    rejected = HistoryEntry.model_validate(final["history"][0])
    assert (rejected.action, rejected.summary, rejected.rejected) == (
        "ai.process",
        "rejected: not this way",
        "not this way",
    )
    shown = [
        m["content"] for c in client.threads.get_history(thread, limit=100) for m in c["values"].get("messages") or []
    ]
    assert any(str(text).endswith("Step 1 of at most 5: ai.process — rejected: not this way") for text in shown)


class _AnswersOk(BaseHTTPRequestHandler):
    """Another test's server: its /ok answers 200 as langgraph dev's does."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_server_another_test_started_on_the_port_is_never_taken_for_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A port free a moment ago may be another test's server's when `langgraph dev` binds it: its /ok answers, and
    the tests would talk to a stranger (then see "connection refused" once it stops). The harness starts again on
    another port; told a port, it refuses."""
    stranger = ThreadingHTTPServer(("127.0.0.1", 0), _AnswersOk)
    threading.Thread(target=stranger.serve_forever, daemon=True).start()
    taken = stranger.server_address[1]
    ports = iter([taken])
    monkeypatch.setattr(langgraph_dev_module, "free_port", lambda: next(ports, None) or free_port())
    try:
        with (
            pytest.raises(PortTaken, match="another process answers"),
            langgraph_dev(tmp_path / "told", {}, port=taken),
        ):
            pass
        with ScriptedLLM() as llm, langgraph_dev(tmp_path / "retried", scripted_env(llm.base_url, tmp_path)) as url:
            assert not url.endswith(f":{taken}")
            assert langgraph_sdk.get_sync_client(url=url).assistants.search(graph_id=ASSISTANT)
    finally:
        stranger.shutdown()
        stranger.server_close()
