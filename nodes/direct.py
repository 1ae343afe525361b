"""direct: a request that fits one call is first answered by the call a bare chat agent makes.

"Translate 'good morning' into German" or "What is 12 multiplied by 11?" needs no Stage 1, no Stage 2 and no
loop. When the intent shows no documents, no web, no file format and no long list, this node stands in for select
and parameters: the step is ai.process, and its call is the bare one (the conversation's messages as they are, the
operator's system prompt only; act builds it with `bare_call`), streamed. Act, validate, learn and refine follow as
for every step. Only when a code check fails is the request asked once more, with a note of what code knows (the
computed result) or what it found; the loop after that runs only where a tool can do what the model cannot
(`a_tool_can_help`). Whatever runs later, the first answer is delivered unless code proves a later one better
(nodes/answers.py).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from core.context import Context
from core.runtime import context_of
from core.schemas import FILE_FORMATS, MACHINE_READABLE_FORMATS, ActionSelection, ContentValidation, Intent, dump
from core.state import State
from nodes.arguments import prepare_arguments
from nodes.chat import earlier_turns
from nodes.common import STEP_RESET, intent_of
from nodes.direct_lessons import learned_note
from nodes.reading import ONE_LINE_CHARS
from nodes.reading.hints import needs_the_world
from nodes.reading.kinds import known_answer
from nodes.reading.numbers import expected_number, first_primes
from nodes.services import Services
from prompts.render import bare_messages
from prompts.templates import clip
from tools.catalog import allowed_entries, lookup

ACTION = "ai.process"
#: A failed direct answer gets one more direct attempt with the checks' hint before the ordinary loop.
DIRECT_ATTEMPTS = 2
#: Longer lists are better computed or checked step by step than written in one breath.
MAX_ITEMS = 100
#: Checks a computed note can help with.
_NUMBER_CHECKS = frozenset({"computed", "numbers", "item count", "number property"})


def answering_directly(state: State, step: int) -> bool:
    """Whether `step` of this round is one of its direct answers (and not yet the ordinary loop)."""
    return bool(state.get("direct")) and step <= DIRECT_ATTEMPTS


def added_note(state: State) -> str:
    """What a direct attempt's prompt carries after the user's words (a retry's or a learned note)."""
    return str((state.get("parameters") or {}).get("aiPrompt") or "").removeprefix(str(state["prompt"]))


def fits_direct_answer(
    request: str, intent: Intent, context: Context, *, has_inputs: bool, has_own_tools: bool = False
) -> bool:
    """Whether one model call can deliver this request: deterministic, from the request and the intent. A graph
    given its own tools (MCP servers, LangChain tools) may need them for what a bare model cannot know, and so may
    a request for news or sources, where a web action can run."""
    return (
        context.direct_answer
        and not has_own_tools
        and context.workflow_mode == "React"
        and intent.clarification is None
        and not has_inputs
        and len(request) <= ONE_LINE_CHARS  # longer requests are tasks with parts: they go through the loop
        and intent.expectedFormat not in FILE_FORMATS | MACHINE_READABLE_FORMATS
        and intent.dataType not in ("report", "document")
        and (intent.itemCount or 0) <= MAX_ITEMS
        and not ((intent.freshness is not None or needs_the_world(request)) and _has_the_web(context))
        and any(e.display_name == ACTION for e in allowed_entries(context.allowed_method_names))
    )


def _has_the_web(context: Context) -> bool:
    """Only a web action can bring what the model does not know; without one the loop would ask the same model."""
    return any(e.display_name.startswith("web.") for e in allowed_entries(context.allowed_method_names))


def computed_result(request: str, intent: Intent) -> str | None:
    """What code computed for the request, as a statement ("2 hours = 120 minutes."): what it decides from the
    request's words (nodes/reading/kinds.py), or the first primes. None where code cannot know the answer."""
    known = known_answer(request)
    if known is not None:
        return known.say(intent.language)
    if intent.numberProperty == "prime" and intent.itemCount and intent.itemCount <= MAX_ITEMS:
        return f"{', '.join(map(str, first_primes(intent.itemCount)))}."
    return None


def computed_note(request: str, intent: Intent) -> str | None:
    """What code computed for the request, as a note a model that miscounts ("12 times 11 is 13") can take its
    numbers from. Stated as the answer itself: on the dev half, SmolLM2 ignored "Note: 25 + 17 = 42." and took
    "(The answer is 42.)"."""
    known = known_answer(request)
    if known is not None:
        return f"(The answer is {known.result}.)"
    result = computed_result(request, intent)
    return f"(The answer is {result[:-1]}.)" if result else None


def retry_note(state: State, request: str, intent: Intent) -> str:
    """What the second attempt is told: what code computed when it failed a number, else the failed check's advice."""
    validation = ContentValidation.model_validate(state["validation"]) if state.get("validation") else None
    failed = set(validation.checksFailed) if validation else set()
    note = computed_note(request, intent) if failed & _NUMBER_CHECKS else None
    advice = validation.improvementSuggestions[0] if validation and validation.improvementSuggestions else None
    return note or advice or ""


def a_tool_can_help(request: str, intent: Intent, context: Context) -> bool:
    """Whether the loop can do better than asking the same model again: only a program computes what it miscounted
    (a calculation, a list of numbers with a property); for anything else Stage 1 and Stage 2 would ask the same
    model the same question once more. Where code already knows the result, no loop can beat it: the round
    delivers that (nodes/computed.py)."""
    if computed_result(request, intent) is not None:
        return False
    computes = expected_number(request) is not None or bool(intent.numberProperty) or intent.dataType == "numbers"
    allowed = {e.display_name for e in allowed_entries(context.allowed_method_names)}
    return computes and "code.execute" in allowed


def bare_call(state: State, context: Context, text: str) -> list[BaseMessage]:
    """The messages of a direct attempt: the thread's earlier turns and `text`, the user's words (with the retry's
    note on the second attempt)."""
    return bare_messages(earlier_turns(state), text, context.system_prompt)


def first_note(state: State, runtime: Runtime[Context], context: Context, intent: Intent) -> str | None:
    """What the first call carries besides the user's words: nothing, unless learning showed that this endpoint's
    bare answers fail a check the note fixes (nodes/direct_lessons.py) — and never a language paor only guessed."""
    if not context.learning or state.get("language_sure") is False:
        return None
    return learned_note(runtime.store, intent)


def direct(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """The step as ai.process over the request itself; no model call here (act makes the one call). The first
    attempt's prompt is the request as the user wrote it (with a learned note, if any); the second carries the
    retry's note after it."""
    context = context_of(runtime)
    intent = intent_of(state)
    request = str(state["prompt"])
    step = int(state.get("step") or 0) + 1
    entry = lookup(ACTION)
    assert entry is not None  # fits_direct_answer found it allowed
    selection = ActionSelection(action=ACTION, actionObjective=f"Answer the request directly: {clip(request, 200)}")
    note = retry_note(state, request, intent) if step > 1 else first_note(state, runtime, context, intent)
    task = f"{request}\n\n{note}" if note else request
    arguments = prepare_arguments(entry, {"aiPrompt": task}, selection, intent, context, users_words=True)
    return {**STEP_RESET, "step": step, "selection": dump(selection), "parameters": arguments}
