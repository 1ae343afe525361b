"""Graph state: what flows between nodes.

Protocol objects are stored as their JSON dumps (see `core.schemas.dump`) so checkpoints and the server's JSON
API carry plain data; nodes validate them back into models at the boundary. Nothing in state grows with the step
count, because every checkpoint holds all of it: `history` is a bounded window (the complete record is in the store,
see nodes.history_log, and in the output once a round ends) and `telemetry` is the round's running totals.
`TypedDict` comes from typing_extensions: the stdlib one empties the server's schemas on 3.11.
"""

import operator
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

Json = dict[str, Any]


def add_totals(totals: Json | None, record: Json | None) -> Json:
    """Reducer of `telemetry`: a node's record adds to the running totals of its round; a new round starts afresh.

    Per-node, per-step detail goes to the progress events of the stream and the log, not into every checkpoint."""
    if not record:
        return totals or {}
    if not totals or totals.get("round") != record.get("round"):
        totals = {"round": record.get("round"), "nodes": {}}
    nodes = dict(totals.get("nodes") or {})
    for name, added in (record.get("nodes") or {}).items():
        before = nodes.get(name) or {}
        nodes[name] = {k: _sum(before.get(k, 0), v) for k, v in added.items()}
    summed = {k: _sum(totals.get(k, 0), v) for k, v in record.items() if k not in ("round", "nodes")}
    return {**totals, **summed, "nodes": nodes}


def _sum(a: Any, b: Any) -> Any:
    return round(a + b, 6) if isinstance(a, float) or isinstance(b, float) else a + b


class InputState(TypedDict, total=False):
    """What a caller sends: the request, optional documents (paths or URLs) and language.

    Chat clients send `messages` instead of `prompt`: the newest human message is then the request (nodes/chat.py).
    """

    prompt: str
    messages: Annotated[list[AnyMessage], add_messages]
    documents: list[str]
    language: str


class OutputState(TypedDict, total=False):
    """What a caller gets back."""

    answer: str
    deliverables: list[Json]
    status: Literal["completed", "unverified", "incomplete"]
    stop_reason: str
    totals: Json
    notes: list[str]  # what the caller should know about this round (e.g. actions unavailable here, and why)
    round: int
    history: Annotated[list[Json], operator.add]
    messages: Annotated[list[AnyMessage], add_messages]  # per round: the request and one lean AI answer


class State(InputState, OutputState, total=False):
    """Working state of one thread; a new prompt on the same thread starts the next round."""

    step: int
    workflow_mode: Literal["React", "Actionplan"]
    plan: list[Json]
    intent: Json
    language_sure: bool  # the intent's language was given, named, detected with certainty or analysed: checkable
    input_documents: list[Json]
    inputs_to_read: list[str]  # item references of the inputs this round must read (nodes/inputs_read.py)
    selection: Json | None
    parameters: Json | None
    step_error: str | None
    result: Json | None
    observation: Json | None
    validation: Json | None
    decision: Json | None
    ahead: Json | None  # the next step's Stage 1, chosen while the judge read this one (nodes/ahead.py)
    learnings: list[str]
    hint: str | None
    telemetry: Annotated[Json, add_totals]
    request_message: str | None  # id of the human message a round has taken as its request
    refused: str | None  # why this round's chat request cannot start
    failure: Json | None  # the outage this server round stopped on, and where (nodes/failure.py)
    direct: bool  # this round's request is answered in one call first (nodes/direct.py)
    tools: Json  # the brought tools the round runs with: MCP server names, where their config came from, tool names
