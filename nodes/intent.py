"""intent: once per round, work out what the user really wants (spec 5, step 1)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from core.context import Context
from core.errors import DocumentRejected, FetchRefused, InvalidRequest, ModelOutputInvalid, RequestRefused, StepFailed
from core.llm import ask_json
from core.runtime import context_of
from core.schemas import FILE_FORMATS, GENERIC_CRITERION, MACHINE_READABLE_FORMATS, DocumentRef, Intent, dump
from core.state import State
from nodes import history_log, inputs_read
from nodes.attachments import ChatRequest, Read, chat_request, image_refusal, left_out, read_attachments, sources_seen
from nodes.chat import earlier_turns, human_message, refusal_message, understood_message
from nodes.clarify import assumed
from nodes.common import ROUND_RESET
from nodes.direct import fits_direct_answer
from nodes.reading import ONE_LINE_CHARS
from nodes.reading.hints import Hints, detect_language, read_hints
from nodes.reading.lexicon import fold, languages_of, stems, words_in
from nodes.reading.numbers import in_digits
from nodes.services import Services
from prompts.render import intent_messages, render_conversation
from tools.catalog import allowed_entries, unavailable_notes
from tools.documents import DocumentIndex, unique_name
from tools.ingest import ingest_sources

log = logging.getLogger(__name__)

MAX_PROMPT_CHARS = 200_000
#: How sure language detection must be of a request read by code alone.
CERTAIN = 0.9
#: Kinds whose success criteria a model's analysis writes better than code.
_ANALYSED_KINDS = frozenset({"report", "document", "analysis", "table"})


def intent(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Analyse the request with deterministic hints first, then the model; explicit hints win.

    The request is the newest human message no round has taken yet, else `prompt`. A chat request that cannot
    start ends its round with an AI message saying why (the `refuse` node then fails the run with that reason);
    a `prompt` one raises here, as it always has."""
    chat = chat_request(state)
    why_no_images = _why_no_images(services, runtime)
    if chat is None:
        request = checked_request(state.get("prompt") or "")
        asked = human_message(request)
        update = _analyse(state, runtime, services, request, str(asked.id), why_no_images)
        return {**update, "messages": [asked, _understood(update)], "request_message": asked.id}
    taken = {"request_message": chat.message.id, "tools": _tools(services)}
    try:
        request = checked_request(chat.text, what="the message")
        read = _attached(chat, services, runtime, why_no_images)
        chat = read.request
        update = _analyse(state, runtime, services, request, str(chat.message.id), why_no_images, read)
    except (InvalidRequest, DocumentRejected, FetchRefused) as exc:
        reason = str(exc)
        return {
            **ROUND_RESET,
            **taken,
            "round": int(state.get("round") or 0) + 1,
            "status": "incomplete",
            "stop_reason": reason,
            "answer": reason,
            "refused": reason,
            "messages": [chat.lean(), refusal_message(reason)],
        }
    return {**update, **taken, "prompt": request, "messages": [chat.lean(), _understood(update)]}


def _tools(services: Services) -> dict[str, Any]:
    """The brought tools a round starts with: the thread remembers them, and a resume names them."""
    return services.actions.record() if services.actions is not None else {}


def _understood(update: dict[str, Any]) -> AIMessage:
    return understood_message(Intent.model_validate(update["intent"]))


def _why_no_images(services: Services, runtime: Runtime[Context]) -> Callable[[], str | None]:
    """Why the model is not shown images (None: it is), asked at most once a round and only where there is one."""
    return functools.cache(lambda: image_refusal(services.llm(context_of(runtime)), runtime.store))


def _attached(
    chat: ChatRequest, services: Services, runtime: Runtime[Context], why_no_images: Callable[[], str | None]
) -> Read:
    """A chat's attachments as input documents, under the caps and checks of an upload; the round goes on without
    those it cannot read, naming each in its notes (a chat user must learn what was not read)."""
    context = context_of(runtime)
    limit = int(context.max_document_mb * 1024 * 1024)
    return read_attachments(chat, services.documents(context), limit, why_no_images)


def refuse(state: State) -> dict[str, Any]:
    """Fail the run with the reason `intent` recorded, after its AI message is in the thread."""
    raise RequestRefused(state.get("refused") or "the request cannot start")


def _analyse(
    state: State,
    runtime: Runtime[Context],
    services: Services,
    request: str,
    asked: str,
    why_no_images: Callable[[], str | None],
    read: Read | None = None,
) -> dict[str, Any]:
    """`asked` is the request's message id: the turns before it are the conversation a follow-up refers to; `read`
    is what the round took from a chat message's attachments. The notes name what the round goes on without: the
    attachments it could not read, and images among the sources the model cannot see (an image the model is shown
    is an input document like any other)."""
    context = context_of(runtime)
    allowed_entries(context.allowed_method_names)  # a misconfigured allow-list fails before any model call
    attached, unread = (read.documents, read.request.unreadable) if read else ([], [])
    documents = [*(state.get("documents") or []), *(read.request.urls if read else [])]
    ingested = ingest_sources(documents, services.documents(context), context, services.inputs)
    sources, unseen = sources_seen(ingested, why_no_images)
    taken: set[str] = set()  # a chat attachment and a listed document may share a name; the index keys on names
    inputs = [ref.model_copy(update={"name": unique_name(ref.name, taken)}) for ref in [*attached, *sources]]
    hints = read_hints(request)
    given = (hints.language if hints.languageExplicit else None) or state.get("language") or context.user_language
    has_own_tools = services.actions is not None
    by_code = read_by_code(request, hints, given, context, has_inputs=bool(inputs), has_own_tools=has_own_tools)
    earlier = render_conversation(earlier_turns(state, before=asked, budget=None))
    analysed = by_code or _analysed_by_model(request, hints, given, inputs, services.llm(context), earlier)
    sure = by_code is None or given is not None or detect_language(request, CERTAIN) is not None
    notes = [*unavailable_notes(context.allowed_method_names), *left_out([*unread, *unseen], analysed.language)]
    if analysed.clarification is not None and not context.ask_user:  # nobody to ask: go on, and say so
        notes.append(assumed(analysed.clarification))
        analysed = analysed.model_copy(update={"clarification": None})
    return {
        **ROUND_RESET,
        **history_log.bounded(state, runtime),
        "round": int(state.get("round") or 0) + 1,
        "step": 0,
        "workflow_mode": context.workflow_mode,
        "plan": [],
        "intent": dump(analysed),
        "language_sure": sure,
        "input_documents": [dump(ref) for ref in inputs],
        "inputs_to_read": inputs_read.to_read(state, inputs, request),
        "notes": notes,
        "direct": fits_direct_answer(request, analysed, context, has_inputs=bool(inputs), has_own_tools=has_own_tools),
        "tools": _tools(services),
    }


def _analysed_by_model(
    request: str, hints: Hints, given: str | None, inputs: list[DocumentRef], llm: BaseChatModel, earlier: str = ""
) -> Intent:
    """The model's analysis seeded with what code read, and the conversation a follow-up refers to; the hints alone
    when the model cannot answer."""
    shown_hints = {k: v for k, v in hints.as_dict().items() if k != "language"}
    if given:
        shown_hints["language"] = given
    messages = intent_messages(request, shown_hints, DocumentIndex(inputs).render(), earlier)
    try:
        proposed: Intent | None = ask_json(llm, messages, Intent, Intent.model_validate, what="intent analysis")
    except (StepFailed, ModelOutputInvalid) as exc:
        log.warning("intent analysis fell back to deterministic hints: %s", exc)
        proposed = None
    return merge_intent(hints, proposed, given or _guess_language(request, proposed, hints), request)


def read_by_code(
    request: str, hints: Hints, given: str | None, context: Context, *, has_inputs: bool, has_own_tools: bool
) -> Intent | None:
    """The intent of a one-line request that one call answers, read by code alone; None when a model must analyse.

    "What's 12 times 11?" or "Is 17 a prime number?" hold nothing a model's analysis adds: no documents, no web,
    no file format, no long list. Its first attempt is the bare call, which carries nothing of the intent, so the
    analysis would only delay the answer (on a CPU model it takes longer than the answer itself). A report, an
    analysis or a table, a request of several lines and any request where the user wants to be asked about a vague
    one (`ask_user`) still get the model's analysis. The language is the one given or detected with certainty, else
    the one whose everyday words the request uses (English where none): it only says in which language code states
    a result, and decides no check (`language_sure`)."""
    if "\n" in request or len(request) > ONE_LINE_CHARS or hints.dataType in _ANALYSED_KINDS or context.ask_user:
        return None
    language = given or detect_language(request, CERTAIN) or languages_of(words_in(request))[0]
    intent = merge_intent(hints, None, language, request)
    fits = fits_direct_answer(request, intent, context, has_inputs=has_inputs, has_own_tools=has_own_tools)
    return intent if fits else None


def checked_request(prompt: str, *, what: str = "the prompt") -> str:
    """The request, stripped; `InvalidRequest` for one that cannot be worked on (also used by the CLI up front)."""
    request = prompt.strip()
    if not request:
        raise InvalidRequest(f"{what} is empty: say what you want paor to deliver")
    try:
        request.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidRequest(
            f"{what} is not valid Unicode text (character {exc.start}: {request[exc.start]!r}); check its encoding"
        ) from None
    if len(request) > MAX_PROMPT_CHARS:
        raise InvalidRequest(
            f"{what} has {len(request)} characters (limit {MAX_PROMPT_CHARS}); pass long material as a document"
        )
    return request


def _guess_language(request: str, proposed: Intent | None, hints: Hints) -> str:
    """No language was named: the model's reading first; detection only for requests long enough to trust."""
    if proposed is not None and "language" in proposed.model_fields_set:
        return proposed.language
    if hints.language and len(request.split()) >= 8:
        return hints.language
    return "en"


def merge_intent(hints: Hints, proposed: Intent | None, language: str, request: str = "") -> Intent:
    """Explicit, code-read facts override the model; the model fills what code cannot read, where the request's own
    words agree with it (a model's "id_dog" property or a count the request never names is a misreading)."""
    base = proposed.model_dump() if proposed else {}
    explicit_format = hints.expectedFormat if hints.expectedFormat not in (None, "raw_data", "code") else None
    model_format = base.get("expectedFormat")
    if model_format in MACHINE_READABLE_FORMATS or model_format in FILE_FORMATS:  # only named formats are asked
        model_format = None
    model_type = base.get("dataType")
    if model_type == "numbers" and not hints.numeric:  # "Write a sentence about the sea" is no number request
        model_type = None
    merged = {
        **base,
        "dataType": hints.dataType or model_type or "answer",
        "expectedFormat": explicit_format or model_format or hints.expectedFormat or "markdown",
        "itemCount": hints.itemCount or _in_request(base.get("itemCount"), request),
        "numberProperty": hints.numberProperty or _in_request(base.get("numberProperty"), request),
        "freshness": hints.freshness or base.get("freshness"),
        "language": language,
        "successCriteria": _agreeing(base.get("successCriteria") or [], request)
        or hints.criteria
        or [GENERIC_CRITERION],
    }
    if merged["expectedFormat"] == "markdown" and merged["dataType"] == "numbers":
        merged["expectedFormat"] = "raw_data"
    return Intent.model_validate(merged)


def _in_request(value: Any, request: str) -> Any:
    """A count or property the model read, kept only where the request names it."""
    if value is None:
        return None
    named = stems(in_digits(request, languages_of(words_in(request))))  # "the three primary colours" names 3
    spelled = fold(str(value))
    return value if spelled[:5] in named or spelled in named else None


def _agreeing(criteria: list[str], request: str) -> list[str]:
    """The model's criteria that share a word or a number with the request; the rest are its own inventions."""
    asked = stems(request)
    return [c for c in criteria if asked & stems(c)]
