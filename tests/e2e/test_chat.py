"""The chat channel end to end in Python: `messages` in and out, rounds, attachments, refusals, what a chat streams.

The same graph the server runs, through the real ChatOpenAI client against the scripted loopback model.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage

from core.context import Context
from core.errors import ModelUnavailable, RequestRefused
from core.processes import free_port
from core.schemas import DocumentRef
from graph.builder import build_graph, make_builder
from nodes.services import Services
from tests.support.chat import captured_run, ui_file_block, ui_message
from tests.support.chat_scenarios import script_chat
from tests.support.scenarios import NOTES, PRIMES_PROMPT, REPORT_PROMPT, script_primes, script_report
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.documents.builders import pdf_bytes
from tools.documents import DocumentStore


@pytest.fixture
def graph(scripted_llm: ScriptedLLM, checkpointer: Any, store: Any) -> Any:
    script_primes(scripted_llm)
    return build_graph(checkpointer=checkpointer, store=store)


def test_a_chat_message_is_the_request_and_the_answer_comes_back_as_one_ai_message(
    graph: Any, context: Context
) -> None:
    out = graph.invoke(ui_message(PRIMES_PROMPT), {"configurable": {"thread_id": "chat-1"}}, context=context)

    assert out["status"] == "completed"
    human, answer = out["messages"]
    assert isinstance(human, HumanMessage) and isinstance(answer, AIMessage)
    assert answer.text.startswith(out["answer"])
    assert "2, 3, 5, 7, 11, 13" in answer.text
    assert "Deliverables:" in answer.text and out["deliverables"][0]["name"] in answer.text
    assert not answer.tool_calls, "the steps are not kept as messages: the history is their record"


def test_a_second_human_message_starts_round_two_with_round_one_in_history(graph: Any, context: Context) -> None:
    config = {"configurable": {"thread_id": "chat-2"}}
    graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)
    out = graph.invoke(ui_message("Now the first 1000 prime numbers again, please"), config, context=context)

    assert out["round"] == 2
    assert {entry["round"] for entry in out["history"]} == {1, 2}
    kinds = [type(m).__name__ for m in out["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "HumanMessage", "AIMessage"]
    assert out["messages"][0].text == PRIMES_PROMPT, "a prompt run shows its request in the chat too"
    assert graph.get_state(config).values["prompt"] == "Now the first 1000 prime numbers again, please"

    # and a prompt starts round three, although the last human message is still there
    out = graph.invoke({"prompt": PRIMES_PROMPT}, config, context=context)
    assert out["round"] == 3 and out["messages"][-2].text == PRIMES_PROMPT


def test_a_base64_pdf_block_becomes_an_input_document_and_leaves_the_message(graph: Any, context: Context) -> None:
    pdf = pdf_bytes("Revenue rose 12 percent in the third quarter.")
    block = ui_file_block(pdf, "../../q3 report.pdf")
    other = pdf_bytes("Revenue fell in the fourth quarter.")
    config = {"configurable": {"thread_id": "chat-3"}}
    out = graph.invoke(ui_message(PRIMES_PROMPT, block, ui_file_block(other, "q3 report.pdf")), config, context=context)

    refs = [DocumentRef.model_validate(d) for d in graph.get_state(config).values["input_documents"]]
    assert [(r.label, r.name, r.mime) for r in refs] == [
        ("input", "q3 report.pdf", "application/pdf"),
        ("input", "q3 report-2.pdf", "application/pdf"),  # both stay addressable
    ]
    store = DocumentStore(context.store_path)
    assert [store.path_of(ref).read_bytes() for ref in refs] == [pdf, other]
    kept = out["messages"][0]
    assert block["data"] not in str(kept.content), "the checkpointed message keeps the name, not the bytes"
    assert "q3 report.pdf" in str(kept.content)


def test_the_pdf_agent_chat_ui_sent_becomes_an_input_document_and_leaves_the_message(
    graph: Any, context: Context, scripted_llm: ScriptedLLM
) -> None:
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": []})
    body = captured_run("agent-chat-ui-pdf.json")
    sent = body["input"]["messages"][0]["content"][1]["data"]
    config = {"configurable": {"thread_id": "chat-ui-pdf"}}
    out = graph.invoke(body["input"], config, context=context)

    (ref,) = [DocumentRef.model_validate(d) for d in graph.get_state(config).values["input_documents"]]
    assert (ref.label, ref.name, ref.mime) == ("input", "bakery.pdf", "application/pdf")
    assert DocumentStore(context.store_path).path_of(ref).read_bytes() == base64.b64decode(sent)
    kept = out["messages"][0]
    assert kept.id == body["input"]["messages"][0]["id"], "the sent message is replaced, not duplicated"
    assert sent[:40] not in str(kept.content) and "bakery.pdf" in str(kept.content)


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (ui_message("   "), "the message is empty"),
        (captured_run("agent-chat-ui-image.json")["input"], "chart.png cannot be read: it is an image (image/png)"),
        (
            ui_message(
                "Summarise this",
                {
                    "type": "file",
                    "base64": base64.b64encode(b"\x00\x01junk").decode(),
                    "mime_type": "application/pdf",
                    "filename": "broken.pdf",
                },
            ),
            "broken.pdf is of an unknown type",
        ),
    ],
)
def test_a_chat_request_that_cannot_start_ends_with_an_ai_message_and_a_readable_error(
    graph: Any, context: Context, scripted_llm: ScriptedLLM, message: dict[str, Any], reason: str
) -> None:
    config = {"configurable": {"thread_id": "chat-refused"}}
    with pytest.raises(RequestRefused, match=re.escape(reason)) as raised:
        graph.invoke(message, config, context=context)
    assert isinstance(raised.value, ValueError), "the server shows only ValueError messages to clients"
    values = graph.get_state(config).values
    assert isinstance(values["messages"][-1], AIMessage) and reason in values["messages"][-1].text
    assert values["status"] == "incomplete" and reason in values["stop_reason"]
    assert not scripted_llm.requests_for("Intent"), "nothing was asked of the model"

    # the thread goes on: the next message is a new round
    out = graph.invoke(ui_message(PRIMES_PROMPT), config, context=context)
    assert out["status"] == "completed" and out["round"] == 2


def test_a_chat_streaming_messages_sees_each_step_as_a_tool_call_and_its_result_then_the_answer(
    graph: Any, context: Context, scripted_llm: ScriptedLLM
) -> None:
    config = {"configurable": {"thread_id": "chat-stream"}}
    seen: list[BaseMessage] = []
    for message, _ in graph.stream(ui_message(PRIMES_PROMPT), config, context=context, stream_mode="messages"):
        seen.append(message)

    calls = [m for m in seen if isinstance(m, AIMessage) and m.tool_calls]
    results = [m for m in seen if isinstance(m, ToolMessage)]
    assert [c.tool_calls[0]["name"] for c in calls] == ["ai_process", "ai_process"]  # two steps in this scenario
    assert [r.tool_call_id for r in results] == [c.tool_calls[0]["id"] for c in calls]
    assert not any(isinstance(m, AIMessageChunk) for m in seen), "protocol JSON and drafts are not chat text"
    assert isinstance(seen[-1], AIMessage) and "2, 3, 5, 7, 11, 13" in seen[-1].text
    kept = graph.get_state(config).values["messages"]
    assert len(kept) == 2, "the steps were streamed, not written into the checkpoints"
    # what nobody sees is asked for whole: no protocol answer comes through OpenAI's beta streaming (a server no
    # longer loads its 700 modules at start); the deliverable's text still streams
    protocol = [r for r in scripted_llm.requests if r.route != "text"]
    assert protocol and not any(r.body.get("stream") for r in protocol), [r.route for r in protocol]
    assert all(r.body.get("stream") for r in scripted_llm.requests_for("text"))


def test_what_a_chat_user_sees_of_a_three_step_run(
    scripted_llm: ScriptedLLM, checkpointer: Any, store: Any, context: Context
) -> None:
    """The document comes as a chat attachment; the chat sees each step start and end, then the answer."""
    script_report(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    request = ui_message(REPORT_PROMPT, ui_file_block(NOTES.encode(), "notes.txt", "text/plain"))
    config = {"configurable": {"thread_id": "chat-three-steps"}}
    seen = [m for m, _ in graph.stream(request, config, context=context, stream_mode="messages")]

    shown = [
        f"call {m.tool_calls[0]['name']}"
        if isinstance(m, AIMessage) and m.tool_calls
        else f"result {m.name} {m.status}"
        if isinstance(m, ToolMessage)
        else type(m).__name__
        for m in seen
    ]
    assert shown == [
        "AIMessage",  # the first sign of life: what paor understood, right after the intent call
        "call document_extract",
        "result document_extract success",
        "call ai_process",
        "result ai_process success",
        "call document_generate_report",
        "result document_generate_report success",
        "AIMessage",
    ]
    assert seen[0].text == (
        "Working on it. I understood: a report, as a Word document, in German. Done when: summarises the document; "
        "written in German; delivered as a Word document."
    )
    assert seen[2].content, "each result carries the step's summary"
    final = graph.get_state(config).values
    assert final["status"] == "completed" and len(final["history"]) == 3
    assert seen[-1] == final["messages"][-1] and ".docx" in seen[-1].text
    assert [type(m).__name__ for m in final["messages"]] == ["HumanMessage", "AIMessage"]


def test_with_the_model_endpoint_down_a_server_round_stops_with_a_message_and_goes_on_when_sent_again(
    scripted_llm: ScriptedLLM, checkpointer: Any, store: Any, context: Context
) -> None:
    """As the server builds it (failure messages on): an AI message says what stopped, without the operator's address;
    the run fails with that line; the message sent again once the endpoint is back goes on with the same round."""
    script_chat(scripted_llm)
    graph = make_builder(Services(failure_messages=True)).compile(checkpointer=checkpointer, store=store)
    down = Context(**{**context.__dict__, "base_url": f"http://127.0.0.1:{free_port()}/v1"})
    body = captured_run("agent-chat-ui-pdf.json")
    config = {"configurable": {"thread_id": "chat-endpoint-down"}}

    with pytest.raises(ModelUnavailable, match=r"^the model endpoint refused the connection") as raised:
        graph.invoke(body["input"], config, context=down)
    assert isinstance(raised.value, ValueError), "the server shows only ValueError messages to clients"
    assert "127.0.0.1" not in str(raised.value), "the operator's network stays private"
    human, answer = graph.get_state(config).values["messages"]
    assert human.id == body["input"]["messages"][0]["id"]
    assert isinstance(answer, AIMessage)
    assert answer.text.startswith("I could not finish this request: the model endpoint refused the connection")
    assert "Send the message again once it is back" in answer.text and "127.0.0.1" not in answer.text

    again = {**body["input"]["messages"][0], "id": "sent-again"}  # the UI sends the same message anew
    out = graph.invoke({"messages": [again]}, config, context=context)
    assert out["status"] == "completed" and out["round"] == 1, "the stopped round goes on; no second round"
    kinds = [type(m).__name__ for m in out["messages"]]
    assert kinds == ["HumanMessage", "AIMessage"] and out["messages"][0].id == human.id


def test_a_chat_sees_what_paor_understood_then_the_answer_streamed_into_one_message(
    scripted_llm: ScriptedLLM, checkpointer: Any, store: Any, context: Context
) -> None:
    scripted_llm.on("text", "Twelve times eleven is 132.")
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "chat-streamed"}}
    seen: list[tuple[BaseMessage, list[str]]] = []
    for message, _ in graph.stream(
        ui_message("What is 12 multiplied by 11?"), config, context=context, stream_mode="messages"
    ):
        seen.append((message, [r.route for r in scripted_llm.requests]))

    first, asked = seen[0]
    assert asked == [], "the first sign of life comes before any model call (code read this request)"
    done_when = "Done when: the deliverable answers the request."
    understood = f"Working on it. I understood: an answer, as Markdown, in English. {done_when}"
    assert first.text == understood
    chunks = [m for m, _ in seen if isinstance(m, AIMessageChunk)]
    assert len(chunks) >= 4 and "".join(c.text for c in chunks) == "Twelve times eleven is 132."
    assert len({c.id for c in chunks}) == 1
    again = [m for m, _ in seen if type(m) is AIMessage and "Twelve times" in m.text]
    assert not again, "the streamed answer is not sent a second time"

    human, answer = graph.get_state(config).values["messages"]
    assert isinstance(human, HumanMessage)
    assert answer.id == chunks[0].id, "the answer takes the streamed message's place: a chat shows one message"
    assert answer.text == "Twelve times eleven is 132."  # the answer only, as the bare model's


def test_an_extraction_that_answered_the_request_delivers_its_analysis_as_the_answer(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    """ "Summarise the attached price list" answered with the PDF's extracted text, the summary only in analysis.md
    (seen in the real Agent Chat UI): the analysis is the answer, the extracted text its source."""
    from tests.support.chat_scenarios import PRICE_LIST

    script_chat(scripted_llm)
    graph = build_graph(checkpointer=checkpointer, store=store)
    pdf = pdf_bytes("Bakery prices. Rye bread 3.20 EUR. Butter croissant 1.40 EUR.")
    config = {"configurable": {"thread_id": "price-list"}}
    out = graph.invoke(ui_message(PRICE_LIST, ui_file_block(pdf, "bakery.pdf")), config, context=context)
    assert [d["name"] for d in out["deliverables"]][-1] == "analysis.md"
    assert out["answer"] == "The bakery's price list has 2 items: rye bread 3.20 EUR, butter croissant 1.40 EUR."
