"""Cheap deterministic reading of a request: counts, number properties, formats, language, freshness, and whether
it needs the world (the web, today's news).

These seed the LLM's intent analysis and win over it where they are explicit, because code reads "first 1000"
more reliably than a model does. Counts written as words are read in paor's five languages (nodes/reading/numbers.py);
the other keywords cover English, German and French, the languages paor is used in most.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass, field
from functools import cache, lru_cache
from typing import Any

from langdetect import DetectorFactory, LangDetectException, detect_langs
from langdetect.detector_factory import init_factory

from core.schemas import LANGUAGE_NAMES
from nodes.reading.lexicon import ARTICLES, QUOTED, languages_of, words_in
from nodes.reading.numbers import in_digits

DetectorFactory.seed = 0  # langdetect is random without a seed; validation must be deterministic
#: langdetect loads its profiles on first use (a second) without a lock: a thread that came second while another
#: loaded them detected with a half-loaded factory.
_PROFILES = threading.Lock()

_COUNT = re.compile(
    r"\b(?:first|top|last|erste[nr]?|premi(?:er|ers|ères?)|primeros?)\s+(\d[\d,.'’ ]*\d|\d)\b"
    r"|\b(\d[\d,.'’]*)\s+(?:\w+\s+){0,2}?(?:prime|primes|numbers?|items?|zahlen|primzahlen|nombres?|elements?|"
    r"entries|rows|names|words|facts|examples|ideas|fibonacci|colou?rs|countries|cities|capitals|languages|"
    r"planets|animals|days|months|reasons|tips|fruits|things|farben|länder|städte|couleurs|pays|villes)\b",
    re.IGNORECASE,
)
_PROPERTIES = {
    "prime": r"\bprim(?:e|es|zahl\w*)\b|\bnombres? premiers?\b",
    "even": r"\beven numbers?\b|\bgerade[n]? zahlen\b|\bnombres? pairs?\b",
    "odd": r"\bodd numbers?\b|\bungerade[n]? zahlen\b|\bnombres? impairs?\b",
    "square": r"\bsquare numbers?\b|\bperfect squares?\b|\bquadratzahl\w*\b",
    "fibonacci": r"\bfibonacci\b",
}
_FORMATS = [
    ("docx", r"\b(?:Word|WORD|(?i:docx))\b"),  # "a word that rhymes" names no format
    ("pdf", r"(?i:\bpdf\b)"),
    ("xlsx", r"(?i:\b(?:excel|xlsx|spreadsheet)\b)"),
    *((name, rf"(?i:\b{name}\b)") for name in ("csv", "json", "html", "markdown")),
]
#: Words before a format or kind word that make it the output ("as a PDF", "into Word", "write a report"); any
#: other word ("the attached PDF", "from a PDF", "this report") leaves it an input.
# fmt: off
_OUTPUT_CUES = frozenset([
    "as", "into", "to", "in", "me", "create", "make", "generate", "write", "produce", "export", "save", "return",
    "output", "als", "zu", "erstelle", "schreibe", "en",
])
# fmt: on
#: Questions answered yes or no, or by picking one ("Is 17 prime?", "Which is larger?"): no list, no count.
_CLOSED_QUESTION = re.compile(
    r"^\s*(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|which|ist|sind|hat|kann|"
    r"welche[rs]?|est-ce|es)\b",
    re.IGNORECASE,
)
#: The names of each language (core.schemas.LANGUAGE_NAMES) as a pattern's alternatives: success criteria are matched
#: against them (nodes/checks.py), and requests for the language they name.
LANGUAGE_WORDS = {
    code: "|".join(name for name, named in LANGUAGE_NAMES.items() if named == code)
    for code in dict.fromkeys(LANGUAGE_NAMES.values())
}


def _named_after(words: str) -> dict[str, re.Pattern[str]]:
    """Each language's name after one of `words` (a German ending allowed: "ins Deutsche"; German "in Italien" is
    in Italy)."""
    return {
        code: re.compile(rf"\b(?!in\s+italien\b)(?:{words})\s+(?:{names})(?:e[nr]?)?\b", re.I)
        for code, names in LANGUAGE_WORDS.items()
    }


#: The language an answer is asked in: "in German", "auf Deutsch", "en français", "eine deutsche Zusammenfassung".
_ANSWER_IN = _named_after("in|auf|en")
_ANSWER_IN["de"] = re.compile(rf"{_ANSWER_IN['de'].pattern}|\bdeutsche[nr]?\b", re.I)
#: A translation's target: "into Spanish", "to German", "ins Französische".
_TRANSLATED_INTO = _named_after("into|to|in|ins|auf|en")
_FRESHNESS = [
    ("day", r"\b(?:today|heute|aujourd'hui|breaking)\b"),
    ("week", r"\b(?:this week|diese woche|cette semaine|past week|last week)\b"),
    ("month", r"\b(?:this month|diesen monat|ce mois|past month|last month|latest|recent|news|aktuell\w*)\b"),
    ("year", r"\b(?:this year|dieses jahr|cette année|past year)\b"),
]
#: What a model cannot know by itself: a link, the web, the news, today's anything, sources. A request naming one
#: goes to the loop where a web action can run (nodes/direct.py); `_FRESHNESS` is how fresh the news must be.
_NEEDS_THE_WORLD = re.compile(
    r"https?://|www\.|\b(?:search|look\s+up|google|browse|website|web\s*page|online|internet|news|latest|current|"
    r"today|this\s+(?:week|month|year)|price|weather|sourced?|sources|cite[sd]?|citations?|references|research\w*|"
    r"suche\w*|recherch\w*|quellen|aktuell\w*|heute)\b",
    re.IGNORECASE,
)
#: The verb of a translation request, in paor's languages ("translate", "übersetze", "traduis", "traduce").
_TRANSLATE_WORD = re.compile(r"\b(?:translat\w*|übersetz\w*|tradu\w*)\b", re.I)
_CODE_REQUEST = re.compile(
    r"\b(?:write|generate|create|give me)\b.{0,30}\b(?:code|script|program|function|class)\b"
    r"|\b(?:python|javascript|typescript|rust|java|sql)\s+(?:code|script|function|program)\b",
    re.IGNORECASE,
)
_DATA_WORDS = re.compile(r"\b(?:calculate|compute|numbers?|digits|berechne\w*|zahlen|calcule\w*)\b", re.IGNORECASE)
_AGGREGATE = re.compile(
    r"\b(?:how many|sum|total|average|mean|product|count of|wie viele|summe|durchschnitt|combien|somme)\b",
    re.IGNORECASE,
)
#: A request for words in another language: the language it names is theirs, not the answer's.
_TRANSLATION = re.compile(
    rf"{_TRANSLATE_WORD.pattern}|\bhow\s+do\s+(?:you|i)\s+say\b|\bwhat\s+is\s+.+\s+in\s+\w+\s*\?$", re.IGNORECASE
)
_ANALYSIS = re.compile(
    r"\b(?:analy[sz]e|analysis|compare|summari[sz]e|summary|zusammenfass\w*|analysier\w*|résum\w*|what changed)\b",
    re.IGNORECASE,
)


@dataclass
class Hints:
    dataType: str | None = None
    expectedFormat: str | None = None
    itemCount: int | None = None
    numberProperty: str | None = None
    language: str | None = None
    languageExplicit: bool = False
    freshness: str | None = None
    wantsCode: bool = False
    criteria: list[str] = field(default_factory=list)
    #: Whether the request names a number or asks to calculate: without one, a model's "numbers" is a misreading.
    numeric: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The hints shown to the model (what code read, not how it decides)."""
        return {k: v for k, v in asdict(self).items() if v not in (None, False, []) and k != "numeric"}


def read_hints(request: str) -> Hints:
    text = request.strip()
    hints = Hints()
    digits = in_digits(text, languages_of(words_in(text)))
    # "how many primes below 1000" wants one number, "Is 17 a prime number?" a yes or a no: neither is a list
    aggregate = bool(_AGGREGATE.search(text))
    yes_or_no = bool(_CLOSED_QUESTION.match(text))
    if not (aggregate or yes_or_no):
        hints.itemCount = _count(digits, question=text.endswith("?"))
        hints.numberProperty = next((p for p, rx in _PROPERTIES.items() if re.search(rx, text, re.IGNORECASE)), None)
    hints.expectedFormat = next((f for f, rx in _FORMATS if names_the_output(rx, text)), None)
    hints.freshness = next((f for f, rx in _FRESHNESS if re.search(rx, text, re.IGNORECASE)), None)
    hints.wantsCode = bool(_CODE_REQUEST.search(text))
    hints.numeric = bool(re.search(r"\d", digits) or _DATA_WORDS.search(text) or aggregate)
    # "How do you say 'good night' in Spanish?" names the language of the words asked for, not of the answer
    explicit = None if _TRANSLATION.search(text) else _named_language(text, _ANSWER_IN)
    hints.language = explicit or detect_language(text)
    hints.languageExplicit = explicit is not None
    hints.dataType = "answer" if yes_or_no else _data_type(text, hints, aggregate)
    if hints.expectedFormat is None:
        hints.expectedFormat = {"numbers": "raw_data", "list": "raw_data", "code": "code"}.get(hints.dataType or "")
    if hints.itemCount:
        hints.criteria.append(f"exactly {hints.itemCount} items")
    if hints.numberProperty:
        hints.criteria.append(f"every number is {hints.numberProperty}")
    return hints


#: Words a text needs before its detected language counts as sure.
SURE_WORDS = 5


def words_of(text: str) -> list[str]:
    """The words of a text that tell its language: letters only, two or more."""
    return re.findall(r"[^\W\d_]{2,}", text)


def detect_language(text: str, min_probability: float = 0.0) -> str | None:
    """ISO 639-1 code of a text long enough to tell, else None; with `min_probability`, only when detection is that
    sure and the text has at least SURE_WORDS words ("Wie viele Meter sind 3 km?" reads as Afrikaans at 0.71, and
    "Is 17 a prime number?" as Albanian at 0.99: three words prove nothing)."""
    words = words_of(text)
    if len(words) < (SURE_WORDS if min_probability else 3):
        return None
    best = _most_likely(" ".join(words))
    return best[0] if best is not None and best[1] >= min_probability else None


@lru_cache(maxsize=64)
def _most_likely(words: str) -> tuple[str, float] | None:
    """The likeliest language of `words` and its probability. Cached: a round reads its request's language up to
    three times (the hints, the read by code, how sure it is), ~20 ms of langdetect each, and the seed makes the
    answer the same every time. Bounded: 64 texts, each a request (≤ 200,000 characters), a deliverable's first
    4,000 or the answer to a translation request."""
    with _PROFILES:
        init_factory()
    try:
        best = detect_langs(words)[0]
    except (LangDetectException, IndexError):
        return None
    return str(best.lang)[:2], float(best.prob)


@dataclass(frozen=True)
class Translation:
    source: str  # the text to translate, when the request quotes it ("" otherwise)
    language: str  # ISO 639-1 code of the target language


@cache
def translation_of(request: str) -> Translation | None:
    """A request to translate a short text into a named language."""
    if not (verb := _TRANSLATE_WORD.search(request)):
        return None
    tail = request[verb.end() :]
    if (language := _named_language(tail, _TRANSLATED_INTO)) is None:
        return None
    quoted = QUOTED.search(tail)
    return Translation(source=quoted.group(1).strip() if quoted else "", language=language)


def _named_language(text: str, patterns: dict[str, re.Pattern[str]]) -> str | None:
    """The ISO 639-1 code of the language the text names first by one of `patterns`."""
    named = [(found.start(), code) for code, rx in patterns.items() if (found := rx.search(text))]
    return min(named)[1] if named else None


def needs_the_world(request: str) -> bool:
    """Whether the request asks for what only the world knows now (a page, the news, sources)."""
    return bool(_NEEDS_THE_WORLD.search(request))


def names_the_output(pattern: str, text: str) -> bool:
    """Whether a format word (`pattern`) names what to deliver: the word before it (or before its article) says so
    ("as a PDF", "into Word", "write a report"); one that names an input ("the attached PDF", "from a PDF", "this
    report") or none at all does not, and a file name (notes.pdf) is an input."""
    for match in re.finditer(pattern, text):
        if text[: match.start()].endswith("."):
            continue
        before = re.findall(r"[^\W\d_]+", text[max(0, match.start() - 200) : match.start()])[-2:]
        cue = next((w for w in map(str.casefold, reversed(before)) if w not in ARTICLES), None)  # "as a PDF"
        if cue in _OUTPUT_CUES:
            return True
    return False


def _count(digits: str, *, question: bool) -> int | None:
    """How many items the request (its number words in `digits`) asks for. In a question only "first/top/last N"
    counts: "How many days are in 3 weeks?" or "Are 7 days a week?" name numbers, not a count of items to deliver."""
    for match in _COUNT.finditer(digits):
        if question and not match.group(1):
            continue
        count = int(re.sub(r"\D", "", match.group(1) or match.group(2)))  # one of the two always holds a digit
        if 0 < count <= 10_000_000:
            return count
    return None


def _data_type(text: str, hints: Hints, aggregate: bool) -> str | None:
    if hints.wantsCode:
        return "code"
    if aggregate:
        return "answer"
    if hints.numberProperty or (_DATA_WORDS.search(text) and hints.itemCount):
        return "numbers"
    if names_the_output(r"(?i:\b(?:report|bericht|rapport)\b)", text) or hints.expectedFormat in ("docx", "pdf"):
        return "report"
    if re.search(r"\b(?:table|tabelle|tableau)\b", text, re.I) or hints.expectedFormat in ("xlsx", "csv"):
        return "table"
    if _ANALYSIS.search(text):
        return "analysis"
    if re.search(r"\b(?:list|liste|enumerate)\b", text, re.I) or hints.itemCount:
        return "list"
    if _DATA_WORDS.search(text):
        return "numbers"
    return None
