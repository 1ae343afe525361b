"""Chat model access: build `ChatOpenAI` from Context, and get validated JSON out of any endpoint.

Each protocol answer is constrained by the endpoint itself wherever it can be: OpenAI's `json_schema` with
`strict: true`, llama.cpp's `json_object` + `schema` (enforced by a grammar), vLLM's `guided_json`; function
calling, JSON mode and plain text with repair are only fallbacks. What an endpoint accepted and refused is kept in
the LangGraph store (`core.capabilities`), so a method refused in so many words costs one request per endpoint,
not one per stage or run; a method not yet known to work is tried without client retries. Every call carries a
`max_tokens` sized to its answer, so a runaway generation ends early and is retried, not waited out.

Whatever the path, the caller's parser validates the answer; a rejected answer is retried once with the reason,
then the step fails with a typed error. An endpoint that is away, times out, stays busy (429, 502–504, or a 5xx to
plain text) after the client's own retries, or refuses the key is an outage, `ModelUnavailable` (core/outages.py):
a fault of the world, never a failed answer. A probe that meets a busy endpoint is sent again with the client's
retries before anything is concluded, so one 503 on a new endpoint's first request is absorbed like any other.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import json_repair
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    SystemMessage,
    message_chunk_to_message,
)
from langchain_openai import ChatOpenAI
from langgraph.config import get_store
from langgraph.constants import TAG_NOSTREAM
from langgraph.store.base import BaseStore
from pydantic import BaseModel, ValidationError

from core.answer_shapes import AnswerShape, shape_of
from core.capabilities import METHODS, Capabilities, Method, endpoint_key, refusal_about, refusal_text
from core.context import Context
from core.errors import ConfigurationError, ModelOutputInvalid, StepFailed
from core.outages import BUSY_STATUSES, as_model_outage, fault, model_outage

log = logging.getLogger(__name__)

T = TypeVar("T")
# Status codes with which endpoints say "I do not support this request shape" (not "try again later").
_UNSUPPORTED_STATUS = frozenset({400, 404, 405, 415, 422, 500, 501})
# A protocol answer is a few hundred characters; anything this long is a runaway generation, not JSON to repair.
MAX_ANSWER_CHARS = 100_000


#: Set when a run first asks for its model: from then on that run waits on the network, so loading what a later
#: node may need (graph/warmup.py) no longer competes with the run's way to its first request.
MODEL_ASKED = threading.Event()


@dataclass
class Models:
    """Hands out the chat model for a run: the injected one, or a cached `ChatOpenAI` per configuration."""

    injected: BaseChatModel | None = None
    _cache: dict[tuple[Any, ...], BaseChatModel] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def for_context(self, context: Context) -> BaseChatModel:
        """The model a node calls next (which tells a warm-up the run's first request is on its way)."""
        if not MODEL_ASKED.is_set():
            MODEL_ASKED.set()
        return self.prepared(context)

    def prepared(self, context: Context) -> BaseChatModel:
        """The model for `context`, built (and cached) if need be, without counting as a run's request."""
        if self.injected is not None:
            return self.injected
        key = (
            context.model,
            context.base_url,
            context.temperature,
            context.max_retries,
            context.request_timeout_s,
        )
        with self._lock:
            if key not in self._cache:
                self._cache[key] = chat_openai(context)
            return self._cache[key]


def chat_openai(context: Context) -> ChatOpenAI:
    """`ChatOpenAI` for the configured endpoint; the key comes from the environment only."""
    api_key = os.environ.get("OPENAI_API_KEY", "")
    if not api_key:
        if not context.base_url:
            raise ConfigurationError(
                "OPENAI_API_KEY is not set: export it, or point OPENAI_BASE_URL at a local OpenAI-compatible server"
            )
        api_key = "sk-no-key-required"  # local servers (llama.cpp, vLLM, Ollama) accept any key
    return ChatOpenAI(
        model=context.model,
        base_url=context.base_url or None,
        api_key=api_key,
        temperature=context.temperature,
        max_retries=context.max_retries,
        timeout=context.request_timeout_s,
        stream_usage=True,
        # Its answers are protocol JSON and drafts, not chat text: a chat streaming `messages` sees the steps and
        # the final answer (nodes/chat.py), never these.
        tags=[TAG_NOSTREAM],
    )


def streamed(llm: BaseChatModel) -> BaseChatModel:
    """The same model with its tokens visible to a `messages` stream: for the one call that writes a deliverable,
    so a chat shows the answer as it is written (protocol JSON stays out of the stream)."""
    tags = list(llm.tags or [])
    if TAG_NOSTREAM not in tags:
        return llm
    return llm.model_copy(update={"tags": [t for t in tags if t != TAG_NOSTREAM]})


#: id(model) -> (model, its copy without client retries). The model itself is kept so that its id cannot be reused
#: by a later model while the entry exists; the table is bounded (Models caches one model per configuration).
_no_retry_models: dict[int, tuple[BaseChatModel, BaseChatModel]] = {}
_NO_RETRY_LIMIT = 256


def without_client_retries(llm: BaseChatModel) -> BaseChatModel:
    """The same model whose HTTP client does not retry: a capability probe must not pay three refusals."""
    if not isinstance(llm, ChatOpenAI) or llm.max_retries == 0 or llm.root_client is None:
        return llm
    cached = _no_retry_models.get(id(llm))
    if cached is not None and cached[0] is llm:
        return cached[1]
    root = llm.root_client.with_options(max_retries=0)
    copy = llm.model_copy(update={"max_retries": 0, "root_client": root, "client": root.chat.completions})
    if len(_no_retry_models) >= _NO_RETRY_LIMIT:
        _no_retry_models.clear()
    _no_retry_models[id(llm)] = (llm, copy)
    return copy


def schema_instruction(shape: AnswerShape, *, with_schema: bool = True) -> str:
    """The sentence (plus, where nothing enforces it, the schema) that unconstrained fallbacks rely on."""
    sentence = f"Answer with one JSON object of schema `{shape.name}` and nothing else"
    return f"{sentence}:\n{shape.schema_text}" if with_schema else f"{sentence}."


def _instructed(instruction: str, messages: list[BaseMessage]) -> list[BaseMessage]:
    """`instruction` at the head of the first system message, never as a second one: chat templates that take only
    the first message as the system prompt (Gemma 3's, on llama.cpp) dropped the prompt's own, with every rule in it."""
    if messages and isinstance(messages[0], SystemMessage):
        return [SystemMessage(content=f"{instruction}\n\n{messages[0].text}"), *messages[1:]]
    return [SystemMessage(content=instruction), *messages]


def ask_json(
    llm: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: type[BaseModel] | AnswerShape,
    parse: Callable[[dict[str, Any]], T],
    *,
    what: str,
    store: BaseStore | None = None,
) -> T:
    """Ask for JSON shaped like `schema`, validated by `parse`; one retry with the reason, then `StepFailed`.

    `store` keeps what the endpoint accepts (default: the running graph's LangGraph store, if any)."""
    shape = schema if isinstance(schema, AnswerShape) else shape_of(schema)
    store = store if store is not None else _running_store()
    conversation = list(messages)
    reason = ""
    for attempt in (1, 2):
        raw_text, payload, cut = _request(llm, conversation, shape, store)
        try:
            if cut:
                raise ModelOutputInvalid(
                    f"the answer was cut off at {shape.max_tokens} tokens; answer with a shorter JSON object"
                )
            if len(raw_text) > MAX_ANSWER_CHARS:
                raise ModelOutputInvalid(f"the answer has {len(raw_text)} characters; answer with the JSON object only")
            if payload is None:
                raise ModelOutputInvalid(f"the answer is not a JSON object: {raw_text[:200]!r}")
            answer = parse(without_nulls(payload))
        except (ValidationError, ModelOutputInvalid) as exc:
            reason = explain(exc)
            log.info("%s answer rejected (attempt %d): %s", what, attempt, reason, extra={"protocol": (what, False)})
            conversation += [
                AIMessage(content=raw_text[:4000] or "(empty answer)"),
                HumanMessage(
                    content=f"Your answer was rejected: {reason}\n"
                    f"Answer again with one corrected JSON object of schema `{shape.name}`."
                ),
            ]
        else:
            log.debug("%s answer accepted (attempt %d)", what, attempt, extra={"protocol": (what, True)})
            return answer
    raise StepFailed(f"{what} failed twice; last reason: {reason}")


def _running_store() -> BaseStore | None:
    try:
        return get_store()
    except RuntimeError:  # called outside a graph run
        return None


def explain(exc: Exception) -> str:
    """One line a model (or user) can act on, from a pydantic error or one of ours."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(str(p) for p in err["loc"]) or "answer"
            parts.append(f"{where}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)


def without_nulls(value: Any) -> Any:
    """Drop null members: strict schemas make every optional field required-but-nullable, and a null there means
    "not given" — the protocol models then apply their own defaults."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def _request(
    llm: BaseChatModel, messages: list[BaseMessage], shape: AnswerShape, store: BaseStore | None
) -> tuple[str, dict[str, Any] | None, bool]:
    """The answer's text, its JSON object (None if there is none) and whether it was cut at max_tokens."""
    memory = Capabilities(store)
    key = endpoint_key(llm)
    last_error: Exception | None = None
    unexplained: list[tuple[Method, int]] = []  # refusals that named nothing: counted once another method answers
    for method in memory.candidates(key, _supported_methods(llm)):
        probe = method != "text" and memory.accepted(key) != method  # plain text is no capability: retry it
        try:
            try:
                message = _invoke(without_client_retries(llm) if probe else llm, messages, shape, method)
            except openai.APIError as exc:
                if not (probe and _busy(exc)):
                    raise
                message = _invoke(llm, messages, shape, method)  # busy, not refusing: the client's retries decide
        except NotImplementedError as exc:
            last_error = exc
            continue
        except (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise as_model_outage(exc, llm) from exc  # away, timed out (a subclass), or the key refused: not an answer
        except openai.LengthFinishReasonError:  # the client's parse() refuses an answer cut at max_tokens
            memory.accept(key, method)
            return "", None, True
        except (AttributeError, TypeError, KeyError, ValueError, openai.APIResponseValidationError) as exc:
            # An HTTP 200 whose body is empty, truncated or not a chat completion: a broken answer, not a crash.
            raise StepFailed(f"the model endpoint sent a malformed response ({type(exc).__name__}: {exc})") from exc
        except openai.APIStatusError as exc:
            if exc.status_code in BUSY_STATUSES or (exc.status_code >= 500 and method == "text"):
                raise as_model_outage(exc, llm) from exc
            if exc.status_code not in _UNSUPPORTED_STATUS or method == "text":
                raise StepFailed(
                    f"the model endpoint answered HTTP {exc.status_code} after the client's retries"
                ) from exc
            about = refusal_about(method, exc)
            if about is False:  # the request itself (its length): no other shape of it would pass
                said = refusal_text(exc)[:500]
                raise StepFailed(f"the model endpoint refused the request (HTTP {exc.status_code}): {said}") from exc
            log.info(
                "endpoint refused %s structured output (HTTP %s); falling back",
                method,
                exc.status_code,
                extra={"refused": method},
            )
            if about:
                memory.refuse(key, method, exc.status_code, named=True)
            else:
                unexplained.append((method, exc.status_code))
            last_error = exc
            continue
        for refused, status in unexplained:  # another shape of the same messages passed: it was the shape
            memory.refuse(key, refused, status)
        memory.accept(key, method)
        text, payload = _payload(message)
        return text, payload, message.response_metadata.get("finish_reason") == "length"
    raise ModelOutputInvalid(f"no structured-output method worked for this endpoint: {last_error}")


def _busy(exc: openai.APIError) -> bool:
    """Whether `exc` says "not now" (timed out, dropped, overloaded) rather than "not this request shape"; an
    endpoint that refused the connection or whose name does not resolve is away, and asking again cannot help."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in BUSY_STATUSES
    found = fault(exc) if isinstance(exc, openai.APIConnectionError) else None
    return found is not None and not found.away


#: Set by the step that runs a tool when it gives up on it (nodes/act.py, `tool_timeout_s`): an answer the tool is
#: still receiving stops at its next token, and its connection closes. Python cannot stop the tool's thread, but
#: the endpoint can stop writing an answer nobody will read: llama.cpp's server stops a streamed request when its
#: client goes away, and a one-slot server would otherwise keep the run's next request waiting behind it.
ABANDONED: ContextVar[threading.Event | None] = ContextVar("paor_abandoned", default=None)
_GAVE_UP = "the answer was abandoned: its step gave up on it (tool_timeout_s)"


def call_model(llm: BaseChatModel, messages: Any, **kwargs: Any) -> BaseMessage:
    """`llm.invoke`, with an endpoint that is away, too slow or refusing the key raised as `ModelUnavailable`: for
    the calls that write answers (tools/ai_process.py), which no structured-output fallback guards. Under a step
    that can give up on it (`ABANDONED`), an OpenAI-compatible answer is streamed, so that giving up stops it."""
    try:
        abandoned = ABANDONED.get()
        if abandoned is None or not isinstance(llm, ChatOpenAI):
            return llm.invoke(messages, **kwargs)
        if abandoned.is_set():  # a tool with more to ask (the parts of a long text) asks nothing more
            raise StepFailed(_GAVE_UP)
        return _until_abandoned(llm.stream(messages, **kwargs), abandoned)
    except Exception as exc:
        if (outage := model_outage(exc, llm)) is not None:
            raise outage from exc
        raise


def _until_abandoned(chunks: Iterator[BaseMessageChunk], abandoned: threading.Event) -> BaseMessage:
    """The streamed answer as one message; closing the stream as soon as `abandoned` is set ends its request."""
    received: list[BaseMessageChunk] = []
    try:
        for chunk in chunks:
            if abandoned.is_set():
                raise StepFailed(_GAVE_UP)
            received.append(chunk)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    first, *rest = received  # LangChain raises on a stream without a chunk ("No generation chunks were returned")
    return message_chunk_to_message(first + rest if rest else first)  # merged at once: pairwise is quadratic


def _supported_methods(llm: BaseChatModel) -> tuple[Method, ...]:
    """OpenAI-compatible clients can send every request shape; any other LangChain model only its own."""
    if isinstance(llm, ChatOpenAI):
        return METHODS
    return ("generic_json_schema", "function_calling", "json_mode", "text")


def length_limit(llm: BaseChatModel, tokens: int, **extra_body: Any) -> dict[str, Any]:
    """Invoke arguments that bound the answer to `tokens`. LangChain sends `max_completion_tokens` (OpenAI's name);
    servers that only read `max_tokens` (llama-cpp-python's) also get that, in the request body, so that a local
    model cannot generate until its timeout. OpenAI itself gets only its own name."""
    base_url = str(getattr(llm, "openai_api_base", "") or "")
    if isinstance(llm, ChatOpenAI) and base_url and "api.openai.com" not in base_url:
        extra_body = {"max_tokens": tokens, **extra_body}
    return {"max_tokens": tokens, **({"extra_body": extra_body} if extra_body else {})}


def _whole(llm: BaseChatModel) -> dict[str, Any]:
    """Invoke arguments that ask for a protocol answer in one piece, even while a client listens to a `messages`
    stream (which would otherwise stream every call): nobody sees its tokens (it is tagged out of the stream), and
    OpenAI's client streams a `response_format` answer through its beta API, 700 modules a server loaded at start."""
    return {"stream": False} if isinstance(llm, ChatOpenAI) else {}


def _invoke(llm: BaseChatModel, messages: list[BaseMessage], shape: AnswerShape, method: Method) -> AIMessage:
    limit = {**length_limit(llm, shape.max_tokens), **_whole(llm)}
    if method == "json_schema":
        strict = {"name": shape.name, "schema": shape.strict_schema, "strict": True}
        reply = llm.invoke(messages, response_format={"type": "json_schema", "json_schema": strict}, **limit)
    elif method == "json_object_schema":  # llama.cpp: a grammar built from the schema constrains every token
        prompt = _instructed(schema_instruction(shape, with_schema=False), messages)
        reply = llm.invoke(prompt, response_format={"type": "json_object", "schema": shape.schema}, **limit)
    elif method == "guided_json":  # vLLM / SGLang
        prompt = _instructed(schema_instruction(shape, with_schema=False), messages)
        reply = llm.invoke(prompt, **length_limit(llm, shape.max_tokens, guided_json=shape.schema), **_whole(llm))
    elif method == "function_calling":
        reply = llm.bind_tools([shape.as_tool()], tool_choice=shape.name).invoke(messages, **limit)
    elif method == "generic_json_schema":  # a non-OpenAI LangChain model: its own structured-output support
        structured = llm.with_structured_output(shape.as_tool(), method="json_schema", include_raw=True)
        reply = structured.invoke(messages)["raw"]  # type: ignore[index]
    elif method == "json_mode":
        reply = llm.invoke(
            _instructed(schema_instruction(shape), messages), response_format={"type": "json_object"}, **limit
        )
    else:
        reply = llm.invoke(_instructed(schema_instruction(shape), messages), **limit)
    if not isinstance(reply, AIMessage):
        raise ModelOutputInvalid(f"unexpected reply type {type(reply).__name__}")
    return reply


def _text_of(message: AIMessage) -> str:
    return str(message.text)  # the text blocks of any content shape, as one plain string


def _payload(message: AIMessage) -> tuple[str, dict[str, Any] | None]:
    """The JSON object in a reply: tool-call arguments first, else the (repaired) text content."""
    if message.tool_calls:
        args = message.tool_calls[0]["args"]
        return json.dumps(args), args
    for bad in message.invalid_tool_calls:
        text = bad.get("args") or ""
        return text, _as_object(text)
    text = _text_of(message)
    return text, _as_object(text)


def _as_object(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    try:
        value = json.loads(text, strict=False)  # a raw newline in a string (llama.cpp's grammar allows it) is clear
    except json.JSONDecodeError:
        try:
            value = json_repair.loads(text)
        except (RecursionError, ValueError):
            return None
    except RecursionError:  # absurdly deep nesting: not a protocol answer
        return None
    return value if isinstance(value, dict) and value else None
