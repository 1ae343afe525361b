"""direct: a short request that needs no tool is answered in one call, then checked like any step.

"Translate 'good morning' into German" or "What is 12 multiplied by 11?" needs no Stage 1, no Stage 2 and no
loop: a bare model answers it in one request, and paor must never be slower or worse than that. When the intent
shows no documents, no web, no file format and no long list, this node stands in for select and parameters: it
makes the step ai.process with the user's own words as its prompt (the host fills them, so no model can lose the
question on the way), and act, validate, learn and refine follow as for every step. A passing answer ends the
round after intent, answer and at most one judge call; a failing one is answered once more with what the checks
found (one call again), and only then does the ordinary loop of Stage 1 and Stage 2 go on.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from graph.context import Context
from graph.instrument import context_of
from graph.schemas import ActionSelection, ContentValidation, Intent, dump
from graph.services import Services
from graph.state import State
from nodes.arguments import prepare_arguments
from nodes.common import STEP_RESET, intent_of
from nodes.expected import expected_number, first_primes
from prompts.templates import clip
from tools.catalog import allowed_entries, lookup

ACTION = "ai.process"
#: A failed direct answer gets one more direct attempt with the checks' hint before the ordinary loop.
DIRECT_ATTEMPTS = 2
#: Longer requests are tasks with parts; they go through the loop.
MAX_REQUEST_CHARS = 400
#: Longer lists are better computed or checked step by step than written in one breath.
MAX_ITEMS = 100
_FILE_FORMATS = frozenset({"docx", "pdf", "xlsx", "csv", "json", "html"})
_NEEDS_THE_WORLD = re.compile(
    r"https?://|www\.|\b(?:search|look\s+up|google|browse|website|web\s*page|online|internet|news|latest|current|"
    r"today|this\s+(?:week|month|year)|price|weather|sourced?|sources|cite[sd]?|citations?|references|research\w*|"
    r"suche\w*|recherch\w*|quellen|aktuell\w*|heute)\b",
    re.IGNORECASE,
)


def answering_directly(state: State, step: int) -> bool:
    """Whether `step` of this round is one of its direct answers (and not yet the ordinary loop)."""
    return bool(state.get("direct")) and step <= DIRECT_ATTEMPTS


def fits_direct_answer(
    request: str, intent: Intent, context: Context, *, has_inputs: bool, has_own_tools: bool = False
) -> bool:
    """Whether one model call can deliver this request: deterministic, from the request and the intent. A graph
    given its own tools (MCP servers, LangChain tools) may need them for what a bare model cannot know."""
    return (
        context.direct_answer
        and not has_own_tools
        and context.workflow_mode == "React"
        and intent.clarification is None
        and not has_inputs
        and len(request) <= MAX_REQUEST_CHARS
        and intent.freshness is None
        and intent.expectedFormat not in _FILE_FORMATS
        and intent.dataType not in ("report", "document")
        and (intent.itemCount or 0) <= MAX_ITEMS
        and not _NEEDS_THE_WORLD.search(request)
        and any(e.display_name == ACTION for e in allowed_entries(context.allowed_method_names))
    )


def with_computed_result(request: str, intent: Intent) -> str:
    """The request, and the result code computed for it when it asks for one calculation, one unit conversion or the
    first primes: a model that miscounts ("12 times 11 is 13", "2, 3, 5 and 7") states the right numbers when they
    are given, as a calculator would give them; validation checks them the same way."""
    expected = expected_number(request)
    if expected is not None:
        return f"{request}\n\nComputed exactly by code: {expected.how}."
    if intent.numberProperty == "prime" and intent.itemCount:
        primes = ", ".join(map(str, first_primes(intent.itemCount)))
        return f"{request}\n\nComputed exactly by code: the first {intent.itemCount} prime numbers are {primes}."
    return request


def _what_was_wrong(state: State) -> str:
    """Refine's hint, else the issues validation found: the second attempt must differ from the first."""
    validation = ContentValidation.model_validate(state["validation"]) if state.get("validation") else None
    issues = "; ".join(validation.issues[:2]) if validation else ""
    return str(state.get("hint") or issues or state.get("step_error") or "it did not meet the request")


def direct(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """The step as ai.process over the request itself; no model call here (act makes the one call). A second
    attempt carries what the checks found wrong with the first (refine's hint)."""
    context = context_of(runtime)
    intent = intent_of(state)
    request = str(state["prompt"])
    step = int(state.get("step") or 0) + 1
    hint = _what_was_wrong(state) if step > 1 else None
    entry = lookup(ACTION)
    assert entry is not None  # fits_direct_answer found it allowed
    selection = ActionSelection(
        action=ACTION,
        actionObjective=f"Answer the request directly: {clip(request, 200)}",
        learnings=[],
    )
    task = with_computed_result(request, intent) + (f"\n\nThe previous answer was not accepted: {hint}" if hint else "")
    arguments = prepare_arguments(entry, {"aiPrompt": task}, selection, intent, context)
    return {**STEP_RESET, "step": step, "selection": dump(selection), "parameters": arguments}
