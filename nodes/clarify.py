"""Clarifying questions (`Context.ask_user`): the intent analysis may flag an ambiguous request.

The question is asked at the very start of `select`, not in `intent`: LangGraph re-runs an interrupted node from
its top on resume, and the intent's model call must not be repeated. Payload (stable): `{"kind": "clarify",
"question", "suggestions"}`; the answer is a string (or `{"answer": "..."}`). It is appended to the round's
request, which Stage 1 reads, and kept in the run's notes; the intent's fields — and so the learned-strategy
pattern — stay as analysed. With `ask_user` off the intent node notes its assumption instead.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import interrupt

from core.schemas import Clarification, Intent, dump
from core.state import State


def clarified(state: State, intent: Intent) -> dict[str, Any]:
    """Ask the pending question; the update carries the request with the answer and the intent without it."""
    question = intent.clarification
    if question is None:
        return {}
    raw = interrupt({"kind": "clarify", "question": question.question, "suggestions": question.suggestions})
    answer = str(raw.get("answer", "") if isinstance(raw, dict) else raw).strip() or "no answer given"
    request = f"{state.get('prompt') or ''}\n\nClarification: {question.question} Answer: {answer}".strip()
    return {
        "prompt": request,
        "intent": dump(intent.model_copy(update={"clarification": None})),
        "notes": [*(state.get("notes") or []), f"asked: {question.question} — answered: {answer}"],
    }


def assumed(question: Clarification) -> str:
    """The note a run without `ask_user` keeps about the question it did not ask."""
    return f"ambiguous request, proceeding on the best assumption (not asked: {question.question})"
