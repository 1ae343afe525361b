"""Deterministic content checks against the intent (spec 5, step 3) — what code can decide, it decides.

Is the deliverable code when data was wanted? How many items does it hold? Do the numbers have the asked
property (primality via sympy)? Is it the asked format and language? Criteria these checks cover get a
verdict here; only the rest goes to the model.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import takewhile

from core.schemas import DocumentRef, Intent
from nodes.echo import echoed
from nodes.placeholders import repeats_host_text
from nodes.reading import ONE_LINE_CHARS
from nodes.reading.hints import LANGUAGE_WORDS, detect_language, translation_of, words_of
from nodes.reading.kinds import known_answer
from nodes.reading.lexicon import LIST_SEPARATOR, stems
from nodes.reading.numbers import NUMBER_PROPERTIES, first_primes
from prompts.templates import normalised
from tools.ai_process import CUT_OFF

_CODE_LINE = re.compile(
    r"^\s*(?:def \w+\(|class \w+|import \w+|from \S+ import|for .+ in .+:|while .+:|if .+:|elif .+:|else:|"
    r"return\b|print\(|function \w*\(|const \w+ =|let \w+ =|var \w+ =|#include|public static|console\.log|"
    r"fn \w+\(|\w+\s*=\s*\[.*\]\s*$|\w+\.append\()"
)
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_INTEGER = re.compile(r"(?<![\w.])-?\d+(?![\w.]\d)")
_SEPARATOR = re.compile(LIST_SEPARATOR, re.IGNORECASE)
#: Numbers listed one after another ("2, 3, 5 and 7").
_RUN = re.compile(rf"-?\d+(?:(?:{LIST_SEPARATOR})-?\d+)*", re.IGNORECASE)


_FORMAT_MIMES = {
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
}
_FORMAT_WORDS = r"\b(?:pdf|docx|word|excel|xlsx|json|csv|markdown|html|format)\b"
#: How a criterion may group a count's digits ("1,000 numbers", "1'000", "1 000"): taken out before it is looked for.
_DIGIT_GROUPING = str.maketrans("", "", ",'’ ")


@dataclass
class Check:
    name: str
    passed: bool
    detail: str
    suggestion: str = ""
    #: A check that can only find some failures (a translation in the wrong language) proves nothing by passing:
    #: it decides a criterion only when it fails.
    proves: bool = True


@dataclass
class CheckReport:
    checks: list[Check] = field(default_factory=list)
    verdicts: dict[int, bool] = field(default_factory=dict)  # criterion index → verdict, for covered criteria
    #: Checks that report only a failure (filler, echo) and ran: a later attempt that passes them is better than
    #: one that failed them (nodes/answers.py), though they add nothing to the score.
    ran: list[str] = field(default_factory=list)

    def add(self, name: str, passed: bool, detail: str, advice: str = "", *, proves: bool = True) -> None:
        """A check's outcome; its `advice` (how to fix the answer) is kept only where it failed."""
        self.checks.append(Check(name, passed, detail, "" if passed else advice, proves))

    def get(self, name: str) -> Check | None:
        return next((c for c in self.checks if c.name == name), None)

    @property
    def passed(self) -> list[str]:
        failed = self.failed
        return [*(c.name for c in self.checks if c.passed), *(n for n in self.ran if n not in failed)]

    @property
    def failed(self) -> list[str]:
        return [c.name for c in self.checks if not c.passed]

    @property
    def all_passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def score(self) -> float:
        if not self.checks:
            return 1.0
        score = sum(c.passed for c in self.checks) / len(self.checks)
        data_type = self.get("data type")
        return min(score, 0.2) if data_type and not data_type.passed else score


def text_of(documents: Sequence[tuple[DocumentRef, bytes]]) -> str:
    return "\n".join(data.decode("utf-8", errors="replace") for ref, data in documents if ref.is_text)


def looks_like_code(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or _parses_json(text.encode("utf-8")):
        return False
    code_lines = sum(bool(_CODE_LINE.match(line)) for line in lines)
    fenced = sum(line.lstrip().startswith("```") for line in text.split("\n")) >= 2
    return code_lines / len(lines) >= 0.3 or (fenced and code_lines >= 3)


def extract_numbers(text: str) -> list[int]:
    """The integers an answer states as its data: the lines that are data (mostly digits and separators), skipping
    prose like 'Here are 1000'; in an answer written as prose only, its longest run of listed numbers ("The first
    five primes are 2, 3, 5, 7 and 11." states 2, 3, 5, 7, 11, not the 5 of "five")."""
    numbers: list[int] = []
    for line in text.splitlines():
        # "The first 10 primes: 2, 3, 5" — the data follows the colon
        data = _LIST_MARKER.sub("", line).rsplit(":", 1)[-1]
        tokens = _INTEGER.findall(data)
        letters = len(re.findall(r"[^\W\d_]", data))
        digits = sum(len(t.lstrip("-")) for t in tokens)
        if tokens and letters <= max(2, digits // 5):
            numbers.extend(map(int, tokens))
    return numbers or _longest_run(text)


def _longest_run(text: str) -> list[int]:
    """Thousands separators and decimals out of the way first: 3,000 is one number and 2.5 is not a run of two."""
    text = re.sub(r"(?<=\d)[,' \u202f](?=\d{3}\b)", "", text)
    text = re.sub(r"\d+\.\d+", " ", text)
    runs = [[int(n) for n in _SEPARATOR.split(run)] for run in _RUN.findall(text)]
    return max(runs, key=len, default=[])


def run_checks(
    intent: Intent,
    documents: Sequence[tuple[DocumentRef, bytes]],
    request: str = "",
    *,
    grounded: bool = False,
    added: str = "",
    language_sure: bool = True,
) -> CheckReport:
    """`request` is the user's own text: what it asks that code can answer (a calculation, a conversion, a
    translation) is checked against it, and so is whether the deliverable is about it at all. `grounded` says
    the request works on input documents, whose words the deliverable then carries instead of the request's.
    `added` is what the host itself wrote next to the request in this step's prompt (a retry's note): an answer
    that repeats it is an echo. `language_sure` is false where the intent's language is a guess (a few words code
    could not place): the answer's language is then not checked."""
    report = CheckReport()
    text = text_of(documents)
    if not documents or (not text.strip() and all(r.is_text for r, _ in documents)):
        report.add("non-empty", False, "nothing was delivered", "Deliver the content itself.")
        return report
    _check_data_type(intent, text, report)
    _check_format(intent, documents, text, report)
    if intent.dataType == "numbers" or intent.numberProperty:
        _check_numbers(intent, text, report)
    elif intent.itemCount:
        _check_items(intent, text, report)
    _check_language(intent, text, report, sure=language_sure)
    if request and not grounded and len(request) <= ONE_LINE_CHARS:
        _check_expected(request, text, report)
    if request and text.strip():
        _check_substance(request, text, report, grounded=grounded)
        report.ran.append("substance")
    _check_echo(request, added, text, report)
    report.ran.append("echo")
    _assign_verdicts(intent, report)
    return report


#: How sure language detection must be before a check fails an answer on its language.
SURE = 0.9
#: Words of an answer that talks about doing the task instead of doing it ("the steps to achieve the objective").
# fmt: off
_META_WORDS = frozenset([
    "task", "tasks", "action", "actions", "objective", "step", "steps", "achieve", "ensure", "deliver", "deliverable",
    "outcome", "successful", "criteria", "request", "carried", "necessary", "process",
])
# fmt: on


def _check_expected(request: str, text: str, report: CheckReport) -> None:
    """What code decides from the request's words (nodes/reading/kinds.py) is computed; a translation is checked by
    language and length."""
    known = known_answer(request)
    if known is not None:
        ok = known.holds(text)
        detail = f"the answer {'states' if ok else 'does not state'} {known.statement.rstrip('.')}"
        report.add("computed", ok, detail, "State the computed result itself.")
        return
    translation = translation_of(request)
    if translation is None:
        return
    answer, source, language = text.strip(), translation.source, translation.language
    # A wrapped answer ("'Good night' in Spanish is 'buenas noches'") mixes languages: only a sure reading counts.
    detected = detect_language(answer.replace(source, " ") if source else answer, SURE)
    problems = []
    if source and normalised(answer) == normalised(source):
        problems.append("repeats the text untranslated")
    if source and len(answer) > max(60, 4 * len(source) + 40):
        problems.append(f"has {len(answer)} characters for a text of {len(source)}")
    if detected is not None and detected != language:
        problems.append(f"is written in {detected}, not {language}")
    detail = f"the translation into {language} " + ("; ".join(problems) or "looks right")
    advice = f"Give only the translation of the text into '{language}'."
    report.add("translation", not problems, detail, advice, proves=False)


def check_complete(notes: Sequence[str], report: CheckReport) -> None:
    """A bare answer cut at its token bound is incomplete: kept as the answer until a complete one replaces it."""
    cut = next((n for n in notes if n.startswith(CUT_OFF)), None)
    if cut is None:
        report.ran.append("complete")
        return
    report.add("complete", False, cut, "Answer briefly.")
    report.verdicts = dict.fromkeys(report.verdicts, False)


def _check_echo(request: str, added: str, text: str, report: CheckReport) -> None:
    """An answer that repeats paor's own prompt text is rejected as such (nodes/echo.py)."""
    copied = echoed(text, request, [added] if added else [])
    if copied is not None:
        detail = f"the answer repeats paor's own words ({copied[:60]!r}), not an answer"
        report.add("echo", False, detail, "Answer the request itself.")


def _check_substance(request: str, text: str, report: CheckReport, *, grounded: bool) -> None:
    """Filler is no answer: a deliverable that repeats the host's own placeholders, or talks about tasks and steps
    without one word or number of the request, fails here — before any judge could grade it."""
    copied = [line.strip() for line in text.splitlines() if repeats_host_text(line)]
    if copied:
        detail = f"the deliverable repeats a placeholder instead of content ({copied[0][:60]!r})"
        report.add("substance", False, detail, "Answer the user's request itself.")
        return
    if grounded:
        return
    asked = stems(request)
    delivered = stems(text)
    meta = {w for w in re.findall(r"[^\W\d_]+", text.casefold()) if w in _META_WORDS}
    if asked and not asked & delivered and len(meta) >= 2:
        detail = f"the deliverable talks about {', '.join(sorted(meta)[:4])}, not about the request"
        report.add("substance", False, detail, "Answer the request itself; do not describe how you would do it.")


def _check_data_type(intent: Intent, text: str, report: CheckReport) -> None:
    if intent.dataType == "code" or intent.expectedFormat == "code":
        report.add("data type", True, "code was asked for")
    elif looks_like_code(text):
        advice = f"Ask for the {intent.dataType} directly, not for code that computes them."
        report.add("data type", False, f"delivered code, not {intent.dataType}", advice)
    else:
        report.add("data type", True, f"content is {intent.dataType}, not code")


def _check_format(
    intent: Intent, documents: Sequence[tuple[DocumentRef, bytes]], text: str, report: CheckReport
) -> None:
    fmt = intent.expectedFormat
    mimes = [ref.mime for ref, _ in documents]
    if fmt in _FORMAT_MIMES:
        ok = _FORMAT_MIMES[fmt] in mimes
        detail = f"a {fmt} document was {'delivered' if ok else 'not delivered'} ({', '.join(mimes)})"
        report.add("format", ok, detail, f"Create the {fmt} document.")
    elif fmt in ("json", "csv"):
        parses = _parses_json if fmt == "json" else _parses_csv
        ok = any(parses(data) for ref, data in documents if ref.is_text)
        report.add("format", ok, f"{'valid' if ok else 'no valid'} {fmt.upper()}", f"Deliver valid {fmt.upper()}.")
    else:
        ok = bool(text.strip())
        report.add("format", ok, "text content delivered" if ok else "no text content")


def _check_numbers(intent: Intent, text: str, report: CheckReport) -> None:
    numbers = extract_numbers(text)
    if not numbers:
        report.add("numbers", False, "no numbers found", "Deliver the numbers themselves.")
        return
    if intent.itemCount:
        ok = len(numbers) == intent.itemCount
        detail = f"{len(numbers)} numbers delivered, {intent.itemCount} asked"
        report.add("item count", ok, detail, f"Deliver exactly {intent.itemCount} numbers.")
    test = NUMBER_PROPERTIES.get((intent.numberProperty or "").lower())
    if test is None:
        return
    wrong = [n for n in numbers if not test(n)]
    repeated = [n for n, times in Counter(numbers).items() if times > 1]
    detail = f"all {len(numbers)} numbers are {intent.numberProperty}"
    if wrong:
        detail = f"{len(wrong)} numbers are not {intent.numberProperty} (e.g. {wrong[:3]})"
    elif repeated:
        detail = f"{len(repeated)} numbers are repeated (e.g. {repeated[:3]})"
    ok = not wrong and not repeated
    if ok and intent.numberProperty == "prime" and intent.itemCount:
        ok = tuple(numbers) == first_primes(intent.itemCount)
        detail = "exactly the first primes in order" if ok else "not exactly the first primes in order"
    report.add("number property", ok, detail, f"Deliver each correct {intent.numberProperty} number once.")


def count_items(text: str) -> int:
    """List items, however the list is written: one per marked line ("- red", "1. red"), or separated by commas,
    semicolons and a final "and" on one line ("2, 3, 5 and 7" or "Red, yellow and blue."), also at the end of a
    sentence ("The primary colours are red, yellow and blue." names three: the last word before the run is one)."""
    marked = inline = 0
    for line in text.splitlines():
        marked += bool(_LIST_MARKER.match(line))
        parts = [p for p in _SEPARATOR.split(line.rsplit(":", 1)[-1].strip().rstrip(".!")) if p.strip()]
        short = len(list(takewhile(lambda p: len(p.split()) <= 2, reversed(parts))))
        if len(parts) >= 2 and all(len(p.split()) <= 3 for p in parts):
            inline = max(inline, len(parts))
        elif short >= 2:  # the run ends the sentence; the word before it is its first item
            inline = max(inline, short + 1)
    return max(marked, inline)


def _check_items(intent: Intent, text: str, report: CheckReport) -> None:
    items = count_items(text)
    detail = f"{items} list items delivered, {intent.itemCount} asked"
    report.add("item count", items == intent.itemCount, detail, f"Deliver exactly {intent.itemCount} items as a list.")


def _check_language(intent: Intent, text: str, report: CheckReport, *, sure: bool) -> None:
    """The answer is in the intent's language: checked only where that language is sure (given, named, detected
    with certainty or analysed), never a guess from a few words."""
    if not sure or intent.dataType in ("numbers", "code") or len(words_of(text)) < 20:
        return
    detected = detect_language(text[:4000], SURE)
    if detected is None:
        return
    ok = detected == intent.language
    detail = f"written in {detected}" + ("" if ok else f", not {intent.language}")
    report.add("language", ok, detail, language_advice(intent.language))


def language_advice(language: str) -> str:
    """What an answer in the wrong language is told (and what a first call learns to carry, nodes/direct_lessons)."""
    return f"Write the deliverable in language '{language}'."


def _assign_verdicts(intent: Intent, report: CheckReport) -> None:
    """Give each success criterion a verdict when code checked what it talks about."""
    words = LANGUAGE_WORDS.get(intent.language)
    for i, criterion in enumerate(intent.successCriteria):
        c = criterion.lower()
        # One calculation is the whole request: the computed number decides every criterion, and filler none.
        names = {"computed"}
        if intent.itemCount and (str(intent.itemCount) in c.translate(_DIGIT_GROUPING) or "count" in c):
            names |= {"item count", "numbers"}
        if intent.numberProperty and intent.numberProperty[:5] in c:
            names |= {"number property", "numbers"}
        if "code" in c or (intent.dataType == "numbers" and re.search(r"\bnumbers?\b|\bdata\b", c)):
            names |= {"data type", "numbers"}
        if re.search(_FORMAT_WORDS, c):
            names.add("format")
        if words and re.search(rf"\b(?:{words}|language)\b", c):
            names |= {"language", "translation"}
        elif words and re.search(r"\btranslat", c):
            names.add("translation")
        relevant = [ch for ch in report.checks if ch.name in names or (ch.name in _FILLER and not ch.passed)]
        if any(not ch.passed for ch in relevant):
            report.verdicts[i] = False
        elif any(ch.proves for ch in relevant):
            report.verdicts[i] = True


#: Checks whose failure says the deliverable is no answer at all: every criterion fails with them.
_FILLER = ("substance", "echo")


def _parses_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _parses_csv(data: bytes) -> bool:
    try:
        rows = [r for r in csv.reader(io.StringIO(data.decode("utf-8"))) if r]
    except (csv.Error, UnicodeDecodeError):
        return False
    return len({len(r) for r in rows}) == 1  # one row at least, all of one width
