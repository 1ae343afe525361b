"""Graph state: what flows between nodes.

Protocol objects are stored as their JSON dumps (see `graph.schemas.dump`) so checkpoints and the server's JSON
API carry plain data; nodes validate them back into models at the boundary. History and telemetry are
append-only channels. `TypedDict` comes from typing_extensions: the stdlib one empties the server's schemas on 3.11.
"""

import operator
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

Json = dict[str, Any]


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
    status: Literal["completed", "incomplete"]
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
    input_documents: list[Json]
    selection: Json | None
    parameters: Json | None
    step_error: str | None
    result: Json | None
    observation: Json | None
    validation: Json | None
    decision: Json | None
    learnings: list[str]
    hint: str | None
    telemetry: Annotated[list[Json], operator.add]
    request_message: str | None  # id of the human message a round has taken as its request
    refused: str | None  # why this round's chat request cannot start
