"""Issue 29 by unit: which attempt is delivered, echoes of paor's own words, conservative reading of the request,
and numbers and items wherever an answer states them."""

from __future__ import annotations

from typing import Any

import pytest

from core.schemas import GENERIC_CRITERION, DocumentRef, HistoryEntry, Intent
from nodes.answers import delivered, verified_better
from nodes.checks import count_items, extract_numbers, run_checks
from nodes.echo import echoed
from nodes.intent import merge_intent
from nodes.reading.hints import read_hints
from nodes.reading.numbers import expected_number

REF = DocumentRef(label="r", name="result.md", mime="text/markdown", size=1, sha256="0" * 64)


def attempt(step: int, passed: list[str], failed: list[str], *, documents: bool = True) -> HistoryEntry:
    return HistoryEntry(
        round=1, step=step, documents=[REF] if documents else [], checksPassed=passed, checksFailed=failed
    )


# --- the delivered answer ---------------------------------------------------------------------------------------


def test_a_later_attempt_replaces_the_answer_only_when_it_fixes_a_failed_check_and_breaks_none() -> None:
    first = attempt(1, ["format"], ["computed"])
    assert verified_better(attempt(2, ["format", "computed"], []), first)
    assert not verified_better(attempt(2, ["format"], ["computed"]), first)  # equal is not better
    assert not verified_better(attempt(2, ["computed"], ["format"]), first)  # fixes one, breaks another
    assert not verified_better(attempt(2, ["format", "computed"], []), attempt(1, ["format", "computed"], []))


def test_the_first_answer_stands_unless_a_later_one_is_verified_better() -> None:
    first, same, echo = attempt(1, ["format"], []), attempt(2, ["format"], []), attempt(3, [], ["format", "echo"])
    assert delivered([first, same, echo]) is first
    failed, fixed = attempt(1, ["format"], ["computed"]), attempt(2, ["format", "computed"], [])
    assert delivered([failed, fixed]) is fixed
    assert delivered([attempt(1, [], [], documents=False), same]) is same  # a step that produced nothing is skipped
    assert delivered([]) is None


# --- echoes ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "The previous answer was not accepted: The dog is a human.",
        "The task, stated as what to deliver.",  # ai.process's aiPrompt description
        "USER REQUEST:\nWhat is 2 + 2?",
        "Deliver the content itself, never a description of how you would produce it.",  # the writer's prompt
    ],
)
def test_an_answer_that_repeats_paors_own_words_is_an_echo(answer: str) -> None:
    assert echoed(answer, "What is 2 + 2?") is not None


def test_ordinary_answers_and_the_users_own_words_are_no_echo() -> None:
    assert echoed("The capital of Italy is Rome.", "What is the capital of Italy?") is None
    request = "Answer the user's request: deliver the content itself, never a description of it"
    assert echoed(request, request) is None  # quoting the user is no echo
    assert echoed("Give exactly 3 items as a list please now", "", ["Give exactly 3 items as a list please now."])


def test_an_echo_fails_every_criterion() -> None:
    intent = Intent(dataType="answer", expectedFormat="markdown", successCriteria=[GENERIC_CRITERION])
    report = run_checks(intent, [(REF, b"The previous answer was not accepted: blue.")], "What colour is the sky?")
    assert report.get("echo") is not None and report.verdicts == {0: False}


# --- conservative reading ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_",
    ["Is 17 a prime number?", "Which is larger, 3 or 7?", "Are there 7 days in a week?", "Does 9 have 3 factors?"],
)
def test_a_closed_question_is_no_list_and_its_numbers_are_no_count(request_: str) -> None:
    hints = read_hints(request_)
    assert hints.itemCount is None and hints.numberProperty is None and hints.criteria == []
    assert hints.dataType == "answer"


def test_only_first_n_is_a_count_in_a_question_while_a_list_request_keeps_its_count() -> None:
    assert read_hints("What are the first 5 prime numbers?").itemCount == 5
    assert read_hints("How many days are in 3 weeks?").itemCount is None
    assert read_hints("Name three fruits.").itemCount == 3


@pytest.mark.parametrize(
    ("request_", "value"),
    [
        ("How many centimetres are in 2 metres?", 200),
        ("Convert 5 kilograms to grams", 5000),
        ("What is 3 hours in minutes?", 180),
        ("2 litres in millilitres?", 2000),
        ("How many grams is 5 kg?", 5000),
        ("5 kg is how many grams?", 5000),
        ("How many minutes are in an hour?", 60),
        ("What is seven plus eight?", 15),
        ("What's 144 divided by 12?", 12),
        ("What is twenty-one minus four?", 17),
    ],
)
def test_conversions_and_arithmetic_are_read_in_the_usual_phrasings(request_: str, value: float) -> None:
    expected = expected_number(request_)
    assert expected is not None and expected.value == value


@pytest.mark.parametrize(
    "request_", ["How many legs does a spider have?", "How many letters are in the word banana?", "Name one fruit."]
)
def test_what_is_not_one_calculation_is_not_computed_at_all(request_: str) -> None:
    assert expected_number(request_) is None


@pytest.mark.parametrize(
    ("request_", "fmt"),
    [
        ("Summarise the attached PDF", None),
        ("Summarise notes.pdf in three sentences", None),
        ("Extract the totals from a PDF", None),
        ("Give me a word that rhymes with cat", None),
        ("Give me the result as a PDF", "pdf"),
        ("Summarise these three PDFs in German as a Word report", "docx"),
        ("Convert this to PDF", "pdf"),
    ],
)
def test_only_words_that_name_the_output_set_its_format(request_: str, fmt: str | None) -> None:
    assert read_hints(request_).expectedFormat == fmt


def test_an_attached_report_is_an_input_not_a_report_to_write() -> None:
    assert read_hints("Summarise the attached report").dataType != "report"
    assert read_hints("Write a report about bees").dataType == "report"


def test_a_language_named_for_the_words_asked_for_is_not_the_answers_language() -> None:
    hints = read_hints("How do you say 'good night' in Spanish?")
    assert not hints.languageExplicit
    assert read_hints("Describe Paris in German").languageExplicit


@pytest.mark.parametrize(
    ("request_", "language"),
    [
        ("Describe Lisbon in Portuguese", "pt"),
        ("Beschreibe Rom auf Italienisch", "it"),
        ("Décris Berlin en allemand", "de"),
        ("Describe Roma en inglés", "en"),
        ("Descrivi Parigi in tedesco", "de"),
        ("Wie ist das Wetter in Italien im Mai?", None),  # in Italy
        ("Write a short email to German customers about the delay", None),
    ],
)
def test_the_language_a_request_names_for_its_answer(request_: str, language: str | None) -> None:
    hints = read_hints(request_)
    assert (hints.language if hints.languageExplicit else None) == language


def _model_intent(**values: Any) -> Intent:
    return Intent.model_validate({"dataType": "text", "expectedFormat": "markdown", "language": "en", **values})


def test_a_models_property_count_and_criteria_the_request_never_names_are_dropped() -> None:
    request = "Write a sentence about a dog."
    proposed = _model_intent(numberProperty="id_dog", itemCount=5, successCriteria=["mentions the weather"])
    merged = merge_intent(read_hints(request), proposed, "en", request)
    assert merged.numberProperty is None and merged.itemCount is None
    assert merged.successCriteria == [GENERIC_CRITERION]


def test_a_models_reading_the_request_agrees_with_is_kept() -> None:
    request = "List the even numbers below ten, five of them."
    proposed = _model_intent(numberProperty="even", itemCount=5, successCriteria=["five even numbers"])
    merged = merge_intent(read_hints(request), proposed, "en", request)
    assert merged.numberProperty == "even" and merged.itemCount == 5


def test_a_models_file_format_is_dropped_unless_the_request_names_it_as_output() -> None:
    request = "Tell me about the weather in spring."
    merged = merge_intent(read_hints(request), _model_intent(expectedFormat="pdf"), "en", request)
    assert merged.expectedFormat == "markdown"


# --- numbers and items wherever stated -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "numbers"),
    [
        ("The numbers 2, 7 and 4 are all below ten.", [2, 7, 4]),
        ("The first five primes are 2, 3, 5, 7 and 11.", [2, 3, 5, 7, 11]),
        ("The first 5 primes are 2, 3, 5, 7, and 11.", [2, 3, 5, 7, 11]),
        ("2, 3, 5, 7, 11", [2, 3, 5, 7, 11]),
        ("| n |\n|---|\n| 2 |\n| 3 |", [2, 3]),
        ("Sorted: 1,000, 2,500 and 4,000.", [1000, 2500, 4000]),
        ("Los cinco primeros primos son 2, 3, 5, 7 y 11.", [2, 3, 5, 7, 11]),
        ("I primi cinque numeri primi sono 2, 3, 5, 7 e 11.", [2, 3, 5, 7, 11]),
        ("Die ersten Primzahlen sind 2, 3, 5 und 7.", [2, 3, 5, 7]),
    ],
)
def test_numbers_are_read_in_prose_lists_and_tables(answer: str, numbers: list[int]) -> None:
    assert extract_numbers(answer) == numbers


def test_items_at_the_end_of_a_sentence_are_counted() -> None:
    assert count_items("The three primary colours are red, yellow and blue.") == 3
    assert count_items("Apples, pears and plums.") == 3
    assert count_items("I like the sea.") == 0


def test_a_request_for_the_worlds_news_goes_to_the_loop_only_where_a_web_action_can_run() -> None:
    from core.context import Context
    from nodes.direct import fits_direct_answer
    from tools.catalog import catalog

    catalog()
    request = "If today is Friday, what day will it be in two days?"
    intent = merge_intent(read_hints(request), None, "en", request)
    assert intent.freshness == "day"  # "today" reads as freshness …
    offline = Context(allowed_methods="ai.process")
    assert fits_direct_answer(request, intent, offline, has_inputs=False)  # … but no web action could help
    with_web = Context(allowed_methods="ai.process,web.search")
    assert not fits_direct_answer(request, intent, with_web, has_inputs=False)
