"""Six everyday one-line requests, held out from bench.models' ten PROMPTS, each with a judge written in code.

The judges read the answer as a user would, leniently about form and strictly about content: the numbers the
answer states, the colours it names, the words of the translation, the sentences it writes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

#: A number as people write it: 3000, 3,000, 3 000 (thin or plain space), 3000.0.
_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:(?:,|\u202f|\u00a0|\u2009| )\d{3})+(?![\d,])(?:\.\d+)?|\d+(?:\.\d+)?")
#: A list marker at the start of a line ("1. ", "2) "), which is not part of the answer's content.
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s+", re.MULTILINE)
_WORD = re.compile(r"[a-z]+")
#: One item of a numbered or bulleted list, up to the end of its line.
_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022])\s+(.*)$", re.MULTILINE)
RYB, RGB, CMY = (
    frozenset({"red", "yellow", "blue"}),
    frozenset({"red", "green", "blue"}),
    frozenset({"cyan", "magenta", "yellow"}),
)
#: Colour words a list of primary colours might name.
COLOURS = RYB | RGB | CMY | {"orange", "purple", "violet", "pink", "black", "white", "brown", "grey", "gray"}


def numbers(answer: str) -> list[float]:
    """Every number the answer states, list markers left out, thousands separators understood."""
    text = _LIST_MARKER.sub("", answer)
    return [float(re.sub(r"[,\u202f\u00a0\u2009 ]", "", n)) for n in _NUMBER.findall(text)]


def _plain(text: str) -> str:
    """Lower case without accents: 'Buenas Noches' and 'buenas noches' are the same words."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def states(value: float) -> Callable[[str], bool]:
    """The answer states this number."""
    return lambda answer: value in numbers(answer)


def exactly(values: set[int]) -> Callable[[str], bool]:
    """The answer states these numbers and no other."""
    return lambda answer: {*numbers(answer)} == {float(v) for v in values}


def says(*phrases: str) -> Callable[[str], bool]:
    """The answer contains every phrase, as whole words, ignoring case and accents."""

    def judge(answer: str) -> bool:
        words = " ".join(_WORD.findall(_plain(answer)))
        return all(re.search(rf"\b{re.escape(_plain(p))}\b", words) for p in phrases)

    return judge


def _colours(text: str) -> list[str]:
    named: list[str] = []
    for word in _WORD.findall(_plain(text)):
        if word in COLOURS and word not in named:
            named.append(word)
    return named


def primary_colours(answer: str) -> bool:
    """The colours the answer lists are one set of primary colours (RYB, RGB or CMY): the first colour of each item
    when it is a list, else the first three it names; what it says about them (mixing, white light) does not
    count."""
    items = [m.group(1) for m in _ITEM.finditer(answer)]
    named = [c for item in items if (c := _colours(item))] if len(items) >= 2 else []
    first = list(dict.fromkeys(c[0] for c in named)) if named else _colours(answer)
    return set(first[:3]) in (RYB, RGB, CMY)


def sentences(answer: str) -> list[str]:
    text = re.sub(r"[*_#>`]", "", answer).strip()
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if re.search(r"\w", s)]


def about_the_sea(answer: str) -> bool:
    """One or two sentences that mention the sea (or the ocean)."""
    return 1 <= len(sentences(answer)) <= 2 and bool(re.search(r"\b(sea|seas|ocean|oceans)\b", _plain(answer)))


@dataclass(frozen=True)
class HeldOut:
    kind: str
    text: str
    judge: Callable[[str], bool]
    expected: str  # what the judge accepts, for the report


HELD_OUT = (
    HeldOut("translation", "How do you say 'good night' in Spanish?", says("buenas noches"), "buenas noches"),
    HeldOut("primes", "What are the first 5 prime numbers?", exactly({2, 3, 5, 7, 11}), "exactly 2, 3, 5, 7, 11"),
    HeldOut("arithmetic", "What's 12 times 11?", states(132), "132"),
    HeldOut("colours", "Name the three primary colours.", primary_colours, "red, yellow, blue (or RGB / CMY)"),
    HeldOut("sentence", "Write a sentence about the sea.", about_the_sea, "1–2 sentences mentioning the sea"),
    HeldOut("conversion", "How many metres is 3 km?", states(3000), "3000 / 3,000"),
)
