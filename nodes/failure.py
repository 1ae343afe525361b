"""A server round that an outage stops: the chat says so in the user's language, the run fails with that line, and
the round goes on from the step that stopped once the service is back.

A remote client sees no log, and LangGraph's server shows a failed run's message only for ValueError and a few
other built-in types. So on the server every node has `outage_stopped` as its LangGraph error handler: an outage
(core/outages.py: the model endpoint or a tool's service away, too slow, busy after retries, or refusing the
server's key) writes an AI message into the thread and a record of where the round stopped, then routes to `fail`,
which raises a `ServiceUnavailable` naming the service by its kind (never the operator's addresses): the run's
stream ends with an error event carrying that line. Nothing is validated or learned: the step never returned.

The round is not over. A later run on the thread with no input (`runs.create(thread, "paor")`), or with the round's
own request sent again (what the message tells a chat user to do), enters `fail` again in another run: the message
gives way and the round goes on at the step that stopped, without redoing the steps before it. Any other message
starts a new round. Python and CLI runs have no handler: the typed error surfaces there, and `paor resume` re-runs
the step. Any error that is not an outage is raised again unchanged.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.errors import NodeError
from langgraph.types import Command

from core.errors import ModelUnavailable, ServiceUnavailable
from core.state import State
from nodes.attachments import chat_request
from nodes.reading.hints import detect_language

log = logging.getLogger(__name__)

FAIL_NODE = "fail"
MODEL_KIND = "the model endpoint"
_STOPPED = {
    "en": "I could not finish this request: {service} {what}. Send the message again once it is back, and I will go "
    "on from the step where I stopped.",
    "de": "Ich konnte diese Anfrage nicht abschließen: {service} {what}. Senden Sie die Nachricht erneut, sobald er "
    "wieder erreichbar ist; ich mache dann bei dem Schritt weiter, bei dem ich aufgehört habe.",
    "fr": "Je n'ai pas pu terminer cette demande : {service} {what}. Renvoyez le message dès qu'il est de retour ; "
    "je reprendrai à l'étape où je me suis arrêté.",
    "es": "No pude terminar esta solicitud: {service} {what}. Envíe el mensaje de nuevo cuando vuelva a estar "
    "disponible y seguiré desde el paso en el que me detuve.",
    "it": "Non ho potuto completare questa richiesta: {service} {what}. Invii di nuovo il messaggio quando sarà di "
    "nuovo raggiungibile e riprenderò dal passo in cui mi sono fermato.",
}
_SERVER_HINT = "send the message again once it is back: the round goes on from the step where it stopped"


def stopped_line(kind: str, what: str, language: str) -> str:
    """The chat's one message about an outage, in the user's language where paor has it."""
    return _STOPPED.get(language, _STOPPED["en"]).format(service=kind, what=what)


def outage_stopped(state: State, error: NodeError) -> Command[Any]:
    """The error handler of every node on the server (see the module docstring)."""
    outage = error.error
    if not isinstance(outage, ServiceUnavailable):
        raise outage
    log.warning("%s stopped on an outage: %s", error.node, outage)
    said = AIMessage(content=stopped_line(outage.kind, outage.what, _language(state)), id=str(uuid.uuid4()))
    record = {
        "node": error.node,
        "token": _just_stopped(),
        "message": said.id,
        "request": _request_text(state),
        "after": getattr(_newest_human(state), "id", None),
        "kind": outage.kind,
        "what": outage.what,
        "temporary": outage.temporary,
        "model": isinstance(outage, ModelUnavailable),
    }
    line = f"{outage.kind} {outage.what}; {_SERVER_HINT}"
    update = {"failure": record, "messages": [said], "status": "incomplete", "stop_reason": line}
    return Command(update=update, goto=FAIL_NODE)


def fail(state: State) -> Command[Any]:
    """In the run the outage stopped: fail it with the outage's line. In a later run: go on at the stopped step."""
    record: dict[str, Any] = state.get("failure") or {}
    if str(record.get("token")) in _JUST_STOPPED:  # the handler ran just now, in this run
        _JUST_STOPPED.discard(str(record["token"]))
        kind = ModelUnavailable if record.get("model") else ServiceUnavailable
        raise kind(str(record["kind"]), str(record["what"]), _SERVER_HINT, temporary=bool(record.get("temporary")))
    gone = [RemoveMessage(id=str(record["message"]))]
    repeated = _sent_again(state, record)
    if repeated is not None and repeated.id and _asks_the_same(str(repeated.text), record):
        gone.append(RemoveMessage(id=str(repeated.id)))
    log.info("going on at %s after the outage that stopped it", record["node"])
    return Command(update={"failure": None, "messages": gone}, goto=str(record["node"]))


def resumes_stopped_round(state: State) -> Literal["fail", "intent"]:
    """Where a server run starts: where the round an outage stopped left off when the run asks for the same thing
    again (the same message, the same prompt, or nothing new); else a new round."""
    record = state.get("failure")
    if not isinstance(record, dict) or not record.get("node"):
        return "intent"
    sent = _sent_again(state, record)
    asked = str(sent.text) if sent is not None else str(state.get("prompt") or record.get("request"))
    return "fail" if _asks_the_same(asked, record) else "intent"


def _sent_again(state: State, record: dict[str, Any]) -> HumanMessage | None:
    """The newest human message if it came after the round stopped."""
    newest = _newest_human(state)
    return newest if newest is not None and newest.id != record.get("after") else None


def _asks_the_same(text: str, record: dict[str, Any]) -> bool:
    return text.strip() == str(record.get("request") or "").strip()


def _newest_human(state: State) -> HumanMessage | None:
    return next((m for m in reversed(state.get("messages") or []) if isinstance(m, HumanMessage)), None)


def _request_text(state: State) -> str:
    chat = chat_request(state)
    return chat.text if chat is not None else str(state.get("prompt") or "")


def _language(state: State) -> str:
    intent = state.get("intent") or {}
    given = intent.get("language") if isinstance(intent, dict) else None
    return str(given or state.get("language") or detect_language(_request_text(state)) or "en")


#: Outages whose handler ran in this process and whose `fail` has not yet: `fail` enters right after its handler in
#: the same run, so a token found here means "raise"; a token not found means a later run (or another worker, or this
#: one after a restart), which goes on where the round stopped. Neither servers nor Python runs give every run an id.
_JUST_STOPPED: set[str] = set()
_MOST_PENDING = 1024


def _just_stopped() -> str:
    if len(_JUST_STOPPED) >= _MOST_PENDING:  # a `fail` that never came (a process killed in between): forget it
        _JUST_STOPPED.clear()
    token = uuid.uuid4().hex
    _JUST_STOPPED.add(token)
    return token
