"""What code knows of an answer before the model speaks: calculations, unit conversions, translations."""

from __future__ import annotations

import pytest

from nodes.reading.hints import translation_of
from nodes.reading.kinds import known_answer
from nodes.reading.numbers import NotComputable, evaluate, expected_number, first_primes, numbers_in


@pytest.mark.parametrize(
    ("request_text", "value"),
    [
        ("What is 12 multiplied by 11?", 132),
        ("what is 12 × 11", 132),
        ("Calculate 7 * (3 + 2)", 35),
        ("What is 100 divided by 8?", 12.5),
        ("What is 2 to the power of 10?", 1024),
        ("What is 15% of 80?", 12),
        ("What is the square root of 144?", 12),
        ("How much is 1,000 plus 250?", 1250),
        ("Convert 3 km in metres", 3000),
        ("How many metres are 3 km?", 3000),
        ("What is 5 miles in kilometres?", 8.04672),
        ("Convert 100 celsius to fahrenheit", 212),
    ],
)
def test_one_calculation_or_conversion_is_computed(request_text: str, value: float) -> None:
    expected = expected_number(request_text)
    assert expected is not None
    assert expected.value == pytest.approx(value)


@pytest.mark.parametrize(
    "request_text",
    [
        "Write 2-3 sentences about the sea.",
        "List the first 5 prime numbers.",
        "Summarise the meeting of 26/11/2026.",
        "Name three primary colours.",
        "Translate 'good morning' into German.",
        "Calculate the first 1000 prime numbers in a list",
        "Call +41 44 123 45 67 and ask for the price",
    ],
)
def test_requests_that_are_no_single_calculation_have_no_expected_number(request_text: str) -> None:
    assert expected_number(request_text) is None


def test_the_answer_must_state_the_number_exactly_or_within_rounding() -> None:
    product = known_answer("What is 12 multiplied by 11?")
    fraction = known_answer("What is 10 divided by 3?")
    assert product is not None and fraction is not None
    assert product.holds("12 × 11 = 132.")
    assert not product.holds("To achieve the task, I must ensure all necessary steps are done.")
    assert not product.holds("The answer is 131.")
    assert fraction.holds("10 / 3 is about 3.33")
    assert not fraction.holds("10 / 3 is about 3.5")


def test_numbers_are_read_with_thousands_separators_and_decimal_commas() -> None:
    assert numbers_in("3,000 m; 3 000 m; 3'000 m; 3\u202f000 m; 2,5 kg; -4") == [3000, 3000, 3000, 3000, 2.5, -4]


@pytest.mark.parametrize(
    "expression",
    ["__import__('os').system('id')", "(1).__class__", "abs(-1)", "9 ** 9 ** 9", "1 / 0", "x + 1", "'a' * 3"],
)
def test_only_plain_arithmetic_is_evaluated(expression: str) -> None:
    with pytest.raises(NotComputable):
        evaluate(expression)


def test_a_translation_request_names_its_text_and_target_language() -> None:
    found = translation_of("Translate 'good morning' into German.")
    assert found is not None and (found.source, found.language) == ("good morning", "de")
    french = translation_of('Please translate "thank you very much" to French')
    assert french is not None and (french.source, french.language) == ("thank you very much", "fr")
    assert translation_of("Write a sentence about the sea in German.") is None
    german = translation_of("Übersetze 'I'm fine, thanks' ins Deutsche.")  # an apostrophe inside the quote
    assert german is not None and (german.source, german.language) == ("I'm fine, thanks", "de")
    portuguese = translation_of("Translate 'good night' into Portuguese")
    assert portuguese is not None and portuguese.language == "pt"


def test_the_first_primes_are_computed_once_for_the_note_and_the_check_of_one_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sympy

    ranges: list[int] = []
    real_primerange = sympy.primerange
    monkeypatch.setattr(sympy, "primerange", lambda a, b: ranges.append(b) or real_primerange(a, b))
    first_primes.cache_clear()

    assert first_primes(10) == (2, 3, 5, 7, 11, 13, 17, 19, 23, 29)
    assert first_primes(10) == first_primes(10) and len(first_primes(1000)) == 1000
    assert ranges == [30, 7920]
