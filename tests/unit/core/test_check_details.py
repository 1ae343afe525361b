"""What the content checks tell the user and the next step (their details land in the history, `paor history` and
Stage 1), and where a line of numbers ends and prose begins. Called for by the full mutation run of nodes/checks.py.
"""

from __future__ import annotations

from typing import Any

from nodes.checks import extract_numbers, looks_like_code, run_checks
from tests.unit.core.factories import delivered, primes_intent, ref, summary_intent

ENGLISH = (
    "The three reports describe how the company grew its revenue during the last year and which risks remain "
    "for the coming one, from higher costs to new competitors."
)


def _details(report: Any) -> dict[str, tuple[bool, str, str]]:
    return {c.name: (c.passed, c.detail, c.suggestion) for c in report.checks}


def test_prose_delivered_as_asked_says_what_passed() -> None:
    details = _details(run_checks(summary_intent(), [delivered(ENGLISH)]))
    assert details["data type"] == (True, "content is analysis, not code", "")
    assert details["format"] == (True, "text content delivered", "")


def test_only_a_binary_file_where_text_was_asked_is_no_text_content() -> None:
    pdf = (ref(name="r.pdf", mime="application/pdf", data=b"%PDF-1.7"), b"%PDF-1.7")
    assert _details(run_checks(summary_intent(), [pdf]))["format"] == (False, "no text content", "")


def test_a_missing_binary_deliverable_names_the_format_and_what_to_create() -> None:
    details = _details(run_checks(summary_intent(expectedFormat="pdf"), [delivered(ENGLISH)]))
    assert details["format"] == (False, "a pdf document was not delivered (text/markdown)", "Create the pdf document.")


def test_numbers_with_the_asked_property_say_how_many_passed() -> None:
    report = run_checks(primes_intent(itemCount=None), [delivered("2, 3, 5, 7, 11")])
    assert _details(report)["number property"] == (True, "all 5 numbers are prime", "")


def test_wrong_and_repeated_numbers_are_shown_by_their_first_three() -> None:
    wrong = run_checks(primes_intent(itemCount=None), [delivered("4, 6, 8, 9, 10")])
    assert _details(wrong)["number property"][1] == "5 numbers are not prime (e.g. [4, 6, 8])"
    repeated = run_checks(primes_intent(itemCount=None), [delivered("2, 2, 3, 3, 5, 5, 7, 7")])
    assert _details(repeated)["number property"][1] == "4 numbers are repeated (e.g. [2, 3, 5])"


def test_the_first_prime_alone_is_exactly_the_first_prime() -> None:
    report = run_checks(primes_intent(itemCount=1, successCriteria=["the first prime"]), [delivered("2")])
    assert report.all_passed, _details(report)


def test_no_numbers_fail_the_step() -> None:
    report = run_checks(primes_intent(), [delivered("I could not compute them.")])
    assert report.get("numbers") is not None and report.get("numbers").passed is False  # type: ignore[union-attr]


def test_code_in_english_is_not_language_checked_when_another_language_was_asked() -> None:
    code = "\n".join(f"def step_{i}(values):  # keep only the values that are larger than the limit" for i in range(5))
    report = run_checks(summary_intent(dataType="code", expectedFormat="code", language="de"), [delivered(code)])
    assert report.get("language") is None


def test_twenty_words_are_enough_to_check_the_language_and_nineteen_are_not() -> None:
    twenty = "the company grew its revenue during the last year while costs and risks kept rising for every team in it"
    assert len(twenty.split()) == 20
    nineteen = twenty.removesuffix(" it")
    german = summary_intent(language="de")
    assert _details(run_checks(german, [delivered(twenty)]))["language"][:2] == (False, "written in en, not de")
    assert run_checks(german, [delivered(nineteen)]).get("language") is None


def test_the_numbers_of_a_line_follow_its_last_colon() -> None:
    assert extract_numbers("Step 1: primes: 2, 3, 5, 7") == [2, 3, 5, 7]


def test_a_short_word_after_the_numbers_keeps_the_line_as_data_a_longer_one_does_not() -> None:
    assert extract_numbers("2, 3, 5, 7 ok") == [2, 3, 5, 7]  # two letters: still data
    assert extract_numbers("2, 3, 5 abc") == [2, 3, 5]  # prose: its run of listed numbers
    assert extract_numbers("Here are 3 items: 4 and 5 of them, 6.") == [4, 5]  # the longest run in prose
    assert extract_numbers("2, 3, 5, 7, 11, 13, 17, 19, 23, 29 etc") == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_nothing_delivered_says_what_to_do() -> None:
    report = run_checks(primes_intent(), [delivered("  ")])
    assert _details(report) == {"non-empty": (False, "nothing was delivered", "Deliver the content itself.")}


def test_only_the_asked_binary_file_passes_every_check() -> None:
    pdf = (ref(name="r.pdf", mime="application/pdf", data=b"%PDF-1.7"), b"%PDF-1.7")
    report = run_checks(summary_intent(expectedFormat="pdf"), [pdf])
    assert report.all_passed, _details(report)


def test_the_numbers_of_several_documents_are_read_as_one_list() -> None:
    report = run_checks(primes_intent(itemCount=4), [delivered("2, 3", name="a.md"), delivered("5, 7", name="b.md")])
    assert report.all_passed, _details(report)


def test_numbers_asked_without_a_property_still_need_numbers() -> None:
    report = run_checks(
        primes_intent(numberProperty=None, itemCount=None), [delivered("It is three hundred and ninety-one.")]
    )
    assert _details(report)["numbers"][0] is False


def test_the_language_check_names_the_language_it_found() -> None:
    report = run_checks(summary_intent(), [delivered(ENGLISH)])
    assert _details(report)["language"] == (True, "written in en", "")


# -- which criteria code decides (the rest go to one judge request) ----------------------------------------


def test_a_count_written_with_a_thousands_separator_or_the_word_count_is_decided_by_the_count() -> None:
    too_few = ", ".join(map(str, range(2, 10)))
    intent = primes_intent(
        numberProperty=None, itemCount=1000, successCriteria=["1,000 of them", "the count is right", "sorted"]
    )
    assert run_checks(intent, [delivered(too_few)]).verdicts == {0: False, 1: False}


def test_a_criterion_is_met_only_when_every_check_it_talks_about_passed() -> None:
    four_even = "2, 4, 6, 8"
    intent = primes_intent(numberProperty="even", itemCount=5, successCriteria=["5 even values"])
    assert run_checks(intent, [delivered(four_even)]).verdicts == {0: False}  # the property passed, the count did not
    csv_intent = primes_intent(
        numberProperty=None, itemCount=5, expectedFormat="csv", successCriteria=["5 values as csv"]
    )
    assert run_checks(csv_intent, [delivered("2,4,6,8", mime="text/csv", name="r.csv")]).verdicts == {0: False}
    listed = summary_intent(itemCount=3, successCriteria=["3 points in English"])
    two_points = f"- {ENGLISH}\n- {ENGLISH}"
    assert run_checks(listed, [delivered(two_points)]).verdicts == {0: False}


def test_a_language_criterion_is_decided_by_the_language_check_alone() -> None:
    german = (
        "Die drei Berichte beschreiben, wie das Unternehmen im letzten Jahr seinen Umsatz gesteigert hat und welche "
        "Risiken für das kommende Jahr bleiben, von höheren Kosten bis zu neuen Wettbewerbern auf dem Markt."
    )
    report = run_checks(summary_intent(successCriteria=["written in English"]), [delivered(german)])
    assert report.verdicts == {0: False}


def test_data_criteria_are_decided_for_numbers_and_left_to_the_judge_for_prose() -> None:
    nothing = run_checks(primes_intent(successCriteria=["just the data"]), [delivered("Sorry, no luck today.")])
    assert nothing.verdicts == {0: False}
    summary = summary_intent(successCriteria=["covers the three PDFs", "mentions the revenue numbers"])
    assert run_checks(summary, [delivered(ENGLISH)]).verdicts == {}


# -- code or not -------------------------------------------------------------------------------------------

PROSE = [f"Paragraph {i} explains one part of the method in plain words for the reader." for i in range(8)]


def test_a_fenced_block_of_three_code_lines_in_long_prose_is_code() -> None:
    text = "\n".join([*PROSE, "```python", "import math", "for n in range(10):", "print(n)", "```"])
    assert looks_like_code(text)
    assert not looks_like_code(text.replace("print(n)", "the end"))  # two code lines: an example, not code


def test_code_lines_make_code_from_thirty_percent_of_the_lines() -> None:
    code = ["import math", "for n in range(10):", "if n > 2:"]
    assert looks_like_code("\n".join([*PROSE[:7], *code]))  # 3 of 10
    assert not looks_like_code("\n".join([*PROSE, *code]))  # 3 of 11, not fenced
    assert not looks_like_code("\n".join([*PROSE, "import math"]))
