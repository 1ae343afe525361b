"""Graph state: what flows between nodes.

Protocol objects are stored as their JSON dumps (see `graph.schemas.dump`) so checkpoints and the server's JSON
API carry plain data; nodes validate them back into models at the boundary. History and telemetry are
append-only channels. `TypedDict` comes from typing_extensions: the stdlib one empties the server's schemas on 3.11.
"""

import operator
from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict

Json = dict[str, Any]


class InputState(TypedDict):
    """What a caller sends: the request, optional documents (paths or URLs) and language."""

    prompt: str
    documents: NotRequired[list[str]]
    language: NotRequired[str]


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
