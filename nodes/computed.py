"""An answer code proved wrong is never delivered as if right.

Where code computed the result (one calculation or unit conversion, the first primes: nodes/direct.py
`computed_result`) and the model's attempts failed that check, or gave no answer at all (a call that timed out), the
round delivers the computed result itself, in a document of its own, with one line in the user's language saying
paor computed it and that the model's answer did not match (or that it gave none). Where code cannot decide, nothing
changes: the bare call's answer stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.schemas import DocumentRef, HistoryEntry
from core.state import State
from nodes.common import intent_of
from nodes.direct import computed_result
from prompts.templates import clip
from tools.documents import DocumentStore

#: Checks whose failure means code knows the answer is wrong (nodes/checks.py).
PROVED_WRONG = frozenset({"computed", "number property", "item count"})
#: The line below a computed result: that paor computed it, and that the model's answer was wrong. The model's
#: words stay out of the answer (its history entry keeps them): a wrong number beside the right one is no answer.
_COMPUTED_BY_PAOR = {
    "en": "Computed by paor: the model's answer did not match this result.",
    "de": "Von paor berechnet: Die Antwort des Modells stimmte mit diesem Ergebnis nicht überein.",
    "fr": "Calculé par paor : la réponse du modèle ne correspondait pas à ce résultat.",
    "es": "Calculado por paor: la respuesta del modelo no coincidía con este resultado.",
    "it": "Calcolato da paor: la risposta del modello non corrispondeva a questo risultato.",
}


#: The line below a computed result where no attempt of the model gave an answer (it timed out, or failed).
_MODEL_GAVE_NONE = {
    "en": "Computed by paor: the model gave no answer.",
    "de": "Von paor berechnet: Das Modell hat keine Antwort gegeben.",
    "fr": "Calculé par paor : le modèle n'a donné aucune réponse.",
    "es": "Calculado por paor: el modelo no dio ninguna respuesta.",
    "it": "Calcolato da paor: il modello non ha dato alcuna risposta.",
}


@dataclass(frozen=True)
class Replacement:
    """The computed result delivered in place of the model's answer."""

    answer: str
    document: DocumentRef
    reason: str


def replacement(
    state: State, delivered: HistoryEntry | None, store: DocumentStore, language: str
) -> Replacement | None:
    """The computed result, stored as the round's deliverable, when code proved the delivered answer wrong or no
    attempt gave one (`delivered` is None); None when the answer stands (or code knows no result)."""
    if delivered is not None and not PROVED_WRONG & set(delivered.checksFailed):
        return None
    result = computed_result(str(state.get("prompt") or ""), intent_of(state))
    if result is None:
        return None
    lines, why = (
        (_MODEL_GAVE_NONE, "the model gave no answer")
        if delivered is None
        else (_COMPUTED_BY_PAOR, "the model's answers failed code's check")
    )
    answer = f"{result}\n\n{lines.get(language, lines['en'])}"
    label = f"round{int(state.get('round') or 1)}_task1_action{int(state.get('step') or 1)}_computed"
    document = store.put_text(answer, label=label, name="result.md")
    return Replacement(answer, document, f"{why}; the answer is paor's computed result ({clip(result, 120)})")
