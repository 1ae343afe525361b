"""What a short program decides from a one-line request's words alone, read conservatively.

One mechanism for every kind: each reader below either recognises its kind of request with no doubt left — the
items, the number, the word are all stated in the request — and answers a `Known` (the result as a statement, and
the test an answer must pass), or it answers None and nothing changes. Validation runs the test as the "computed"
check, a retry is told the result, and an answer that fails it twice is replaced by the statement
(nodes/computed.py). Kinds: one calculation or unit conversion (nodes/expected.py), the letters of a quoted word
and how often a letter occurs in it, the sum of a stated range of whole numbers, stated items put in alphabetical
or numeric order, whether a stated number is prime, even or odd, whether a stated year is a leap year, and the days
of a leap year or of a named month other than February.

Readers never guess: a request that names no quoted word, lists fewer than two items, or could mean two things
("days in February") is not decided.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from nodes.expected import expected_number, in_digits, numbers_in

_QUOTE = r"[\"'“‘«„]"
_UNQUOTE = r"[\"'”’»“]"
_WORD = rf"{_QUOTE}(?P<word>[^\W\d_]+){_UNQUOTE}"
_LETTERS = re.compile(rf"^how many letters (?:are )?(?:there )?in (?:the word )?{_WORD}\s*\??$", re.I)
_OCCURRENCES = re.compile(
    rf"^how many (?:times does (?:the letter )?{_QUOTE}?(?P<letter>[^\W\d_]){_UNQUOTE}? (?:appear|occur) in"
    rf"|{_QUOTE}?(?P<letter2>[^\W\d_]){_UNQUOTE}?['’]?s (?:are )?(?:there )?in) (?:the word )?"
    rf"{_QUOTE}?(?P<word>[^\W\d_]+){_UNQUOTE}?\s*\??$",
    re.I,
)
_RANGE_SUM = re.compile(
    r"^(?:what is |what's |calculate |compute )?(?:the )?sum of (?:all )?(?:the )?(?:whole |natural )?"
    r"(?:numbers|integers) from (?P<low>\d{1,6}) (?:to|through) (?P<high>\d{1,6})\s*[?.]?$",
    re.I,
)
_ORDER = re.compile(
    r"^(?:please )?(?:put|sort|arrange|order|list)\s+(?:these|the following)?\s*(?P<what>[a-z ]{0,20}?)\s*"
    r"(?:in (?P<alpha>alphabetical) order|(?:from )?(?P<asc>smallest|lowest|least) to (?:largest|biggest|highest|"
    r"greatest)|(?:from )?(?P<desc>largest|biggest|highest|greatest) to (?:smallest|lowest|least)|in (?P<asc2>"
    r"ascending|increasing) order|in (?P<desc2>descending|decreasing) order)\s*:\s*(?P<items>[^:]+?)\s*\.?$",
    re.I,
)
_PROPERTY = re.compile(
    r"^is (?P<number>\d{1,12}) (?:an? )?(?P<property>prime|even|odd)(?: number)?\s*\??$|"
    r"^is (?:the year )?(?P<year>\d{1,4}) a leap year\s*\??$",
    re.I,
)
_MONTH_DAYS = re.compile(
    r"^how many days (?:are )?(?:there )?in (?:a |the month of )?(?P<what>leap year|[a-z]+)\s*\??$", re.I
)
_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_YES, _NO = re.compile(r"^\W*yes\b", re.I), re.compile(r"^\W*no\b", re.I)


@dataclass(frozen=True)
class Known:
    """The result code computed for a request: as a statement ("'banana' has 6 letters."), as what a retry is told
    (the result alone), and the test an answer must pass (it states that result)."""

    statement: str
    result: str
    holds: Callable[[str], bool]


@cache
def known_answer(request: str) -> Known | None:
    """The result of the request, if a reader decides it from its words alone."""
    text = " ".join(request.split())
    for reader in _READERS:
        known = reader(text)
        if known is not None:
            return known
    return None


def stated(answer: str, request: str) -> list[float]:
    """The numbers an answer states beyond a restatement of the request: "144 divided by 12 is 14" names 12, but
    only as the request's own; "12" alone states it."""
    found = numbers_in(in_digits(answer))
    asked = numbers_in(in_digits(request))
    if asked and all(found.count(n) >= asked.count(n) for n in set(asked)):
        for number in asked:
            found.remove(number)
    return found


def _number(statement: str, value: float, request: str) -> Known:
    return Known(statement, f"{value:g}", lambda answer: value in stated(answer, request))


def _calculation(text: str) -> Known | None:
    expected = expected_number(text)
    if expected is None:
        return None
    how = expected.how.replace("**", "^").replace("*", "×")
    return Known(f"{how}.", how.rsplit(" = ", 1)[-1], lambda answer: expected.found_in(stated(answer, text)))


def _letters(text: str) -> Known | None:
    match = _LETTERS.match(text)
    if not match:
        return None
    word = match.group("word")
    return _number(f"'{word}' has {len(word)} letters.", len(word), text)


def _occurrences(text: str) -> Known | None:
    match = _OCCURRENCES.match(text)
    if not match:
        return None
    letter, word = (match.group("letter") or match.group("letter2")).lower(), match.group("word")
    times = word.lower().count(letter)
    return _number(f"'{letter}' occurs {times} {'time' if times == 1 else 'times'} in '{word}'.", times, text)


def _range_sum(text: str) -> Known | None:
    match = _RANGE_SUM.match(text)
    if not match:
        return None
    low, high = int(match.group("low")), int(match.group("high"))
    if high <= low:
        return None
    total = (low + high) * (high - low + 1) // 2
    return _number(f"{low} + … + {high} = {total}.", total, text)


def _ordering(text: str) -> Known | None:
    match = _ORDER.match(text)
    if not match:
        return None
    items = [item.strip() for item in re.split(r",|\band\b", match.group("items").rstrip(".")) if item.strip()]
    if len(items) < 2 or len({item.casefold() for item in items}) < len(items):
        return None
    if match.group("alpha"):
        if any(re.search(r"\d", item) for item in items):
            return None
        ordered = sorted(items, key=str.casefold)
    else:
        values = [numbers_in(item) for item in items]
        if any(len(found) != 1 for found in values):
            return None
        descending = bool(match.group("desc") or match.group("desc2"))
        ordered = [item for _, item in sorted(zip((v[0] for v in values), items, strict=True), reverse=descending)]
    listed = ", ".join(ordered)
    return Known(f"{listed}.", listed, lambda answer: _in_order(answer, ordered))


def _in_order(answer: str, ordered: list[str]) -> bool:
    """Every item is named, and the first naming of each comes after the one before it."""
    places = []
    for item in ordered:
        found = re.search(rf"(?<![\w.]){re.escape(item)}(?![\w.])", answer, re.I)
        if found is None:
            return False
        places.append(found.start())
    return places == sorted(places)


def _property(text: str) -> Known | None:
    match = _PROPERTY.match(text)
    if not match:
        return None
    if match.group("year"):
        year = int(match.group("year"))
        holds, what = calendar.isleap(year), f"{year} is{{}} a leap year"
    else:
        number, name = int(match.group("number")), match.group("property").lower()
        holds = {"prime": _is_prime, "even": lambda n: n % 2 == 0, "odd": lambda n: n % 2 == 1}[name](number)
        what = f"{number} is{{}} {name}"
    said = "Yes" if holds else "No"
    statement = f"{said}, {what.format('' if holds else ' not')}."
    return Known(statement, said.lower(), lambda answer: bool((_YES if holds else _NO).match(answer)))


def _is_prime(number: int) -> bool:
    from sympy import isprime  # only requests that ask pay its import

    return bool(isprime(number))


def _month_days(text: str) -> Known | None:
    match = _MONTH_DAYS.match(text)
    if not match:
        return None
    what = match.group("what").lower()
    if what == "leap year":
        return _number("A leap year has 366 days.", 366, text)
    month = _MONTHS.get(what)
    if month is None or month == 2:  # February has 28 or 29: the request would have to name the year
        return None
    days = calendar.monthrange(2001, month)[1]
    return _number(f"{calendar.month_name[month]} has {days} days.", days, text)


_READERS: tuple[Callable[[str], Known | None], ...] = (
    _letters,
    _occurrences,
    _range_sum,
    _ordering,
    _property,
    _month_days,
    _calculation,
)
