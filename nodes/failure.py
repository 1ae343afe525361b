"""A server round that the model endpoint stops: an AI message says what failed and what to do, then the run fails.

A remote client sees no log, and LangGraph's server shows a failed run's message only for ValueError and a few
other built-in types ("An internal error occurred" for the rest, such as the OpenAI client's connection error).
So on the server every node has `endpoint_failed` as its LangGraph error handler: an endpoint failure (unreachable,
timed out, key or model refused) writes the lean request and an AI message into the thread and routes to `fail`,
which fails the run with `ModelUnavailable`, whose one-line message the server passes through. Any other error is
raised again unchanged. Python and CLI runs have no handler: there the client's own error surfaces and the thread
resumes at the node that failed.
"""

from __future__ import annotations

import logging
import re
import uuid
from typing import Any

import httpx
import openai
from langchain_core.messages import AIMessage
from langgraph.errors import NodeError
from langgraph.types import Command

from graph.errors import ModelUnavailable
from graph.state import State
from nodes.chat import chat_request, closing_messages, human_message

log = logging.getLogger(__name__)

FAIL_NODE = "fail"
_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")


def endpoint_failure(exc: BaseException) -> str | None:
    """What a chat user should read about an endpoint failure; None for any other error.

    Never the endpoint's answer body (it may quote the key) and never its address (the operator's network)."""
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return "the model endpoint did not answer in time; send the message again later"
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return f"the model endpoint could not be reached ({_cause(exc)}); send the message again when it is back"
    if isinstance(exc, openai.AuthenticationError):
        return (
            f"the model endpoint rejected this server's API key (HTTP {exc.status_code}); "
            "the operator of this server must fix OPENAI_API_KEY"
        )
    if isinstance(exc, openai.PermissionDeniedError | openai.NotFoundError):
        return (
            f"the model endpoint refused the request (HTTP {exc.status_code}); "
            "the operator of this server must check the model (PAOR_MODEL) and its key"
        )
    return None


def _cause(exc: BaseException) -> str:
    """The innermost reason (the OpenAI client says only "Connection error."; httpx says which)."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    text = _ERRNO.sub("", str(exc).strip()) or type(exc).__name__
    return text.splitlines()[0][:120].rstrip(".")


def endpoint_failed(state: State, error: NodeError) -> Command[Any]:
    """The error handler of every node on the server (see the module docstring)."""
    reason = endpoint_failure(error.error)
    if reason is None:
        raise error.error
    log.warning("%s stopped on the model endpoint: %r", error.node, error.error)
    update: dict[str, Any] = {"failure": reason, "status": "incomplete", "stop_reason": reason, "answer": reason}

    def said(replaces: str | None) -> AIMessage:
        return AIMessage(content=f"I could not finish this request: {reason}.", id=replaces or str(uuid.uuid4()))

    if error.node != "intent":  # the round has its request; what it showed so far gives way to this message
        messages = closing_messages(state, said)
    else:  # intent did not take the request: keep it as the chat shows it (names, never bytes)
        chat = chat_request(state)
        asked = chat.lean() if chat is not None else human_message(str(state.get("prompt") or ""))
        update["request_message"] = asked.id
        messages = [asked, said(None)]
    return Command(update={**update, "messages": messages}, goto=FAIL_NODE)


def fail(state: State) -> dict[str, Any]:
    """Fail the run with the reason `endpoint_failed` recorded, after its AI message is in the thread."""
    raise ModelUnavailable(state.get("failure") or "the model endpoint failed")
