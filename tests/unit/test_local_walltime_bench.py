"""bench.local_walltime without a model: what the baseline sends llama-cpp-python's server, and how an answer's
total is judged."""

from __future__ import annotations

import json

import httpx
import pytest

from bench.local_walltime import POPULATION, Run, StringContent


def test_a_tool_call_without_text_reaches_the_server_with_empty_content_not_null() -> None:
    """llama-cpp-python's server answers HTTP 500 to `"content": null`, which LangChain sends for a tool call."""
    seen: list[dict] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={})

    messages = [
        {"role": "user", "content": "Look up Paris"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function"}]},
        {"role": "tool", "content": "Paris: 2,102,650 inhabitants", "tool_call_id": "1"},
    ]
    with httpx.Client(transport=StringContent(httpx.MockTransport(server))) as client:
        client.post("http://127.0.0.1:1/v1/chat/completions", json={"messages": messages})
    assert [m["content"] for m in seen[0]["messages"]] == ["Look up Paris", "", "Paris: 2,102,650 inhabitants"]


@pytest.mark.parametrize(
    ("answer", "right"),
    [("The total is 13,950,415.", True), ("13 950 415 people", True), ("13950415", True), ("1,395,041", False)],
)
def test_the_total_counts_with_or_without_thousands_separators(answer: str, right: bool) -> None:
    assert sum(POPULATION.values()) == 13_950_415
    assert Run("paor", 1.0, 5, 6, 100, "completed", answer).correct is right
