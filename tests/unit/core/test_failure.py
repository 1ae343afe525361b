"""What a chat user reads when the model endpoint stops a server round, and that nothing else is caught."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.errors import NodeError

from nodes.failure import FAIL_NODE, endpoint_failed, endpoint_failure

REQUEST = httpx2.Request("POST", "http://10.1.2.3:8000/v1/chat/completions")


def _refused() -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=REQUEST)
    error.__cause__ = httpx2.ConnectError("[Errno 111] Connection refused")
    return error


def _status(kind: type[openai.APIStatusError], status: int) -> openai.APIStatusError:
    response = httpx2.Response(status, request=REQUEST, json={"error": {"message": "Incorrect API key: sk-secret"}})
    return kind("Incorrect API key: sk-secret", response=response, body=None)


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (_refused(), "the model endpoint could not be reached (Connection refused); send the message again when"),
        (openai.APITimeoutError(request=REQUEST), "the model endpoint did not answer in time"),
        (_status(openai.AuthenticationError, 401), "rejected this server's API key (HTTP 401); the operator"),
        (_status(openai.NotFoundError, 404), "refused the request (HTTP 404); the operator of this server must check"),
    ],
    ids=["refused", "timeout", "key", "model"],
)
def test_an_endpoint_failure_says_what_failed_and_what_to_do_without_address_or_body(error: Any, said: str) -> None:
    text = endpoint_failure(error)
    assert text is not None and said in text
    assert "10.1.2.3" not in text and "sk-secret" not in text


def test_the_handler_ends_the_round_with_the_lean_request_and_an_ai_message_then_routes_to_fail() -> None:
    pdf = {"type": "file", "mimeType": "application/pdf", "data": "JVBERi0x", "metadata": {"filename": "a.pdf"}}
    sent = HumanMessage(content=[{"type": "text", "text": "Hi"}, pdf], id="h1")
    command = endpoint_failed({"messages": [sent]}, NodeError(node="intent", error=_refused()))

    assert command.goto == FAIL_NODE
    update: dict[str, Any] = command.update  # type: ignore[assignment]
    lean, answer = update["messages"]
    assert lean.id == "h1" and "a.pdf" in str(lean.content) and "JVBERi0x" not in str(lean.content)
    assert isinstance(answer, AIMessage) and answer.text == f"I could not finish this request: {update['failure']}."
    assert update["request_message"] == "h1" and update["status"] == "incomplete"


def test_any_other_error_is_raised_again_unchanged() -> None:
    error = KeyError("a bug")
    with pytest.raises(KeyError) as raised:
        endpoint_failed({"messages": []}, NodeError(node="select", error=error))
    assert raised.value is error


def test_a_failure_after_intent_takes_the_place_of_what_the_round_showed() -> None:
    messages = [HumanMessage(content="Hi", id="h1"), AIMessage(content="Working on it", id="understood-1")]
    command = endpoint_failed(
        {"messages": messages, "request_message": "h1"}, NodeError(node="validate", error=_refused())
    )
    update: dict[str, Any] = command.update  # type: ignore[assignment]
    removed, said = update["messages"]
    assert removed.id == "understood-1" and type(removed).__name__ == "RemoveMessage"
    assert said.text.startswith("I could not finish this request: the model endpoint could not be reached")
    assert "request_message" not in update
