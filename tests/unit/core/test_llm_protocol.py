"""ask_json's finer promises: what a retry shows the model, what is logged and counted, whose capabilities are kept.

Each test here was called for by a mutant of core/llm.py that the broader tests in test_llm.py let through.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore
from pydantic import BaseModel, ValidationError

from bench.models import PROMPTS, RunResult, protocol_tally, refusals_line
from core.capabilities import NAMESPACE, Capabilities, endpoint_key
from core.context import Context
from core.errors import ConfigurationError, ModelOutputInvalid, StepFailed
from core.llm import MAX_ANSWER_CHARS, ask_json, chat_openai, explain, length_limit, without_client_retries
from core.schemas import ActionSelection, Intent
from tests.support.scripted_llm import HTTPError, ScriptedLLM

INTENT = {"dataType": "numbers", "expectedFormat": "raw_data", "successCriteria": ["first 1000"], "language": "en"}
MESSAGES = [SystemMessage(content="Analyse the request."), HumanMessage(content="first 1000 primes")]


def _ask(llm: Any, **kwargs: Any) -> Intent:
    return ask_json(llm, MESSAGES, Intent, Intent.model_validate, what="intent analysis", **kwargs)


def _fake(*answers: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=a) for a in answers]))


# -- the retry ---------------------------------------------------------------------------------------------


def test_the_retry_keeps_the_whole_conversation_and_shows_the_rejected_answer() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", {**INTENT, "dataType": "poetry"}, INTENT)
        _ask(llm.model())
        retry = llm.requests[1].messages
        assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
        assert retry[0]["content"] == "Analyse the request." and retry[1]["content"] == "first 1000 primes"
        assert json.loads(retry[2]["content"])["dataType"] == "poetry"


def test_an_answer_cut_at_max_tokens_by_the_client_is_shown_to_the_model_as_empty() -> None:
    """The OpenAI client's parse() raises on `finish_reason: length` (json_schema): there is no text to show."""
    runaway = {**INTENT, "successCriteria": ["first 1000 " * 500]}
    with ScriptedLLM() as llm:
        llm.on("Intent", runaway, INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        assert llm.requests[1].messages[2] == {"role": "assistant", "content": "(empty answer)"}


def test_a_long_rejected_answer_is_shown_back_cut_to_4000_characters() -> None:
    with ScriptedLLM(obey_max_tokens=False) as llm:
        llm.on("Intent", "x" * 5000, INTENT)
        _ask(llm.model())
        shown = [m["content"] for m in llm.requests[1].messages if m["role"] == "assistant"]
        assert shown == ["x" * 4000]


def test_a_non_json_answer_is_quoted_up_to_200_characters_in_the_reason() -> None:
    prose = "a" * 150 + "b" * 150
    with pytest.raises(StepFailed) as failed:
        _ask(_fake(prose, prose))
    assert str(failed.value).endswith(f"the answer is not a JSON object: {prose[:200]!r}")


def test_an_answer_at_the_length_limit_is_read_and_one_character_more_is_rejected() -> None:
    text = json.dumps(INTENT)
    at_limit = text[:-1] + " " * (MAX_ANSWER_CHARS - len(text)) + "}"
    assert len(at_limit) == MAX_ANSWER_CHARS
    assert _ask(_fake(at_limit)).dataType == "numbers"
    over = " " + at_limit
    with pytest.raises(StepFailed, match=f"the answer has {MAX_ANSWER_CHARS + 1} characters"):
        _ask(_fake(over, over))


# -- what is logged and counted ----------------------------------------------------------------------------


def test_the_protocol_tally_counts_each_answer_once_as_accepted_or_rejected(caplog: pytest.LogCaptureFixture) -> None:
    """`bench.models` scores a model by these records: a swapped flag or a lost record falsifies its figure."""
    caplog.set_level(logging.DEBUG, logger="core.llm")
    with protocol_tally() as tally, ScriptedLLM() as llm:
        llm.on("Intent", {**INTENT, "dataType": "poetry"}, INTENT)
        ask_json(llm.model(), MESSAGES, Intent, Intent.model_validate, what="Stage 1 selection")
    assert (tally.accepted, tally.rejected) == (1, 1)
    messages = [r.getMessage() for r in caplog.records if r.name == "core.llm"]
    assert messages[-1] == "Stage 1 selection answer accepted (attempt 2)"
    assert messages[0].startswith("Stage 1 selection answer rejected (attempt 1): dataType: ")


def test_the_tally_counts_a_copied_description_apart_from_a_broken_shape() -> None:
    """bench.models' shape validity (tests/local) counts a copied description as the right shape, a wrong one not."""
    from nodes.select import parse_selection
    from tests.unit.core.factories import selection_payload
    from tools.catalog import catalog, lookup
    from tools.documents import DocumentIndex

    catalog()
    entries = [e for e in [lookup("ai.process")] if e is not None]
    with protocol_tally() as tally, ScriptedLLM() as llm:
        copied = selection_payload(actionObjective="What this one action must achieve.")
        llm.on("ActionSelection", copied, {"action": 7}, selection_payload())
        for _ in range(2):
            with contextlib.suppress(StepFailed):
                ask_json(
                    llm.model(),
                    MESSAGES,
                    ActionSelection,
                    lambda p: parse_selection(p, entries, DocumentIndex([])),
                    what="Stage 1 selection",
                )
    assert (tally.accepted, tally.rejected, tally.copied) == (1, 2, 1)


def test_a_refused_method_is_logged_by_name_and_status_and_counted_as_a_refusal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="core.llm")
    with protocol_tally() as tally, ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        _ask(llm.model())
    assert tally.refusals == 1
    assert "endpoint refused json_schema structured output (HTTP 500); falling back" in [
        r.getMessage() for r in caplog.records
    ]


def test_a_malformed_200_body_names_what_was_wrong_with_it() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", HTTPError(200, '{"foo": 1}'))
        with pytest.raises(StepFailed) as failed:
            _ask(llm.model())
    assert str(failed.value).startswith("the model endpoint sent a malformed response (TypeError: ")


def test_an_endpoint_refusing_every_method_fails_the_step_with_its_status() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", HTTPError(400, "nothing structured here"))
        with pytest.raises(StepFailed, match="HTTP 400"):
            _ask(llm.model())


# -- whose capabilities are kept ---------------------------------------------------------------------------


def test_what_one_endpoint_refused_is_not_held_against_another() -> None:
    store = InMemoryStore()
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llama, ScriptedLLM() as openai_like:
        llama.on("Intent", INTENT)
        openai_like.on("Intent", INTENT)
        for _ in range(2):
            _ask(llama.model(), store=store)
        _ask(openai_like.model(), store=store)
        assert [r.body["response_format"]["type"] for r in openai_like.requests] == ["json_schema"]
        kept = store.get(NAMESPACE, endpoint_key(llama.model()))
        assert kept is not None and kept.value["strikes"] == {"json_schema": 2}
        assert kept.value["accepted"] == "json_object_schema"


def test_an_endpoint_known_to_take_json_schema_gets_the_clients_retries_on_a_transient_500() -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", INTENT, HTTPError(500, "hiccup"), INTENT)
        model = llm.model(max_retries=1)
        _ask(model)  # json_schema works: now it is known
        assert _ask(model).dataType == "numbers"
        assert [r.body["response_format"]["type"] for r in llm.requests] == ["json_schema"] * 3


class _State(TypedDict):
    intent: str


def test_inside_a_graph_run_what_the_endpoint_takes_is_kept_in_the_graphs_store() -> None:
    store = InMemoryStore()
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        model = llm.model()

        def analyse(state: _State) -> _State:
            return {"intent": _ask(model).dataType}

        builder = StateGraph(_State)
        builder.add_node("analyse", analyse)
        builder.add_edge(START, "analyse")
        builder.add_edge("analyse", END)
        assert builder.compile(store=store).invoke({"intent": ""}) == {"intent": "numbers"}

        kept = store.get(NAMESPACE, endpoint_key(model))
        assert kept is not None and kept.value["accepted"] == "json_object_schema"


# -- the fallback instructions and reasons -----------------------------------------------------------------


def test_a_grammar_constrained_request_does_not_spend_tokens_on_the_schema_text() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        _ask(llm.model())
        grammar = llm.requests[-1]
        assert grammar.schema_grammar
        assert grammar.system.startswith("Answer with one JSON object of schema `Intent` and nothing else.")
        assert '"properties"' not in grammar.system


def test_the_fallback_instruction_joins_the_prompts_own_system_message() -> None:
    """Gemma 3's chat template on llama.cpp takes only the first message as the system prompt: a second system
    message, the prompt's own with every rule of it, was dropped without a word."""
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        _ask(llm.model())
        sent = llm.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[0]["content"].startswith("Answer with one JSON object of schema `Intent` and nothing else.")
    assert sent[0]["content"].endswith("Analyse the request.")


def test_json_mode_which_enforces_no_schema_gets_the_schema_written_out() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema"}, reject_body_keys={"guided_json", "tools"}) as llm:
        llm.on("Intent", lambda r: HTTPError(400, "schema unsupported") if r.schema_grammar else json.dumps(INTENT))
        _ask(llm.model())
        json_mode = llm.requests[-1]
        assert json_mode.body["response_format"] == {"type": "json_object"}
        assert '"dataType"' in json_mode.system and '"numbers"' in json_mode.system


class _Nested(BaseModel):
    a: int
    b: int
    c: int
    d: int
    e: int
    f: int
    g: int


def test_a_validation_reason_names_each_field_path_and_at_most_five_problems() -> None:
    with pytest.raises(ValidationError) as many:
        _Nested.model_validate({})
    reason = explain(many.value)
    assert reason.split("; ") == [f"{name}: Field required" for name in "abcde"]

    class Outer(BaseModel):
        inner: _Nested

    with pytest.raises(ValidationError) as nested:
        Outer.model_validate({"inner": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}})
    assert explain(nested.value) == "inner.g: Field required"


def test_a_problem_with_the_whole_answer_is_named_as_the_answer() -> None:
    with pytest.raises(ValidationError) as whole:
        _Nested.model_validate([1, 2])
    assert explain(whole.value).startswith("answer: ")
    assert explain(ModelOutputInvalid("too long")) == "too long"


def test_protocol_calls_are_hidden_from_chat_streams() -> None:
    """A chat client streaming `messages` must see the steps, not Stage-1 JSON (nodes/chat.py)."""
    assert TAG_NOSTREAM in (chat_openai(Context(model="m", base_url="http://127.0.0.1:9/v1")).tags or [])


def test_the_missing_key_error_says_exactly_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError) as missing:
        chat_openai(Context(model="m", base_url=""))
    assert str(missing.value) == (
        "OPENAI_API_KEY is not set: export it, or point OPENAI_BASE_URL at a local OpenAI-compatible server"
    )


# -- every request shape is bounded and sent as the endpoint expects ---------------------------------------


@pytest.mark.parametrize(
    ("refused_formats", "refused_keys", "shape_of_request"),
    [
        ({"json_schema"}, set(), "json_object + schema"),
        ({"json_schema", "json_object"}, set(), "guided_json"),
        ({"json_schema", "json_object"}, {"guided_json"}, "forced tool call"),
        ({"json_schema"}, {"guided_json", "tools"}, "json_mode"),
        ({"json_schema", "json_object"}, {"guided_json", "tools"}, "plain text"),
    ],
)
def test_every_fallback_request_carries_the_answers_max_tokens(
    refused_formats: set[str], refused_keys: set[str], shape_of_request: str
) -> None:
    def answer(request: Any) -> Any:
        if shape_of_request == "json_mode" and request.schema_grammar:
            return HTTPError(400, "schema unsupported")
        return INTENT

    with ScriptedLLM(reject_response_formats=refused_formats, reject_body_keys=refused_keys) as llm:
        llm.on("Intent", answer)
        assert _ask(llm.model()).dataType == "numbers"
        last = llm.requests[-1]
        assert last.body["max_tokens"] == Intent.answer_tokens, shape_of_request


def test_guided_json_carries_the_schema_in_the_body_not_in_the_prompt() -> None:
    with ScriptedLLM(reject_response_formats={"json_schema", "json_object"}) as llm:
        llm.on("Intent", INTENT)
        _ask(llm.model())
        guided = llm.requests[-1]
        assert guided.body["guided_json"]["title"] == "Intent"
        assert guided.system.startswith("Answer with one JSON object of schema `Intent` and nothing else.")
        assert '"properties"' not in guided.system


def test_an_answer_cut_at_max_tokens_under_guided_decoding_is_retried_with_the_reason() -> None:
    """With a response format the client raises on a cut answer; without one (vLLM's guided_json, function
    calling, plain text) only the finish reason tells."""
    runaway = {**INTENT, "successCriteria": ["first 1000 " * 500]}
    with ScriptedLLM(reject_response_formats={"json_schema", "json_object"}) as llm:
        llm.on("Intent", runaway, INTENT)
        assert _ask(llm.model()).dataType == "numbers"
        assert "guided_json" in llm.requests[-1].body
        assert f"cut off at {Intent.answer_tokens} tokens" in llm.requests[-1].last_user


def test_a_refusal_is_kept_with_its_method_and_status() -> None:
    store = InMemoryStore()
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        _ask(llm.model(), store=store)
        kept = store.get(NAMESPACE, endpoint_key(llm.model()))
    assert kept is not None and kept.value["lastRefusal"] == {"method": "json_schema", "status": 500}


# -- function calling ---------------------------------------------------------------------------------------


FUNCTIONS_ONLY = {"reject_response_formats": {"json_schema", "json_object"}, "reject_body_keys": {"guided_json"}}


def test_tool_call_arguments_with_a_trailing_comma_are_repaired() -> None:
    broken = json.dumps(INTENT)[:-1] + ",}"
    with ScriptedLLM(**FUNCTIONS_ONLY) as llm:  # type: ignore[arg-type]
        llm.on("Intent", broken)
        assert _ask(llm.model()).successCriteria == ["first 1000"]
        assert llm.requests[-1].body["tool_choice"]["function"]["name"] == "Intent"


def test_a_rejected_tool_call_is_shown_back_as_its_arguments() -> None:
    with ScriptedLLM(**FUNCTIONS_ONLY) as llm:  # type: ignore[arg-type]
        llm.on("Intent", {**INTENT, "dataType": "poetry"}, INTENT)
        _ask(llm.model())
        retry = llm.requests[-1].messages
        shown = [m for m in retry if m["role"] == "assistant"]
        assert len(shown) == 1 and json.loads(shown[0]["content"])["dataType"] == "poetry"


# -- a LangChain model other than ChatOpenAI ----------------------------------------------------------------

_ASKED: list[tuple[Any, Any, Any, Any]] = []


class _OwnStructuredOutput(GenericFakeChatModel):
    """A chat model with its own json_schema structured output (as Anthropic's or Google's have)."""

    def with_structured_output(self, schema: Any, *, include_raw: bool = False, **kwargs: Any) -> Any:
        from langchain_core.runnables import RunnableLambda

        method = kwargs.get("method")
        if method != "json_schema":
            raise NotImplementedError(method)

        def answer(messages: Any) -> Any:
            _ASKED.append((schema, method, include_raw, messages))
            raw = AIMessage(content="", tool_calls=[{"name": "Intent", "args": INTENT, "id": "call_1"}])
            return {"raw": raw, "parsed": INTENT, "parsing_error": None} if include_raw else INTENT

        return RunnableLambda(answer)


def test_a_non_openai_model_is_asked_through_its_own_json_schema_structured_output() -> None:
    _ASKED.clear()
    model = _OwnStructuredOutput(messages=iter([]))
    assert _ask(model).dataType == "numbers"
    [(schema, method, include_raw, messages)] = _ASKED
    assert schema["function"]["name"] == "Intent" and schema["function"]["parameters"]["properties"]["dataType"]
    assert (method, include_raw) == ("json_schema", True)
    assert list(messages) == MESSAGES


# -- the request bound and the probe copy -------------------------------------------------------------------


def test_local_servers_get_max_tokens_in_the_body_and_openai_only_its_own_name() -> None:
    local = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="k")  # type: ignore[arg-type]
    assert length_limit(local, 100) == {"max_tokens": 100, "extra_body": {"max_tokens": 100}}
    assert length_limit(local, 100, guided_json={"a": 1}) == {
        "max_tokens": 100,
        "extra_body": {"max_tokens": 100, "guided_json": {"a": 1}},
    }
    for openai_itself in (
        ChatOpenAI(model="m", api_key="k"),
        ChatOpenAI(model="m", api_key="k", base_url="https://api.openai.com/v1"),
    ):  # type: ignore[arg-type]
        assert length_limit(openai_itself, 100) == {"max_tokens": 100}
    assert length_limit(GenericFakeChatModel(messages=iter([])), 100) == {"max_tokens": 100}


def test_the_probe_copy_is_made_once_per_model_and_only_for_a_model_that_retries() -> None:
    retrying = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=2)  # type: ignore[arg-type]
    probe = without_client_retries(retrying)
    assert probe is not retrying and probe.max_retries == 0 and retrying.max_retries == 2
    assert without_client_retries(retrying) is probe
    never_retries = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)  # type: ignore[arg-type]
    assert without_client_retries(never_retries) is never_retries


def test_the_probe_copies_table_is_bounded() -> None:
    import core.llm

    core.llm._no_retry_models.clear()
    models = [
        ChatOpenAI(model=f"m{i}", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=1)  # type: ignore[arg-type]
        for i in range(core.llm._NO_RETRY_LIMIT + 1)
    ]
    for model in models[:-1]:
        without_client_retries(model)
    assert len(core.llm._no_retry_models) == core.llm._NO_RETRY_LIMIT
    without_client_retries(models[-1])
    assert list(core.llm._no_retry_models) == [id(models[-1])]


def test_an_endpoint_whose_answers_were_cut_is_known_to_take_json_schema() -> None:
    """A cut answer still shows the method works: the next transient 500 gets the client's retries, no fallback."""
    runaway = {**INTENT, "successCriteria": ["first 1000 " * 500]}
    with ScriptedLLM() as llm:
        llm.on("Intent", runaway, runaway, HTTPError(500, "hiccup"), INTENT)
        model = llm.model(max_retries=1)
        with pytest.raises(StepFailed, match="cut off"):
            _ask(model)
        assert _ask(model).dataType == "numbers"
        assert [r.body["response_format"]["type"] for r in llm.requests] == ["json_schema"] * 4


def test_refusals_are_counted_from_the_first_run_that_asked_for_structured_output() -> None:
    """Runs answered by the bare call ask for no structured output: the refusals of the first run that does are not
    'after the first run', and a refusal in a later run is."""
    answered, asked, again = RunResult(PROMPTS[0]), RunResult(PROMPTS[1]), RunResult(PROMPTS[2])
    asked.accepted, asked.refusals = 1, 2
    again.accepted, again.refusals = 1, 1
    assert refusals_line([answered, asked], "m").endswith(
        "2 in the first run asking for structured output (run 2), 0 after it"
    )
    assert refusals_line([answered, asked, again], "m").endswith("(run 2), 1 after it")


# -- a refusal counts only against the feature it names (issue 45) -----------------------------------------

CONTEXT_LENGTH = (
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 48600 tokens "
    "(including 120 in the functions). Please reduce the length of the messages or functions."
)


@pytest.mark.parametrize(
    "said",
    [
        "the request exceeds the available context size, try increasing it",  # llama.cpp's server
        "This model's maximum context length is 2048 tokens. However, you requested 5000 tokens",  # vLLM
        json.dumps({"error": {"code": "context_length_exceeded", "message": "Input is too long for this model"}}),
    ],
)
def test_every_servers_way_of_saying_too_long_counts_against_no_method(said: str) -> None:
    with ScriptedLLM() as llm:
        llm.on("Intent", HTTPError(400, said))
        with pytest.raises(StepFailed, match="refused the request"):
            _ask(llm.model(), store=InMemoryStore())
        assert len(llm.requests) == 1


def test_a_prompt_too_long_for_the_context_counts_against_no_method_and_fails_at_once() -> None:
    """One client's 194,400-character prompt got context-length 400s that counted as strikes against every
    structured-output mode: every later run of every client fell back to plain text."""
    store = InMemoryStore()
    with ScriptedLLM() as llm:
        llm.on("Intent", HTTPError(400, CONTEXT_LENGTH), INTENT)
        with pytest.raises(StepFailed, match="maximum context length"):
            _ask(llm.model(), store=store)
        assert len(llm.requests) == 1, "no other request shape can fit the context either"
        assert _ask(llm.model(), store=store).dataType == "numbers"
        assert [r.body["response_format"]["type"] for r in llm.requests] == ["json_schema"] * 2
        kept = store.get(NAMESPACE, endpoint_key(llm.model()))
    assert kept is not None and kept.value["strikes"] == {} and kept.value["accepted"] == "json_schema"


def test_a_refusal_that_names_nothing_counts_only_once_another_shape_answered() -> None:
    """A refusal with a bare message proves nothing by itself; the same messages answered in another shape prove
    it was the shape. Refusals of every shape prove nothing about any of them."""
    store = InMemoryStore()
    with ScriptedLLM() as vague:
        vague.on("Intent", HTTPError(400, "bad request"), INTENT)
        _ask(vague.model(), store=store)
        kept = store.get(NAMESPACE, endpoint_key(vague.model()))
        assert kept is not None and kept.value["strikes"] == {"json_schema": 1}
    with ScriptedLLM() as refuses_all:
        refuses_all.on("Intent", HTTPError(400, "bad request"))
        with pytest.raises(StepFailed):
            _ask(refuses_all.model(), store=store)
        assert store.get(NAMESPACE, endpoint_key(refuses_all.model())) is None


def test_an_operator_sees_and_resets_what_paor_remembers_of_an_endpoint() -> None:
    store = InMemoryStore()
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        llm.on("Intent", INTENT)
        for _ in range(2):
            _ask(llm.model(), store=store)
        memory, key = Capabilities(store), endpoint_key(llm.model())
        assert memory.records()[key]["strikes"] == {"json_schema": 2}
        assert memory.reset() == [key]
        assert memory.records() == {} and memory.candidates(key, ("json_schema", "text")) == ["json_schema", "text"]
