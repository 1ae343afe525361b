"""The side-by-side benchmark's own parts, without a model: the judges, the request recorder, the reused prefix,
the summary and the docs section (bench.heldout, bench.recording, bench.side_by_side)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_openai import ChatOpenAI

from bench.heldout import HELD_OUT, numbers
from bench.models import PROMPTS
from bench.recording import Exchange, Recorder, common_prefix, prompt_text, reported_prompt_tokens
from bench.side_by_side import BARE, PAOR, Outcome, record, recorded, summary, verdicts, write_section
from core.context import Context
from core.llm import chat_openai

JUDGE = {p.kind: p.judge for p in HELD_OUT}


def test_the_held_out_prompts_are_six_and_not_among_the_tuned_ones() -> None:
    assert [p.kind for p in HELD_OUT] == ["translation", "primes", "arithmetic", "colours", "sentence", "conversion"]
    assert not {p.text for p in HELD_OUT} & {p.text for p in PROMPTS}


@pytest.mark.parametrize(
    ("kind", "answer", "correct"),
    [
        ("translation", "'Good night' in Spanish is **Buenas noches**.", True),
        ("translation", "Buenos días", False),
        ("primes", "The first 5 prime numbers are 2, 3, 5, 7 and 11.", True),
        ("primes", "1. 2\n2. 3\n3. 5\n4. 7\n5. 11", True),  # list markers are not numbers of the answer
        ("primes", "2, 3, 5, 7, 11, 13", False),
        ("primes", "1, 2, 3, 5, 7", False),
        ("arithmetic", "12 × 11 = 132", True),
        ("arithmetic", "12 times 11 is 121.", False),
        ("colours", "Red, yellow and blue.", True),
        ("colours", "For light they are red, green and blue.", True),
        ("colours", "Red, orange and blue.", False),
        ("colours", "- Red\n- Orange\n- Blue, as yellow is mixed", False),  # a list: its items count
        ("colours", "1. Red - cannot be mixed\n2. Blue - often with white in art\n3. Yellow - warm", True),
        ("colours", "Red and blue.", False),
        ("sentence", "The sea glitters under the morning sun.", True),
        ("sentence", "Waves roll in. The ocean is deep.", True),
        ("sentence", "To achieve the task, I must ensure that all necessary steps are carried out.", False),
        ("sentence", "The sea is vast. It is blue. It is deep.", False),  # three sentences
        ("conversion", "3 km is 3,000 metres.", True),
        ("conversion", "3 km = 3000 m", True),
        ("conversion", "That is 3 000 m.", True),
        ("conversion", "3 km is 300 metres.", False),
    ],
)
def test_each_held_out_answer_is_judged_by_its_content(kind: str, answer: str, correct: bool) -> None:
    assert JUDGE[kind](answer) is correct


def test_numbers_understand_thousands_separators_and_decimals_but_not_lists() -> None:
    assert numbers("3,000 m or 3 000 m or 3000.0 m; 2, 3, 5") == [3000, 3000, 3000, 2, 3, 5]


def test_the_reused_prefix_is_the_longest_common_token_prefix() -> None:
    assert common_prefix([1, 2, 3, 4], [1, 2, 9]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([1, 2, 3], [1, 9, 3]) == 1  # a later match after a difference is not reused
    assert common_prefix([], [1]) == 0 and common_prefix([5], [6]) == 0
    assert Exchange("s", [1, 2, 3, 4], reused=3).reused_share == 0.75
    assert Exchange("s", [], reused=0).reused_share == 0.0


def test_the_prompt_text_keeps_the_order_a_chat_template_gives_it() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "static rules"},
            {"role": "user", "content": [{"type": "text", "text": "the request"}]},
            {"role": "assistant", "content": None, "tool_calls": [{"function": {"arguments": '{"x": 1}'}}]},
        ],
        "response_format": {"type": "json_object", "schema": {"title": "NotPromptText"}},
    }
    text = prompt_text(body)
    assert text.index("static rules") < text.index("the request") < text.index('{"x": 1}')
    assert "NotPromptText" not in text  # llama.cpp turns the schema into a grammar, not prompt text


def test_reported_prompt_tokens_come_from_json_or_the_stream_usage_chunk() -> None:
    assert reported_prompt_tokens(json.dumps({"usage": {"prompt_tokens": 42}}).encode()) == 42
    stream = 'data: {"choices": []}\n\ndata: {"choices": [], "usage": {"prompt_tokens": 7}}\n\ndata: [DONE]\n\n'
    assert reported_prompt_tokens(stream.encode()) == 7
    assert reported_prompt_tokens(b'{"choices": []}') is None


def _answer(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    tokens = len(body["messages"]) * 10
    return httpx.Response(
        200,
        json={
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": tokens, "completion_tokens": 1, "total_tokens": tokens + 1},
        },
    )


def test_the_recorder_sees_every_request_of_a_real_chat_openai_in_order() -> None:
    recorder = Recorder(system="a")
    client = recorder.client(httpx.MockTransport(_answer))
    llm = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=client)
    llm.invoke([("system", "the same long static instructions " * 20), ("user", "first")])
    recorder.system = "b"
    llm.invoke([("system", "the same long static instructions " * 20), ("user", "second")])
    first, second = recorder.exchanges
    assert (first.system, second.system) == ("a", "b") and recorder.of("b") == [second]
    assert first.prompt_tokens == second.prompt_tokens == 20  # the endpoint's own count
    assert first.reused == 0
    assert 0.9 < second.reused_share < 1.0  # everything up to the user message


def test_recorded_keeps_every_setting_paor_gives_its_model() -> None:
    context = Context(model="m", base_url="http://127.0.0.1:9/v1", temperature=0.3, max_retries=1, request_timeout_s=7)
    original = chat_openai(context)
    copy = recorded(original, Recorder())
    for name in ("model_name", "openai_api_base", "temperature", "max_retries", "request_timeout", "stream_usage"):
        assert getattr(copy, name) == getattr(original, name), name
    assert copy.tags == original.tags and copy.http_client is not None


def _outcome(system: str, kind: str, answer: str, seconds: float, requests: int) -> Outcome:
    prompt = next(p for p in HELD_OUT if p.kind == kind)
    return Outcome(system, prompt, answer, seconds, [Exchange(system, [1, 2], 100, 1)] * requests)


def test_the_summary_compares_correct_counts_median_times_and_requests() -> None:
    outcomes = [
        _outcome(PAOR, "arithmetic", "132", 3.0, 2),
        _outcome(BARE, "arithmetic", "132", 1.0, 1),
        _outcome(PAOR, "conversion", "To achieve the task", 5.0, 3),
        _outcome(BARE, "conversion", "3000 m", 2.0, 1),
    ]
    totals: dict[str, Any] = summary(outcomes)
    assert totals[PAOR]["correct"] == 1 and totals[BARE]["correct"] == 2
    assert totals[PAOR]["median_s"] == 4.0 and totals[BARE]["median_s"] == 1.5
    assert totals[PAOR]["median_requests"] == 2.5
    lines = verdicts(outcomes)
    assert "paor 1/2" in lines[0] and "NOT MET" in lines[0]
    assert "ratio 2.7×" in lines[1] and "→ MET" in lines[1]


def test_the_record_keeps_the_whole_answer_and_every_figure() -> None:
    outcome = _outcome(PAOR, "conversion", "3 km is 3,000 metres. " * 20, 2.5, 2)
    saved = json.loads(json.dumps(record(outcome)))
    assert saved["answer"] == outcome.answer and saved["correct"] is True
    assert saved["prompt_tokens"] == [100, 100] and saved["reused_share"] == [0.5, 0.5]


def test_a_measurement_replaces_its_own_section_of_the_docs_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Benchmarks\n\nIntro.\n", encoding="utf-8")
    write_section(page, "Model-A", "### Model-A\nfirst")
    write_section(page, "Model-B", "### Model-B\nother")
    write_section(page, "Model-A", "### Model-A\nsecond")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\nIntro.\n")
    assert "second" in text and "first" not in text and "other" in text
    assert text.index("Model-A\nsecond") < text.index("Model-B")  # replaced in place
