"""paor under the real `langgraph dev` with an MCP server the operator declared (PAOR_MCP_CONFIG); a client can
neither add a server nor reach one the operator did not declare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import faulty_server
from tests.mcp.scenarios import TIME_ACTION, TIME_PROMPT, script_time, script_tool_run
from tests.mcp.test_servers import alive
from tests.support import deadlines
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip(
    "langgraph_sdk", reason="the server extra is not installed: pip install -e '.[server]'"
)
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")


def test_a_server_run_chooses_the_operators_mcp_tool_and_a_client_cannot_add_a_server(
    tmp_path: Path, time_server: dict[str, Any]
) -> None:
    marker = tmp_path / "client-server-started.txt"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"time": time_server}}))
    with ScriptedLLM() as llm:
        script_time(llm)
        env = scripted_env(llm.base_url, tmp_path / "paor-home", PAOR_MCP_CONFIG=str(config))
        with langgraph_dev(tmp_path, env) as url:
            client = langgraph_sdk.get_sync_client(url=url, timeout=deadlines.HTTP_S)
            thread = client.threads.create()["thread_id"]
            client_servers = {"mcpServers": {"mine": faulty_server(env={"PAOR_TEST_STARTS": str(marker)})}}
            # What a client might try: a config in the run's input or context. Neither is read.
            out = client.runs.wait(
                thread,
                "paor",
                input={"prompt": TIME_PROMPT, "mcp_config": client_servers},
                context={"mcp_config": client_servers, "PAOR_MCP_CONFIG": "x"},
                raise_error=True,
            )

    assert out["status"] == "completed", (out.get("notes"), out.get("stop_reason"), out.get("answer"))
    assert '"timezone": "Asia/Tokyo"' in out["answer"]
    offered = llm.requests_for("ActionSelection")[0].text
    assert f"- {TIME_ACTION}(timezone)" in offered and "mcp.mine" not in offered
    assert not marker.exists()


def test_a_server_shut_down_mid_call_leaves_no_mcp_server_process(tmp_path: Path) -> None:
    starts, calls = tmp_path / "starts.txt", tmp_path / "calls.txt"
    config = tmp_path / "mcp.json"
    stuck = faulty_server(env={"PAOR_TEST_STARTS": str(starts), "PAOR_TEST_CALLS": str(calls)})
    config.write_text(json.dumps({"mcpServers": {"stuck": stuck}}))
    with ScriptedLLM() as llm:
        script_tool_run(llm, "mcp.stuck.hang", {})
        env = scripted_env(llm.base_url, tmp_path / "paor-home", PAOR_MCP_CONFIG=str(config))
        with langgraph_dev(tmp_path, env) as url:
            client = langgraph_sdk.get_sync_client(url=url, timeout=deadlines.HTTP_S)
            client.runs.create(client.threads.create()["thread_id"], "paor", input={"prompt": "Hang"})
            assert deadlines.wait_until(calls.exists), "the call never began"
            [server] = [int(pid) for pid in starts.read_text().split()]
        # the server is stopped here (SIGTERM to its process group, SIGKILL after a grace period)

    assert deadlines.wait_until(lambda: not alive(server)), f"the MCP server {server} outlived the LangGraph server"
