"""Issue 26: the request reaches the answer, filler is never a success, a one-line request takes one call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from core.context import Context
from core.errors import ParametersInvalid, SelectionRejected
from core.schemas import Intent
from nodes.arguments import prepare_arguments
from nodes.checks import count_items, run_checks
from nodes.direct import computed_note, fits_direct_answer
from nodes.intent import merge_intent, read_by_code
from nodes.reading.hints import read_hints
from nodes.select import parse_selection
from nodes.strategies import recall, record
from prompts.render import ai_process_messages
from tests.unit.core.factories import delivered, selection, selection_payload, summary_intent
from tools.catalog import catalog, lookup
from tools.documents import DocumentIndex

FILLER = "To achieve the task, I must ensure that all necessary steps are carried out to deliver a successful outcome."


def answer_intent(**overrides: Any) -> Intent:
    values: dict[str, Any] = {
        "dataType": "answer",
        "expectedFormat": "markdown",
        "successCriteria": ["the deliverable answers the request"],
        "language": "en",
    }
    return Intent.model_validate({**values, **overrides})


# --- 1. the request reaches every answer -----------------------------------------------------------------------


def _answer_call(task: str, request: str, criteria: Sequence[str] = ()) -> str:
    """The user message of the call that writes a deliverable."""
    messages = ai_process_messages(
        task=task,
        sources=[],
        language="en",
        output_format="md",
        mode="basic",
        custom="",
        request=request,
        criteria=criteria,
    )
    return str(messages[1].content)


def test_the_call_that_writes_a_deliverable_carries_the_request_and_criteria() -> None:
    user = _answer_call("What this one action must achieve", "What is 12 multiplied by 11?", ["states the product"])
    assert "What is 12 multiplied by 11?" in user and "- states the product" in user
    assert user.index("USER REQUEST") < user.index("TASK")


def test_a_task_that_is_the_request_is_not_repeated() -> None:
    user = _answer_call("Translate 'good morning' into German", "Translate 'good morning' into German.")
    assert user.count("good morning") == 1 and "TASK" not in user


@pytest.mark.parametrize(
    "copied",
    ["What this one action must achieve", "what this one action must achieve.", "<parameter name>", "…"],
)
def test_stage1_objective_copied_from_the_shape_is_rejected(copied: str) -> None:
    catalog()
    entries = [e for e in [lookup("ai.process")] if e is not None]
    with pytest.raises(SelectionRejected, match="actionObjective"):
        parse_selection(selection_payload(actionObjective=copied), entries, DocumentIndex([]))


def test_stage1_parameters_context_copied_from_the_shape_is_rejected() -> None:
    catalog()
    entries = [e for e in [lookup("ai.process")] if e is not None]
    copied = "Concise text Stage 2 uses to set the parameters."
    with pytest.raises(SelectionRejected, match="parametersContext"):
        parse_selection(selection_payload(parametersContext=copied), entries, DocumentIndex([]))
    # A real objective and context pass.
    assert parse_selection(selection_payload(), entries, DocumentIndex([])).action == "ai.process"


@pytest.mark.parametrize(
    "copied", ["The task, stated as what to deliver.", "What this one action must achieve", "<aiPrompt>", "string"]
)
def test_stage2_value_copied_from_a_description_is_rejected(copied: str) -> None:
    catalog()
    entry = lookup("ai.process")
    assert entry is not None
    with pytest.raises(ParametersInvalid, match="description or placeholder"):
        prepare_arguments(entry, {"aiPrompt": copied}, selection(), answer_intent(), Context())
    done = prepare_arguments(
        entry, {"aiPrompt": "Multiply 12 by 11.", "customInstructions": ""}, selection(), answer_intent(), Context()
    )
    assert done["aiPrompt"] == "Multiply 12 by 11."


# --- 2. filler is never a success ------------------------------------------------------------------------------


def test_filler_for_a_calculation_fails_by_computation() -> None:
    report = run_checks(answer_intent(), [delivered(FILLER)], "What is 12 multiplied by 11?")
    computed = report.get("computed")
    assert computed is not None and not computed.passed and "12 × 11 = 132" in computed.detail
    assert report.verdicts == {0: False}
    right = run_checks(answer_intent(), [delivered("12 × 11 = 132")], "What is 12 multiplied by 11?")
    assert right.all_passed and right.verdicts == {0: True}  # decided by code: no judge call


def test_a_conversion_is_computed_too() -> None:
    assert run_checks(answer_intent(), [delivered("3 km are 3,000 metres.")], "How many metres are 3 km?").all_passed
    assert not run_checks(answer_intent(), [delivered("3 km are 300 metres.")], "How many metres are 3 km?").all_passed


def test_filler_about_tasks_and_steps_fails_even_where_code_cannot_compute() -> None:
    report = run_checks(answer_intent(), [delivered(FILLER)], "Write one sentence about the sea.")
    substance = report.get("substance")
    assert substance is not None and not substance.passed
    assert report.verdicts == {0: False}  # no judge can grade it up
    sea = run_checks(
        answer_intent(), [delivered("The sea glitters under the morning sun.")], "Write one sentence about the sea."
    )
    assert sea.all_passed and sea.verdicts == {}  # what code cannot decide goes to the judge


def test_a_deliverable_that_repeats_a_placeholder_fails() -> None:
    report = run_checks(answer_intent(), [delivered("What this one action must achieve")], "Name a colour.")
    assert not report.all_passed and report.get("substance") is not None


def test_grounded_requests_are_not_judged_by_the_words_of_the_request() -> None:
    summary = "Le conseil a approuvé le plan. Les tâches sont réparties en étapes pour assurer le succès."
    report = run_checks(summary_intent(language="fr"), [delivered(summary)], "Summarise it.", grounded=True)
    assert report.get("substance") is None


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("2, 3, 5, 7, 11, 13, 17, 19, 23, 29", 10),
        ("Red, yellow and blue.", 3),
        ("The primary colours are: red, yellow, blue", 3),
        ("- red\n- yellow\n- blue\n", 3),
        ("Rojo, amarillo y azul.", 3),
        ("Rosso, giallo e blu.", 3),
        ("Red, yellow or blue.", 3),
        ("Rot, Gelb oder Blau.", 3),
        ("The sea is wide and deep, and it is blue.", 0),
    ],
)
def test_lists_are_counted_however_they_are_written(text: str, count: int) -> None:
    assert count_items(text) == count


def test_a_comma_separated_line_meets_the_count_of_a_list() -> None:
    intent = answer_intent(dataType="list", itemCount=10, successCriteria=["exactly 10 items"])
    report = run_checks(intent, [delivered("2, 3, 5, 7, 11, 13, 17, 19, 23, 29")], "Now give me only the first 10")
    assert report.all_passed and report.verdicts == {0: True}


def test_counts_written_as_words_are_read() -> None:
    assert read_hints("Name the three primary colours.").itemCount == 3
    assert read_hints("Name one colour.").itemCount is None
    assert read_hints("What are the three primary colours?").itemCount is None  # a number in a question: no count


def test_a_translation_is_checked_by_language_and_length() -> None:
    asked = "Translate 'good morning' into German."
    assert run_checks(answer_intent(language="de"), [delivered("Guten Morgen")], asked).all_passed
    too_long = run_checks(answer_intent(language="de"), [delivered(FILLER)], asked)
    assert not too_long.get("translation").passed  # type: ignore[union-attr]
    untranslated = run_checks(answer_intent(language="de"), [delivered("Good morning!")], asked)
    assert "untranslated" in untranslated.get("translation").detail  # type: ignore[union-attr]


def test_a_placeholder_approach_is_never_learned_as_what_worked() -> None:
    store = InMemoryStore()
    intent = answer_intent()
    record(store, intent, "ai.process", 'aiPrompt "What this one action must achieve"', True, "")
    assert recall(store, intent)[0].successfulAction is None
    record(store, intent, "ai.process", 'aiPrompt "Multiply 12 by 11."', True, "")
    assert recall(store, intent)[0].promptStyle == 'aiPrompt "Multiply 12 by 11."'


# --- 3. a one-line request goes straight to one answer ---------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "Translate 'good morning' into German.",
        "List the first 5 prime numbers.",
        "What is 12 multiplied by 11?",
        "Name the three primary colours.",
        "Write one sentence about the sea.",
        "How many metres are 3 km?",
    ],
)
def test_one_line_requests_are_answered_directly(request_text: str) -> None:
    catalog()
    hints = read_hints(request_text)
    intent = answer_intent(itemCount=hints.itemCount, numberProperty=hints.numberProperty)
    assert fits_direct_answer(request_text, intent, Context(), has_inputs=False)


def test_requests_that_need_documents_the_web_files_or_the_loop_are_not() -> None:
    catalog()
    context = Context()
    assert not fits_direct_answer("Summarise it.", answer_intent(), context, has_inputs=True)
    assert not fits_direct_answer(
        "What changed in the EU AI Act this month?", answer_intent(), context, has_inputs=False
    )
    assert not fits_direct_answer("Search the web for llama.cpp", answer_intent(), context, has_inputs=False)
    word = answer_intent(dataType="report", expectedFormat="docx")
    assert not fits_direct_answer("Write a Word report on tea.", word, context, has_inputs=False)
    primes = answer_intent(dataType="numbers", itemCount=1000, numberProperty="prime")
    assert not fits_direct_answer("Calculate the first 1000 prime numbers", primes, context, has_inputs=False)
    assert not fits_direct_answer("x" * 500, answer_intent(), context, has_inputs=False)
    assert not fits_direct_answer("What time is it?", answer_intent(), context, has_inputs=False, has_own_tools=True)
    off = Context(direct_answer=False)
    assert not fits_direct_answer("What is 2 + 2?", answer_intent(), off, has_inputs=False)
    no_ai = Context(allowed_methods="web.search")
    assert not fits_direct_answer("What is 2 + 2?", answer_intent(), no_ai, has_inputs=False)


def _by_code(request_text: str, context: Context | None = None, **kwargs: Any) -> Intent | None:
    catalog()
    options = {"has_inputs": False, "has_own_tools": False, **kwargs}
    hints = read_hints(request_text)
    named = hints.language if hints.languageExplicit else None  # as intent passes it
    return read_by_code(request_text, hints, named, context or Context(), **options)


@pytest.mark.parametrize(
    ("request_text", "language"),
    [
        ("What is 12 multiplied by 11?", "en"),
        ("What's 12 times 11?", "en"),  # two words: too few to detect a language from, and to matter
        ("Name the three primary colours.", "en"),
        ("How do you say 'good night' in Spanish?", "en"),  # Spanish is the words', not the answer's
        ("Describe the sea in Spanish.", "es"),  # the named language wins over detection
        ("Schreibe einen Satz über das Meer.", "de"),
        ("Wie viele Meter sind 3 km?", "de"),  # detection unsure: its everyday words tell, and decide no check
        ("What's 144 / 12?", "en"),  # no everyday word of any language: English
    ],
)
def test_a_one_liner_code_can_read_needs_no_analysis_call(request_text: str, language: str) -> None:
    intent = _by_code(request_text)
    assert intent is not None and intent.language == language and intent.clarification is None


def test_read_by_code_keeps_what_code_read_for_the_checks() -> None:
    colours = _by_code("Name the three primary colours.")
    assert colours is not None and colours.itemCount == 3 and "exactly 3 items" in colours.successCriteria


@pytest.mark.parametrize(
    "request_text",
    [
        "Write a Word report on tea.",  # a report: criteria a model writes better
        "Compare tea and coffee.",  # an analysis
        "Translate this:\nGood morning, everyone.",  # more than one line
        "What changed in the EU AI Act this month?",  # needs the web
        "Calculate the first 1000 prime numbers",  # a long list: the loop
        "Tell me a story about a dragon who learns to fly over the misty mountains of the north, "
        * 5,  # long: over ONE_LINE_CHARS
    ],
)
def test_other_requests_are_analysed_by_the_model(request_text: str) -> None:
    assert _by_code(request_text) is None


def test_read_by_code_follows_the_direct_answer_switch_inputs_and_own_tools() -> None:
    assert _by_code("What is 12 multiplied by 11?", Context(direct_answer=False)) is None
    assert _by_code("What is 12 multiplied by 11?", has_inputs=True) is None
    assert _by_code("What is 12 multiplied by 11?", has_own_tools=True) is None


def test_a_models_numbers_reading_of_a_request_without_any_number_is_dropped() -> None:
    sea = "Write a sentence about the sea."
    merged = merge_intent(read_hints(sea), answer_intent(dataType="numbers"), "en")
    assert merged.dataType == "answer" and merged.expectedFormat == "markdown"
    calculation = "Calculate the area of a circle of radius 2."
    assert merge_intent(read_hints(calculation), answer_intent(dataType="numbers"), "en").dataType == "numbers"


def test_a_retry_is_given_the_result_code_computed() -> None:
    plain = answer_intent()
    assert computed_note("What's 12 times 11?", plain) == "(The answer is 132.)"
    assert computed_note("How many metres is 3 km?", plain) == "(The answer is 3000 metres.)"
    primes = answer_intent(dataType="numbers", itemCount=5, numberProperty="prime")
    assert computed_note("What are the first 5 prime numbers?", primes) == "(The answer is 2, 3, 5, 7, 11.)"
    assert computed_note("Name the three primary colours.", plain) is None
