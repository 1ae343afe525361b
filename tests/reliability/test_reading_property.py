"""Property tests: whatever a request or an answer holds — other scripts' digits, superscripts, fractions, stray
quotes, half a date — reading it (the table of kinds, the intent's hints, the calculation reader) and judging an
answer against what code computed return a result or None, never raise: a one-line request reaches them before any
model call, so a raise there would end the user's run."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nodes.reading.hints import read_hints
from nodes.reading.kinds import known_answer
from nodes.reading.numbers import expected_number

FAST = settings(
    derandomize=True, max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
#: Words of the kinds' requests and answers, and characters that are digits or numbers to some readers and not others.
FRAGMENTS = [
    "What",
    "weekday",
    "was",
    "How",
    "many",
    "days",
    "between",
    "and",
    "Round",
    "to",
    "the",
    "nearest",
    "decimal",
    "places",
    "letters",
    "in",
    "'banana'",
    "prime",
    "Is",
    "a",
    "leap",
    "year",
    "next",
    "Friday",
    "after",
    "before",
    "Sort",
    "ascending:",
    "largest",
    "of",
    "or",
    "times",
    "divided",
    "by",
    "plus",
    "minus",
    "%",
    "of",
    "km",
    "in",
    "metres",
    "hours",
    "minutes",
    "reverse",
    "capitals",
    "first",
    "last",
    "letter",
    "vowels",
    "sum",
    "from",
    "The",
    "answer",
    "is",
    "Answer:",
    "Yes",
    "No",
    "not",
    "so",
    "=",
    "≈",
    ",",
    ".",
    "?",
    ":",
    "-",
    "/",
    "March",
    "Mars",
    "2024",
    "1,000",
    "3.000",
    "3,5",
    "0.5",
    "12",
    "7",
    "-3",
    "²",
    "³",
    "½",
    "¼",
    "٣",
    "١٢",
    "Ⅻ",
    "１２",
    "⁴",
    "√",
    "×",
    "÷",
    "«",
    "»",
    "„",
    "“",
    "”",
    "'",
    '"',
    "é",
    "ß",
    "ñ",
    "œ",
    "zwölf",
    "douze",
    "doce",
    "dodici",
    "twelve",
    "Montag",
    "lundi",
    "Monday",
    "15th",
    "1er",
]
text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=14).map(" ".join)
#: Requests of each kind with their slots filled by numbers as other scripts and notations write them.
NUMBERS = [
    "5",
    "12",
    "2024",
    "²",
    "³",
    "½",
    "٣",
    "١٢",
    "Ⅻ",
    "１２",
    "-3",
    "0.5",
    "3,5",
    "1,000",
    "3.000",
    "March",
    "Mars",
    "März",
    "15th",
    "1er",
    "zwölf",
]
TEMPLATES = (
    "What weekday was {} {} {}?",
    "How many days are between {} {} {} and {} {} {}?",
    "Round {} to {} decimal places.",
    "What is {} times {}?",
    "Is {} a prime number?",
    "How many minutes are in {} {} hours?",
    "Sort ascending: {}, {}, {}",
    "Which is the largest of {}, {} or {}?",
    "What is the sum of all numbers from {} to {}?",
    "What weekday was {}-{}-{}?",
    "How many letters are in '{}{}'?",
    "How many days does {} {} have?",
    "What is {}% of {}?",
    "What is the square root of {}?",
    "Convert {} {} to metres.",
)
slotted = st.sampled_from(TEMPLATES).flatmap(
    lambda t: st.lists(st.sampled_from(NUMBERS), min_size=t.count("{}"), max_size=t.count("{}")).map(
        lambda n: t.format(*n)
    )
)


@FAST
@given(request=slotted | text, answer=text)
def test_reading_a_request_and_judging_an_answer_never_raise(request: str, answer: str) -> None:
    read_hints(request)
    expected_number(request)
    known = known_answer(request)
    if known is not None:
        known.holds(answer)
        known.say("de")
