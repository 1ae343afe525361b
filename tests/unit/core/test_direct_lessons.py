"""What direct answers teach: a learned note for the bare call only where a code check proves it helps."""

from __future__ import annotations

from langgraph.store.memory import InMemoryStore

from core.context import Context
from core.schemas import ContentValidation, HistoryEntry, Intent
from nodes.direct import first_note
from nodes.direct_lessons import learned_note, record
from nodes.learn import learn_direct
from tests.unit.core.factories import runtime

REQUEST = "Fasse die Vorteile von Heimspeichern zusammen."
NOTE = "Write the deliverable in language 'de'."
GERMAN = Intent(dataType="text", expectedFormat="markdown", successCriteria=["summary"], language="de")


def _outcomes(store: InMemoryStore, language: str = "de") -> list[str]:
    return sorted(str(item.value["kind"]) for item in store.search(("paor", "direct", language)))


def _step(
    store: InMemoryStore, step: int, task: str, passed: list[str], failed: list[str], first_failed: list[str]
) -> None:
    state = {"prompt": REQUEST, "parameters": {"aiPrompt": task}, "intent": GERMAN.model_dump()}
    validation = ContentValidation(
        overallSuccess=not failed,
        dataTypeMatch=True,
        formatMatch=True,
        successCriteriaMet=[not failed],
        qualityScore=0.5,
        checksPassed=passed,
        checksFailed=failed,
    )
    earlier = [HistoryEntry(round=1, step=1, checksFailed=first_failed)] if step > 1 else []
    learn_direct(store, state, step, validation, earlier, f"thread/1/{step}")  # type: ignore[arg-type]


def test_a_retry_that_the_language_advice_alone_fixed_is_learned_with_the_note_it_carried() -> None:
    store = InMemoryStore()
    _step(store, 1, REQUEST, [], ["language"], [])
    _step(store, 2, f"{REQUEST}\n\n{NOTE}", ["language"], [], ["language"])
    assert _outcomes(store) == ["bare_failed", "fixed"]
    assert learned_note(store, GERMAN) == NOTE
    assert learned_note(store, GERMAN.model_copy(update={"language": "fr"})) is None  # another language learned nothing


def test_a_retry_told_something_else_besides_teaches_no_note() -> None:
    store = InMemoryStore()
    _step(store, 1, REQUEST, [], ["numbers", "language"], [])
    _step(store, 2, f"{REQUEST}\n\n(The answer is 42.)", ["language", "numbers"], [], ["numbers", "language"])
    assert _outcomes(store) == ["bare_failed"]  # the note was the computed answer, not the language advice
    assert learned_note(store, GERMAN) is None


def test_the_note_is_sent_only_while_it_helps_more_than_the_bare_call_would() -> None:
    store = InMemoryStore()
    record(store, GERMAN, "language", "bare_failed")
    record(store, GERMAN, "language", "fixed")
    assert learned_note(store, GERMAN) == NOTE
    record(store, GERMAN, "language", "noted_failed")  # the note did not help the next first call
    assert learned_note(store, GERMAN) is None
    record(store, GERMAN, "language", "noted_passed")
    assert learned_note(store, GERMAN) == NOTE
    record(store, GERMAN, "language", "bare_passed")  # the bare call gets it right as often as not: no note
    assert learned_note(store, GERMAN) is None
    assert learned_note(None, GERMAN) is None


def test_a_language_paor_only_guessed_never_gets_the_learned_note(offline_context: Context) -> None:
    store = InMemoryStore()
    record(store, GERMAN, "language", "bare_failed")
    record(store, GERMAN, "language", "fixed")
    sure = {"language_sure": True}
    assert first_note(sure, runtime(offline_context, store), offline_context, GERMAN) == NOTE  # type: ignore[arg-type]
    guessed = {"language_sure": False}
    assert first_note(guessed, runtime(offline_context, store), offline_context, GERMAN) is None  # type: ignore[arg-type]


def test_a_step_learned_again_after_a_crash_counts_once() -> None:
    store = InMemoryStore()
    for _ in range(2):  # learn re-runs when the process died before its checkpoint was written
        _step(store, 1, REQUEST, [], ["language"], [])
    assert _outcomes(store) == ["bare_failed"]
