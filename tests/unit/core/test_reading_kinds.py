"""What code decides from a one-line request's words (nodes/reading/kinds.py): each kind decided where the words leave
no doubt, nothing decided where they do, and the test an answer must pass."""

from __future__ import annotations

import pytest

from nodes.reading.kinds import known_answer


@pytest.mark.parametrize(
    ("request_text", "statement", "right", "wrong"),
    [
        ("How many letters are in the word 'banana'?", "'banana' has 6 letters.", "Banana has six letters.", "5"),
        ("How many r's are in 'strawberry'?", "'r' occurs 3 times in 'strawberry'.", "There are 3.", "2 r's"),
        (
            "How many times does the letter 's' appear in 'Mississippi'?",
            "'s' occurs 4 times in 'Mississippi'.",
            "4 times",
            "3 times",
        ),
        ("What is the sum of the numbers from 1 to 100?", "1 + … + 100 = 5050.", "It is 5,050.", "5000"),
        (
            "Put these words in alphabetical order: pear, apple, mango",
            "apple, mango, pear.",
            "1. Apple\n2. Mango\n3. Pear",
            "apple, pear, mango",
        ),
        ("Sort these numbers from smallest to largest: 42, 7, 19", "7, 19, 42.", "7, 19, 42", "7, 42, 19"),
        ("Arrange in descending order: 3, 11, 5", "11, 5, 3.", "11 > 5 > 3", "3, 5, 11"),
        ("Is 97 a prime number?", "Yes, 97 is prime.", "Yes — 97 is prime.", "No, 97 is not prime."),
        ("Is 91 prime?", "No, 91 is not prime.", "No: 91 = 7 × 13.", "Yes, 91 is prime."),
        ("Is 2024 a leap year?", "Yes, 2024 is a leap year.", "Yes.", "No, it is not."),
        ("Is 15 an even number?", "No, 15 is not even.", "No, 15 is odd.", "Yes."),
        ("How many days are in a leap year?", "A leap year has 366 days.", "366 days.", "365"),
        ("How many days are there in September?", "September has 30 days.", "Thirty days.", "31"),
        ("How many minutes are in two hours?", "2 hours = 120 minutes.", "120 minutes", "20 minutes"),
        ("What's 144 divided by 12?", "144 / 12 = 12.", "12", "144 divided by 12 is 14."),
        ("What's 144 divided by 12?", "144 / 12 = 12.", "144 / 12 = 12", "144 ÷ 12 = 11"),
    ],
)
def test_each_kind_is_decided_where_its_words_leave_no_doubt(
    request_text: str, statement: str, right: str, wrong: str
) -> None:
    known = known_answer(request_text)
    assert known is not None and known.statement == statement
    assert known.holds(right) and not known.holds(wrong)


@pytest.mark.parametrize(
    "request_text",
    [
        "How many days are in February?",  # 28 or 29: the year decides
        "How many letters are in the alphabet?",  # no quoted word: which alphabet?
        "Put these words in alphabetical order: pear",  # one item is no order
        "Sort these numbers: 3, 1, 2",  # which way?
        "Put these in alphabetical order: b2, a1",  # numbers among the words
        "Is 97 a prime number or a composite one, and why?",  # more than the property is asked
        "What is the sum of the numbers from 10 to 1?",  # an empty range
        "Write a poem about the number 7.",
    ],
)
def test_nothing_is_decided_where_the_words_leave_a_doubt(request_text: str) -> None:
    assert known_answer(request_text) is None
