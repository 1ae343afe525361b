"""The chat channel: what chat front ends (Agent Chat UI, `useStream` apps, A2A clients) send and see.

A chat client speaks LangChain messages in `messages` (LangGraph's `add_messages` reducer). A round's request is
the newest human message no round has taken yet, else `prompt`; its file and image blocks become input documents
under the checks of an upload, and the checkpointed copy of the message keeps only their names. Each round ends
with one lean AI message: the answer and the deliverables' links, never the documents. While a step runs, the
chat sees it as a tool call and then its result; those two are streamed only (not written to state), so the
spec's compact history stays the one record of the steps and checkpoints do not grow with them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.config import get_config
from langgraph.graph.message import push_message

from core.schemas import GENERIC_CRITERION, Intent
from core.state import State
from core.tokens import count_tokens

#: The id prefix of `understood_message`, so the round's closing message tells it from a streamed draft.
UNDERSTOOD_PREFIX = "understood-"


def human_message(text: str) -> HumanMessage:
    """A `prompt` request as the chat shows it, so a thread started through the API opens with its request."""
    return HumanMessage(content=text, id=str(uuid.uuid4()))


_KINDS = {
    "numbers": "numbers",
    "list": "a list",
    "table": "a table",
    "text": "a text",
    "document": "a document",
    "report": "a report",
    "analysis": "an analysis",
    "code": "code",
    "answer": "an answer",
}
_FORMATS = {
    "raw_data": "plain data",
    "markdown": "Markdown",
    "json": "JSON",
    "csv": "CSV",
    "html": "HTML",
    "docx": "a Word document",
    "pdf": "a PDF",
    "xlsx": "an Excel sheet",
    "code": "code",
    "text": "plain text",
}


def language_name(code: str) -> str:
    """A language as a person reads it ("English" for `en`, from Babel's CLDR data); the code where Babel has none."""
    from babel import Locale, UnknownLocaleError

    try:
        return str(Locale.parse(code.replace("-", "_")).get_display_name("en") or code)
    except (UnknownLocaleError, ValueError, TypeError):
        return code


def understood_message(intent: Intent) -> AIMessage:
    """The first sign of life, right after the intent call: what paor took the request to be. It stays in the thread
    while the round works (a chat drops what was only streamed as soon as the next state arrives) and gives way to
    the answer (`closing_messages`)."""
    things = " ".join(str(w) for w in (intent.itemCount, intent.numberProperty) if w)
    if intent.dataType == "numbers":
        kind = f"{things} numbers".strip()
    elif things:
        kind = f"{_KINDS[intent.dataType]} of {things} {'numbers' if intent.numberProperty else 'items'}"
    else:
        kind = _KINDS[intent.dataType]
    shape = _FORMATS.get(intent.expectedFormat, intent.expectedFormat)
    criteria = "; ".join(intent.successCriteria[:4]) or GENERIC_CRITERION
    language = language_name(intent.language)
    text = f"Working on it. I understood: {kind}, as {shape}, in {language}. Done when: {criteria}."
    return AIMessage(content=text, id=f"{UNDERSTOOD_PREFIX}{uuid.uuid4()}")


def draft_message(reply: AIMessage) -> AIMessage:
    """A deliverable streamed to the chat, kept under the stream's own id so that the chat shows one message: the
    chunks it saw, then this, then the answer that replaces it."""
    return AIMessage(content=str(reply.text), id=reply.id)


#: Where a round's AI message lists its deliverables after the answer.
DELIVERABLES = "\n\nDeliverables:\n"


def answer_message(answer: str, deliverables: Sequence[dict[str, Any]], *, replaces: str | None = None) -> AIMessage:
    """The round's one AI message: the answer and a link (or name) per deliverable; `replaces` is the id of the
    round's streamed draft, which it takes over (LangGraph then does not stream the answer a second time)."""
    lines = [f"- [{d['name']}]({d['url']})" if d.get("url") else f"- {d['name']}" for d in deliverables]
    text = f"{answer}{DELIVERABLES}" + "\n".join(lines) if lines else answer
    return AIMessage(content=text, id=replaces or str(uuid.uuid4()))


def closing_messages(state: State, closing: Callable[[str | None], AIMessage]) -> list[BaseMessage]:
    """The round's last messages: the interim ones removed, and `closing(draft id)` — the answer, or why the round
    stopped — in the streamed draft's place if there is one. The thread keeps one AI message per round."""
    interim = round_replies(state)
    draft = next((m for m in reversed(interim) if not str(m.id).startswith(UNDERSTOOD_PREFIX)), None)
    gone: list[BaseMessage] = [RemoveMessage(id=str(m.id)) for m in interim if m is not draft]
    return [*gone, closing(draft.id if draft is not None else None)]


def progress_message(state: State, line: str) -> list[AIMessage]:
    """The round's interim message (what paor understood) with the step it is on below it, under the same id: a chat
    shows one message that follows the run from step to step (a streamed tool call disappears as soon as the next
    state arrives), and the answer replaces it at the end. None when the round shows no interim message."""
    understood = next((m for m in round_replies(state) if str(m.id).startswith(UNDERSTOOD_PREFIX)), None)
    if understood is None:
        return []
    head = str(understood.text).split("\n\n", 1)[0]
    return [AIMessage(content=f"{head}\n\n{line}", id=understood.id)]


def round_replies(state: State) -> list[AIMessage]:
    """The AI messages the current round wrote after its request (what was understood, a streamed draft)."""
    messages = list(state.get("messages") or [])
    request = state.get("request_message")
    start = next((i for i, m in enumerate(messages) if request is not None and m.id == request), None)
    if start is None:
        return []
    return [m for m in messages[start + 1 :] if isinstance(m, AIMessage) and m.id]


#: How many tokens of earlier turns an answering call carries (the newest turns first).
TURNS_TOKENS = 2000


def earlier_turns(state: State, before: str | None = None, budget: int | None = TURNS_TOKENS) -> list[BaseMessage]:
    """The conversation before a request, as a chat agent sends it: the user's messages and the answers of earlier
    rounds, in order — the newest exchange always, older ones while they fit `budget` tokens (None: all).
    `before` is the request's message id (default: this round's); a request not in the thread yet comes after
    all of them."""
    messages = list(state.get("messages") or [])
    request = before or state.get("request_message")
    end = next((i for i, m in enumerate(messages) if m.id == request), len(messages))
    turns = [_spoken(m) for m in messages[:end] if isinstance(m, HumanMessage | AIMessage) and str(m.text).strip()]
    kept: list[BaseMessage] = []
    for message in reversed(turns):
        if budget is not None:
            budget -= count_tokens(str(message.text))
            if budget < 0 and len(kept) >= 2:
                break
        kept.append(message)
    return kept[::-1]


def _spoken(message: BaseMessage) -> BaseMessage:
    """A turn as the conversation had it: an answer without the list of deliverables paor put after it."""
    text = str(message.text)
    if not isinstance(message, AIMessage) or DELIVERABLES not in text:
        return message
    return AIMessage(content=text.split(DELIVERABLES, 1)[0], id=message.id)


def refusal_message(reason: str) -> AIMessage:
    return AIMessage(content=f"I could not start on this request: {reason}", id=str(uuid.uuid4()))


def show_step(label: str, tool_name: str, arguments: dict[str, Any]) -> None:
    """Stream the running step to a chat as a tool call (not kept in state)."""
    call = {"name": tool_name, "args": arguments, "id": label, "type": "tool_call"}
    _stream(AIMessage(content="", tool_calls=[call], id=f"{label}-call"))


def show_result(label: str, tool_name: str, summary: str, *, failed: bool) -> None:
    """Stream the step's result to a chat as the tool's answer (not kept in state)."""
    status = "error" if failed else "success"
    _stream(ToolMessage(content=summary, tool_call_id=label, name=tool_name, id=f"{label}-result", status=status))


def _stream(message: BaseMessage) -> None:
    """Only a run streamed with `messages`/`messages-tuple` listens; any other run has no handler to tell."""
    try:
        callbacks = get_config().get("callbacks")
    except RuntimeError:  # called outside a graph run (unit tests of a node)
        return
    if callbacks:
        push_message(message, state_key=None)
