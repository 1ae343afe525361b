"""Chat model access: build `ChatOpenAI` from Context, and get validated JSON out of any endpoint.

Local OpenAI-compatible servers differ in what structured output they accept (llama.cpp answers HTTP 500 to
`response_format: json_schema`), so `ask_json` walks json_schema → function calling → JSON mode → plain text with
JSON repair, remembers per endpoint the first method that was accepted, and always validates with the caller's
parser. A rejected answer is retried once with the reason, then the step fails with a typed error; so does an
HTTP error or timeout that outlasted the client's own retries. Connection and key errors are raised as they are:
they are configuration problems that no further step can fix.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, TypeVar

import json_repair
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ValidationError

from graph.context import Context
from graph.errors import ConfigurationError, ModelOutputInvalid, StepFailed

log = logging.getLogger(__name__)

T = TypeVar("T")
Method = Literal["json_schema", "function_calling", "json_mode", "text"]
METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "text")
# Status codes with which endpoints say "I do not support this request shape" (not "try again later").
_UNSUPPORTED_STATUS = frozenset({400, 404, 405, 415, 422, 500, 501})
# A protocol answer is a few hundred characters; anything this long is a runaway generation, not JSON to repair.
MAX_ANSWER_CHARS = 100_000


@dataclass
class Models:
    """Hands out the chat model for a run: the injected one, or a cached `ChatOpenAI` per configuration."""

    injected: BaseChatModel | None = None
    _cache: dict[tuple[Any, ...], BaseChatModel] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def for_context(self, context: Context) -> BaseChatModel:
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
    )


_accepted_method: dict[tuple[str, str, str], Method] = {}
# Refusals per (endpoint, method). A method is skipped only after refusing twice in a row, so one transient
# HTTP 500 does not move an endpoint off json_schema for good, while llama.cpp's steady 500 costs two requests.
_strikes: dict[tuple[tuple[str, str, str], Method], int] = {}
STRIKES_TO_SKIP = 2


def _endpoint_key(llm: BaseChatModel) -> tuple[str, str, str]:
    return (
        type(llm).__name__,
        str(getattr(llm, "model_name", "") or getattr(llm, "model", "")),
        str(getattr(llm, "openai_api_base", "") or ""),
    )


@cache
def _schema_text(schema: type[BaseModel]) -> str:
    """pydantic rebuilds model_json_schema() on every call (about 1 ms each); protocol classes never change."""
    return json.dumps(schema.model_json_schema(), separators=(",", ":"))


def schema_instruction(schema: type[BaseModel]) -> str:
    """The sentence (plus schema) that JSON-mode and plain-text fallbacks rely on."""
    return f"Answer with one JSON object of schema `{schema.__name__}` and nothing else:\n{_schema_text(schema)}"


def ask_json(
    llm: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: type[BaseModel],
    parse: Callable[[dict[str, Any]], T],
    *,
    what: str,
) -> T:
    """Ask for JSON shaped like `schema`, validated by `parse`; one retry with the reason, then `StepFailed`."""
    conversation = list(messages)
    reason = ""
    for attempt in (1, 2):
        raw_text, payload = _request(llm, conversation, schema)
        try:
            if len(raw_text) > MAX_ANSWER_CHARS:
                raise ModelOutputInvalid(f"the answer has {len(raw_text)} characters; answer with the JSON object only")
            if payload is None:
                raise ModelOutputInvalid(f"the answer is not a JSON object: {raw_text[:200]!r}")
            return parse(payload)
        except (ValidationError, ModelOutputInvalid) as exc:
            reason = explain(exc)
            log.info("%s answer rejected (attempt %d): %s", what, attempt, reason)
            conversation += [
                AIMessage(content=raw_text[:4000] or "(empty answer)"),
                HumanMessage(
                    content=f"Your answer was rejected: {reason}\n"
                    f"Answer again with one corrected JSON object of schema `{schema.__name__}`."
                ),
            ]
    raise StepFailed(f"{what} failed twice; last reason: {reason}")


def explain(exc: Exception) -> str:
    """One line a model (or user) can act on, from a pydantic error or one of ours."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(str(p) for p in err["loc"]) or "answer"
            parts.append(f"{where}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)


def _request(
    llm: BaseChatModel, messages: list[BaseMessage], schema: type[BaseModel]
) -> tuple[str, dict[str, Any] | None]:
    key = _endpoint_key(llm)
    candidates = [m for m in METHODS if _strikes.get((key, m), 0) < STRIKES_TO_SKIP] or ["text"]
    last_error: Exception | None = None
    for method in candidates:
        try:
            message = _invoke(llm, messages, schema, method)
        except NotImplementedError as exc:
            last_error = exc
            continue
        except (openai.AuthenticationError, openai.PermissionDeniedError):
            raise  # a wrong key is configuration, not a flaky step
        except openai.APITimeoutError as exc:
            raise StepFailed(f"the model call timed out after the client's retries: {exc}") from exc
        except (AttributeError, TypeError, KeyError, ValueError, openai.APIResponseValidationError) as exc:
            # An HTTP 200 whose body is empty, truncated or not a chat completion: a broken answer, not a crash.
            raise StepFailed(f"the model endpoint sent a malformed response ({type(exc).__name__}: {exc})") from exc
        except openai.APIStatusError as exc:
            if exc.status_code not in _UNSUPPORTED_STATUS or method == "text":
                raise StepFailed(
                    f"the model endpoint answered HTTP {exc.status_code} after the client's retries"
                ) from exc
            log.info("endpoint refused %s structured output (HTTP %s); falling back", method, exc.status_code)
            _strikes[(key, method)] = _strikes.get((key, method), 0) + 1
            last_error = exc
            continue
        _strikes[(key, method)] = 0
        _accepted_method[key] = method
        return _payload(message)
    raise ModelOutputInvalid(f"no structured-output method worked for this endpoint: {last_error}")


def _invoke(llm: BaseChatModel, messages: list[BaseMessage], schema: type[BaseModel], method: Method) -> AIMessage:
    if method in ("json_mode", "text"):
        messages = [SystemMessage(content=schema_instruction(schema)), *messages]
    if method == "text":
        reply = llm.invoke(messages)
    else:
        # A dict schema, not the pydantic class: with the class, the client validates the answer itself and a
        # ValidationError would escape before our parser could explain it to the model and retry.
        structured = llm.with_structured_output(json.loads(_schema_text(schema)), method=method, include_raw=True)
        reply = structured.invoke(messages)["raw"]  # type: ignore[index]
    if not isinstance(reply, AIMessage):
        raise ModelOutputInvalid(f"unexpected reply type {type(reply).__name__}")
    return reply


def _payload(message: AIMessage) -> tuple[str, dict[str, Any] | None]:
    """The JSON object in a reply: tool-call arguments first, else the (repaired) text content."""
    if message.tool_calls:
        args = message.tool_calls[0]["args"]
        return json.dumps(args), args
    for bad in message.invalid_tool_calls:
        text = bad.get("args") or ""
        return text, _as_object(text)
    text = message.text if isinstance(message.text, str) else str(message.content)
    return text, _as_object(text)


def _as_object(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:
            value = json_repair.loads(text)
        except (RecursionError, ValueError):
            return None
    except RecursionError:  # absurdly deep nesting: not a protocol answer
        return None
    return value if isinstance(value, dict) and value else None
