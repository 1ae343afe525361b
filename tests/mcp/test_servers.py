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

from core.errors import ServiceUnavailable, ToolNotCalled
from core.processes import free_port
from tests.mcp.conftest import faulty_server
from tests.support import deadlines
from tools.catalog import extended_by, unavailable_notes
from tools.extra.actions import ExtraActions
from tools.extra.output import ToolReportedError, tool_output
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


@contextlib.contextmanager
def serving(app: Any, **config: Any) -> Iterator[int]:
    """An ASGI app on a free loopback port, for as long as the block runs."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + deadlines.SERVER_START_S
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


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

    with serving(guarded, lifespan="on") as port:
        yield f"http://127.0.0.1:{port}/mcp"


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


def test_a_remote_server_that_goes_away_is_an_outage_naming_it_not_a_failed_call(
    extra_actions: Build, tmp_path: Path
) -> None:
    """Issue 52: a remote MCP server that is gone (the SDK's client waits out the call's timeout rather than report
    the refused connection) is a fault of the world, never learned as the tool's failure."""
    app = FastMCP("notes", stateless_http=True)

    @app.tool()
    def shout(text: str) -> str:
        """Repeat the text in capitals."""
        return text.upper()

    with serving(app.streamable_http_app(), lifespan="on") as port:
        actions = actions_for(extra_actions, tmp_path, notes={"url": f"http://127.0.0.1:{port}/mcp", "timeout": 2})
        assert "mcp.notes.shout" in actions.entries()
    assert actions.mcp is not None
    with pytest.raises(
        ServiceUnavailable, match=r"the MCP server notes at 127\.0\.0\.1 (did not answer|refused|could not)"
    ) as x:
        actions.mcp.call("notes", "shout", {"text": "hello"})
    assert x.value.temporary and x.value.kind == "the MCP server notes"


def run_entry(actions: ExtraActions, action: str, arguments: dict[str, Any]) -> bytes:
    """Call an action as `act` does — through its catalog entry's tool, arguments as Stage 2 left them — and
    return its first document."""
    entry = actions.entries()[action]
    reply = entry.factory(None).invoke(  # type: ignore[arg-type]  # brought tools use no ToolDeps
        {"type": "tool_call", "name": entry.tool_name, "args": arguments, "id": "1"}
    )
    return bytes(reply.artifact.documents[0].data)


def test_optional_arguments_left_out_reach_real_servers_left_out_and_their_own_defaults_apply(
    extra_actions: Build, tmp_path: Path, git_server: dict[str, Any], filesystem_server: dict[str, Any]
) -> None:
    repo = tmp_path / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "the only commit"], check=True)
    notes = tmp_path / "files" / "notes.txt"
    notes.write_text("first\nsecond\nthird\n")
    with serving(orders_app(), lifespan="on") as port:
        actions = actions_for(
            extra_actions,
            tmp_path,
            git=git_server,  # PyPI: git_log(repo_path, max_count=10, start_timestamp=None, …)
            files=filesystem_server,  # npm: read_text_file(path, head?, tail?)
            orders={"url": f"http://127.0.0.1:{port}/mcp"},  # FastMCP over HTTP: lookup_order(order_id, False)
        )

        log = run_entry(actions, "mcp.git.git_log", {"repo_path": str(repo)})
        text = run_entry(actions, "mcp.files.read_text_file", {"path": str(notes)})
        order = run_entry(actions, "mcp.orders.lookup_order", {"order_id": "A-1"})

    assert b"the only commit" in log
    assert text == b"first\nsecond\nthird\n"
    assert order == b"order A-1 is shipped (without items)"


def orders_app() -> Any:
    from tests.mcp.orders_server import server

    return server.streamable_http_app()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the SDK deprecates websockets; users still declare them
def test_a_websocket_server_is_reached_as_declared_in_a_connections_dict(extra_actions: Build, tmp_path: Path) -> None:
    from mcp.server.websocket import websocket_server

    from tests.mcp.orders_server import server

    async def app(scope: Any, receive: Any, send: Any) -> None:
        async with websocket_server(scope, receive, send) as (read, write):
            await server._mcp_server.run(read, write, server._mcp_server.create_initialization_options())

    with serving(app, lifespan="off", ws="websockets-sansio") as port:
        connections = {"live.orders": {"transport": "websocket", "url": f"ws://127.0.0.1:{port}/"}}
        actions = extra_actions(servers=load_servers(connections), log_dir=tmp_path / "logs")

        order = run_entry(actions, "mcp.live_orders.lookup_order", {"order_id": "B-7", "include_items": True})

    assert order.startswith(b"order B-7 is shipped: 2")


def test_arguments_a_real_server_refuses_are_told_from_a_tool_failing_at_its_job(
    extra_actions: Build, tmp_path: Path, git_server: dict[str, Any], filesystem_server: dict[str, Any]
) -> None:
    actions = actions_for(extra_actions, tmp_path, git=git_server, files=filesystem_server)
    assert actions.mcp is not None
    call = actions.mcp.call
    notes = tmp_path / "files" / "notes.txt"
    notes.write_text("hello\n")

    def raised(server: str, tool: str, arguments: dict[str, Any]) -> Exception:
        with pytest.raises(ToolReportedError) as failure:
            tool_output(tool, call(server, tool, arguments), 10**6)
        return failure.value

    refused_by_node = raised("files", "read_text_file", {"path": str(notes), "tail": None})  # MCP error -32602
    refused_by_python = raised("git", "git_log", {"repo_path": str(tmp_path), "max_count": None})
    failed = raised("files", "read_text_file", {"path": "/etc/hostname"})  # outside the allowed folder

    assert isinstance(refused_by_node, ToolNotCalled) and "-32602" in str(refused_by_node)
    assert isinstance(refused_by_python, ToolNotCalled) and "Input validation error" in str(refused_by_python)
    assert not isinstance(failed, ToolNotCalled) and "denied" in str(failed)
    with pytest.raises(ToolNotCalled):  # no such tool: refused, never run
        call("files", "no_such_tool", {})
