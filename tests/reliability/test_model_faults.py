"""Model endpoint faults through the real ChatOpenAI client: every run recovers or stops with a reason."""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import openai
import pytest

from graph.context import Context
from tests.reliability.conftest import DIRECT_SELECTION, error, invoke, script_direct
from tests.support import deadlines
from tests.support.scenarios import DATA_PROMPT
from tests.support.scripted_llm import HTTPError, RecordedRequest, ScriptedLLM

REFUSAL = "I'm sorry, I can't help with that."


def summaries(out: dict[str, Any]) -> list[str]:
    return [h["summary"] for h in out["history"]]


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_after_client_retries_fail_the_step_and_the_run_stops_with_a_reason(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, status: int
) -> None:
    script_direct(scripted_llm, ActionSelection=[error(status, "upstream broke")])
    out = invoke(graph, rctx, f"http-{status}")
    assert out["status"] == "incomplete"
    assert out["stop_reason"] == "no progress in the last 3 steps"
    assert (
        summaries(out)
        == [f"selection failed: the model endpoint answered HTTP {status} after the client's retries"] * 3
    )
    # max_retries=1: a call with a method the endpoint is known to accept is tried twice. A 500 also walks the
    # structured-output fallbacks, each method not yet known to work probed once without client retries, then plain
    # text with retries. "upstream broke" names no feature and no other shape ever answers, so no refusal counts
    # against a method (issue 45: an outage, like a client's oversized prompt, must not turn the endpoint into
    # plain text for everyone, for good): every step walks them all, json_schema still trusted from the intent call.
    expected = (2 + 4 + 2) * 3 if status == 500 else 2 * 3
    assert len(scripted_llm.requests_for("ActionSelection")) == expected
    assert scripted_llm.requests_for("text") == []  # no tool ran on a failed selection


def test_server_error_once_then_success_recovers_within_the_same_step(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(scripted_llm, ActionSelection=[error(503), DIRECT_SELECTION])
    out = invoke(graph, rctx, "503-once")
    assert out["status"] == "completed"
    assert [h["step"] for h in out["history"]] == [1]


def test_rate_limit_with_retry_after_is_waited_out_and_the_run_completes(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(
        scripted_llm, ActionSelection=[HTTPError(429, "slow down", {"Retry-After": "0.01"}), DIRECT_SELECTION]
    )
    out = invoke(graph, rctx, "429")
    assert out["status"] == "completed" and "criteria met" in out["stop_reason"]
    assert len(scripted_llm.requests_for("ActionSelection")) == 2  # the client retried; paor saw one success
    assert len(out["history"]) == 1 and out["history"][0]["success"]


def test_rate_limit_outlasting_the_retries_is_a_failed_step_with_the_status(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(scripted_llm, ActionSelection=[error(429), error(429), DIRECT_SELECTION])
    out = invoke(graph, rctx, "429-twice")
    assert out["status"] == "completed"
    assert out["history"][0]["summary"].endswith("HTTP 429 after the client's retries")
    assert [h["step"] for h in out["history"]] == [1, 2]


def test_connection_refused_is_a_typed_error_and_the_thread_resumes_once_the_endpoint_is_back(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, unused_port: int
) -> None:
    script_direct(scripted_llm)
    config = {"configurable": {"thread_id": "refused"}}
    closed = Context(**{**rctx.__dict__, "base_url": f"http://127.0.0.1:{unused_port}/v1"})
    with pytest.raises(openai.APIConnectionError):
        graph.invoke({"prompt": "Calculate the first 1000 prime numbers"}, config, context=closed)
    assert graph.get_state(config).next == ("intent",)  # nothing lost: the input is checkpointed

    out = graph.invoke(None, config, context=rctx)
    assert out["status"] == "completed"
    assert len(scripted_llm.requests_for("Intent")) == 1


def test_cli_reports_an_unreachable_endpoint_in_one_line_with_exit_2(
    unused_port: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAOR_MAX_RETRIES", "0")
    result = CliRunner().invoke(
        app, ["run", "Calculate the first 1000 prime numbers", "--base-url", f"http://127.0.0.1:{unused_port}/v1"]
    )
    assert result.exit_code == 2, result.output
    assert "cannot reach the model endpoint" in result.stderr
    assert "Traceback" not in result.output


def test_read_timeout_fails_the_step_and_the_next_step_recovers(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    answered_late = threading.Event()

    def slow(request: RecordedRequest) -> dict[str, Any]:
        answered_late.wait(deadlines.PROCESS_S)  # held until the run is over: it cannot beat the timeout
        return DIRECT_SELECTION

    script_direct(scripted_llm, ActionSelection=[slow, slow, DIRECT_SELECTION])
    rctx.request_timeout_s = 2.0  # every call of the run has this long; only the held ones need it to run out
    try:
        out = invoke(graph, rctx, "timeout")
    finally:
        answered_late.set()
    assert out["status"] == "completed"
    assert out["history"][0]["summary"].startswith("selection failed: the model call timed out")
    assert [h["step"] for h in out["history"]] == [1, 2]


@pytest.mark.parametrize(
    "answer, reason",
    [
        ("{not json at all", "is not a JSON object"),
        (REFUSAL, "is not a JSON object"),
        (json.dumps({"foo": [1, 2]}), "action: Field required"),
        (json.dumps({**DIRECT_SELECTION, "action": "shell.exec"}), "action"),
        (json.dumps([DIRECT_SELECTION]), "is not a JSON object"),
        ("", "is not a JSON object"),
    ],
    ids=["malformed", "refusal", "wrong-shape", "unknown-action", "json-array", "empty-content"],
)
def test_unusable_answers_are_retried_once_then_fail_the_step_visibly(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, answer: str, reason: str
) -> None:
    script_direct(scripted_llm, ActionSelection=[answer, answer, DIRECT_SELECTION])
    out = invoke(graph, rctx, "bad-answer")
    assert out["status"] == "completed"  # step 2 gets a good answer
    first = out["history"][0]
    assert first["summary"].startswith("selection failed: Stage 1 selection failed twice")
    assert reason in first["summary"]
    retry = scripted_llm.requests_for("ActionSelection")[1]
    assert "Your answer was rejected" in retry.last_user  # the retry told the model why


def test_refusal_on_every_call_stops_the_run_with_a_reason_and_no_tool_call(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(scripted_llm, Intent=[REFUSAL], ActionSelection=[REFUSAL])
    out = invoke(graph, rctx, "refusals")
    assert out["status"] == "incomplete"
    assert out["stop_reason"] == "no progress in the last 3 steps"
    assert out["answer"] == "" and "No answer was produced" in out["messages"][-1].text
    assert scripted_llm.requests_for("text") == []


def test_a_runaway_answer_is_cut_at_max_tokens_and_retried_once_then_the_run_stops(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    runaway = "{" + '"a": "' + "x" * 200_000 + '"}'
    script_direct(scripted_llm, ActionSelection=[runaway])
    out = invoke(graph, rctx, "runaway")
    assert out["status"] == "incomplete"
    steps = len(out["history"])
    reason = "the answer was cut off at 768 tokens; answer with a shorter JSON object"
    assert summaries(out) == [f"selection failed: Stage 1 selection failed twice; last reason: {reason}"] * steps
    requests = scripted_llm.requests_for("ActionSelection")
    assert all(r.body["max_completion_tokens"] == 768 for r in requests)
    # Each step: the answer, then exactly one retry that tells the model why it was rejected.
    assert [f"Your answer was rejected: {reason}" in r.text for r in requests] == [False, True] * steps


def test_extremely_long_output_from_a_server_ignoring_max_tokens_is_rejected_not_repaired(
    rctx: Context, graph: Any
) -> None:
    runaway = "{" + '"a": "' + "x" * 200_000 + '"}'
    with ScriptedLLM(obey_max_tokens=False) as llm:
        script_direct(llm, ActionSelection=[runaway])
        out = invoke(graph, replace(rctx, base_url=llm.base_url), "runaway")
        requests = llm.requests_for("ActionSelection")
    assert out["status"] == "incomplete"  # the runaway answers spend the token budget, or three steps fail
    steps = len(out["history"])
    reason = f"the answer has {len(runaway)} characters; answer with the JSON object only"
    assert summaries(out) == [f"selection failed: Stage 1 selection failed twice; last reason: {reason}"] * steps
    assert [f"Your answer was rejected: {reason}" in r.text for r in requests] == [False, True] * steps


@pytest.mark.parametrize("nested", ["[" * 50_000, '{"a":' * 15_000, '{"a": ' * 5_000 + "1" + "}" * 5_000])
def test_absurdly_deep_json_is_rejected_and_retried_once_not_a_recursion_error(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, nested: str
) -> None:
    scripted_llm.obey_max_tokens = False  # the nesting must reach the parser whole, not be cut at max_tokens
    script_direct(scripted_llm, ActionSelection=[nested, nested, DIRECT_SELECTION])
    out = invoke(graph, rctx, "nested")
    assert out["status"] == "completed"
    failed = out["history"][0]
    assert failed["outcome"] == "failed"
    reason = "the answer is not a JSON object"
    assert failed["summary"].startswith(f"selection failed: Stage 1 selection failed twice; last reason: {reason}")
    retried = [f"Your answer was rejected: {reason}" in r.text for r in scripted_llm.requests_for("ActionSelection")]
    assert retried == [False, True, False]


@pytest.mark.parametrize(
    "body, headers",
    [
        ("", {}),
        ('{"id": "chatcmpl-1", "choices": [{"index": 0, "mess', {"Content-Type": "application/json"}),
        ("", {"Content-Type": "application/json"}),
        ('{"foo": 1}', {}),
    ],
    ids=["empty-text", "truncated-json", "empty-json", "json-without-choices"],
)
def test_truncated_or_empty_200_bodies_fail_the_step_instead_of_crashing_the_run(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, body: str, headers: dict[str, str]
) -> None:
    script_direct(scripted_llm, ActionSelection=[HTTPError(200, body, headers), DIRECT_SELECTION])
    out = invoke(graph, rctx, "truncated")
    assert out["status"] == "completed"
    failed, recovered = out["history"]
    assert failed["outcome"] == "failed" and recovered["outcome"] == "met"
    assert failed["summary"].startswith("selection failed: the model endpoint sent a malformed response (")
    # A broken 200 is not an answer to correct: the step fails at once and the next step asks afresh.
    assert len(scripted_llm.requests_for("ActionSelection")) == 2


def test_faults_inside_the_tool_model_call_are_failed_results(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    attempt = itertools.count(1)

    def fresh_parameters(request: RecordedRequest) -> dict[str, Any]:  # a new approach each step
        return {"schema": "parameters_v1", "parameters": {"aiPrompt": f"{DATA_PROMPT} (attempt {next(attempt)})"}}

    script_direct(
        scripted_llm, ParametersAnswer=[fresh_parameters], text=[error(503), error(503), HTTPError(200, ""), ""]
    )
    out = invoke(graph, rctx, "tool-llm-faults")
    assert out["status"] == "incomplete" and out["stop_reason"] == "no progress in the last 3 steps"
    findings = [" ".join(h["findings"]) for h in out["history"]]
    assert "503" in findings[0]
    assert "Unexpected response type" in findings[1]  # a malformed body inside a tool is a failed result
    assert "empty answer" in findings[2]
    assert all(h["outcome"] == "failed" for h in out["history"])


def test_faults_in_intent_and_judgement_degrade_to_rules(scripted_llm: ScriptedLLM, rctx: Context, graph: Any) -> None:
    script_direct(scripted_llm, Intent=[error(503)], ContentJudgement=[error(503)])
    out = invoke(graph, rctx, "degraded")
    assert out["status"] == "completed"  # the deterministic hints and checks carry the run
    assert out["history"][0]["success"]


def test_a_fault_storm_never_raises_and_every_step_is_recorded(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    storm = [error(503), "{broken", REFUSAL, error(429), json.dumps({"x": 1}), "x" * 120_000, DIRECT_SELECTION]
    script_direct(scripted_llm, ActionSelection=storm)
    rctx.max_steps = 10
    out = invoke(graph, rctx, "storm")
    assert out["status"] in ("completed", "incomplete")
    assert out["stop_reason"]
    assert [h["step"] for h in out["history"]] == list(range(1, len(out["history"]) + 1))
