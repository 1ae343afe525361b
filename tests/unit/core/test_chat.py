"""Reading chat messages: which message is the request, what its blocks become, what the answer message says."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from core.schemas import Intent
from nodes.attachments import chat_request
from nodes.chat import UNDERSTOOD_PREFIX, answer_message, closing_messages, understood_message


def _state(*messages: Any, taken: str | None = None) -> Any:
    return {"prompt": "an older prompt", "messages": list(messages), "request_message": taken}


def test_the_newest_untaken_human_message_is_the_request_and_a_taken_one_is_not() -> None:
    first = HumanMessage(content="first", id="h1")
    second = HumanMessage(content=[{"type": "text", "text": "second"}, {"type": "text", "text": "part"}], id="h2")
    answer = AIMessage(content="done", id="a1")

    request = chat_request(_state(first, answer, second, taken="h1"))
    assert request is not None and request.text == "second\npart" and request.message.id == "h2"
    assert chat_request(_state(first, answer, second, taken="h2")) is None, "then `prompt` is the request"
    assert chat_request(_state()) is None


def test_the_answer_message_links_each_deliverable() -> None:
    served = answer_message("The answer.", [{"name": "r.md", "url": "/paor/threads/t/documents/l/r.md"}])
    local = answer_message("The answer.", [{"name": "r.md"}])
    assert served.text == "The answer.\n\nDeliverables:\n- [r.md](/paor/threads/t/documents/l/r.md)"
    assert local.text.endswith("- r.md") and answer_message("Only text.", []).text == "Only text."
    assert served.id and served.id != local.id


def test_the_closing_message_replaces_the_streamed_draft_and_removes_what_was_understood() -> None:
    earlier = [HumanMessage(content="old", id="h0"), AIMessage(content="old answer", id="a0")]
    round_ = [
        HumanMessage(content="What is 12 × 11?", id="h1"),
        AIMessage(content="Working on it", id=f"{UNDERSTOOD_PREFIX}1"),
        AIMessage(content="132", id="lc_run--d"),
    ]
    closing = closing_messages(_state(*earlier, *round_, taken="h1"), lambda draft: AIMessage("132!", id=draft))
    assert [(type(m).__name__, m.id) for m in closing] == [
        ("RemoveMessage", f"{UNDERSTOOD_PREFIX}1"),
        ("AIMessage", "lc_run--d"),
    ], "the previous round's answer stays"

    unstreamed = closing_messages(_state(*round_[:2], taken="h1"), lambda draft: AIMessage("x", id=draft or "new"))
    assert [m.id for m in unstreamed] == [f"{UNDERSTOOD_PREFIX}1", "new"]


@pytest.mark.parametrize(
    ("intent", "said"),
    [
        (
            {"dataType": "numbers", "expectedFormat": "raw_data", "itemCount": 1000, "numberProperty": "prime"},
            "1000 prime numbers, as plain data, in English",
        ),
        (
            {"dataType": "list", "expectedFormat": "markdown", "itemCount": 10, "numberProperty": "prime"},
            "a list of 10 prime numbers, as Markdown, in English",
        ),
        (
            {"dataType": "table", "expectedFormat": "xlsx", "itemCount": 5},
            "a table of 5 items, as an Excel sheet, in English",
        ),
        ({"dataType": "report", "expectedFormat": "docx", "language": "de"}, "a report, as a Word document, in German"),
    ],
)
def test_what_paor_understood_reads_as_a_sentence(intent: dict[str, Any], said: str) -> None:
    message = understood_message(Intent.model_validate({"successCriteria": ["it is right"], **intent}))
    assert message.text == f"Working on it. I understood: {said}. Done when: it is right."
    assert str(message.id).startswith(UNDERSTOOD_PREFIX)
