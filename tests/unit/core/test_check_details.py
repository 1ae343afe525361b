"""What the content checks tell the user and the next step (their details land in the history, `paor history` and
Stage 1), and where a line of numbers ends and prose begins. Called for by the full mutation run of nodes/checks.py.
"""

from __future__ import annotations

from typing import Any

from nodes.checks import extract_numbers, run_checks
from tests.unit.core.factories import primes_intent, ref, summary_intent

ENGLISH = (
    "The three reports describe how the company grew its revenue during the last year and which risks remain "
    "for the coming one, from higher costs to new competitors."
)


def _doc(text: str, mime: str = "text/markdown", name: str = "result.md") -> tuple[Any, bytes]:
    data = text.encode()
    return ref(label="round1_task1_action1_process", name=name, mime=mime, data=data), data


def _details(report: Any) -> dict[str, tuple[bool, str, str]]:
    return {c.name: (c.passed, c.detail, c.suggestion) for c in report.checks}


def test_prose_delivered_as_asked_says_what_passed() -> None:
    details = _details(run_checks(summary_intent(), [_doc(ENGLISH)]))
    assert details["data type"] == (True, "content is analysis, not code", "")
    assert details["format"] == (True, "text content delivered", "")


def test_only_a_binary_file_where_text_was_asked_is_no_text_content() -> None:
    pdf = (ref(name="r.pdf", mime="application/pdf", data=b"%PDF-1.7"), b"%PDF-1.7")
    assert _details(run_checks(summary_intent(), [pdf]))["format"] == (False, "no text content", "")


def test_a_missing_binary_deliverable_names_the_format_and_what_to_create() -> None:
    details = _details(run_checks(summary_intent(expectedFormat="pdf"), [_doc(ENGLISH)]))
    assert details["format"] == (False, "a pdf document was not delivered (text/markdown)", "Create the pdf document.")


def test_numbers_with_the_asked_property_say_how_many_passed() -> None:
    report = run_checks(primes_intent(itemCount=None), [_doc("2, 3, 5, 7, 11")])
    assert _details(report)["number property"] == (True, "all 5 numbers are prime", "")


def test_wrong_and_repeated_numbers_are_shown_by_their_first_three() -> None:
    wrong = run_checks(primes_intent(itemCount=None), [_doc("4, 6, 8, 9, 10")])
    assert _details(wrong)["number property"][1] == "5 numbers are not prime (e.g. [4, 6, 8])"
    repeated = run_checks(primes_intent(itemCount=None), [_doc("2, 2, 3, 3, 5, 5, 7, 7")])
    assert _details(repeated)["number property"][1] == "4 numbers are repeated (e.g. [2, 3, 5])"


def test_the_first_prime_alone_is_exactly_the_first_prime() -> None:
    report = run_checks(primes_intent(itemCount=1, successCriteria=["the first prime"]), [_doc("2")])
    assert report.all_passed, _details(report)


def test_no_numbers_fail_the_step() -> None:
    report = run_checks(primes_intent(), [_doc("I could not compute them.")])
    assert report.get("numbers") is not None and report.get("numbers").passed is False  # type: ignore[union-attr]


def test_code_in_english_is_not_language_checked_when_another_language_was_asked() -> None:
    code = "\n".join(f"def step_{i}(values):  # keep only the values that are larger than the limit" for i in range(5))
    report = run_checks(summary_intent(dataType="code", expectedFormat="code", language="de"), [_doc(code)])
    assert report.get("language") is None


def test_twenty_words_are_enough_to_check_the_language_and_nineteen_are_not() -> None:
    twenty = "the company grew its revenue during the last year while costs and risks kept rising for every team in it"
    assert len(twenty.split()) == 20
    nineteen = twenty.removesuffix(" it")
    german = summary_intent(language="de")
    assert _details(run_checks(german, [_doc(twenty)]))["language"][:2] == (False, "written in en, not de")
    assert run_checks(german, [_doc(nineteen)]).get("language") is None


def test_the_numbers_of_a_line_follow_its_last_colon() -> None:
    assert extract_numbers("Step 1: primes: 2, 3, 5, 7") == [2, 3, 5, 7]


def test_a_short_word_after_the_numbers_keeps_the_line_as_data_a_longer_one_does_not() -> None:
    assert extract_numbers("2, 3, 5, 7 ok") == [2, 3, 5, 7]  # two letters: still data
    assert extract_numbers("2, 3, 5 abc") == []  # three letters against three digits: prose
    assert extract_numbers("2, 3, 5, 7, 11, 13, 17, 19, 23, 29 etc") == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
