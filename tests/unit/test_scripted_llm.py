"""Proves ScriptedLLM speaks enough OpenAI for the real ``ChatOpenAI`` client on every path the agent uses."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, SystemMessage
from pydantic import BaseModel

from tests.support import deadlines
from tests.support.scripted_llm import HTTPError, Latency, RecordedRequest, ScriptedLLM, route_for


class Verdict(BaseModel):
    """Tiny structured-output schema; its class name is the route."""

    ok: bool
    reason: str


VERDICT = {"ok": True, "reason": "fine"}
JSON_MODE_PROMPT = "Answer with one JSON object of schema `Verdict`."


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


def test_plain_text_invoke(llm: ScriptedLLM) -> None:
    llm.on("text", "hello there")
    result = llm.model().invoke([SystemMessage("be brief"), HumanMessage("hi")])
    assert result.content == "hello there"
    assert result.usage_metadata is not None
    assert result.usage_metadata["output_tokens"] == len("hello there") // 4
    [request] = llm.requests
    assert request.route == "text"
    assert request.system == "be brief"
    assert request.last_user == "hi"
    assert request.text == "be brief\nhi"
    assert request.body["model"] == "scripted"


def test_streaming_reassembles_content_and_usage(llm: ScriptedLLM) -> None:
    llm.on("text", "streamed answer")
    chunks = list(llm.model().stream("hi"))
    assert "".join(str(c.content) for c in chunks) == "streamed answer"
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert isinstance(total, AIMessageChunk)
    assert total.usage_metadata is not None
    assert total.usage_metadata["input_tokens"] == 1  # len("hi") // 4, floored at 1
    assert total.usage_metadata["output_tokens"] == len("streamed answer") // 4
    assert total.usage_metadata["total_tokens"] == 1 + len("streamed answer") // 4
    assert llm.requests[0].body["stream"] is True


def test_streaming_model_invoke(llm: ScriptedLLM) -> None:
    llm.on("text", "x" * 40)
    result = llm.model(streaming=True).invoke("hello world")
    assert result.content == "x" * 40
    assert result.usage_metadata is not None
    assert result.usage_metadata["output_tokens"] == 10


def test_structured_output_json_schema(llm: ScriptedLLM) -> None:
    llm.on("Verdict", VERDICT)
    result = llm.model().with_structured_output(Verdict, method="json_schema").invoke("judge")
    assert result == Verdict(ok=True, reason="fine")
    assert llm.requests[0].body["response_format"]["type"] == "json_schema"


# langchain-openai's streamed json_schema path dumps openai's ParsedChatCompletion[None]; upstream noise.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
def test_structured_output_json_schema_streaming(llm: ScriptedLLM) -> None:
    llm.on("Verdict", VERDICT)
    structured = llm.model(streaming=True).with_structured_output(Verdict, method="json_schema")
    assert structured.invoke("judge") == Verdict(ok=True, reason="fine")


def test_structured_output_function_calling(llm: ScriptedLLM) -> None:
    llm.on("Verdict", {"ok": False, "reason": "tool"})
    structured = llm.model().with_structured_output(Verdict, method="function_calling", include_raw=True)
    result = structured.invoke("judge")
    assert result["parsed"] == Verdict(ok=False, reason="tool")
    raw = result["raw"]
    assert raw.tool_calls[0]["name"] == "Verdict"
    assert raw.tool_calls[0]["id"].startswith("call_")
    assert raw.response_metadata["finish_reason"] == "tool_calls"
    assert llm.requests[0].route == "Verdict"


def test_function_calling_streaming(llm: ScriptedLLM) -> None:
    llm.on("Verdict", VERDICT)
    structured = llm.model(streaming=True).with_structured_output(Verdict, method="function_calling")
    assert structured.invoke("judge") == Verdict(ok=True, reason="fine")


def test_structured_output_json_mode(llm: ScriptedLLM) -> None:
    llm.on("Verdict", VERDICT)
    structured = llm.model().with_structured_output(Verdict, method="json_mode")
    assert structured.invoke(f"Judge this. {JSON_MODE_PROMPT}") == Verdict(ok=True, reason="fine")
    assert llm.requests[0].body["response_format"] == {"type": "json_object"}
    assert llm.requests[0].route == "Verdict"


def test_sticky_last_queue(llm: ScriptedLLM) -> None:
    llm.on("text", "first", "second").on("text", "last")
    model = llm.model()
    answers = [model.invoke("q").content for _ in range(5)]
    assert answers == ["first", "second", "last", "last", "last"]
    assert len(llm.requests_for("text")) == 5


def test_callable_response_sees_request(llm: ScriptedLLM) -> None:
    seen: list[RecordedRequest] = []

    def echo(request: RecordedRequest) -> dict[str, object]:
        seen.append(request)
        return {"ok": True, "reason": request.last_user}

    llm.on("Verdict", echo)
    result = llm.model().with_structured_output(Verdict).invoke([HumanMessage("because")])
    assert result == Verdict(ok=True, reason="because")
    assert seen == llm.requests_for("Verdict")


def test_http_error_then_recovery(llm: ScriptedLLM) -> None:
    llm.on("text", HTTPError(500, "boom"), "recovered")
    model = llm.model()
    with pytest.raises(openai.InternalServerError) as excinfo:
        model.invoke("q")
    assert excinfo.value.status_code == 500
    assert excinfo.value.body == "boom"  # openai only puts JSON error messages into str(exc)
    assert model.invoke("q").content == "recovered"


def test_callable_may_return_http_error(llm: ScriptedLLM) -> None:
    llm.on("text", lambda request: HTTPError(503) if "fail" in request.text else "fine")
    model = llm.model()
    with pytest.raises(openai.InternalServerError):
        model.invoke("please fail")
    assert model.invoke("ok").content == "fine"


def test_rate_limit_retry_after_is_honoured(llm: ScriptedLLM) -> None:
    llm.on("text", HTTPError(429, "slow down", {"Retry-After": "0.01"}), "after retry")
    assert llm.model(max_retries=1).invoke("q").content == "after retry"
    assert len(llm.requests) == 2

    llm.on("limited", HTTPError(429, headers={"Retry-After": "0.01"}))
    with pytest.raises(openai.RateLimitError) as excinfo:
        llm.model().invoke("JSON object of schema `limited`")
    assert excinfo.value.response.headers["retry-after"] == "0.01"


def test_reject_response_formats_simulates_llama_cpp() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Verdict", VERDICT)
        model = llm.model()
        with pytest.raises(openai.InternalServerError, match="response_format not supported"):
            model.with_structured_output(Verdict, method="json_schema").invoke("judge")
        tool_result = model.with_structured_output(Verdict, method="function_calling").invoke("judge")
        assert tool_result == Verdict(ok=True, reason="fine")
        assert [r.route for r in llm.requests] == ["Verdict", "Verdict"]


def test_unconfigured_route_names_itself(llm: ScriptedLLM) -> None:
    llm.on("Other", "x")
    with pytest.raises(openai.InternalServerError) as excinfo:
        llm.model().with_structured_output(Verdict, method="json_schema").invoke("judge")
    assert "'Verdict'" in str(excinfo.value)
    assert "['Other']" in str(excinfo.value)
    assert llm.requests[0].route == "Verdict"


def test_raw_http_paths_and_framing(llm: ScriptedLLM) -> None:
    llm.on("text", "plain")
    root = llm.base_url.removesuffix("/v1")
    with httpx.Client(timeout=deadlines.HTTP_S) as client:
        models = client.get(f"{llm.base_url}/models").json()
        assert models["data"] == [{"id": "scripted", "object": "model"}]
        # Both with and without the /v1 prefix, on one kept-alive connection.
        for url in (f"{llm.base_url}/chat/completions", f"{root}/chat/completions"):
            answer = client.post(url, json={"messages": [{"role": "user", "content": "hi"}]}).json()
            assert answer["object"] == "chat.completion"
            assert answer["choices"][0]["message"]["content"] == "plain"
            assert answer["usage"] == {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        stream = client.post(
            f"{root}/chat/completions",
            json={"messages": [{"role": "user", "content": "hi"}], "stream": True},
        )
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = [line.removeprefix("data: ") for line in stream.text.split("\n\n") if line]
        assert events[-1] == "[DONE]"
        chunks = [json.loads(e) for e in events[:-1]]
        assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, None, "stop"]  # no usage chunk
        assert client.get(f"{root}/nowhere").status_code == 404


def test_route_for_rules() -> None:
    def fn(name: str) -> dict[str, object]:
        return {"type": "function", "function": {"name": name, "parameters": {}}}

    schema_prompt = {"messages": [{"role": "user", "content": [{"type": "text", "text": JSON_MODE_PROMPT}]}]}
    assert route_for({"response_format": {"type": "json_schema", "json_schema": {"name": "A"}}}) == (
        "A",
        False,
    )
    assert route_for({"tools": [fn("B"), fn("C")], "tool_choice": {"type": "function", "function": {"name": "C"}}}) == (
        "C",
        True,
    )
    assert route_for({"tools": [fn("B")], "tool_choice": "required"}) == ("B", True)
    assert route_for({"tools": [fn("B"), fn("C")], "tool_choice": "required", **schema_prompt}) == (
        "Verdict",
        False,
    )
    assert route_for({"tools": [fn("B")], "tool_choice": "auto"}) == ("text", False)
    assert route_for(schema_prompt) == ("Verdict", False)
    assert route_for({"messages": [{"role": "user", "content": "hi"}]}) == ("text", False)


def test_base_url_requires_running_server() -> None:
    server = ScriptedLLM()
    with pytest.raises(RuntimeError):
        _ = server.base_url
    server.start()
    try:
        assert server.base_url.startswith("http://127.0.0.1:")
    finally:
        server.stop()
    server.stop()  # idempotent


def test_latency_model_prices_each_request_and_sleeps_its_scaled_time() -> None:
    latency = Latency(base_s=0.4, prompt_tps=100.0, output_tps=10.0, time_scale=0.05, count=lambda t: len(t.split()))
    with ScriptedLLM(latency=latency) as server:
        server.on("text", "one two three four five")
        started = time.perf_counter()
        server.model().invoke([HumanMessage(content=" ".join(["word"] * 50))])
        elapsed = time.perf_counter() - started
    [request] = server.requests
    assert request.answer == "one two three four five"
    assert request.latency_s == pytest.approx(0.4 + 50 / 100 + 5 / 10)  # base + prompt + output
    assert elapsed >= 0.05 * request.latency_s  # served after the scaled delay
