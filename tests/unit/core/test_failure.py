"""What a chat user reads when an outage stops a server round, that the round goes on from there in a later run,
and that nothing else is caught (nodes/failure.py)."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.errors import NodeError

from core.errors import ModelUnavailable, ServiceUnavailable
from core.outages import model_outage
from nodes.failure import FAIL_NODE, fail, outage_stopped, resumes_stopped_round

REQUEST = httpx2.Request("POST", "http://10.1.2.3:8000/v1/chat/completions")


class _Endpoint:
    openai_api_base = "http://operator:secret@10.1.2.3:8000/v1?key=sk-secret"


def _refused() -> ModelUnavailable:
    error = openai.APIConnectionError(request=REQUEST)
    error.__cause__ = httpx2.ConnectError("[Errno 111] Connection refused")
    error.__cause__.__cause__ = ConnectionRefusedError(111, "Connection refused")
    outage = model_outage(error, _Endpoint())
    assert outage is not None
    return outage


def _status(kind: type[openai.APIStatusError], status: int) -> openai.APIStatusError:
    response = httpx2.Response(status, request=REQUEST, json={"error": {"message": "Incorrect API key: sk-secret"}})
    return kind("Incorrect API key: sk-secret", response=response, body=None)


@pytest.mark.parametrize(
    ("error", "what", "temporary"),
    [
        (_refused(), "refused the connection", True),
        (openai.APITimeoutError(request=REQUEST), "did not answer in time", True),
        (_status(openai.RateLimitError, 429), "answered HTTP 429 after the client's retries", True),
        (_status(openai.InternalServerError, 503), "answered HTTP 503 after the client's retries", True),
        (_status(openai.AuthenticationError, 401), "refused paor's credentials (HTTP 401)", False),
    ],
    ids=["refused", "timeout", "429", "503", "key"],
)
def test_an_outage_names_the_endpoint_without_credentials_and_says_what_happened(
    error: Exception, what: str, temporary: bool
) -> None:
    outage = model_outage(error, _Endpoint())
    assert outage is not None and what in outage.what and outage.temporary is temporary
    assert str(outage).startswith("the model endpoint http://10.1.2.3:8000/v1 ")
    assert "secret" not in str(outage) and "operator" not in str(outage)


def test_a_refused_request_shape_or_a_bug_is_no_outage() -> None:
    assert model_outage(_status(openai.BadRequestError, 400), _Endpoint()) is None
    assert model_outage(KeyError("a bug"), _Endpoint()) is None


def test_the_handler_says_it_in_the_users_language_without_the_address_then_routes_to_fail() -> None:
    sent = HumanMessage(content="Berechne die ersten 20 Primzahlen", id="h1")
    state: Any = {"messages": [sent], "intent": {"language": "de"}}
    command = outage_stopped(state, NodeError(node="act", error=_refused()))

    assert command.goto == FAIL_NODE
    update: dict[str, Any] = command.update  # type: ignore[assignment]
    [said] = update["messages"]
    assert isinstance(said, AIMessage) and said.text.startswith("Ich konnte diese Anfrage nicht abschließen")
    assert "10.1.2.3" not in said.text and "the model endpoint refused the connection" in said.text
    assert update["failure"]["node"] == "act" and update["failure"]["request"] == sent.text


def test_any_other_error_is_raised_again_unchanged() -> None:
    error = KeyError("a bug")
    with pytest.raises(KeyError) as raised:
        outage_stopped({"messages": []}, NodeError(node="select", error=error))
    assert raised.value is error


def _stopped(**state: Any) -> Any:
    command = outage_stopped(
        {"messages": [HumanMessage(content="Hi", id="h1")], **state}, NodeError("validate", _refused())
    )
    update: dict[str, Any] = command.update  # type: ignore[assignment]
    return {"messages": [HumanMessage(content="Hi", id="h1"), *update["messages"]], "failure": update["failure"]}


def test_in_the_run_it_stopped_fail_raises_the_line_a_chat_client_may_read() -> None:
    state = _stopped()
    with pytest.raises(ModelUnavailable) as raised:
        fail(state)
    assert isinstance(raised.value, ServiceUnavailable) and isinstance(raised.value, ValueError)
    assert str(raised.value).startswith("the model endpoint refused the connection")
    assert "10.1.2.3" not in str(raised.value)


def test_in_a_later_run_the_round_goes_on_at_the_stopped_step_and_the_message_gives_way() -> None:
    state = _stopped()
    with pytest.raises(ModelUnavailable):
        fail(state)  # the run it stopped
    state["messages"].append(HumanMessage(content="Hi", id="h2"))  # the same request, sent again
    assert resumes_stopped_round(state) == FAIL_NODE
    command = fail(state)  # a later run
    assert command.goto == "validate"
    update: dict[str, Any] = command.update  # type: ignore[assignment]
    assert update["failure"] is None
    assert {m.id for m in update["messages"]} == {state["failure"]["message"], "h2"}


def test_another_message_starts_a_new_round() -> None:
    state = _stopped()
    state["messages"].append(HumanMessage(content="Something else entirely", id="h2"))
    assert resumes_stopped_round(state) == "intent"
    assert resumes_stopped_round({"messages": []}) == "intent"
