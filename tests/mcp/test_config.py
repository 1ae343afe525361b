"""The `{"mcpServers": …}` file: stdio and remote servers, the env var, and broken entries that fail alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import ConfigurationError
from tools.mcp.config import CONFIG_ENV, load_servers


def test_stdio_and_remote_servers_are_read_as_claude_desktop_and_vs_code_write_them(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
                    "remote": {"url": "https://tools.example/mcp", "headers": {"Authorization": "Bearer k"}},
                    "legacy": {"url": "https://tools.example/sse"},
                    "typed": {"type": "http", "url": "https://tools.example/v2"},
                    "off": {"command": "x", "disabled": True},
                }
            }
        )
    )

    servers = load_servers(path)

    found = {s.name: s for s in servers.specs}
    assert sorted(found) == ["legacy", "remote", "time", "typed"]
    assert found["time"].transport == "stdio" and found["time"].args == ["mcp-server-time"]
    assert found["time"].env == {"TZ": "UTC"}
    assert found["remote"].transport == "streamable_http" and found["remote"].headers["Authorization"] == "Bearer k"
    assert found["legacy"].transport == "sse"
    assert found["typed"].transport == "streamable_http"
    assert found["time"].timeout == 60 and found["time"].maxOutputKb == 1024
    assert servers.broken == {}


def test_the_env_var_names_the_file_and_unset_means_no_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    assert not load_servers(None)
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "a-server"}}}))
    monkeypatch.setenv(CONFIG_ENV, str(path))

    assert [s.name for s in load_servers(None).specs] == ["a"]


def test_variables_in_env_and_headers_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_TEST_TOKEN", "s3cret")
    servers = load_servers(
        {
            "mcpServers": {
                "api": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${PAOR_TEST_TOKEN}"}},
                "local": {"command": "srv", "env": {"TOKEN": "${PAOR_TEST_TOKEN}"}},
                "missing": {"command": "srv", "env": {"TOKEN": "${PAOR_TEST_UNSET_VARIABLE}"}},
            }
        }
    )

    found = {s.name: s for s in servers.specs}
    assert found["api"].headers["Authorization"] == "Bearer s3cret"
    assert found["local"].env["TOKEN"] == "s3cret"
    assert "PAOR_TEST_UNSET_VARIABLE is not set" in servers.broken["missing"]


def test_a_broken_entry_makes_only_that_server_unavailable() -> None:
    servers = load_servers(
        {
            "mcpServers": {
                "good": {"command": "srv"},
                "no-endpoint": {"args": ["x"]},
                "go.od": {"command": "srv"},
                "go od": {"command": "srv"},
                "slow": {"command": "srv", "timeout": -1},
                "odd": {"type": "carrier-pigeon", "url": "x"},
            }
        }
    )

    assert [(s.name, s.declared) for s in servers.specs] == [("good", "good"), ("go_od", "go.od")]
    assert servers.broken["no-endpoint"].startswith("has an invalid entry in the MCP config: ")
    assert "needs `url`" in servers.broken["no-endpoint"]
    assert servers.broken["go od"] == "is named 'go_od' in action names, as 'go.od' is; rename one of them"
    assert "timeout" in servers.broken["slow"]
    assert "unknown type 'carrier-pigeon'" in servers.broken["odd"]


def test_a_multiserver_mcp_client_connections_dict_is_read_as_it_is() -> None:
    auth = object()  # an httpx.Auth in real use: passed on to the transport untouched
    connections = {
        "math": {"command": "python", "args": ["math_server.py"], "transport": "stdio"},
        "weather": {"url": "http://127.0.0.1:8000/mcp", "transport": "streamable_http", "timeout": 12, "auth": auth},
        "legacy": {"url": "http://127.0.0.1:8000/sse", "transport": "sse", "sse_read_timeout": 600},
        "live": {"url": "ws://127.0.0.1:8001/ws", "transport": "websocket"},
        "acme.orders": {"command": "orders-server", "args": [], "transport": "stdio", "env": None},
    }

    servers = load_servers(connections)

    found = {s.name: s for s in servers.specs}
    assert servers.broken == {}
    assert sorted(found) == ["acme_orders", "legacy", "live", "math", "weather"]
    assert found["math"].transport == "stdio" and found["math"].args == ["math_server.py"]
    assert found["weather"].transport == "streamable_http"
    assert found["weather"].options == {"timeout": 12, "auth": auth}  # the HTTP timeout, not paor's per-call one
    assert found["weather"].timeout == 60
    assert found["legacy"].options == {"sse_read_timeout": 600}
    assert found["live"].transport == "websocket" and found["live"].options == {}
    assert found["acme_orders"].declared == "acme.orders" and found["acme_orders"].env == {}
    assert load_servers({"mcpServers": {"w": {"url": "wss://tools.example/ws"}}}).specs[0].transport == "websocket"


def test_what_a_thread_remembers_of_its_servers_names_them_and_their_file_but_holds_no_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "mcp.json"
    entries = {"api": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer s3cret"}}, "bad": {"args": []}}
    path.write_text(json.dumps({"mcpServers": entries}))
    monkeypatch.setenv(CONFIG_ENV, str(path))

    assert load_servers(path).record() == {"servers": ["api", "bad"], "config": str(path)}
    assert load_servers(None).record() == {"servers": ["api", "bad"], "config": CONFIG_ENV}
    assert "s3cret" not in json.dumps(load_servers(path).record())


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "is not valid JSON"), ("[]", "must be a JSON object"), ("{}", 'no "mcpServers" object')],
)
def test_a_file_that_cannot_be_read_is_a_configuration_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(content)

    with pytest.raises(ConfigurationError, match=message):
        load_servers(path)
    with pytest.raises(ConfigurationError, match="cannot read the MCP config"):
        load_servers(tmp_path / "missing.json")
