"""intent: once per round, work out what the user really wants (spec 5, step 1)."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from graph.context import Context
from graph.errors import InvalidRequest, ModelOutputInvalid, StepFailed
from graph.instrument import context_of
from graph.llm import ask_json
from graph.schemas import Intent, dump
from graph.services import Services
from graph.state import State
from nodes import history_log
from nodes.common import ROUND_RESET
from nodes.hints import Hints, read_hints
from prompts.render import intent_messages
from tools.catalog import allowed_entries, unavailable_notes
from tools.documents import DocumentIndex
from tools.ingest import ingest_sources

log = logging.getLogger(__name__)

MAX_PROMPT_CHARS = 200_000


def intent(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Analyse the request with deterministic hints first, then the model; explicit hints win."""
    context = context_of(runtime)
    request = checked_request(state.get("prompt") or "")
    allowed_entries(context.allowed_method_names)  # a misconfigured allow-list fails before any model call
    documents = list(state.get("documents") or [])
    inputs = ingest_sources(documents, services.documents(context), context, services.inputs)
    hints = read_hints(request)
    given = (hints.language if hints.languageExplicit else None) or state.get("language") or context.user_language
    shown_hints = {k: v for k, v in hints.as_dict().items() if k != "language"}
    if given:
        shown_hints["language"] = given
    messages = intent_messages(request, shown_hints, DocumentIndex(inputs).render())
    try:
        proposed: Intent | None = ask_json(
            services.llm(context), messages, Intent, Intent.model_validate, what="intent analysis"
        )
    except (StepFailed, ModelOutputInvalid) as exc:
        log.warning("intent analysis fell back to deterministic hints: %s", exc)
        proposed = None
    return {
        **ROUND_RESET,
        **history_log.bounded(state, runtime),
        "round": int(state.get("round") or 0) + 1,
        "step": 0,
        "workflow_mode": context.workflow_mode,
        "plan": [],
        "intent": dump(merge_intent(hints, proposed, given or _guess_language(request, proposed, hints))),
        "input_documents": [dump(ref) for ref in inputs],
        "notes": unavailable_notes(context.allowed_method_names),
    }


def checked_request(prompt: str) -> str:
    """The request, stripped; `InvalidRequest` for one that cannot be worked on (also used by the CLI up front)."""
    request = prompt.strip()
    if not request:
        raise InvalidRequest("the prompt is empty: say what you want paor to deliver")
    try:
        request.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidRequest(
            f"the prompt is not valid Unicode text (character {exc.start}: {request[exc.start]!r}); check its encoding"
        ) from None
    if len(request) > MAX_PROMPT_CHARS:
        raise InvalidRequest(
            f"the prompt has {len(request)} characters (limit {MAX_PROMPT_CHARS}); pass long material as a document"
        )
    return request


def _guess_language(request: str, proposed: Intent | None, hints: Hints) -> str:
    """No language was named: the model's reading first; detection only for requests long enough to trust."""
    if proposed is not None and "language" in proposed.model_fields_set:
        return proposed.language
    if hints.language and len(request.split()) >= 8:
        return hints.language
    return "en"


def merge_intent(hints: Hints, proposed: Intent | None, language: str) -> Intent:
    """Explicit, code-read facts override the model; the model fills what code cannot read."""
    base = proposed.model_dump() if proposed else {}
    explicit_format = hints.expectedFormat if hints.expectedFormat not in (None, "raw_data", "code") else None
    merged = {
        **base,
        "dataType": hints.dataType or base.get("dataType") or "answer",
        "expectedFormat": explicit_format or base.get("expectedFormat") or hints.expectedFormat or "markdown",
        "itemCount": hints.itemCount or base.get("itemCount"),
        "numberProperty": hints.numberProperty or base.get("numberProperty"),
        "freshness": hints.freshness or base.get("freshness"),
        "language": language,
        "successCriteria": base.get("successCriteria") or hints.criteria or ["the deliverable answers the request"],
    }
    if merged["expectedFormat"] == "markdown" and merged["dataType"] == "numbers":
        merged["expectedFormat"] = "raw_data"
    return Intent.model_validate(merged)
