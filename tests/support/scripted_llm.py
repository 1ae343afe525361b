"""A scripted, deterministic OpenAI-compatible chat-completions server for tests.

Why a real HTTP server instead of a fake ``BaseChatModel``: the agent's behaviour depends on how the *real*
``langchain_openai.ChatOpenAI`` client builds requests (``response_format``, forced ``tool_choice``,
``stream_options``) and parses answers (tool calls, SSE chunks, usage, HTTP errors and retries). Serving
canned answers over loopback exercises all of that code, while the test still decides every answer.

Responses are keyed by a *route* derived from the request (see :func:`route_for`), so a test scripts
"what the model says when asked for a ``Verdict``" without caring about prompt wording. Only the standard
library is used on the server side.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeAlias

from langchain_openai import ChatOpenAI

__all__ = ["HTTPError", "Latency", "RecordedRequest", "Response", "ScriptedLLM", "route_for"]

#: Fixed ``created`` timestamp so answers are byte-for-byte reproducible.
CREATED = 1_700_000_000
MODEL_ID = "scripted"
_SCHEMA_SENTENCE = re.compile(r"JSON object of schema `(\w+)`")


@dataclass
class HTTPError:
    """An HTTP error answer, e.g. ``HTTPError(429, headers={"Retry-After": "0.01"})``.

    Lets tests drive the client's error handling and retry paths with exact status codes and headers.
    """

    status: int
    body: str = "error"
    headers: dict[str, str] = field(default_factory=dict)


def _content_text(content: Any) -> str:
    """Flatten OpenAI message content (a string or a list of typed parts) to plain text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return ""


@dataclass(frozen=True)
class Latency:
    """How long a real endpoint would take to answer: a per-request base, plus prompt tokens at `prompt_tps` and
    output tokens at `output_tps` (output tokens dominate a short prompt's latency). The server records each
    request's modelled seconds and sleeps `time_scale` times that (0: only recorded), noting when it slept, so a
    benchmark can see which requests overlapped (bench.walltime)."""

    base_s: float = 0.4
    prompt_tps: float = 5000.0
    output_tps: float = 60.0
    time_scale: float = 0.0
    count: Callable[[str], int] = field(default=lambda text: max(1, len(text) // 4))

    def seconds(self, prompt: str, output: str) -> float:
        return self.base_s + self.count(prompt) / self.prompt_tps + self.count(output) / self.output_tps


@dataclass
class RecordedRequest:
    """One chat-completions request as the server saw it, so tests can assert on what was sent."""

    route: str
    body: dict[str, Any]
    answer: str = ""  # the text answered (tool-call arguments for a forced function), "" for an error
    latency_s: float = 0.0  # modelled seconds of this request, with a `Latency`
    span: tuple[float, float] | None = None  # when it slept (perf_counter), with a `Latency.time_scale`

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's ``messages`` list (empty if absent)."""
        messages = self.body.get("messages")
        return messages if isinstance(messages, list) else []

    @property
    def schema_grammar(self) -> bool:
        """The request carries its schema as llama.cpp's grammar (`json_object` + `schema`)."""
        response_format = self.body.get("response_format")
        return (
            isinstance(response_format, dict)
            and response_format.get("type") == "json_object"
            and "schema" in response_format
        )

    @property
    def images(self) -> list[str]:
        """The ``image_url`` URLs of all messages (data URLs carry the image), in order."""
        return [
            str((part.get("image_url") or {}).get("url"))
            for m in self.messages
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for part in m["content"]
            if isinstance(part, dict) and part.get("type") == "image_url"
        ]

    @property
    def text(self) -> str:
        """All message contents joined with newlines: a cheap haystack for ``in`` assertions."""
        return "\n".join(
            text for m in self.messages if isinstance(m, dict) and (text := _content_text(m.get("content")))
        )

    @property
    def system(self) -> str:
        """Contents of the system (or ``developer``) messages, joined with newlines."""
        return "\n".join(
            _content_text(m.get("content"))
            for m in self.messages
            if isinstance(m, dict) and m.get("role") in ("system", "developer")
        )

    @property
    def last_user(self) -> str:
        """Content of the last user message, or ``""`` if there is none."""
        for m in reversed(self.messages):
            if isinstance(m, dict) and m.get("role") == "user":
                return _content_text(m.get("content"))
        return ""


Response: TypeAlias = str | dict[str, Any] | HTTPError | Callable[[RecordedRequest], "str | dict[str, Any] | HTTPError"]


def _forced_function(body: dict[str, Any]) -> str | None:
    """Name of the function the request forces the model to call, if any."""
    tools = body.get("tools")
    if not isinstance(tools, list) or not tools:
        return None
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name")
        return name if isinstance(name, str) else None
    if choice in ("required", "any") and len(tools) == 1:
        name = (tools[0].get("function") or {}).get("name") if isinstance(tools[0], dict) else None
        return name if isinstance(name, str) else None
    return None


def route_for(body: dict[str, Any]) -> tuple[str, bool]:
    """Compute ``(route, answer_with_tool_call)`` for a chat-completions request body.

    Order: ``json_schema`` name, then forced function name, then the agent's
    "JSON object of schema `X`" prompt sentence, else ``"text"``.
    """
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        name = (response_format.get("json_schema") or {}).get("name")
        if isinstance(name, str):
            return name, False
    function = _forced_function(body)
    if function is not None:
        return function, True
    match = _SCHEMA_SENTENCE.search(RecordedRequest(route="", body=body).text)
    if match:
        return match.group(1), False
    return "text", False


def _tokens(text: str) -> int:
    """Deterministic fake token count: roughly four characters per token, never zero."""
    return max(1, len(text) // 4)


class ScriptedLLM:
    """Loopback OpenAI-compatible server answering from per-route FIFO queues.

    Each route's queue pops its head, except that the last response is never popped ("sticky last"), so a
    single scripted answer serves any number of calls. A route with nothing scripted answers HTTP 500 with
    a message naming the route and the configured routes, so a failing test explains itself.
    """

    def __init__(
        self,
        *,
        reject_response_formats: Iterable[str] = (),
        reject_body_keys: Iterable[str] = (),
        obey_max_tokens: bool = True,
        accept_images: bool = False,
        latency: Latency | None = None,
        stream_delay_s: float = 0.0,
        port: int = 0,
    ) -> None:
        """``reject_response_formats``: ``response_format.type`` values answered with HTTP 500 (simulates servers
        such as llama.cpp that do not support ``json_schema``); ``reject_body_keys``: request keys answered with
        HTTP 400 (``tools`` for a server without function calling, ``guided_json`` for one without guided
        decoding). Like a real server, an answer longer than the request's ``max_tokens`` is cut there, with
        ``finish_reason: length`` (``obey_max_tokens=False``: a server that ignores the limit). A request with an
        ``image_url`` part is answered HTTP 400, as a text-only model's server does, unless ``accept_images``.
        ``latency``: the model of a real endpoint's answer time, see `Latency`. ``stream_delay_s``: a pause before
        each streamed frame, so that a chat page renders the tokens one by one (the browser test watches them
        arrive)."""
        self.stream_delay_s = stream_delay_s
        self.port = port  # 0: any free port; a given one: an endpoint that comes back where it was
        self.obey_max_tokens = obey_max_tokens
        self.accept_images = accept_images
        self.latency = latency
        self.reject_response_formats: frozenset[str] = frozenset(reject_response_formats)
        self.reject_body_keys: frozenset[str] = frozenset(reject_body_keys)
        self.requests: list[RecordedRequest] = []
        #: Each streamed answer's frames as (sent, written): fewer sent where the client went away before the end.
        self.streams: list[tuple[int, int]] = []
        #: Set once a streamed answer's first frame has gone out: a test that cuts an answer short waits for it.
        self.streaming = threading.Event()
        #: Answers every request before any route does when it returns an error (an endpoint that is down, busy
        #: one time in three, refusing the key); None lets the request through to its route.
        self.fault: Callable[[RecordedRequest], HTTPError | None] | None = None
        self._queues: dict[str, list[Response]] = {}
        self._lock = threading.Lock()
        self._call_ids = itertools.count(1)
        self._completion_ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> ScriptedLLM:
        """Bind a free loopback port and serve from a daemon thread."""
        if self._server is not None:
            return self
        server = _QuietServer(("127.0.0.1", self.port), _make_handler(self))
        self._server = server
        # A short poll interval keeps stop() (which waits for the serve loop to notice) fast.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop kept-alive connections so no handler thread lingers."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with self._lock:
            connections, self._connections = self._connections, set()
        for conn in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``; only valid once started."""
        if self._server is None:
            raise RuntimeError("ScriptedLLM is not running; call start() or use it as a context manager")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # -- scripting ---------------------------------------------------------------------------------------

    def on(self, route: str, *responses: Response) -> ScriptedLLM:
        """Append ``responses`` to ``route``'s queue; returns ``self`` for chaining."""
        with self._lock:
            self._queues.setdefault(route, []).extend(responses)
        return self

    def replace(self, route: str, *responses: Response) -> ScriptedLLM:
        """Replace ``route``'s queue with ``responses`` (a long-lived server's next answers)."""
        with self._lock:
            self._queues[route] = list(responses)
        return self

    def requests_for(self, route: str) -> list[RecordedRequest]:
        """Requests that were routed to ``route``, in arrival order."""
        with self._lock:
            return [r for r in self.requests if r.route == route]

    def model(self, **kwargs: Any) -> ChatOpenAI:
        """A real ``ChatOpenAI`` pointed at this server; ``kwargs`` override the test-friendly defaults."""
        options: dict[str, Any] = {
            "model": MODEL_ID,
            "base_url": self.base_url,
            "api_key": "sk-test",
            "max_retries": 0,
            "timeout": 10,
            "stream_usage": True,
        }
        options.update(kwargs)
        return ChatOpenAI(**options)

    # -- request handling (called from server threads) ---------------------------------------------------

    def _next_response(self, route: str) -> Response | None:
        with self._lock:
            queue = self._queues.get(route)
            if not queue:
                return None
            return queue.pop(0) if len(queue) > 1 else queue[0]

    def _configured_routes(self) -> list[str]:
        with self._lock:
            return sorted(route for route, queue in self._queues.items() if queue)

    def _resolve(self, response: Response, request: RecordedRequest) -> str | HTTPError:
        """Turn a scripted response into answer text or an error, calling callables with the request."""
        for _ in range(100):  # a callable may return another callable; bound the chain
            if isinstance(response, HTTPError | str):
                return response
            if isinstance(response, dict):
                return json.dumps(response)
            if callable(response):
                try:
                    response = response(request)
                except Exception as exc:  # surface the bug in the test's callable as an HTTP 500
                    return _json_error(
                        500,
                        f"ScriptedLLM: response callable for route {request.route!r} "
                        f"raised {type(exc).__name__}: {exc}",
                    )
                continue
            return _json_error(500, f"ScriptedLLM: unsupported response type {type(response).__name__}")
        return _json_error(500, "ScriptedLLM: response callable chain too deep")

    def _answer(self, body: dict[str, Any]) -> tuple[str, bool, RecordedRequest, str | HTTPError]:
        """Route, record and resolve one request; returns ``(route, as_tool_call, request, answer)``."""
        route, as_tool_call = route_for(body)
        request = RecordedRequest(route=route, body=body)
        with self._lock:
            self.requests.append(request)
        if self.fault is not None and (failed := self.fault(request)) is not None:
            return route, as_tool_call, request, failed
        response_format = body.get("response_format")
        format_type = response_format.get("type") if isinstance(response_format, dict) else None
        if format_type in self.reject_response_formats:
            return route, as_tool_call, request, _json_error(500, "response_format not supported")
        rejected = sorted(self.reject_body_keys & body.keys())
        if rejected:
            return route, as_tool_call, request, _json_error(400, f"unsupported request field {rejected[0]!r}")
        if request.images and not self.accept_images:
            return route, as_tool_call, request, _json_error(400, "this model does not support image input")
        response = self._next_response(route)
        if response is None:
            message = (
                f"ScriptedLLM: no response scripted for route {route!r}; configured routes: {self._configured_routes()}"
            )
            return route, as_tool_call, request, _json_error(500, message)
        return route, as_tool_call, request, self._resolve(response, request)

    def _completion(self, body: dict[str, Any]) -> tuple[int, dict[str, str], list[bytes] | bytes]:
        """Build the HTTP answer: ``(status, headers, body)``; a list body means SSE chunks."""
        route, as_tool_call, request, answer = self._answer(body)
        if isinstance(answer, HTTPError):
            headers = {"Content-Type": _guess_content_type(answer.body), **answer.headers}
            return answer.status, headers, answer.body.encode()

        completion_id = f"chatcmpl-scripted-{next(self._completion_ids)}"
        model = str(body.get("model") or MODEL_ID)
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        cut = self.obey_max_tokens and isinstance(limit, int) and _tokens(answer) > limit
        if cut:
            answer = answer[: 4 * int(limit)]
        request.answer = answer
        if self.latency is not None:
            request.latency_s = self.latency.seconds(request.text, answer)
            if self.latency.time_scale > 0:
                slept = time.perf_counter()
                time.sleep(request.latency_s * self.latency.time_scale)
                request.span = (slept, time.perf_counter())
        usage = {"prompt_tokens": _tokens(request.text), "completion_tokens": _tokens(answer)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if as_tool_call:
            tool_call = {
                "id": f"call_{next(self._call_ids)}",
                "type": "function",
                "function": {"name": route, "arguments": answer},
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
            finish_reason = "length" if cut else "tool_calls"
        else:
            message = {"role": "assistant", "content": answer}
            finish_reason = "length" if cut else "stop"
        envelope = {"id": completion_id, "created": CREATED, "model": model, "system_fingerprint": None}

        if not body.get("stream"):
            payload = {
                **envelope,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
                "usage": usage,
            }
            return 200, {"Content-Type": "application/json"}, json.dumps(payload).encode()

        def chunk(choices: list[dict[str, Any]], **extra: Any) -> bytes:
            data = {**envelope, "object": "chat.completion.chunk", "choices": choices, **extra}
            return f"data: {json.dumps(data)}\n\n".encode()

        def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}

        if as_tool_call:
            deltas: list[dict[str, Any]] = [{"tool_calls": [{"index": 0, **message["tool_calls"][0]}]}]
        elif self.stream_delay_s or len(answer) <= _WORD_BY_WORD_CHARS:  # word by word, as a model's tokens come
            deltas = [{"content": piece} for piece in re.findall(r"\s*\S+\s*", answer) or [answer]]
        else:  # a long answer served at once: in pieces, as a client reading a fast server's buffer sees it
            pieces = range(0, len(answer), _WORD_BY_WORD_CHARS)
            deltas = [{"content": answer[at : at + _WORD_BY_WORD_CHARS]} for at in pieces]
        events = [
            chunk([choice({"role": "assistant", "content": ""})]),
            *(chunk([choice(delta)]) for delta in deltas),
            chunk([choice({}, finish_reason)]),
        ]
        stream_options = body.get("stream_options")
        if isinstance(stream_options, dict) and stream_options.get("include_usage"):
            events.append(chunk([], usage=usage))
        events.append(b"data: [DONE]\n\n")
        return 200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}, events


#: Longer answers stream in pieces of this many characters unless a delay is set: a client spends ~0.14 ms on each
#: frame (1,000 primes word by word: 0.15 s a run, five times the soak test's time; 5 MB: 100 s).
_WORD_BY_WORD_CHARS = 1_000


def _json_error(status: int, message: str) -> HTTPError:
    """An OpenAI-shaped JSON error, so the client's exception message carries ``message``."""
    body = {"error": {"message": message, "type": "scripted_llm_error", "param": None, "code": None}}
    return HTTPError(status=status, body=json.dumps(body))


def _guess_content_type(body: str) -> str:
    try:
        json.loads(body)
    except ValueError:
        return "text/plain; charset=utf-8"
    return "application/json"


class _QuietServer(ThreadingHTTPServer):
    """Threaded server that ignores client disconnects (resets, broken pipes) instead of printing them.

    Clients legitimately drop kept-alive connections, and ``stop()`` severs them on purpose; tracebacks for
    that would only bury real test output. Any other handler error is still reported.
    """

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def _make_handler(llm: ScriptedLLM) -> type[BaseHTTPRequestHandler]:
    """Bind a request-handler class to ``llm`` (``http.server`` instantiates handlers per connection)."""

    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.1 so the client's connection pool can keep connections alive; every answer is framed
        # with Content-Length, or chunked transfer encoding for SSE.
        protocol_version = "HTTP/1.1"
        # Headers and body are separate writes; without TCP_NODELAY each answer stalls ~40 ms on delayed ACK.
        disable_nagle_algorithm = True

        def setup(self) -> None:
            super().setup()
            with llm._lock:
                llm._connections.add(self.connection)

        def finish(self) -> None:
            with llm._lock:
                llm._connections.discard(self.connection)
            with contextlib.suppress(OSError):  # flushing to a client that already hung up
                super().finish()

        def log_message(self, format: str, *args: Any) -> None:
            """Silenced: request logs would only clutter test output."""

        def _path(self) -> str:
            path = self.path.split("?", 1)[0].rstrip("/")
            return path.removeprefix("/v1")

        def _read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while True:
                    size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            self._send(status, {"Content-Type": "application/json"}, json.dumps(payload).encode())

        def _send_stream(self, status: int, headers: dict[str, str], events: list[bytes]) -> None:
            frames = [b"%x\r\n%s\r\n" % (len(event), event) for event in events]
            # The terminating zero-size chunk goes out with [DONE]: clients stop reading at [DONE], and a
            # terminator arriving later would make them drop (reset) the connection instead of reusing it.
            frames[-1] += b"0\r\n\r\n"
            sent = 0
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for frame in frames:
                    if llm.stream_delay_s:
                        time.sleep(llm.stream_delay_s)
                    self.wfile.write(frame)
                    self.wfile.flush()
                    sent += 1
                    llm.streaming.set()
            except (OSError, ValueError):  # the client or stop() closed the socket: broken pipe, reset, closed file
                self.close_connection = True
            finally:  # recorded however the stream ended, so that a test waiting for it never waits in vain
                llm.streams.append((sent, len(frames)))

        def do_GET(self) -> None:
            if self._path() == "/models":
                self._send_json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]})
            else:
                self._send_json(404, {"error": {"message": f"ScriptedLLM: no such path {self.path}"}})

        def do_POST(self) -> None:
            raw = self._read_body()
            if self._path() != "/chat/completions":
                self._send_json(404, {"error": {"message": f"ScriptedLLM: no such path {self.path}"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError as exc:
                self._send_json(400, {"error": {"message": f"ScriptedLLM: request is not JSON: {exc}"}})
                return
            if not isinstance(body, dict):
                self._send_json(400, {"error": {"message": "ScriptedLLM: request body must be an object"}})
                return
            status, headers, payload = llm._completion(body)
            if isinstance(payload, list):
                self._send_stream(status, headers, payload)
            else:
                self._send(status, headers, payload)

    return Handler
