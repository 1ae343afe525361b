"""ask_json gets validated JSON out of any OpenAI-compatible endpoint, falling back as servers refuse methods."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.store.memory import InMemoryStore

import core.capabilities
import core.llm
from core.capabilities import forget_all
from core.context import Context
from core.errors import ConfigurationError, StepFailed
from core.llm import Models, ask_json, chat_openai
from core.schemas import Intent, ParametersAnswer
from tests.support.scripted_llm import HTTPError, RecordedRequest, ScriptedLLM

INTENT = {"dataType": "numbers", "expectedFormat": "raw_data", "successCriteria": ["first 1000"], "language": "en"}
MESSAGES = [SystemMessage(content="Analyse the request."), HumanMessage(content="first 1000 primes")]


def _ask(llm: Any) -> Intent:
    return ask_json(llm, MESSAGES, Intent, Intent.model_validate, what="intent analysis")


def _format(request: RecordedRequest) -> str | None:
    response_format = request.body.get("response_format")
    return response_format.get("type") if isinstance(response_format, dict) else None


def _schema_in(request: RecordedRequest) -> bool:
    response_format = request.body.get("response_format")
    return isinstance(response_format, dict) and "schema" in response_format


def test_strict_json_schema_bounded_by_max_tokens_is_used_first() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", INTENT)
        intent = _ask(llm.model())
        assert intent.dataType == "numbers" and intent.successCriteria == ["first 1000"]
        [request] = llm.requests
        assert _format(request) == "json_schema"
        sent = request.body["response_format"]["json_schema"]
        assert sent["strict"] is True
        assert sent["schema"]["additionalProperties"] is False
        assert set(sent["schema"]["required"]) == set(Intent.model_fields)  # optional ones as nullable
        assert request.body["max_completion_tokens"] == request.body["max_tokens"] == Intent.answer_tokens


def test_a_server_refusing_json_schema_gets_its_schema_as_a_json_object_grammar_and_remembers_it() -> None:
    """llama.cpp: HTTP 500 to json_schema; `json_object` + `schema` is enforced by its grammar."""
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        model = llm.model()  # the client would retry a 500 twice: a capability probe must not

        assert _ask(model).dataType == "numbers"
        first, second = llm.requests
        assert _format(first) == "json_schema"
        assert second.body["response_format"]["type"] == "json_object"
        assert second.body["response_format"]["schema"]["properties"]["dataType"]["enum"][0] == "numbers"

        assert _ask(model).dataType == "numbers"  # the refusal named response_format: never asked again
        assert _ask(model).dataType == "numbers"
        assert [_format(r) for r in llm.requests] == ["json_schema", "json_object", "json_object", "json_object"]


def test_what_an_endpoint_refused_is_kept_in_the_store_for_the_next_process() -> None:
    store = InMemoryStore()
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        for _ in range(2):
            ask_json(llm.model(), MESSAGES, Intent, Intent.model_validate, what="intent", store=store)
        refused_before = sum(_format(r) == "json_schema" for r in llm.requests)

        forget_all()  # a new process: nothing in memory, the same database
        ask_json(llm.model(), MESSAGES, Intent, Intent.model_validate, what="intent", store=store)

        assert refused_before == 1
        assert _format(llm.requests[-1]) == "json_object"
        assert sum(_format(r) == "json_schema" for r in llm.requests) == 1, "no refused request in the new process"


def test_one_transient_500_does_not_move_the_endpoint_off_json_schema() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", HTTPError(500, "hiccup"), INTENT)
        model = llm.model()
        assert _ask(model).dataType == "numbers"  # json_schema 500, the schema grammar answers
        assert _ask(model).dataType == "numbers"
        assert [_format(r) for r in llm.requests] == ["json_schema", "json_object", "json_schema"]


def test_a_server_without_response_formats_gets_guided_json() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema", "json_object"}) as llm:
        llm.on("Intent", INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        assert llm.requests[-1].body["guided_json"]["properties"]["expectedFormat"]["enum"][0] == "raw_data"


def test_a_server_with_only_function_calling_gets_a_forced_tool_call() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}, reject_body_keys={"guided_json"}) as llm:
        llm.on("Intent", lambda r: HTTPError(400, "schema unsupported") if _schema_in(r) else INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        last = llm.requests[-1]
        assert last.body["tools"][0]["function"]["name"] == "Intent"
        assert last.body["tool_choice"]["function"]["name"] == "Intent"


def test_endpoint_refusing_every_constraint_falls_back_to_json_mode() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}, reject_body_keys={"guided_json", "tools"}) as llm:
        llm.on("Intent", lambda r: HTTPError(400, "schema unsupported") if _schema_in(r) else json.dumps(INTENT))
        assert _ask(llm.model()).dataType == "numbers"
        assert _format(llm.requests[-1]) == "json_object" and not _schema_in(llm.requests[-1])
        assert "JSON object of schema `Intent`" in llm.requests[-1].system


def test_plain_text_answer_in_json_fences_with_trailing_commas_is_repaired() -> None:
    fenced = '```json\n{"dataType": "numbers", "expectedFormat": "raw_data", "successCriteria": ["first 1000",],}\n```'
    with ScriptedLLM(
        reject_response_formats={"json_schema", "json_object"}, reject_body_keys={"guided_json", "tools"}
    ) as llm:
        llm.on("Intent", fenced)
        intent = _ask(llm.model())
        assert intent.successCriteria == ["first 1000"]
        last = llm.requests[-1]
        assert _format(last) is None and "tools" not in last.body
        assert "JSON object of schema `Intent`" in last.system


def test_a_raw_line_break_inside_a_string_is_read_as_written_not_repaired_into_other_keys() -> None:
    """llama.cpp's schema grammar lets a string hold a raw line break; strict JSON does not. The answer (SmolLM2's,
    verbatim) means what it says: repairing it instead split the quoted text into parameters of its own."""
    prompt = (
        "process.action: ai.addToListAction(ai.AddToListItem({ 'name' : 'processingMode', 'description' : "
        "'This action must achieve the specified process mode.', 'type' : 'list'}) ) }}\n{ "
    )
    answer = '{ "schema": "parameters_v1", "parameters": { "aiPrompt" : "' + prompt + '" }}'
    with ScriptedLLM() as llm:
        llm.on("ParametersAnswer", answer)
        got = ask_json(llm.model(), MESSAGES, ParametersAnswer, ParametersAnswer.model_validate, what="Stage 2")
        assert got.parameters == {"aiPrompt": prompt} and len(llm.requests) == 1


def test_an_answer_cut_at_max_tokens_is_retried_with_the_reason() -> None:
    runaway = {**INTENT, "successCriteria": ["first 1000 " * 500]}
    with ScriptedLLM() as llm:
        llm.on("Intent", runaway, INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        assert f"cut off at {Intent.answer_tokens} tokens" in llm.requests[1].last_user


def test_a_percentage_where_a_ratio_is_asked_is_read_as_the_ratio() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", {**INTENT, "qualityRequirements": {"accuracy": 95, "completeness": 100}})
        intent = _ask(llm.model())
        assert intent.qualityRequirements.accuracy == 0.95 and intent.qualityRequirements.completeness == 1.0


def test_invalid_json_schema_answer_is_retried_once_with_the_reason_then_accepted() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", {**INTENT, "dataType": "poetry"}, INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        assert "Your answer was rejected" in llm.requests[1].last_user


def test_second_invalid_json_schema_answer_fails_the_step() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", {**INTENT, "dataType": "poetry"})
        with pytest.raises(StepFailed):
            _ask(llm.model())


def test_invalid_answer_is_retried_once_with_the_reason_then_accepted() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", {**INTENT, "dataType": "poetry"}, INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        first, retry = [r for r in llm.requests_for("Intent") if _schema_in(r)]
        assert "Your answer was rejected" in retry.last_user
        assert "dataType" in retry.last_user
        assert "Your answer was rejected" not in first.text


def test_second_invalid_answer_fails_the_step_with_the_last_reason() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", {**INTENT, "dataType": "poetry"})
        with pytest.raises(StepFailed, match=r"intent analysis failed twice.*dataType"):
            _ask(llm.model())
        assert len([r for r in llm.requests if _schema_in(r)]) == 2


def test_answer_that_is_not_json_is_rejected_with_a_readable_reason(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="core.llm")
    model = GenericFakeChatModel(messages=iter([AIMessage(content="Sorry, I cannot help."), AIMessage(content="no")]))
    with pytest.raises(StepFailed, match="not a JSON object"):
        _ask(model)
    rejected = [r.getMessage() for r in caplog.records if "rejected" in r.getMessage()]
    assert rejected == [
        "intent analysis answer rejected (attempt 1): the answer is not a JSON object: 'Sorry, I cannot help.'",
        "intent analysis answer rejected (attempt 2): the answer is not a JSON object: 'no'",
    ]


def test_fake_chat_model_without_structured_output_works_through_json_mode() -> None:
    answer = AIMessage(content="```json\n" + json.dumps(INTENT) + "\n```")
    model = GenericFakeChatModel(messages=iter([answer]))
    assert _ask(model).expectedFormat == "raw_data"
    assert "json_mode" in [r["accepted"] for r in core.capabilities._records.values()]


def test_models_hand_out_the_injected_model() -> None:
    model = GenericFakeChatModel(messages=iter([]))
    assert Models(injected=model).for_context(Context()) is model


def test_models_cache_one_chat_openai_per_configuration() -> None:
    models = Models()
    context = Context(base_url="http://127.0.0.1:9/v1")
    assert models.for_context(context) is models.for_context(Context(base_url="http://127.0.0.1:9/v1"))
    assert models.for_context(context) is not models.for_context(Context(base_url="http://127.0.0.1:8/v1"))


def test_the_probe_copy_belongs_to_its_own_model_even_when_an_id_is_reused() -> None:
    """A garbage-collected model's id can be given to a new one: the new model must not get the old copy."""
    old = Models().for_context(Context(base_url="http://127.0.0.1:9/v1", max_retries=2))
    new = Models().for_context(Context(base_url="http://127.0.0.1:8/v1", max_retries=2))
    stale = core.llm.without_client_retries(old)
    core.llm._no_retry_models[id(new)] = (old, stale)  # what an id reuse would leave behind

    probe = core.llm.without_client_retries(new)

    assert probe is not stale and probe.max_retries == 0
    assert probe.root_client.base_url == new.root_client.base_url != old.root_client.base_url


def test_chat_openai_uses_the_environment_key_and_the_context_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    context = Context(
        model="m", base_url="http://127.0.0.1:9/v1", temperature=0.3, max_retries=4, request_timeout_s=7.5
    )
    llm = chat_openai(context)
    assert llm.openai_api_key is not None and llm.openai_api_key.get_secret_value() == "sk-from-the-environment"
    assert (llm.model_name, llm.openai_api_base, llm.temperature, llm.max_retries) == ("m", context.base_url, 0.3, 4)
    assert llm.request_timeout == 7.5 and llm.stream_usage is True


def test_a_local_endpoint_needs_no_key_but_openai_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = chat_openai(Context(model="m", base_url="http://127.0.0.1:9/v1"))
    assert local.openai_api_key is not None and local.openai_api_key.get_secret_value() == "sk-no-key-required"
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY is not set"):
        chat_openai(Context(model="m", base_url=""))
