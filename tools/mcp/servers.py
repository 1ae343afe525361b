"""Live sessions with the declared MCP servers, on one background event loop, each server failing on its own.

`open()` starts every server at once (each bounded by its `startupTimeout`) and lists its tools through
langchain-mcp-adapters (`load_mcp_tools` over the live session: LangChain tools whose metadata carries the MCP
annotations). The sessions are reused by every call until `close()`, which ends them and their processes
(stdio servers: stdin closed, then SIGTERM and SIGKILL to their process group). A server that cannot start is
recorded with the reason; one that dies, stops answering or fails at the transport level during a call is
withdrawn for the rest of the session with the reason. `open()` after `close()` starts them afresh.

A stdio server is started through core/lifeline.py, which ends it with its process group when paor ends in
any way (SIGTERM, SIGHUP, a crashed worker), within a second or two: `close()` and atexit cannot run in a killed
process, and a server stuck in a call never reads the end of its stdin.

Why a loop of its own: paor's nodes are synchronous and run in worker threads, and an MCP session (anyio task
groups) must be entered and left in one task of one loop. Each server's session lives in its own task here;
calls are submitted to the loop and waited for with the server's `timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Coroutine
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from uuid import uuid4

import httpx
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.sessions import create_session
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND

from core.errors import ActionUnavailable, ServiceUnavailable, ToolFailed, ToolNotCalled
from core.outages import fault, host_of
from core.processes import ended_with_this_process
from tools.mcp.config import ServerSpec
from tools.mcp.stderr import StderrLog

log = logging.getLogger(__name__)
# The SDK logs a server's protocol garbage as errors; without a handler Python prints them over the CLI's progress.
logging.getLogger("mcp").addHandler(logging.NullHandler())

PING_TIMEOUT_S = 5.0
CLOSE_TIMEOUT_S = 15.0
STDERR_DRAIN_S = 2.0
_GRACE_S = 5.0  # beyond a server's own timeouts, before the waiting thread gives up on the loop itself

T = TypeVar("T")


class McpCallFailed(ToolFailed):
    """An MCP call that produced no result: timeout, transport failure, or a server withdrawn earlier."""


class McpServerUnavailable(McpCallFailed, ActionUnavailable):
    """The call was not made: the server is not declared, withdrawn, or the sessions are closed."""


class McpCallRefused(McpCallFailed, ToolNotCalled):
    """The server refused the call itself (unknown tool, invalid params) or could not be connected to."""


@dataclass
class _Link:
    """One server during one open period."""

    spec: ServerSpec
    tools: dict[str, BaseTool] = field(default_factory=dict)
    session: ClientSession | None = None
    failure: str | None = None
    stop: asyncio.Event | None = None
    task: asyncio.Task[None] | None = None
    stderr: StderrLog | None = None

    def last_words(self) -> str:
        words = self.stderr.tail() if self.stderr is not None else ""
        return f"; its stderr ends: {words}" if words else ""


class McpServers:
    """The sessions of a set of declared servers; thread-safe, opened on demand, closed explicitly."""

    def __init__(self, specs: list[ServerSpec], log_dir: Path) -> None:
        self.specs = list(specs)
        self.log_dir = log_dir
        self.starts = 0  # how many times the servers were started (tests: sessions are reused)
        self._links: dict[str, _Link] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.RLock()

    # -- lifecycle ---------------------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self._loop is not None

    def open(self) -> None:
        """Start every server and list its tools (no-op while open); failures are recorded, never raised."""
        with self._lock:
            if self._loop is not None:
                return
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="paor-mcp", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
            self._links = {spec.name: _Link(spec) for spec in self.specs}
            for link in self._links.values():  # files and pipes are made here: the loop must never block
                if link.spec.transport == "stdio":
                    link.stderr = StderrLog(self.log_dir / f"{link.spec.name}.log")
            self.starts += 1
            deadline = max((s.startupTimeout for s in self.specs), default=0) + CLOSE_TIMEOUT_S
            self._run(self._start_all(), deadline)

    def close(self) -> None:
        """End every session and its process; the tool lists are kept until the next `open()`."""
        with self._lock:
            loop, thread = self._loop, self._thread
            if loop is None or thread is None:
                return
            try:
                self._run(self._stop_all(), CLOSE_TIMEOUT_S + _GRACE_S)
            except Exception as exc:  # closing must never fail the run that is ending
                log.warning("closing the MCP sessions: %s: %s", type(exc).__name__, exc)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(CLOSE_TIMEOUT_S)
            if not thread.is_alive():
                loop.close()
            self._loop = self._thread = None

    # -- what the catalog needs --------------------------------------------------------------------------------

    def tools(self) -> dict[str, list[BaseTool]]:
        """Each usable server's tools (opening the sessions if they are closed)."""
        self.open()
        with self._lock:
            return {name: list(link.tools.values()) for name, link in self._links.items() if link.failure is None}

    def failures(self) -> dict[str, str]:
        """Each server that cannot be used now, with the reason."""
        self.open()
        with self._lock:
            return {name: link.failure for name, link in self._links.items() if link.failure is not None}

    # -- calls -------------------------------------------------------------------------------------------------

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolMessage:
        """Run one tool; the answer is the adapter's ToolMessage (status "error" when the tool reported one)."""
        self.open()
        with self._lock:
            link = self._links.get(server)
        if link is None:
            raise McpServerUnavailable(f"no MCP server {server!r} is declared")
        if link.failure is not None:
            raise McpServerUnavailable(f"the MCP server {server} is unavailable: it {link.failure}")
        return self._run(self._call(link, tool, arguments), link.spec.timeout + PING_TIMEOUT_S + _GRACE_S)

    # -- inside the loop ---------------------------------------------------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        loop = self._loop
        if loop is None:
            coroutine.close()
            raise McpServerUnavailable("the MCP sessions are closed")
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise McpCallFailed(f"the MCP client did not finish within {timeout:g}s") from None

    async def _start_all(self) -> None:
        await asyncio.gather(*(self._start(link) for link in self._links.values()))

    async def _start(self, link: _Link) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        link.stop = asyncio.Event()
        link.task = asyncio.create_task(self._serve(link, ready), name=f"mcp-{link.spec.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), link.spec.startupTimeout)
        except TimeoutError:
            link.failure = f"did not start within {link.spec.startupTimeout:g}s (startupTimeout){link.last_words()}"
            await self._end(link)
        except Exception as exc:
            link.failure = f"could not start ({_describe(exc)}){link.last_words()}"
            await self._end(link)
        if link.failure is not None:
            log.info("MCP server %s is unavailable: %s", link.spec.name, link.failure)

    async def _serve(self, link: _Link, ready: asyncio.Future[None]) -> None:
        """Hold one session open until `stop`; its context is entered and left in this one task."""
        assert link.stop is not None
        try:
            async with self._session(link) as session:
                listed = await load_mcp_tools(session, server_name=link.spec.name)
                link.tools = {tool.name: tool for tool in listed}
                link.session = session
                ready.set_result(None)
                await link.stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # an ExceptionGroup from the transport's task group included
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            elif link.failure is None:
                link.failure = f"lost its session ({_describe(exc)}){link.last_words()}"
        finally:
            link.session = None

    @asynccontextmanager
    async def _session(self, link: _Link) -> AsyncIterator[ClientSession]:
        spec = link.spec
        if spec.transport != "stdio":
            connection: dict[str, Any] = {"transport": spec.transport, "url": spec.url}
            if spec.transport != "websocket":  # a websocket connection takes nothing else
                connection.update(headers=spec.headers, timeout=spec.startupTimeout)
            async with create_session({**connection, **spec.options}) as session:  # type: ignore[arg-type]
                await session.initialize()
                yield session
            return
        assert link.stderr is not None
        command, args = spec.command or "", spec.args
        command, *args = ended_with_this_process([command, *args])  # its process group ends with paor
        params = StdioServerParameters(command=command, args=args, env=spec.env or None, cwd=spec.cwd or None)
        try:
            async with stdio_client(params, errlog=link.stderr.writer) as (read, write):
                link.stderr.close_writer()
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield session
        finally:
            link.stderr.close_writer()
            await asyncio.to_thread(link.stderr.wait, STDERR_DRAIN_S)  # the log is complete once closed

    async def _call(self, link: _Link, tool: str, arguments: dict[str, Any]) -> ToolMessage:
        found = link.tools.get(tool)
        if found is None:
            raise McpCallRefused(f"the MCP server {link.spec.name} has no tool {tool!r}")
        call = {"type": "tool_call", "name": tool, "args": arguments, "id": f"paor-{uuid4().hex[:12]}"}
        try:
            answer = await asyncio.wait_for(found.ainvoke(call), link.spec.timeout)
        except TimeoutError:
            reason = f"{tool} did not answer within {link.spec.timeout:g}s (the server's timeout)"
            await self._check_alive(link, reason)
            if link.spec.transport != "stdio":  # a remote server that does not answer is away, not the call wrong
                raise _remote(link, f"did not answer {tool} within {link.spec.timeout:g} s") from None
            raise McpCallFailed(reason) from None
        except McpCallFailed:
            raise
        except Exception as exc:
            reason = f"{tool} failed: {_describe(exc)}"
            await self._check_alive(link, reason)
            outage = fault(_innermost(exc)) if link.spec.transport != "stdio" else None
            if outage is not None:
                raise _remote(link, outage.what, temporary=outage.temporary) from exc
            raise (McpCallRefused if _refused(exc) else McpCallFailed)(reason) from exc
        if not isinstance(answer, ToolMessage):
            raise McpCallFailed(f"{tool} gave no tool message ({type(answer).__name__})")
        return answer

    async def _check_alive(self, link: _Link, what: str) -> None:
        """After a failed call: a server that no longer answers a ping is withdrawn (its process is ended)."""
        session = link.session
        try:
            if session is None:
                raise ConnectionError("no session")
            await asyncio.wait_for(session.send_ping(), PING_TIMEOUT_S)
        except Exception as exc:
            link.failure = f"no longer answers ({what}; ping: {_describe(exc)}){link.last_words()}"
            log.info("MCP server %s withdrawn: %s", link.spec.name, link.failure)
            await self._end(link)

    async def _stop_all(self) -> None:
        await asyncio.gather(*(self._end(link) for link in self._links.values()))

    async def _end(self, link: _Link) -> None:
        if link.stop is not None:
            link.stop.set()
        task = link.task
        if task is None or task.done() or task is asyncio.current_task():
            return
        if link.session is None:  # still starting (or hung in its handshake): nothing to close gracefully
            task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), CLOSE_TIMEOUT_S)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, CLOSE_TIMEOUT_S)
        except BaseException as exc:  # the task recorded it already
            log.debug("MCP server %s ended: %s", link.spec.name, exc)


def _remote(link: _Link, what: str, *, temporary: bool = True) -> ServiceUnavailable:
    """A remote MCP server that is away, too slow or refusing paor's credentials: an outage (core/outages.py)."""
    name = link.spec.name
    service = f"the MCP server {name} at {host_of(link.spec.endpoint)}"
    hint = "try again once it answers" if temporary else "check the headers its entry sends"
    return ServiceUnavailable(service, what, hint, kind=f"the MCP server {name}", temporary=temporary)


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside the task groups of the transports."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _refused(exc: BaseException) -> bool:
    """The server refused the call before its tool ran (unknown tool, invalid params), or was not reached."""
    exc = _innermost(exc)
    if isinstance(exc, McpError):
        return exc.error.code in (INVALID_PARAMS, METHOD_NOT_FOUND)
    return isinstance(exc, ConnectionRefusedError | httpx.ConnectError)


def _describe(exc: BaseException) -> str:
    """One line for an exception, unwrapping the task groups of the transports."""
    exc = _innermost(exc)
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text
