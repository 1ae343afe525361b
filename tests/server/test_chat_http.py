"""Chat front ends on the real `langgraph dev`: the request Agent Chat UI (any `useStream` app) sends, and A2A.

One server serves the module; the model is the scripted loopback server of this process, configured through the
server's environment only, because a chat front end sends no context.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core.processes import free_port
from tests.support import deadlines
from tests.support.chat import captured_run, ui_file_block, ui_message
from tests.support.chat_scenarios import PRODUCT, PRODUCT_ANSWER, script_chat
from tests.support.langgraph_dev import langgraph_dev, scripted_env, scripted_langgraph_dev
from tests.support.scenarios import PRIMES_PROMPT
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip(
    "langgraph_sdk", reason="the server extra is not installed: pip install -e '.[server]'"
)
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

ASSISTANT = "paor"
#: What Agent Chat UI sends for a typed message (its `useStream` submit), apart from the text.
UI_STREAM_MODES = ["values", "messages-tuple", "custom"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with scripted_langgraph_dev(tmp_path_factory.mktemp("chat"), script_chat) as url:
        yield url


@pytest.fixture(scope="module")
def client(server: str) -> Any:
    return langgraph_sdk.get_sync_client(url=server, api_key=None, timeout=deadlines.HTTP_S)


def stream_like_the_ui(client: Any, thread: str, request: dict[str, Any]) -> list[Any]:
    return list(
        client.runs.stream(
            thread,
            ASSISTANT,
            input=request,
            stream_mode=UI_STREAM_MODES,
            stream_subgraphs=True,
            stream_resumable=True,
            on_disconnect="continue",
        )
    )


@pytest.fixture(scope="module")
def first_round(client: Any) -> tuple[str, list[Any]]:
    thread = client.threads.create()["thread_id"]
    return thread, stream_like_the_ui(client, thread, ui_message(PRIMES_PROMPT))


def test_the_agent_chat_ui_request_completes_with_the_answer_as_the_last_message(
    first_round: tuple[str, list[Any]],
) -> None:
    thread, parts = first_round
    assert not [p.data for p in parts if p.event == "error"]
    final = [p.data for p in parts if p.event == "values"][-1]
    assert final["status"] == "completed"
    human, answer = final["messages"]
    assert human["type"] == "human" and human["content"][0]["text"] == PRIMES_PROMPT
    assert answer["type"] == "ai" and answer["content"].startswith(final["answer"])
    url = final["deliverables"][0]["url"]
    assert f"/paor/threads/{thread}/documents/" in url and f"]({url})" in answer["content"]


def test_messages_tuple_streams_the_steps_and_then_the_answer(first_round: tuple[str, list[Any]]) -> None:
    _, parts = first_round
    streamed = [p.data[0] for p in parts if p.event == "messages"]
    final = [p.data for p in parts if p.event == "values"][-1]
    assert streamed[-1] == final["messages"][-1]
    calls = [m for m in streamed if m["type"] == "ai" and m.get("tool_calls")]
    results = [m for m in streamed if m["type"] == "tool"]
    assert len(calls) == len(results) == len(final["history"]) == 2
    assert all(m["type"] != "AIMessageChunk" for m in streamed), "no protocol JSON is streamed to the chat"
    assert [p.data["node"] for p in parts if p.event == "custom"][-1] == "finalize"


def test_a_direct_answer_streams_token_by_token_into_the_message_that_stays(client: Any) -> None:
    thread = client.threads.create()["thread_id"]
    parts = stream_like_the_ui(client, thread, ui_message(PRODUCT))
    streamed = [p.data[0] for p in parts if p.event == "messages"]

    assert streamed[0]["type"] == "ai" and streamed[0]["content"].startswith(
        "Working on it. I understood: an answer"
    ), "first sign"
    chunks = [m for m in streamed if m["type"] == "AIMessageChunk"]
    assert len(chunks) >= 8 and "".join(c["content"] for c in chunks) == PRODUCT_ANSWER
    assert {c["id"] for c in chunks} == {chunks[0]["id"]}
    assert not [m for m in streamed if m["type"] == "ai" and PRODUCT_ANSWER in m["content"]], "sent once"
    final = [p.data for p in parts if p.event == "values"][-1]
    assert [m["type"] for m in final["messages"]] == ["human", "ai"]
    assert final["messages"][-1]["id"] == chunks[0]["id"] and final["messages"][-1]["content"].startswith(
        PRODUCT_ANSWER
    )


def test_a_second_human_message_starts_round_two_with_round_one_in_history(
    client: Any, first_round: tuple[str, list[Any]]
) -> None:
    thread, _ = first_round
    parts = stream_like_the_ui(client, thread, ui_message("The first 1000 prime numbers once more"))
    final = [p.data for p in parts if p.event == "values"][-1]
    assert final["round"] == 2 and {h["round"] for h in final["history"]} == {1, 2}
    assert [m["type"] for m in final["messages"]] == ["human", "ai", "human", "ai"]


def send_as_the_ui(server: str, thread: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """POST a request body exactly as Agent Chat UI sent it and read the server-sent events."""
    events: list[tuple[str, Any]] = []
    with httpx.stream(
        "POST", f"{server}/threads/{thread}/runs/stream", json=body, timeout=deadlines.HTTP_S
    ) as response:
        assert response.status_code == 200, response.read()
        event = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                events.append((event, json.loads(line[len("data: ") :])))
    return events


def test_the_pdf_agent_chat_ui_sent_becomes_an_input_document(server: str, client: Any) -> None:
    body = captured_run("agent-chat-ui-pdf.json")
    sent = body["input"]["messages"][0]["content"][1]["data"]
    thread = client.threads.create()["thread_id"]
    events = send_as_the_ui(server, thread, body)
    assert not [data for event, data in events if event == "error"]
    values = client.threads.get_state(thread)["values"]
    assert [(d["label"], d["name"]) for d in values["input_documents"]] == [("input", "bakery.pdf")]
    assert sent[:40] not in str(values["messages"]), "the checkpointed message keeps the name, not the bytes"
    download = httpx.get(f"{server}/paor/threads/{thread}/documents/input/bakery.pdf", timeout=deadlines.HTTP_S)
    assert download.status_code == 200 and download.content == base64.b64decode(sent)


def _megabyte_pdf() -> bytes:
    """A real PDF of about 1 MB: a page of text and an incompressible embedded file."""
    from pypdf import PdfReader, PdfWriter

    from tests.unit.documents.builders import pdf_bytes

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes("Bakery sales rose in May."))))
    writer.add_attachment("pad.bin", os.urandom(1024 * 1024))
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def test_an_attached_pdf_leaves_no_bytes_in_the_threads_history(server: str, client: Any) -> None:
    """Issue 31, item 3: Agent Chat UI's `POST /threads/{id}/history {"limit": 10}` downloaded a 1 MB attachment
    twice when it opened the thread; the server now takes it out of the run request, as an upload of the thread.
    Every checkpoint of the run is asked for (2.9 MB before)."""
    pdf = _megabyte_pdf()
    body = {**captured_run("agent-chat-ui-pdf.json")}
    body["input"] = ui_message("Summarise the attached PDF", ui_file_block(pdf, "sales.pdf"))
    thread = client.threads.create()["thread_id"]
    assert not [data for event, data in send_as_the_ui(server, thread, body) if event == "error"]
    values = client.threads.get_state(thread)["values"]
    assert [(d["label"], d["name"]) for d in values["input_documents"]] == [("input", "sales.pdf")]
    history = httpx.post(f"{server}/threads/{thread}/history", json={"limit": 100}, timeout=deadlines.HTTP_S)
    assert history.status_code == 200 and len(history.content) <= 300 * 1024, len(history.content)

    uploads = httpx.get(f"{server}/paor/documents", timeout=deadlines.HTTP_S).json()["uploads"]
    assert [u["name"] for u in uploads if u["sha256"] == hashlib.sha256(pdf).hexdigest()] == ["sales.pdf"]
    client.threads.delete(thread)
    uploads = httpx.get(f"{server}/paor/documents", timeout=deadlines.HTTP_S).json()["uploads"]
    assert not [u for u in uploads if u["sha256"] == hashlib.sha256(pdf).hexdigest()], "it went with its thread"


def test_the_image_agent_chat_ui_sent_ends_the_round_with_a_message_naming_it(server: str, client: Any) -> None:
    thread = client.threads.create()["thread_id"]
    events = send_as_the_ui(server, thread, captured_run("agent-chat-ui-image.json"))
    (error,) = [data for event, data in events if event == "error"]
    assert error["error"] == "RequestRefused" and "chart.png cannot be read: it is an image" in error["message"]
    messages = client.threads.get_state(thread)["values"]["messages"]
    assert messages[-1]["type"] == "ai" and "chart.png cannot be read" in messages[-1]["content"]
    assert "iVBORw0KGgo" not in str(messages)


def test_an_empty_message_ends_with_an_ai_message_and_a_readable_error(client: Any) -> None:
    thread = client.threads.create()["thread_id"]
    parts = stream_like_the_ui(client, thread, ui_message("  "))
    (error,) = [p.data for p in parts if p.event == "error"]
    assert error["error"] == "RequestRefused" and "the message is empty" in error["message"]
    messages = client.threads.get_state(thread)["values"]["messages"]
    assert messages[-1]["type"] == "ai" and "the message is empty" in messages[-1]["content"]


def test_an_a2a_text_message_is_answered(server: str, client: Any) -> None:
    assistant = client.assistants.search(graph_id=ASSISTANT)[0]["assistant_id"]  # A2A addresses it by id
    request = {
        "jsonrpc": "2.0",
        "id": "1",
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "messageId": str(uuid.uuid4()),
                "parts": [{"kind": "text", "text": PRIMES_PROMPT}],
            }
        },
    }
    response = httpx.post(f"{server}/a2a/{assistant}", json=request, timeout=deadlines.HTTP_S)
    assert response.status_code == 200, response.text
    assert "result" in response.json(), response.text
    task = response.json()["result"]
    assert task["status"]["state"] == "completed", task
    text = " ".join(part.get("text", "") for artifact in task["artifacts"] for part in artifact["parts"])
    assert "2, 3, 5, 7, 11, 13" in text


def test_with_the_model_endpoint_down_the_chat_gets_a_message_and_the_run_an_error_then_goes_on_once_it_is_back(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Issue 52: the stream ends with an error event naming what stopped; once the endpoint is back, the same
    message sent again goes on with the round from where it stopped."""
    workdir = tmp_path_factory.mktemp("endpoint-down")
    port = free_port()
    with langgraph_dev(workdir, scripted_env(f"http://127.0.0.1:{port}/v1", workdir / "paor-home")) as url:
        client = langgraph_sdk.get_sync_client(url=url, api_key=None, timeout=deadlines.HTTP_S)
        thread = client.threads.create()["thread_id"]
        body = captured_run("agent-chat-ui-pdf.json")
        events = send_as_the_ui(url, thread, body)
        messages = client.threads.get_state(thread)["values"]["messages"]

        (error,) = [data for event, data in events if event == "error"]
        assert error["error"] == "ModelUnavailable"
        assert error["message"].startswith("the model endpoint refused the connection"), error
        assert error["message"].endswith("the round goes on from the step where it stopped"), error
        assert "127.0.0.1" not in error["message"]
        assert [m["type"] for m in messages] == ["human", "ai"]
        assert messages[-1]["content"].startswith("I could not finish this request: the model endpoint refused")
        assert "bakery.pdf" in str(messages[0]["content"]) and "JVBERi0x" not in str(messages)

        with ScriptedLLM(port=port) as llm:  # the endpoint is back, where it was
            script_chat(llm)
            again = {**body, "input": {"messages": [{**body["input"]["messages"][0], "id": str(uuid.uuid4())}]}}
            events = send_as_the_ui(url, thread, again)
            values = client.threads.get_state(thread)["values"]
    assert not [data for event, data in events if event == "error"], events[-3:]
    assert values["round"] == 1 and values["status"] in ("completed", "unverified"), values["stop_reason"]
    assert [m["type"] for m in values["messages"]] == ["human", "ai"]
    assert "could not finish" not in values["messages"][-1]["content"]


def test_a_message_of_many_tiny_files_makes_a_bounded_number_of_uploads(server: str, client: Any) -> None:
    """A hostile client's 10 MB body of tiny files would have made thousands of uploads in one request."""
    from server.attachments import MAX_UPLOADS

    blocks = [ui_file_block(f"note {n} {uuid.uuid4()}".encode(), f"n{n}.txt", "text/plain") for n in range(25)]
    thread = client.threads.create()["thread_id"]
    before = len(httpx.get(f"{server}/paor/documents", timeout=deadlines.HTTP_S).json()["uploads"])
    send_as_the_ui(server, thread, {"assistant_id": ASSISTANT, "input": ui_message("Summarise these", *blocks)})
    after = len(httpx.get(f"{server}/paor/documents", timeout=deadlines.HTTP_S).json()["uploads"])
    assert after - before == MAX_UPLOADS
    client.threads.delete(thread)
    assert len(httpx.get(f"{server}/paor/documents", timeout=deadlines.HTTP_S).json()["uploads"]) == before
