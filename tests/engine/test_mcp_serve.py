"""`/mcp` on `paor serve` (server/mcp_endpoint.py): the MCP endpoint `langgraph dev` serves, on Aegra, answering
what an MCP client asks as on `langgraph dev` (tests/server/test_documents_http.py, tests/server/test_tenancy.py):
each client's tools are its own assistants and the operator's, a call runs as that client, held to its quota of
runs in flight (one here: a call whose run did not take over the place its request held ahead would be refused),
and the official MCP client lists and calls them."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bench.fairness import script_one_step
from tests.support import deadlines
from tests.support.paor_serve import MISSING, Instance, client, service
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY_A, KEY_B = "mcp-key-alice-7c21", "mcp-key-bob-e804"
ASSISTANT = "paor"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
HELLO = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t"}}
#: A run asked to hold waits in its first model call until RELEASE is set: a run in flight for as long as needed.
HOLD = "Hold this run until the test lets it go"
RELEASE = threading.Event()
INTENT = {"dataType": "text", "expectedFormat": "markdown", "successCriteria": ["the answer"], "language": "en"}


def _intent(request: Any) -> str:
    if HOLD in request.text:
        RELEASE.wait(deadlines.HTTP_S)
    return json.dumps(INTENT)


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    """One instance; answers are checked (not direct), so a run that answers ends `completed`."""
    with ScriptedLLM() as llm:
        script_one_step(llm, HAIKU)
        llm.replace("Intent", _intent)
        root = tmp_path_factory.mktemp("mcp")
        extra = {"PAOR_MAX_STEPS": "1", "PAOR_DIRECT_ANSWER": "false", "PAOR_SERVER_MAX_RUNS": "1"}
        with service(root, llm.base_url, f"{KEY_A},{KEY_B}", **extra) as running:
            [started] = running.start(1)
            yield started


def _mcp(http: httpx.Client, method: str, params: dict[str, Any] | None = None, id_: int = 1) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params is not None else {})}
    answer = http.post("/mcp", json=message, headers=MCP_HEADERS)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _tools(http: httpx.Client) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in _mcp(http, "tools/list", {})["result"]["tools"]}


def test_an_mcp_client_lists_paor_and_its_tool_call_completes(instance: Instance) -> None:
    with client(instance, KEY_A) as alice:
        hello = _mcp(alice, "initialize", HELLO)
        assert hello["result"]["protocolVersion"] == "2025-03-26" and hello["result"]["capabilities"]["tools"]
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        notified = alice.post("/mcp", json=initialized, headers=MCP_HEADERS)
        assert notified.status_code == 202
        assert alice.get("/mcp", headers=MCP_HEADERS).status_code == 405, "no server-sent stream, as langgraph dev"

        tool = _tools(alice)[ASSISTANT]
        assert "POST /paor/documents" in tool["description"] and "prompt" in tool["inputSchema"]["properties"]

        done = _mcp(alice, "tools/call", {"name": ASSISTANT, "arguments": {"prompt": PROMPT}}, 3)["result"]
        assert not done.get("isError"), done
        assert "'status': 'completed'" in done["content"][0]["text"] and HAIKU in done["content"][0]["text"]

        arguments = {"prompt": "Extract it", "documents": ["/etc/passwd"]}
        refused = _mcp(alice, "tools/call", {"name": ASSISTANT, "arguments": arguments}, 4)["result"]
        assert refused["isError"] is True and refused["content"][0]["text"] == "InputRefused"


def test_mcp_needs_a_key(instance: Instance) -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for key in (None, "not-a-key"):
        with client(instance, key) as stranger:
            assert stranger.post("/mcp", json=listing, headers=MCP_HEADERS).status_code == 401, key


def test_another_clients_assistant_is_neither_listed_nor_callable(instance: Instance) -> None:
    with client(instance, KEY_A) as alice, client(instance, KEY_B) as bob:
        made = bob.post("/assistants", json={"graph_id": ASSISTANT, "name": "helper", "description": "Bob's own"})
        assert made.status_code == 200, made.text
        try:
            assert sorted(_tools(bob)) == ["helper", ASSISTANT]
            assert _tools(bob)["helper"]["description"] == "Bob's own"
            assert sorted(_tools(alice)) == [ASSISTANT]
            unknown = _mcp(alice, "tools/call", {"name": "helper", "arguments": {"prompt": PROMPT}})
            assert "Unknown tool" in unknown["error"]["message"], unknown

            called = _mcp(bob, "tools/call", {"name": "helper", "arguments": {"prompt": PROMPT}})["result"]
            assert not called.get("isError") and HAIKU in called["content"][0]["text"], "Bob's own tool runs for him"
        finally:
            bob.delete(f"/assistants/{made.json()['assistant_id']}")


def test_a_call_over_the_runs_quota_is_a_429_with_the_json_rpc_error(instance: Instance) -> None:
    with client(instance, KEY_A) as alice:
        thread = alice.post("/threads", json={}).json()["thread_id"]
        held = alice.post(f"/threads/{thread}/runs", json={"assistant_id": ASSISTANT, "input": {"prompt": HOLD}})
        assert held.status_code == 200, held.text
        try:
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": ASSISTANT, "arguments": {}}}
            called = alice.post("/mcp", json=call, headers=MCP_HEADERS)
            assert called.status_code == 429 and called.headers["retry-after"], called.text
            assert called.json()["id"] == 7 and "PAOR_SERVER_MAX_RUNS" in called.json()["error"]["message"]
        finally:
            RELEASE.set()
            alice.get(f"/threads/{thread}/runs/{held.json()['run_id']}/join")
            alice.delete(f"/threads/{thread}")


def test_the_official_mcp_client_lists_and_calls_paor(instance: Instance) -> None:
    mcp = pytest.importorskip("mcp", reason="the mcp package is not installed")
    from mcp.client.streamable_http import streamable_http_client

    async def use() -> tuple[list[str], Any]:
        http = httpx.AsyncClient(headers={"x-api-key": KEY_A}, timeout=deadlines.HTTP_S)
        async with (
            http,
            streamable_http_client(f"{instance.url}/mcp", http_client=http) as (read, write, _),
            mcp.ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            called = await session.call_tool(ASSISTANT, {"prompt": PROMPT})
        return [tool.name for tool in listed.tools], called

    names, called = asyncio.run(use())
    assert names == [ASSISTANT]
    assert not called.isError and "'status': 'completed'" in called.content[0].text, called
