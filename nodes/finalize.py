"""finalize: the answer, the deliverables (by reference) and the run's totals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langgraph.runtime import Runtime

from core.context import Context
from core.errors import PaorError
from core.runtime import context_of, thread_of
from core.schemas import DocumentRef, HistoryEntry, RefinementDecision, dump
from core.state import State
from nodes import history_log
from nodes.answers import delivered
from nodes.attachments import closing_notes, with_left_out
from nodes.chat import answer_message, closing_messages
from nodes.computed import replacement
from nodes.refine import current_totals, spent
from nodes.services import Services
from tools.document.extract import ANALYSIS_NAME
from tools.documents import DocumentStore

ANSWER_CHARS = 4000
Status = Literal["completed", "unverified", "incomplete"]


def finalize(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    context = context_of(runtime)
    entries = history_log.current_round(state, runtime)
    met = [e for e in entries if e.success and e.qualityScore >= context.quality_threshold]
    if state.get("direct"):  # the bare answer first; a later attempt only where code proved it better
        best = delivered(entries)
        status = _status_of(best, context)
    else:
        best = met[-1] if met else _best_attempt(entries)
        status = "completed" if met else "incomplete"
    raw_decision = state.get("decision")
    if raw_decision:
        reason = RefinementDecision.model_validate(raw_decision).reason
    elif state.get("workflow_mode") == "Actionplan":
        reason = f"action plan executed ({len(state.get('plan') or [])} planned actions)"
    else:
        reason = "finished"
    tokens, seconds = spent(state)
    totals = current_totals(state)
    where = _locator(services, runtime)
    store = services.documents(context)
    answer = _answer(best, store, where)
    documents = best.documents if best else []
    if state.get("direct") and (computed := replacement(state, best, store, _language(state))):
        answer, documents, reason, status = computed.answer, [computed.document], computed.reason, "completed"
    deliverables = [_deliverable(ref, where) for ref in documents]
    # A direct answer shown whole is its own deliverable: the message is the answer only, as the bare model's is,
    # unless the deliverable has a download link (a server client may want the file).
    linked = any(d.get("url") for d in deliverables)
    whole = state.get("direct") and _shown_whole(documents, answer) and not linked
    listed = [] if whole else deliverables
    notes = closing_notes(state, entries)  # with each input image no step showed the model
    shown = with_left_out(answer or no_answer_line(reason, _language(state)), notes)
    return {
        **history_log.output(state, runtime),
        "answer": answer,
        "notes": notes,
        "deliverables": deliverables,
        "messages": closing_messages(state, lambda draft: answer_message(shown, listed, replaces=draft)),
        "status": status,
        "stop_reason": reason,
        "totals": {
            "steps": len(entries),
            "tokens": tokens,
            "inputTokens": int(totals.get("inputTokens", 0)),
            "outputTokens": int(totals.get("outputTokens", 0)),
            "seconds": round(seconds, 3),
        },
    }


def _locator(services: Services, runtime: Runtime[Context]) -> Callable[[DocumentRef], str] | None:
    """Where a server client downloads a document of this thread; None outside the server."""
    thread_id = thread_of(runtime)
    links = services.links
    if links is None or not thread_id:
        return None
    return lambda ref: links(thread_id, ref)


def _deliverable(ref: DocumentRef, where: Callable[[DocumentRef], str] | None) -> dict[str, Any]:
    return {**dump(ref), "url": where(ref)} if where else dump(ref)


def _best_attempt(entries: list[HistoryEntry]) -> HistoryEntry | None:
    """The highest-scoring attempt; of equal ones the earliest (a later attempt must be better, not newer)."""
    with_documents = [e for e in entries if e.documents]
    return max(with_documents, key=lambda e: (e.qualityScore, -e.step)) if with_documents else None


def _status_of(entry: HistoryEntry | None, context: Context) -> Status:
    """completed where code verified every criterion, unverified where no check failed but code could not decide
    them all, incomplete otherwise."""
    if entry is None or entry.checksFailed:
        return "incomplete"
    if entry.success and entry.verified and entry.qualityScore >= context.quality_threshold:
        return "completed"
    return "unverified"


def _language(state: State) -> str:
    return str((state.get("intent") or {}).get("language") or "en")


def _shown_whole(documents: list[DocumentRef], answer: str) -> bool:
    return len(documents) == 1 and documents[0].is_text and len(answer) <= ANSWER_CHARS


_NO_ANSWER = {
    "en": "No answer was produced ({reason}).",
    "de": "Es wurde keine Antwort erstellt ({reason}).",
    "fr": "Aucune réponse n'a été produite ({reason}).",
    "es": "No se produjo ninguna respuesta ({reason}).",
    "it": "Non è stata prodotta alcuna risposta ({reason}).",
}


def no_answer_line(reason: str, language: str = "en") -> str:
    """The one line a chat shows when a round produced no answer at all, in the user's language where paor has it."""
    return _NO_ANSWER.get(language, _NO_ANSWER["en"]).format(reason=reason)


#: Where a long answer may be cut, best first: between paragraphs, lines, sentences, list items, words.
_BOUNDARIES = ("\n\n", "\n", ". ", "! ", "? ", "; ", ", ", " ")


def cut_at_boundary(text: str, most: int) -> str:
    """`text` cut to at most `most` characters where an item or a sentence ends, never inside one: a list of primes
    cut at "5273, 527" showed 527, which is not prime. Within the last half of the allowance, the best boundary wins;
    a text with none there is cut at `most`."""
    head = text[:most]
    for boundary in _BOUNDARIES:
        at = head.rfind(boundary)
        if at >= most // 2:
            kept = head[: at + 1] if boundary.strip() in (".", "!", "?") else head[:at]
            return kept.rstrip()
    return head


def _answer(best: HistoryEntry | None, store: DocumentStore, where: Callable[[DocumentRef], str] | None) -> str:
    """The model's answer only: never a status, a hint or paor's own words (the status is in `status` and
    `stop_reason`); empty when nothing was produced."""
    if best is None:
        return ""
    # An extraction asked a question too: its analysis answers it, the extracted text is its source.
    for ref in sorted(best.documents, key=lambda ref: ref.name != ANALYSIS_NAME):
        if ref.is_text:
            try:
                text = store.read_text(ref)
            except PaorError:
                continue
            if len(text) > ANSWER_CHARS:
                link = where(ref) if where else ""
                clickable = link.startswith(("http://", "https://"))
                place = f"[{ref.name}]({link})" if clickable else f"{ref.name}, {link}" if link else ref.name
                text = cut_at_boundary(text, ANSWER_CHARS) + f"\n\n… (truncated; the full text is in {place})"
            return text
    return ", ".join(ref.name for ref in best.documents)
