"""Live sessions with real MCP servers: listing, calls, output kinds, and every way a server can fail small."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

from graph.processes import free_port
from tests.mcp.conftest import faulty_server
from tests.support import deadlines
from tools.catalog import extended_by, unavailable_notes
from tools.extra.actions import ExtraActions
from tools.extra.output import tool_output
from tools.mcp.config import load_servers
from tools.mcp.servers import McpCallFailed

Build = Callable[..., ExtraActions]


def actions_for(build: Build, tmp_path: Path, **servers: dict[str, Any]) -> ExtraActions:
    return build(servers=load_servers({"mcpServers": servers}), log_dir=tmp_path / "logs")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # a zombie is dead for our purpose
        return " Z" not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:3]
    return True


def test_the_time_server_lists_its_tools_as_read_only_actions_and_answers_a_call(
    extra_actions: Build, tmp_path: Path, time_server: dict[str, Any]
) -> None:
    actions = actions_for(extra_actions, tmp_path, time=time_server)

    entries = actions.entries()

    assert sorted(entries) == ["mcp.time.convert_time", "mcp.time.get_current_time"]
    now = entries["mcp.time.get_current_time"]
    assert now.parameter_names == ["timezone"] and not now.side_effects
    assert now.summary == "Get current time in a specific timezone"
    assert actions.mcp is not None
    output = tool_output(
        "get_current_time", actions.mcp.call("time", "get_current_time", {"timezone": "Asia/Tokyo"}), 10**6
    )
    assert [d.name for d in output.documents] == ["get_current_time.json"]
    assert b'"timezone": "Asia/Tokyo"' in output.documents[0].data


def test_the_git_server_reads_a_repository_and_its_writing_tools_need_approval(
    extra_actions: Build, tmp_path: Path, git_server: dict[str, Any]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "a.txt").write_text("hello\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first commit of the test"], check=True)
    actions = actions_for(extra_actions, tmp_path, git=git_server)

    entries = actions.entries()

    assert not entries["mcp.git.git_log"].side_effects and entries["mcp.git.git_commit"].side_effects
    assert actions.mcp is not None
    answer = actions.mcp.call("git", "git_log", {"repo_path": str(repo), "max_count": 1})
    assert "first commit of the test" in str(answer.content)


def test_the_everything_server_gives_text_images_resources_structured_content_and_errors(
    extra_actions: Build, tmp_path: Path, everything_server: dict[str, Any]
) -> None:
    actions = actions_for(extra_actions, tmp_path, every={**everything_server, "timeout": 2})
    assert "mcp.every.get-sum" in actions.entries()
    assert actions.mcp is not None
    call = actions.mcp.call

    def documents(tool: str, arguments: dict[str, Any]) -> dict[str, tuple[str, bytes]]:
        output = tool_output(tool, call("every", tool, arguments), 10**6)
        return {d.name: (d.mime, d.data) for d in output.documents}

    assert documents("echo", {"message": "hi"})["echo.md"][1] == b"Echo: hi"
    image = documents("get-tiny-image", {})
    assert image["get-tiny-image-image1.png"][0] == "image/png"
    assert image["get-tiny-image-image1.png"][1].startswith(b"\x89PNG")
    blob = documents("get-resource-reference", {"resourceType": "Blob", "resourceId": 1})
    assert any(mime == "text/plain" and b"base64 blob" in data for mime, data in blob.values())
    links = documents("get-resource-links", {"count": 2})
    assert b"demo://resource/" in links["get-resource-links.md"][1]
    weather = documents("get-structured-content", {"location": "Chicago"})
    assert b"temperature" in weather["get-structured-content.json"][1]
    with pytest.raises(Exception, match="reported an error"):
        tool_output("get-sum", call("every", "get-sum", {"a": "x", "b": 1}), 100)
    with pytest.raises(McpCallFailed, match="did not answer within 2s"):
        call("every", "trigger-long-running-operation", {"duration": 30, "steps": 3})
    assert actions.unavailable() == {}  # a slow call fails; the server still answers pings and stays
    assert documents("echo", {"message": "still here"})["echo.md"][1] == b"Echo: still here"


def test_a_server_that_cannot_start_hangs_at_start_or_floods_stderr_fails_alone_with_the_reason(
    extra_actions: Build, tmp_path: Path, time_server: dict[str, Any], capfd: pytest.CaptureFixture[str]
) -> None:
    actions = actions_for(
        extra_actions,
        tmp_path,
        time=time_server,
        missing={"command": str(tmp_path / "no-such-server")},
        crash=faulty_server("crash-at-start"),
        hang={**faulty_server("hang-at-start"), "startupTimeout": 2},
        noisy=faulty_server("flood-stderr"),
    )

    entries = actions.entries()
    with extended_by(actions):
        notes = unavailable_notes()

    assert "mcp.time.get_current_time" in entries and "mcp.noisy.echo" in entries
    reasons = actions.unavailable()
    assert sorted(reasons) == ["mcp.crash.*", "mcp.hang.*", "mcp.missing.*"]
    assert "No such file or directory" in reasons["mcp.missing.*"]
    assert "configuration broken, giving up" in reasons["mcp.crash.*"]  # its own last words, from its log
    assert "did not start within 2s" in reasons["mcp.hang.*"]
    assert any(n.startswith("mcp.crash.* is unavailable: the MCP server crash could not start") for n in notes)
    actions.close()
    log = tmp_path / "logs" / "noisy.log"
    assert 1024 * 1024 <= log.stat().st_size < 1024 * 1024 + 200  # capped, with the note of what was dropped
    assert "stderr dropped" in log.read_text()[-200:]
    assert "noise" not in capfd.readouterr().err  # never on paor's own stderr


def test_a_server_that_dies_or_blocks_during_a_call_is_withdrawn_and_the_others_keep_working(
    extra_actions: Build, tmp_path: Path, time_server: dict[str, Any]
) -> None:
    actions = actions_for(
        extra_actions,
        tmp_path,
        time=time_server,
        dying=faulty_server(),
        blocking={**faulty_server(), "timeout": 1},
    )
    assert actions.mcp is not None
    call = actions.mcp.call
    pid = int(str(call("dying", "pid", {}).content[0]["text"]))  # type: ignore[index]

    with pytest.raises(McpCallFailed, match="die failed"):
        call("dying", "die", {})
    with pytest.raises(McpCallFailed, match="did not answer within 1s"):
        call("blocking", "block", {})

    reasons = actions.unavailable()
    assert "no longer answers (die failed" in reasons["mcp.dying.*"]
    assert "no longer answers (block did not answer within 1s" in reasons["mcp.blocking.*"]
    assert not any(name.startswith("mcp.dying.") for name in actions.entries())
    with pytest.raises(McpCallFailed, match="unavailable"):
        call("dying", "echo", {"message": "x"})
    assert not alive(pid)
    assert "Asia/Tokyo" in str(call("time", "get_current_time", {"timezone": "Asia/Tokyo"}).content)


def test_sessions_are_reused_by_every_call_and_close_with_their_processes(extra_actions: Build, tmp_path: Path) -> None:
    starts = tmp_path / "starts.txt"
    actions = actions_for(extra_actions, tmp_path, s=faulty_server(env={"PAOR_TEST_STARTS": str(starts)}))
    assert actions.mcp is not None

    first = actions.mcp.call("s", "pid", {}).content[0]["text"]  # type: ignore[index]
    actions.entries()
    second = actions.mcp.call("s", "pid", {}).content[0]["text"]  # type: ignore[index]

    assert first == second and len(starts.read_text().split()) == 1
    pid = int(starts.read_text().split()[0])
    assert alive(pid)
    actions.hold("run-a")
    actions.hold("run-b")
    actions.release("run-a")
    assert alive(pid) and actions.mcp.is_open  # another run still holds the sessions
    actions.release("run-b")
    assert not actions.mcp.is_open and not alive(pid)
    assert not [t for t in threading.enumerate() if t.name == "paor-mcp"]
    actions.mcp.call("s", "pid", {})  # the next run starts them afresh
    assert len(starts.read_text().split()) == 2


@pytest.fixture
def http_server() -> Iterator[str]:
    """A streamable-HTTP MCP server built with the SDK, on loopback, that wants a bearer token."""
    app = FastMCP("notes", stateless_http=True)

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def shout(text: str) -> str:
        """Repeat the text in capitals."""
        return text.upper()

    inner = app.streamable_http_app()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != b"Bearer t0ken":
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no"})
            return
        await inner(scope, receive, send)

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(guarded, host="127.0.0.1", port=port, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + deadlines.SERVER_START_S
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


def test_a_streamable_http_server_is_reached_with_its_declared_headers(
    extra_actions: Build, tmp_path: Path, http_server: str
) -> None:
    actions = actions_for(
        extra_actions,
        tmp_path,
        notes={"url": http_server, "headers": {"Authorization": "Bearer t0ken"}},
        locked={"type": "http", "url": http_server, "startupTimeout": 5},
    )

    entries = actions.entries()

    assert "mcp.notes.shout" in entries and not entries["mcp.notes.shout"].side_effects
    assert "mcp.locked.*" in actions.unavailable()  # no token: refused, and only that server is affected
    assert actions.mcp is not None
    assert "HELLO" in str(actions.mcp.call("notes", "shout", {"text": "hello"}).content)
