"""What an answer states as its result: the judge of every kind decided by code (nodes/reading/kinds.py).

A number that merely appears in an answer proves nothing: "Four days is 4 * 96 = 384 hours." contains 96, the right
count of hours in four days, and states 384. So an answer's result is read where a person reads it: the number
tied to the asked unit ("384 hours"); else, in the sentence that concludes ("So …", "The answer is …", or the last
one that states a number and explains nothing), the result of its last working (after the last "=") or what its
first "is" states; the yes or no it leads with; the weekday, letter or list it names beyond the request's own words.
"""

from __future__ import annotations

import decimal
import itertools
import logging
import math
import re
import unicodedata
from collections.abc import Sequence
from functools import cache
from typing import Any

from nodes.reading.lexicon import (
    ARTICLES,
    FAMILIES,
    LANGUAGES,
    LIST_SEPARATOR,
    OR,
    fold,
    languages_of,
    told_language,
    weekdays,
    words_in,
)
from nodes.reading.numbers import DOTTED_THOUSANDS, WRITTEN_NUMBER, in_digits, numbers_in, unit_named

#: A written number, as one part of a pattern.
_NUMBER = f"(?:{WRITTEN_NUMBER})"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?![-+×*/÷=]\s+\d)|\n+")  # "2 × 2 × ... × 2 = 1024" is one
#: The words that turn from a working to its result within a sentence.
_SO_WORDS = (
    "so|therefore|thus|hence|consequently|meaning|daher|deshalb|folglich|also|donc|ainsi|par consequent|entonces"
    "|por lo tanto|por consiguiente|asi que|quindi|dunque|percio|pertanto"
)
_SO = re.compile(rf"\b(?:{_SO_WORDS})\b")
#: The words that call a result wrong, and the names of a sum or a product (folded).
_WRONG = "wrong|incorrect|falsch|faux|incorrecto|sbagliato|errato"
_SUMS = "sum|summe|somme|suma|somma"
_PRODUCTS = "product|produkt|produit|producto|prodotto"
#: A conclusion that is its number alone: "so 29.", "So it's 366 days.", "donc 3,14".
_BARE_CONCLUSION = re.compile(
    rf"(?:{'|'.join(w for w in _SO_WORDS.split('|') if w != 'also')})\W*"
    r"(?:(?:it['’]?s|it is|that['’]?s|there are|we get|c['’]est|es sind|hay|sono)\s+)?"
    rf"{_NUMBER}(?:\s+([^\W\d_]+))?\W*$"
)
#: The words that name an answer or a result (folded), which may label it ("**Answer:** No").
_ANSWER_NAMES = frozenset(["answer", "antwort", "reponse", "respuesta", "risposta"])
_RESULT_NAMES = _ANSWER_NAMES | frozenset(["result", "ergebnis", "endergebnis", "resultat", "resultado", "risultato"])
_RESULT_NAME = "|".join(sorted(_RESULT_NAMES))
#: A sentence that concludes: it turns to its result, or names it or a total.
_CONCLUDES = re.compile(
    rf"\b(?:{_SO_WORDS}|{_RESULT_NAME}|total|final|altogether|insgesamt|totale)\b"
    rf"|\b(?:{_SUMS}|{_PRODUCTS})\b(?!\s+(?:of|von|de|di|del|des|du)\b)"
)
#: A note beside the answer: its numbers are facts it uses ("Note that 1 kilogram = 1,000 grams.").
_NOTE = re.compile(
    r"^\W*(?:note|for reference|fun fact|remember|you can check|this is because|that's because|beachte|hinweis|"
    r"remarque|nota|by the way|btw|incidentally|ubrigens|au fait|par ailleurs|por cierto|a proposito|tra l'altro|"
    r"ademas|ausserdem|en outre|inoltre|curios\w*|dato curioso|fait amusant|anecdote|aneddoto|wissenswert\w*)\b"
)
#: The words that give a reason, folded or as written ("perché").
_REASONS = "because|since|weil|denn|car|parce que|porque|ya que|perch[eé]|poich[eé]"
#: A sentence that explains or checks the result, not states it ("Since …", "To find …", "On peut vérifier : …").
_EXPLAINS = re.compile(
    rf"^\W*(?:as|da|{_REASONS}|to (?:find|get|calculate|convert))\b|{_NOTE.pattern}"
    r"|\b(?:check|verify|verifier|verifions|prufen|uberprufen|comprobar|comprobamos|controllare|controlliamo|"
    r"verificare|verifichiamo)\b[^.!?\n:]{0,30}:"
)
#: A sentence that says what the result is not, or would be ("Many think it's 1,440, but that's wrong.", "By PEMDAS
#: you'd get 23.", "Some might say 23.").
_NOT_STATED = re.compile(
    rf"\b(?:{_WRONG})\b|^(?!.*\b(?:{_SO_WORDS}|{_RESULT_NAME}|{_SUMS}|total)\b)"
    r".*\b(?:would|might|you['’]d|wurde|ware|serait|seria|sarebbe)\b"
    r"|^\W*(?:if it were|if it was|ware es|si c'etait|si fuera|se fosse)\b"  # "If it were 68 × 23, it would be 1564."
)
_WORKING = re.compile(
    r"(?:=|≈|→|ergibt|(?:ist\s+)?gleich|equals?|egale?|makes?|gives?|\bgets?\b|donne(?:nt)?|round(?:s|ed|ing)?\s+(?:off\s+|up\s+|down\s+)?to|arrondi[et]?\s+a|"
    r"redonde(?:a|ado|ada)\s+a|arrotondat[oa]\s+a)\s*(?:approximately|about|ca\.?|etwa|environ|circa)?\s*"
)
_IS = re.compile(
    r"(?:\b(?:is|are|was|has|have|comes to|ist|sind|hat|haben|macht|betragt|est|sont|a|fait|font|es|son|tiene|"
    r"hay|da|e|sono|ha|fa)\b|['’]s\b|:)"
)
#: How much of a long answer's start and end is read for its stated result.
_ENDS = 4000
#: What a program's result is labelled with ("Output: 291.39"), and what labels a result ("The answer is **Yes**", "|
#: **Result** | **No** |").
_OUTPUT_NAME = "output|ausgabe|sortie|salida|uscita"
_LABEL = rf"(?:{_RESULT_NAME}|{_OUTPUT_NAME})(?:\s+(?:is|ist|est|es|e))?\W{{1,8}}"
_YES_WORDS = ("yes", "yep", "ja", "oui", "si")
_YES_OR_NO = f"({'|'.join(_YES_WORDS)}|no|nope|nein|non)"
#: A yes or a no the answer leads with, standing alone ("No, 91 = 7 × 13."; "No doubt, 91 is prime." leads with none),
#: and one that ends it, labelled or concluded ("… **Answer: Yes**", "… 2024 ÷ 4 = 506, so yes."). Read folded.
_LEADS = re.compile(rf"^\W*(?:(?:short\s+|final\s+)?{_LABEL})?{_YES_OR_NO}\W{{0,2}}[ \t]*(?:[,.!;:—–\n-]|$)")
_NAMED_ANSWER = re.compile(rf"\b{_LABEL}{_YES_OR_NO}\W{{0,3}}(?:[.!\n]|$)")
_LABELLED = re.compile(rf"(?:\b{_LABEL}|{_SO.pattern}\W+|\n[\W_]*){_YES_OR_NO}\W*$")  # or alone on the last line
#: The words that say what a thing is ("9.9 is larger"), as a pattern and as a clause's first word ("isn't" reads as
#: "isn", "t").
_COPULA = "is|ist|est|es|e"
_COPULAS = tuple([word] for word in f"{_COPULA}|isn".split("|"))
#: An aside in parentheses states no result: "12 × 11 = 132 (because 12 × 10 = 120, plus 12)."
_ASIDE = re.compile(r"\([^()]{0,400}\)")
#: A number or name the answer denies, after it ("45 is not the largest") or before it ("not 15", "nicht 15").
_DENIED_AFTER = re.compile(rf"\s*(?:{_COPULA}|are)\s+(?:not|nicht|pas|no|non)\b|\s*isn['’]t\b|\s*n['’]est\s+pas\b")
_DENIED = re.compile(r"\b(?:not|nicht|pas|non|no|kein\w*|neither|nor|weder|ni)\s+(?:\w+\s+)?$", re.I)


#: A question an answer asks or echoes ("Is 17 prime? 17 is not prime."), or restates in a short clause ("To check if
#: 119 is prime, …", "You asked whether 89 is prime.") states nothing.
_QUESTION = re.compile(
    r"[^.!?\n]{0,400}\?"
    r"|\b(?:(?:to\s+(?:check|determine|find\s+out|see|decide|verify)|you\s+asked|let['’]?s\s+(?:check|see))\s+(?:if|whether)"
    r"|um\s+zu\s+prüfen,?\s+ob|pour\s+(?:vérifier|savoir|déterminer)\s+si|para\s+(?:comprobar|saber|determinar)\s+si"
    r"|per\s+(?:verificare|sapere|capire)\s+se)(?:\s+[^\s.,;:!?]+){1,6}(?=\s*(?:[.,;:!?\n]|$))",
    re.I,
)
#: The offers an answer ends with state nothing of it ("Let me know if you'd like 27 × 37 too!").
_OFFER = re.compile(
    r"[^\w\n]*(?:let\s+me\s+know|feel\s+free|would\s+you\s+like|i\s+hope\s+this|hope\s+this\s+helps|"
    r"lass\s+mich\s+wissen|n['’]h[ée]sitez\s+pas|av[ií]same|fammi\s+sapere)\b",
    re.I,
)
#: Mathematics written in LaTeX ("\\( 27 \\times 36 = \\boxed{972} \\)", "$3{,}240$"), read as the text it shows.
_LATEX = re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$|\$[^$\n]*[\\{][^$\n]*\$|\\boxed\{[^{}]*\}", re.S)
#: The names of an answer as a text writes them (`_ANSWER_NAMES` folded).
_ANSWER_WRITTEN = "answer|antwort|r[ée]ponse|respuesta|risposta"
#: A label before the answer's result: "**Final Answer:** 972", "Antwort: Nein" (what comes before it is working).
_ANSWER_LABEL = re.compile(
    rf"\b(?:final\s+)?(?:{_ANSWER_WRITTEN}|{_OUTPUT_NAME})(?:\s+final)?\W{{0,3}}:",
    re.I,
)
#: Where an answer takes back what it said before: "wait", "hmm", "I mean", "actually", "… no", "that's wrong, it's
#: 401" (a "wrong" the answer ends with takes nothing back: "Some say 1,440, but that's wrong."); "in fact" only where
#: a short statement follows ("132, en réalité 121."), not a remark ("En réalité, on peut vérifier : …").
_CORRECTION = re.compile(
    r"\b(?:wait|hmm+|i mean|sorry|oops|correction|actually|on second thought|warte|anzi|miscalculated|double-checking|"
    r"(?:(?<=^)|(?<=[.!?…,]\s)|(?<=\n))(?:moment|attends|espera|aspetta)(?=\s*[,:–—-])|"
    rf"nochmal gerechnet|en refaisant|rehaciendo|rifacendo|{_WRONG})\b"
    r"|(?:\.{3}|…)\s*(?:no|nein|non)\b"
    r"|\b(?P<in_fact>eigentlich|en fait|en r[ée]alit[ée]|en realidad|in realt[àa])\b",
    re.I,
)


#: A word spelled out letter by letter: "n-e-t-r-a-G".
_SPELLED = re.compile(r"(?<![\w-])(?:[^\W\d_]-){2,}[^\W\d_](?![\w-])")
#: The options of a multiple choice ("A) 1  B) 4  C) 3", one a line or side by side) and the one an answer picks ("The
#: correct answer is C.", "La respuesta correcta es la B.").
_OPTION = re.compile(r"(?:^|(?<=\s))([A-E])\)\s+(.+?)(?=\s+[A-E]\)\s|\s*\n|\s*$)", re.M)
_PICKED = re.compile(
    rf"\b(?:{_ANSWER_WRITTEN})\b[^\n.]{{0,20}}?\b(?:is|ist|est|es|è)\s+(?:la\s+|el\s+)?"
    r"[*\"'«„(]*((?-i:[A-E]))\b(?![.,]?\w)",
    re.I,
)


def _picked_option(answer: str) -> str | None:
    options = {m.group(1): m.group(2) for m in _OPTION.finditer(answer)}
    picked = set(_PICKED.findall(answer))
    return options[picked.pop()] if len(options) > 1 and len(picked) == 1 and picked <= options.keys() else None


#: Where an answer works its result out again without saying the first was wrong: it states one only where each time
#: agrees ("The answer is 120 minutes. … Going through it once more, I get 20 minutes." states none; "double-checking"
#: and "en refaisant" correct, `_CORRECTION`).
_RECHECK = re.compile(
    r"\b(?:going through it (?:once more|again)|noch einmal durchgehe|en reprenant|al repasarlo|ripassando|"
    r"putting it all together|in summary|to sum up|zusammengefasst|alles zusammengenommen|en r[ée]sum[ée]|en resumen|"
    r"resumiendo|riassumendo|in sintesi)\b",
    re.I,
)


def worked_out(answer: str) -> list[str]:
    """The answer in the parts it works its result out in: cut where it works it out again."""
    cuts = [m.start() for m in _RECHECK.finditer(answer)]
    parts = [answer[start:end] for start, end in zip([0, *cuts], [*cuts, len(answer)], strict=True)]
    return [part for part in parts if re.search(r"[^\W_]", part)] or [answer]


#: A second result offered beside the first ("I think it's 74, but it might also be 72", "mais ça pourrait aussi être
#: 1080", "aber es könnte auch 29 sein"): the answer states neither.
_ALSO_OFFERED = re.compile(
    r"\b(?:(?:might|could|may)\s+also\s+be|könnte\s+(?:es\s+)?(?:aber\s+)?auch|pourrait\s+aussi\s+être|también\s+podría\s+ser|"
    r"podría\s+ser\s+también|potrebbe\s+anche\s+essere)\s+[*\"'«„“]*(?:-?\d|[^\W\d_]+[*\"'»“”]*\s*(?:sein\s*)?(?:[.!?]|$))",
    re.I,
)


#: A line that checks the result: it states what was checked ("Check: desserts → stressed ✓", "Vérification : 12 × 12
#: = 144").
_CHECK_LINE = re.compile(
    r"(?:^|(?<=[.!?]\s))[\W_]*(?:check|verification|verify|proof|probe|prüfung|kontrolle|vérification|comprobación|"
    r"verifica|controllo)"
    r"\b[^\n]*",
    re.I | re.M,
)


def what_it_states(answer: str) -> str:
    """The part of an answer that states its result: after its last correction ("It was Monday, no wait, Tuesday.")
    or its last label ("Answer:"), without the questions it asks or echoes."""
    if len(answer) > 2 * _ENDS:  # a result stands at an answer's start or end; number words cost ~3 s a megabyte
        answer = f"{answer[:_ENDS]}\n{answer[-_ENDS:]}"
    answer = _LATEX.sub(lambda m: _as_text(m.group(0)), answer)
    answer = _SPELLED.sub(lambda m: m.group(0).replace("-", ""), answer)  # "n-e-t-r-a-G" is "netraG"
    if (picked := _picked_option(answer)) is not None:
        return picked  # "A) 107.22 miles  B) 126.14 miles\n\nThe correct answer is B." states 126.14 miles
    unchecked = _CHECK_LINE.sub(" ", answer)
    answer = unchecked if re.search(r"[^\W_]", unchecked) else answer  # not all of it
    offered = _without_closing_offers(answer)
    answer = offered if re.search(r"\d", offered) or not re.search(r"\d", answer) else answer  # not all of it
    last_said = max((m.start() for m in re.finditer(r"[^\W_]", answer)), default=-1)
    corrections = [
        m.end()
        for m in _CORRECTION.finditer(answer)
        if m.end() <= last_said and (not m.group("in_fact") or _corrects(answer, m.end()))
    ]
    labels = [m for m in _ANSWER_LABEL.finditer(answer) if m.end() <= last_said and _opens(answer, m.start())]
    if labels and labels[-1].end() > max(corrections, default=0):  # "Step 1: … Sunday. **Answer:** Monday."
        answer = _labelled(answer, labels[-1])
    elif corrections:
        answer = answer[corrections[-1] :]
    return "" if _ALSO_OFFERED.search(answer) else _QUESTION.sub(" ? ", answer)  # "?": an answer to it follows


def _corrects(text: str, at: int) -> bool:
    """Whether what follows an "in fact" at `at` corrects: a yes or a no, an error named, or a result in four words at
    most to its sentence's end, no colon and no working without its result ("Cela donne 3,15, en réalité 3,14.",
    "En réalité, c'est mercredi."; "En réalité, c'est simple : 12 × 10 = 120", "In realtà, basta fare 10 × 7 + 8 ×
    7.", "In realtà è semplice." and "En réalité, la semaine commence le lundi." explain)."""
    if re.match(rf"\W*{_YES_OR_NO}\b", fold(text[at : at + 12])):
        return True  # "Ja. Eigentlich nein: 13 × 17 = 221."
    sentence = fold(re.split(r"[.!?](?=\s|$)|\n", text[at : at + 200], maxsplit=1)[0])
    if _NOT_STATED.search(sentence):
        return False  # "La risposta è 220. In realtà, 210 sarebbe sbagliato."
    if _ERROR_NAMED.search(sentence):
        return True  # "En realidad son 220, perdón por el error anterior."
    words = words_in(sentence)
    if ":" in sentence or len(words) > 4 or not (re.search(r"\d", sentence) or set(words) & weekdays().keys()):
        return False  # "In realtà è semplice." states no result
    return "=" in sentence or not re.search(
        r"\d\s*(?:[-+×*/÷x^]\s*\d|(?:times|mal|fois|per|por|squared|al quadrato|au carre|zum quadrat|al cuadrado)\b)",
        sentence,
    )


#: Words that name an error made ("Eigentlich habe ich mich verrechnet: …", "En fait, je me suis trompé").
_ERROR_NAMED = re.compile(
    r"\b(?:error|erreur|errore|fehler|mistake|verrechnet|vertan|trompe|equivoque|equivocado|perdon|pardon|scusa|"
    r"sorry|desole)\b"
)


def _opens(text: str, at: int) -> bool:
    """Whether `at` starts a line or a sentence of `text` (past markup): a label there is the answer's, one after a
    question ("Is 7 prime? Answer: yes.") answers that question."""
    before = text[:at].rstrip(" \t*#_")
    return not before or before[-1] in "\n.!"


def _labelled(answer: str, label: re.Match[str]) -> str:
    """What a label labels, from the label on: the paragraph it opens ("**Answer:** 1700\n\nExplanation: … = 1728."
    states 1700) and the next where that one leads to it ("Answer: the sorted list is:\n\n2\n4"); a label alone on
    its line opens all that follows, up to a heading ("**Final answer:**\n\n1728\n\n**Explanation:** 12 × 144")."""
    rest = answer[label.end() :]
    if re.search(r"[^\W_]", rest.split("\n", 1)[0]):
        paragraphs = re.split(r"\n\s*\n", rest)
        rest = "\n\n".join(paragraphs[:2] if paragraphs[0].rstrip(" *_").endswith((":", "?")) else paragraphs[:1])
    elif (heading := _HEADING.search(rest)) and re.search(r"[^\W_]", rest[: heading.start()]):
        rest = rest[: heading.start()]
    return answer[label.start() : label.end()] + rest


#: A heading that opens a part of its own: "**Explanation:**", "Check:", "Step 1:".
_HEADING = re.compile(r"\n[ \t*#_]*[^\W\d_][^\n:]{0,30}:")  # one line at a time: a run of blank lines is read once


def _without_closing_offers(answer: str) -> str:
    """The answer without the sentences it closes with that offer more (one pass from the end: no backtracking)."""
    cut = len(answer)
    for start in reversed([0, *(m.end() for m in _SENTENCE_END.finditer(answer))]):
        if start < cut and not _OFFER.match(answer, start):
            break
        cut = start
    return answer[:cut]


def _as_text(latex: str) -> str:
    """What LaTeX mathematics shows, as text (pylatexenc): "\\frac{5}{6}" → "5/6", "\\times" → "×". LaTeX nested
    deeper than Python's recursion limit (pylatexenc recurses once per brace or formula) is left as written."""
    latex = re.sub(r"\\[dt]frac\b", r"\\frac", latex.replace("%", r"\%").replace(r"\\%", r"\%"))
    try:
        return f" {_latex_reader().latex_to_text(latex)} "
    except RecursionError:
        return latex


@cache
def _latex_reader() -> Any:
    """One pylatexenc reader for every answer; its warnings about a model's malformed macros are no one's concern."""
    from pylatexenc.latex2text import LatexNodes2Text

    logging.getLogger("pylatexenc").setLevel(logging.ERROR)
    return LatexNodes2Text(math_mode="text")


def same_number(expected: float, found: float) -> bool:
    """Exact for whole numbers; for fractions, `expected` rounded to the digits `found` writes, with two significant
    digits at least (1/3 as 0.33 or 0.3333, not 0.3; 10/3 as 3.3, not 3; 37 °C as 98.6 °F, not 98.7; 25 / 2 as 12.5:
    12 and 13 are as near)."""
    if float(expected).is_integer():
        return found == expected
    if math.isclose(found, expected, rel_tol=1e-9):  # 0.05 written whole, 0.1 + 0.2 as 0.3
        return True
    exponent = decimal.Decimal(repr(float(found))).as_tuple().exponent
    digits = 0 if float(found).is_integer() or not isinstance(exponent, int) else -exponent
    rounded = abs(found - expected) < 0.5 * 10.0**-digits * (1 - 1e-9)  # a tie rounds both ways
    return rounded and _significant_digits(found) >= 2


def _significant_digits(number: float) -> int:
    written = repr(abs(float(number)))
    if "e" in written:  # 1e-05, 1e+16: judged by their rounding alone
        return 2
    whole, _, fraction = written.partition(".")
    return len((whole + fraction.rstrip("0")).lstrip("0"))


def stated_number(answer: str, units: Sequence[str] = (), unit: str = "") -> float | None:
    """The number `answer` states as its result; `units` are the asked unit's names ("hours", "h"), `unit` the one
    pint reads: a result written before another unit of its kind ("2 hours = 120 seconds") states no minutes. Read
    on `what_it_states` (Known.holds): a long answer's ends, after its last correction."""
    answer = _ASIDE.sub(" ", answer.replace("−", "-"))  # the minus sign; "132 (because 12 × 10 = 120 …)"
    answer = _FRACTION.sub(_fraction_value, answer)  # "5/2 hours" states 2.5 hours, no 2 hours; "144 / 12 = 12" 12
    words = words_in(answer)
    languages = languages_of(words, default=LANGUAGES)
    text = _thousands_read(in_digits(answer, languages), languages[0])  # "Sechs." is German
    if told_language(words) not in (None, "en"):  # "Das sind 8,047 km.": a decimal comma, as English never writes
        text = _THREE_DECIMALS.sub(r"\1.\2", text)
    text = _HALF.sub(lambda m: f"{'1' if m.group(1).isalpha() else m.group(1)}.5", _NEGATIVE.sub(_signed, text))
    if _hedged(fold(text)):
        return None  # "42 or 48", "it could be 42, 43, or 48": candidates, no result
    text = _unrestated(text, units, unit)
    headline = _HEADLINE.match(text)
    if headline and not _CONCLUDES.search(fold(text[headline.end() :])):
        return numbers_in(headline.group(1))[0]  # "**28**\n\n2019 mod 4 = 3": the working comes after
    reason = _RESULT_BEFORE_REASON.search(text) or _RESULT_BEFORE_AS.search(text)
    if reason and not _CONCLUDES.search(fold(text[reason.end() :])):
        text = text[: reason.end()]  # "72 hours, because each day has 24 hours"
    sentence = _concluding(text)
    if sentence is None:
        return None
    sentence = _turned(sentence)
    sentences = _SENTENCE_END.split(text)
    stating = [s for s in sentences if not (_NOTE.search(fold(s)) or _NOT_STATED.search(fold(s)))]
    tied = _tied_to(" ".join(stating or sentences), units, unit)
    found = _result(fold(sentence))
    if found is None or (unit and found[1] and unit_named(found[1], unit) == "other"):
        return tied  # "2 hours = 120 s" states no minutes
    concluded = numbers_in(found[0])[0]
    if _names_the_answer(sentence) and _ends_with(sentence, concluded):
        in_sentence = _tied_to(sentence, units, unit)
        if in_sentence is not None:
            return in_sentence
        return concluded if tied in (None, concluded) else None  # "… = 420 minutes. The answer is 480.": a doubt
    bare = _BARE_CONCLUSION.match(fold(sentence))
    if bare and (not bare.group(1) or _names_unit(bare.group(1), units, unit)):
        return concluded  # "… 2100 is a leap year, so 29." states 29, whatever "28 days" said before
    return tied if tied is not None else concluded  # "5 km is 5,000 meters. So you multiply by 1,000." states 5000


#: A result said again another way, to its sentence's end: "366 jours, soit 52 semaines et 2 jours", "154.25, i.e. 154
#: and a quarter", "132 giorni, cioè 18 settimane e 6 giorni".
_RESTATED = re.compile(
    r"(?:,\s*|\s+)(?:i\.\s?e\.|that is|in other words|das hei(?:ß|ss)t|d\.\s?h\.|c'est-à-dire|soit|es decir|o sea|cioè|"
    r"ovvero|ossia)[\s,:]+([^.!?\n]*)",
    re.I,
)


def _unrestated(text: str, units: Sequence[str], unit: str) -> str:
    """The text without the results it says again another way, where it states the result without them: in the asked
    unit ("2 hours, i.e. 120 minutes" keeps its minutes) or, for a number, at all; a number said again alone is the
    result written exactly ("5 below zero, i.e. -5")."""
    kept = _RESTATED.sub(lambda m: m.group(0) if re.fullmatch(rf"\W*{_NUMBER}\W*", m.group(1)) else " ", text)
    states = _tied_to(kept, units, unit) is not None if units or unit else bool(numbers_in(kept))
    return kept if states else text


#: A number with three digits after its one comma: 8,047 (8047 in English, 8.047 in paor's other languages).
_THREE_DECIMALS = re.compile(r"(?<![\d,.])(\d{1,3}),(\d{3})(?![\d,]|\.\d)")
#: A number alone in the answer's first paragraph: its result, headlined ("**688**\n\nChiffre suivant : 7 ≥ 5").
_HEADLINE = re.compile(rf"[\s*_#]*({WRITTEN_NUMBER})[ \t*_]*\n[ \t]*\n")
#: A fraction written with a slash, a mixed number ("3 1/3") or a sign for one ("3⅓", "½"): the value it states.
_FRACTION = re.compile(
    r"(?<![\d.,])(?:(?P<whole>\d+)(?:\s+(?=\d+\s*/\s*\d+(?!\s*/))|\s*(?=[¼-¾⅐-⅞])))?"
    r"(?:(?P<top>\d+(?:[.,]\d+)?)\s*/\s*(?P<bottom>\d+(?:[.,]\d+)?)(?!\d|[.,]\d|\s*/)|(?P<sign>[¼-¾⅐-⅞]))"
)


def _fraction_value(match: re.Match[str]) -> str:
    whole, sign = float(match.group("whole") or 0), match.group("sign")
    if sign:
        return _plain(whole + unicodedata.numeric(sign))
    top, bottom = (float(match.group(g).replace(",", ".")) for g in ("top", "bottom"))
    if bottom == 0 or (match.group("whole") and top >= bottom):
        return f" {match.group(0)} " if match.group("whole") else " a fraction "  # "3 4/2" is no mixed number
    if not match.group("whole") and top.is_integer() and bottom.is_integer() and math.gcd(int(top), int(bottom)) > 1:
        return " a fraction "  # "144/12", "10/4" write the question again: a result is written in lowest terms
    return _plain(whole + top / bottom)


def _plain(value: float) -> str:
    return f"{value:.10f}".rstrip("0").rstrip(".")


#: "minus 5", "negative five" (a sign, where no number stands before it: "7 minus 5" is a working), "3 and a half",
#: "one and a half" (an English "one" alone stays a word: nodes/reading/numbers.py).
_NEGATIVE = re.compile(r"\b(?:minus|negative|negativ|moins|menos|meno)\s+(?=\d)", re.I)
_HALF = re.compile(r"\b(\d+|one)\s+(?:and\s+a|et|y|e|und)\s+(?:half|demie?|media|mezzo|halb)\b", re.I)


def _signed(match: re.Match[str]) -> str:
    before = match.string[max(0, match.start() - 40) : match.start()].rstrip()[-1:]
    return match.group(0) if before and (before.isdigit() or before in ")=+-*/×÷") else "-"


#: Words that offer a result as one candidate (folded), and the "or" that offers another ("42 or maybe 48", "o bien
#: 67 o bien 36", "ou bien mardi ou bien mercredi").
_MAYBE = "(?:maybe|perhaps|possibly|vielleicht|peut-etre|quizas|forse)"
_OR_MAYBE = rf"{OR}\s+(?:(?:{_MAYBE}|bien)\s+)?"
#: Two results offered as alternatives: "42 or 48", "42, 43, or 48", "6 hours or 5.5 hours" ("0.25, or 25%" says one
#: value twice).
_HEDGED = re.compile(
    rf"(?<![\d.,]){_NUMBER}(?:\s+|\s*,\s*{_NUMBER}\s*(?:,\s*)?){_OR_MAYBE}{_NUMBER}"
    rf"|(?<![\d.,]){_NUMBER}\s*(?:[,;]\s*)?{_MAYBE}\s+{_NUMBER}"
    rf"|(?<![\d.,]){_NUMBER}\s+([^\W\d_]+)\s+{_OR_MAYBE}{_NUMBER}\s+\1\b"  # "6 ore oppure 5.5 ore"
    rf"|\bsoit\s+{_NUMBER}\s*,?\s+soit\s+{_NUMBER}"  # "soit 31, soit 30" (one "soit" restates: "2 h, soit 120 min")
)


def _hedged(folded: str) -> bool:
    """Whether a text offers two values as its result ("3/4 or 0.75" offers one)."""
    return any(len(set(numbers_in(m.group(0)))) > 1 for m in _HEDGED.finditer(folded))


#: A result written right before what explains it ("72 hours, because …", "9, since 9 × 9 = 81"); not a year or
#: time it happens in ("In 2024, since it is a leap year, …").
_RESULT_BEFORE_REASON = re.compile(
    rf"(?<![\d.,])(?<!\bin )(?<!\bim )(?<!\ben )(?<!\bnel )(?<!\bseit )(?<!\bfrom ){_NUMBER}"
    rf"[*_]*(?:\s+[^\W\d_]+)?\s*(?:,\s*)?(?=\b(?:{_REASONS})\b)",
    re.I,
)
#: And before ", as", where the number is what the answer says ("401, as 17 × 23 = 391", "= 220, as …", "has 1,400
#: minutes, as …"; "Multiply 24 hours by 60, as each hour …" works on).
_RESULT_BEFORE_AS = re.compile(
    rf"(?:^|[=:]|\b(?:is|are|has|have|gives|makes)\b)\s*{_NUMBER}(?:\s+[^\W\d_]+)?\s*,\s*(?=as\b)",
    re.I | re.M,
)
_AFTER_MARKER = re.compile(
    rf"\s*(?:approximately|about|exactly|around|really|etwa|genau|environ|exactement|aproximadamente|exactamente|"
    rf"circa|esattamente)?\s*\**\s*({WRITTEN_NUMBER})(?![.,]?\d)"
    r"(?!\s*(?:decimal|places?|digits?|significant|nachkommastellen?|stellen?|decimales?|decimali|cifre))"
)
#: An operation after a number: what "is" or a colon leads to is a working's start ("Die Antwort: 15 mal 14 ist
#: 210."), what "=" leads to may be one written another way ("144 = 12 × 12").
_OPERATOR = r"(?:[-+/×÷^]|(?<!\*)\*(?!\*)|\b(?:times|mal|fois|per|por|plus|minus|moins|menos|meno|mas|piu|x)\b)"
_OPERATION_NEXT = re.compile(rf"\s*{_OPERATOR}\s*\(?\d")
#: A number an operation leads to: an operand of a working ("5 + 0 yields 6" states 6, not 0; "**6**" is bold).
_OPERATION_BEFORE = re.compile(rf"{_OPERATOR}\s*\(?\s*$")


def _names_unit(word: str, units: Sequence[str], unit: str) -> bool:
    """Whether `word` names the asked unit: one of `units` ("vowels"), or what pint reads as `unit`."""
    return word in {fold(u) for u in units} or bool(unit and unit_named(word, unit) == "same")


def _ends_with(sentence: str, number: float) -> bool:
    """The sentence's last number is `number` and it explains nothing: "The answer is 480." concludes, "The result
    is 6.5 × 60." and "To find the answer, multiply 6.5 by 60." do not."""
    return not _EXPLAINS.search(fold(sentence)) and numbers_in(sentence)[-1:] == [number]


def _turned(sentence: str) -> str:
    """A sentence from its last "so" on, or "but" where what follows names the answer, if what follows states a
    number and denies nothing ("… = 340, plus 17 × 3 = 51, so 391." states 391; "Many guess 401, but the correct
    answer is 391" 391; "28 days, but in a leap year it would have 29" 28)."""
    folded = fold(sentence)
    turns = [m.start() for m in _SO.finditer(folded) if _concludes_with_number(folded[m.end() :])]
    turns += [
        m.start()
        for m in _BUT.finditer(folded)
        if _concludes_with_number(folded[m.end() :]) and _names_the_answer(folded[m.end() :])
    ]
    return sentence[max(turns) :] if turns else sentence


def _result(folded: str) -> tuple[str, str] | None:
    """The number a concluding sentence states — after its last working, else after what it "is", else the one that
    "is" something ("Among 91, 57 and 12, 57 is the largest.") — and the word written right after it."""
    working = [m for m in _WORKING.finditer(folded) if _AFTER_MARKER.match(folded, m.end())][-1:]
    spans = [m.span() for m in _SPAN.finditer(folded)]
    markers = [m for m in _IS.finditer(folded) if not any(start <= m.start() < end for start, end in spans)]
    after = [_AFTER_MARKER.match(folded, marker.end()) for marker in [*working, *markers]]
    after[len(working) :] = [m for m in after[len(working) :] if m and not _OPERATION_NEXT.match(folded, m.end())]
    written = re.finditer(rf"({WRITTEN_NUMBER})", folded)
    stated = (
        next((m for m in after if m), None)
        or next((m for m in _NUMBER_THAT_IS.finditer(folded) if _is_the_result(words_in(m.group(2)))), None)
        or next((m for m in written if not _met_along_the_way(folded, m, spans)), None)
    )
    if stated is None:
        return None
    then = re.match(r"\s*([^\W\d_]+)", folded[stated.end(1) :])
    return stated.group(1), then.group(1) if then else ""


def _met_along_the_way(folded: str, number: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    """Whether a number is no result the sentence states: denied ("not 15"), an operand of a working ("5 + 0 yields
    6", "12 por 12 vale 144") or a range's end ("La somme de 1 à 100 vaut 5050")."""
    at, end = number.start(), number.end()
    if denied(folded, at) or _DENIED_AFTER.match(folded, end) or any(start <= at < stop for start, stop in spans):
        return True
    return bool(_OPERATION_NEXT.match(folded, end) or _OPERATION_BEFORE.search(folded[max(0, at - 20) : at]))


#: A range's ends: its "à", "a" and "da" are no "has", "is" or "gives" ("La somme de 10 à 20 est 165", "La somma da
#: 10 a 20 è 165").
_SPAN = re.compile(rf"\b(?:from|von|de|del|du|desde|da|dal)\s+{_NUMBER}\s+(?:to|bis|a|au|al|hasta)\s+\d")
#: A number that "is" the result, the largest or the smallest within a few words ("57 is the largest"; "144 divided
#: by 12 is a classic example" says nothing of 12).
_NUMBER_THAT_IS = re.compile(rf"(?<![\d.,])({WRITTEN_NUMBER})\s+(?:{_COPULA}|was)\s+((?:[^\W\d_]+\s+){{0,2}}[^\W\d_]+)")
_RESULT_WORDS = FAMILIES["largest"] | FAMILIES["smallest"] | _RESULT_NAMES


def _is_the_result(words: list[str]) -> bool:
    return bool(_RESULT_WORDS.intersection(words)) and not _NEGATORS.intersection(words)


def _concludes_with_number(rest: str) -> bool:
    """What follows a "so" states a number and denies or rounds nothing ("so 12 it is not", "so 408 is wrong", "so
    roughly 400" conclude nothing)."""
    return bool(re.search(r"\d", rest)) and not (_NEGATORS | _NOT_THE_RESULT).intersection(words_in(rest))


# fmt: off
_NOT_THE_RESULT = frozenset(_WRONG.split("|")) | frozenset([
    "roughly", "approximately", "about", "around", "nearly", "almost", "etwa", "ungefahr", "fast", "environ",
    "presque", "aproximadamente", "casi", "circa", "quasi",
])
# fmt: on


def _thousands_read(text: str, language: str) -> str:
    """Dots between groups of three digits read as thousands separators where they must be ("1.234.000"), where
    the answer is not English ("Ein Tag hat 1.440 Minuten.") or writes a decimal comma ("2,4 km = 2.400 metros"); "A
    day has 1.440 minutes" states 1.44."""
    grouped = language != "en" or bool(_DECIMAL_COMMA.search(text))
    return DOTTED_THOUSANDS.sub(
        lambda m: m.group(0).replace(".", "") if grouped or m.group(0).count(".") > 1 else m.group(0), text
    )


#: A decimal comma: one that no group of three digits follows ("2,4", "3,14159").
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d+,(?:\d{1,2}|\d{4,})(?![\d.,])")


def _tied_to(text: str, units: Sequence[str], unit: str = "") -> float | None:
    """The last number written right before one of `units`, or before any name pint reads as `unit` ("3000 m" for
    metres, "120 s" for seconds)."""
    tied: list[re.Match[str]] = []
    if units:
        names = "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True))
        tied += re.finditer(rf"({WRITTEN_NUMBER})[\s*_]*(?:{names})\b", text, re.I)  # "**31** days"
    if unit:
        written = re.finditer(rf"({WRITTEN_NUMBER})\s*([^\W\d_]+)", text)
        tied += (m for m in written if unit_named(m.group(2), unit) == "same")
    stated = [m for m in tied if not denied(text, m.start())]
    return numbers_in(max(stated, key=lambda m: m.start()).group(1))[0] if stated else None


def _concluding(text: str) -> str | None:
    """The sentence that states the result: the last one that concludes, else the last that states a number and
    explains nothing, else the first with a number."""
    sentences = [(s, fold(s)) for s in _SENTENCE_END.split(text) if numbers_in(s)]
    stating = [(s, f) for s, f in sentences if not (_NOT_STATED.search(f) or _NOTE.search(f))]  # "Übrigens: …, also …"
    plain = [s for s, f in stating if not _EXPLAINS.search(f)]
    concluding = [s for s, f in stating if _CONCLUDES.search(f)]
    return next((found[-1] for found in (concluding, plain, [s for s, _ in sentences[:1]]) if found), None)


def in_a_note(text: str, at: int) -> bool:
    """Whether `at` stands in a note beside the answer ("Fun fact: 'stop' and 'pots' use the same letters!")."""
    return bool(_NOTE.search(fold(_SENTENCE_END.split(text[:at])[-1])))


def denied(text: str, at: int) -> bool:
    """Whether the answer denies what stands at `at` in `text` ("not 15", "Not Wednesday", "nicht 15")."""
    return bool(_DENIED.search(text[max(0, at - 40) : at]))


def says_yes(answer: str) -> bool | None:
    """The yes or no an answer leads with, ends with or names its answer ("The answer is No." before its working), in
    any of paor's languages; None when it says neither."""
    folded = fold(_ASIDE.sub(" ", answer))  # "So the answer is Yes (87249 is odd)."
    said = _LEADS.match(folded)
    if said is None:
        said = _LABELLED.search(folded) or next(reversed(list(_NAMED_ANSWER.finditer(folded))), None)
        if said is None or folded[: said.start()].rstrip(" *_").endswith("?"):
            return None  # "Is 7 prime? Answer: yes." answers its own question
    return said.group(1) in _YES_WORDS


#: Words that deny what follows them ("isn't" reads as "isn", "t").
# fmt: off
_NEGATORS = frozenset([
    "not", "t", "nicht", "kein", "keine", "keinen", "pas", "non", "no", "never", "nie", "neither", "nor", "weder", "ni",
    "ne",
])
# fmt: on
#: A yes or a no that answers on its own, before a clause of its own (its "no" denies nothing in it).
_ANSWER_WORD = re.compile(rf"\b{_YES_OR_NO}\s*[,;:]", re.I)
#: Words after which a sentence takes back what it said before ("51 looks prime but is not prime").
_CONTRAST = frozenset(["but", "however", "aber", "jedoch", "doch", "mais", "pero", "sino", "ma", "tuttavia"])
_BUT = re.compile(rf"\b(?:{'|'.join(sorted(_CONTRAST))})\b")
#: The words of a conclusion that names the answer, not merely goes on ("So you multiply by 1,000", "Donc …").
_NAMES_THE_ANSWER = _RESULT_NAMES | frozenset(["final", "correct", "richtig", "richtige", "correcto", "corretto"])


def _names_the_answer(text: str) -> bool:
    return bool(_NAMES_THE_ANSWER.intersection(words_in(text)))


def states_property(
    answer: str, number: int, says: frozenset[str], opposite: frozenset[str], *, yes_or_no: bool = True
) -> bool | None:
    """Whether an answer says `number` has a property: the yes or no it leads with, else how it names the property
    (`says`, folded words) or its opposite after the number (else before it: "It's not prime: 91 = 7 × 13." says
    no) — "97 is a prime number." says yes, "91 is not prime." and "15 is odd." say no; "Unlike 91, which is not
    prime, 97 is prime." says yes of 97; what follows a "but" in the sentence stands ("51 looks prime but is not
    prime" says no). None when it names neither, or the yes or no it leads with and what the number's own clause
    says of it disagree ("Divisible by 2? No. … 119 is prime."). Without `yes_or_no` (a question that asks which
    property) a yes or a no says nothing."""
    leads, text = says_yes(answer) if yes_or_no else None, _ASIDE.sub(" ", answer)
    if not yes_or_no:  # "No, odd." answers which with "odd"; "**Odd** … so it is even" says both
        text = re.sub(rf"^\W*{_YES_OR_NO}\b", " ", text, flags=re.I)
        concluded = concluded_word(answer, str(number))
        first = next(iter(re.findall(r"^\W*([^\W\d_]+)\W*(?:[.!,;:\n]|$)", fold(text))), None)  # "**Odd**\n\n…"
        if concluded in says | opposite:
            return concluded in says if first not in says | opposite or (first in says) is (concluded in says) else None
    if leads is None:
        return _names_property(text, number, says, opposite)
    told = set()
    for own in re.finditer(rf"(?:([^\W\d_]+)\s+)?(?<![\d.,]){number}(?!\d)([^.!?:;\n]*)", text):
        before, after = words_in(own.group(1) or "")[-1:], words_in(own.group(2))
        told.add(_predicated([*before, *after] if before in _COPULAS else after, says, opposite))  # "Also ist 119 …"
    return leads if told <= {None, leads} else None  # "En fait si, … Non, 89 n'est pas un nombre premier."


_NUMBER_NOUNS = frozenset(["number", "nombre", "numero", "zahl"])


def _predicated(words: list[str], says: frozenset[str], opposite: frozenset[str]) -> bool | None:
    """What a number's own clause says of it right after "is" ("119 is a prime number", "2100 n'est pas
    bissextile"); None for anything else ("133 might seem prime", "101 is not divisible by any prime")."""
    words = words[1:] if words[:1] == ["n"] else words
    if words[:1] not in _COPULAS:
        return None
    window = words[:5]
    named = next((at for at, w in enumerate(window) if w in says or w in opposite), None)
    if named is None or any(
        w not in ARTICLES and w not in _NEGATORS and w not in _NUMBER_NOUNS for w in window[1:named]
    ):
        return None  # "is not a prime number", "n'est pas un nombre premier"
    return (window[named] in says) is not any(w in _NEGATORS or w == "isn" for w in window[:named])


def _names_property(text: str, number: int, says: frozenset[str], opposite: frozenset[str]) -> bool | None:
    named = re.search(rf"(?<![\d.,]){number}(?!\d)", text)
    read = text[named.end() :] if named else text
    if named and not any(w in says or w in opposite for w in words_in(read)):  # "It's not prime: 91 = 7 × 13."
        read = _SENTENCE_END.split(text[: named.start()])[-1]
    for sentence in _SENTENCE_END.split(read):
        words = words_in(_ANSWER_WORD.sub(" ", sentence))  # "Quindi: No, 7390 è dispari." calls it odd
        mentions = [at for at, word in enumerate(words) if word in says or word in opposite]
        if not mentions:
            continue
        turn = max((at for at, word in enumerate(words) if word in _CONTRAST), default=-1)
        after = [at for at in mentions if at > turn]  # "14 is not odd but even": the mention after the turn
        at = after[0] if after else mentions[0]
        said = (words[at] in says) is not any(w in _NEGATORS for w in words[max(turn + 1 if after else 0, at - 4) : at])
        if after:  # every mention where no "but" turns the sentence
            return said
        # "51 looks prime, but it is not": what follows the turn, up to another number ("but 91 is not"), denies it
        taken_back = words_in(re.split(r"\d", re.split(rf"\b{words[turn]}\b", fold(sentence))[-1])[0])
        return said is not any(w in _NEGATORS for w in taken_back)
    return None


#: Where an answer turns to its conclusion (folded): a "so" word, "the answer is", an arrow.
_CONCLUSION = re.compile(rf"{_SO.pattern}|\b(?:{_RESULT_NAME})\W{{0,3}}(?::|\b(?:{_COPULA})\b)|→")


def concluded_word(answer: str, request: str) -> str | None:
    """The word an answer's last conclusion ends its sentence with, not denied ("…, so the 25th is a Thursday."
    → thursday, "so: L" → l); "so Tuesday is the day before that" and "So Wednesday would be two days on" end with
    none, nor one that turns to another day or letter than the request's ("… ist ein Freitag, also ist der Tag davor
    ein Donnerstag", "so the letter before J is I" of the letter after H), nor one the clause does not say it is
    ("so the holiday weekend starts Thursday"). English "also" adds, it concludes nothing."""
    folded = fold(_ASIDE.sub(" ", answer))
    english = languages_of(words_in(folded))[0] == "en"
    conclusions = [m.end() for m in _CONCLUSION.finditer(folded) if not (english and m.group(0) == "also")]
    if not conclusions:
        return None
    line = folded[conclusions[-1] :].split("\n", 1)[0]
    clause = re.split(r"(?<!\b\d)(?<!\b\d\d)[.!?]", line, maxsplit=1)[0]  # "der 25." is a day, not an end
    word = re.search(r"([^\W\d_]+)\W*$", clause)
    if word is None or denied(folded, conclusions[-1] + word.start()):
        return None
    said = [w for w in words_in(clause[: word.start()]) if w not in ARTICLES and w not in _THE]
    turns = _RELATIONS.intersection(words_in(clause)) - set(words_in(request))
    # "…, martedì 19, e il 25 dicembre è lunedì" speaks of the 25th; Italian "e" is no cut, "è" folds to it
    said_of = re.split(r",|\b(?:and|und|et|y)\b", clause)[-1]
    other_date = set(numbers_in(said_of)) - set(numbers_in(request))  # "…, so July 5 was a Sunday"
    also = bool(re.match(r"\W*is\b", clause)) and folded[: conclusions[-1]].endswith("so")  # "so is Wednesday": too
    return None if turns or other_date or also or not set(said[-1:]) <= _IS_WORDS else word.group(1)


#: What a conclusion says its word is with ("so it's Monday", "donc le 14 était un mardi", "c'è la domenica", "So
#: after Thursday comes Friday", "donc après vendredi vient samedi").
# fmt: off
_IS_WORDS = FAMILIES["comes"] | frozenset([
    "is", "was", "s", "ist", "war", "est", "etait", "sera", "e", "era", "es", "fue", "folgt", "follows", "suit", "sigue"
])
#: The definite articles, which stand between "is" and what it says ("so the 25th is a Thursday", "c'è la domenica").
_THE = frozenset(["the", "der", "die", "das", "den", "le", "la", "l", "il", "lo", "el"])
#: Words that relate a day or a letter to another, after it or before it: "after", "danach", "il giorno dopo",
#: "before", "davor", "la veille".
_AFTER = FAMILIES["after"] | frozenset(["danach", "lendemain", "siguiente", "successivo", "following"])
_BEFORE = FAMILIES["before"] | frozenset(["davor", "veille", "anterior", "precedente"])
_RELATIONS = _AFTER | _BEFORE
# fmt: on


#: What ends the words that call a number the largest: a clause's end or another number.
_CLAUSE_BREAK = re.compile(r"[;,.!?\n]|\d")
#: A chain of comparisons ("9.11 < 9.9").
_CHAIN = rf"(?<![\d.,]){_NUMBER}(?:\s*([<>])\s*{_NUMBER})+"  # from a number's start: no rescan


def stated_extreme(answer: str, *, largest: bool) -> float | None:
    """The number an answer calls the largest (or smallest), by its own clause: what it "is" ("9.9 is larger", "9.11
    is smaller and 9.9 is larger"), else what the words before it call it ("the larger is 9.9"; a number after
    "than" is the other one), else, where it names no answer, its place in a chain ("9.11 < 9.9"); none where it
    calls two so. Else, or where it names the answer, the number it states ("Since 1.75 < 2.5, the answer is 2.5."
    states 2.5). What the words before a number call it counts only where they say it is it ("the larger is 9.9",
    "larger: 9.9"; not "is larger because 11 > 9")."""
    asked, other = (FAMILIES["largest"], FAMILIES["smallest"])[:: 1 if largest else -1]
    folded, called = fold(_ASIDE.sub(" ", answer.replace("−", "-"))), set()
    if _hedged(folded):
        return None  # "Die kleinste Zahl ist 19 oder 23."
    if _names_the_answer(folded):
        return stated_number(answer)  # "You might think 9.9 is bigger, but the answer is 9.11."
    for m in re.finditer(WRITTEN_NUMBER, folded):
        after = words_in(_CLAUSE_BREAK.split(folded[m.end() : m.end() + 60])[0])[:4]
        window = folded[max(0, m.start() - 60) : m.start()]
        before = words_in(_CLAUSE_BREAK.split(window)[-1])[-4:]
        says = before[-1:] in _COPULAS or window.rstrip(" *").endswith(":")  # "the larger is", "larger:"
        words = after if after[:1] in _COPULAS or after[:1] == ["was"] else before if says else []
        if asked & set(words) and not (other | _NEGATORS) & set(words):
            called.update(numbers_in(m.group(0)))
    chains = () if called else re.finditer(_CHAIN, folded)
    for chain in chains:
        chained = numbers_in(re.sub(r"\s*[<>]\s*", " ; ", chain.group(0)))
        called.add(chained[-1] if (chain.group(1) == "<") is largest else chained[0])
    return called.pop() if len(called) == 1 else None if called else stated_number(answer)


def stated_weekday(answer: str, request: str) -> int | None:
    """The weekday an answer states: the one its conclusion ends with ("The 24th is a Wednesday, so the 25th is a
    Thursday."), else the first it names and does not deny ("Not Wednesday but Thursday") beyond the request's own,
    one naming of each taken away in each sentence ("Tuesday. So Wednesday would be two days on."; "The day after
    Tuesday is Wednesday"), else the request's own named alone ("Monday" is 7 days after Monday); none where it offers
    two ("Friday or Saturday")."""
    names, folded = weekdays(), fold(answer)
    any_day = "|".join(names)
    offered = rf"\b(?:{any_day})\s*(?:,\s*)?{_OR_MAYBE}(?:(?:{'|'.join(ARTICLES)})\s+)?(?:{any_day})\b"
    if re.search(offered, folded):
        return None  # "mardi ou un mercredi", "mardi, ou peut-être un mercredi"
    asked = [names[w] for w in words_in(request) if w in names]
    concluded = names.get(concluded_word(answer, request) or "")
    if concluded is not None and concluded not in asked:
        return concluded
    if (closing := _closing_day(folded)) is not None:
        return closing  # "Resto 2 → lunes + 2 = miércoles … Será martes."
    chained = [m for m in re.finditer(rf"=\s*\**\s*({any_day})\b", folded) if not denied(folded, m.start(1))]
    if chained:  # "Friday + 1 = Saturday, + 2 = **Sunday**": the last day the working reaches
        return names[chained[-1].group(1)]
    named = [(m, names[m.group(0)]) for m in re.finditer(r"[^\W\d_]+", folded) if m.group(0) in names]
    beyond = [day for sentence in _SENTENCE_END.split(folded) for day in _days_said(sentence, names, asked)]
    if beyond:
        return beyond[0]
    days = {day for _, day in named}
    return days.pop() if len(days) == 1 else None


def _closing_day(folded: str) -> int | None:
    """The day a short last sentence says it is and nothing more ("Será martes.", "It's a Tuesday.", "C'est mardi."):
    the answer's last word on it, whatever its working reached."""
    sentences = [s for s in _SENTENCE_END.split(folded.strip()) if re.search(r"[^\W\d_]", s)]
    words = [w for w in words_in(sentences[-1]) if w not in ARTICLES and w not in _THE] if sentences else []
    if not words or words[-1] not in weekdays() or len(words) > 3 or not set(words[:-1]) <= _SAYS_IT_IS:
        return None
    return weekdays()[words[-1]]


#: The words a short sentence says what day it is with: "it's", "das ist", "c'est", "será", "sarà", "will be".
_SAYS_IT_IS = _IS_WORDS | frozenset(["it", "that", "das", "es", "c", "ce", "sara", "will", "be", "wird", "sein"])


def _days_said(sentence: str, names: dict[str, int], asked: list[int]) -> list[int]:
    """The days a sentence names and does not deny, one naming of each the request names taken away ("200 days after
    a Tuesday it's a Saturday." says Saturday)."""
    words = re.finditer(r"[^\W\d_]+", sentence)
    said = [names[m.group(0)] for m in words if m.group(0) in names and not denied(sentence, m.start())]
    for day in asked:
        if day in said:
            said.remove(day)
    return said


def stated_letter(answer: str, request: str) -> str | None:
    """The single letter an answer states, beyond those the request names: the one its conclusion ends with, else the
    first quoted one, else the first capital standing alone ("The letter after G is H. I hope this helps."), else the
    first small one ("It's a z"); a denied one ("not J") is none, nor a letter that is a word before a small word ("I
    think it's H", "È la I", "A simple way …", "is a simple one: p") unless no other letter is named ("A comes before
    B")."""
    if _TWO_LETTERS.search(fold(answer)):
        return None  # "It is either t or r."
    asked = {c.casefold() for c in re.findall(r"(?<!\w)([^\W\d_])(?![\w'’])", request)}  # not "l'alphabet"
    concluded = concluded_word(answer, request) or ""
    if len(concluded) == 1 and concluded not in asked:  # "…, so the letter before M is L."
        return concluded
    said = _letters_said(answer, request)
    quoted = re.finditer(r"[\"'“‘«„*]([^\W\d_])[\"'”’»“*]", said)
    standing = [m for m in re.finditer(r"(?<![\w'’-])([^\W\d_])(?![\w'’-])", said) if not denied(said, m.start())]
    capitals = [m for m in standing if m.group(1).isupper()]
    alone = [m for m in capitals if not _WORD_LETTER.match(said, m.start())]
    small = [m for m in standing if not _WORD_LETTER.match(said, m.start())]  # not "is a simple one"
    ranked = [[m.group(1).casefold() for m in found] for found in (quoted, alone, capitals, small, standing)]
    beyond = next((b for found in ranked if (b := [c for c in found if c not in asked])), None)
    return (beyond or next((found for found in ranked if found), [None]))[0]


def _letters_said(answer: str, request: str) -> str:
    """The answer without what states no letter of its own: the alphabet written out ("… O, P, Q, R, S …"), notes
    ("Fun fact: …") and the sentences about another relation than the request's ("P comes before Q, not after it."
    of the letter after Q)."""
    asked = _relations(request)
    about = [s for s in _SENTENCE_END.split(answer) if _relations(s) <= asked and not _NOTE.search(fold(s))]
    said = _LETTER_RUN.sub(_unless_a_word, "\n".join(about))
    return said if re.search(r"[^\W\d_]", said) else answer


def _relations(text: str) -> set[str]:
    """Which ways a text relates a letter or a day to another: "after", "before", both or neither; a word that labels
    relates nothing ("Prima: g — ultima: **o**", where Italian "prima" is "first" as often as "before")."""
    words = set(words_in(re.sub(r"[^\W\d_]+\s*:", " ", text)))
    return {name for name, family in (("after", _AFTER), ("before", _BEFORE)) if family & words}


def _unless_a_word(run: re.Match[str]) -> str:
    """A run of letters in the alphabet's order is the alphabet written out; "la g è h" says h."""
    letters = fold("".join(re.findall(r"[^\W\d_]", run.group(0))))
    return " " if list(letters) == sorted(letters) else run.group(0)


#: Three letters or more, one after another: the alphabet written out ("O, P, Q, R, S", "l m n o p", "a → b → c").
_LETTER_RUN = re.compile(r"(?<![\w'’-])[^\W\d_](?:[\s,;→>…-]+[^\W\d_](?![\w'’-])){2,}")


#: Two letters offered as the answer: "t or r", "'k' ou 'i'".
_TWO_LETTERS = re.compile(
    rf"(?<![\w'’-])(?<!(?<![\w'’-])[^\W\d_]\s)[\"'“‘«„*]*[^\W\d_][\"'”’»*]*(?:\s*,)?\s+{_OR_MAYBE}[\"'“‘«„*]*[^\W\d_]"
    r"(?![\w'’-])(?!\s[^\W\d_]\b)"  # not in a run of letters: "l m n o p" ("o" is Spanish and Italian "or")
)
#: A letter that is a word of its own before a small word or a number: "I think", "È la", "A simple", "E poi", "Y
#: luego", "il y a 14".
_WORD_LETTER = re.compile(r"[IAEOYÈÀiaeoyèà]\s+[a-zà-ÿ\d]")


#: A numbered list's numbers ("1. 4\n2. 9"): no naming of an item.
_LIST_NUMBER = re.compile(r"(?m)^[ \t]*\d+[.)][ \t]+(?=\S)")
#: What stands between a list's items: a comma, a semicolon, an "and" or "or" (`LIST_SEPARATOR`), a "<" or ">" of a
#: chain ("1,25 < 3,5 < 10"), one line break with a bullet or not ("2\n4", "- 2\n- 4", "3.\n7."; a blank line ends a
#: list).
_BETWEEN = rf"(?:{LIST_SEPARATOR}|\s*[<>≤≥→]\s*|\.?[ \t]*\n[ \t]*(?:[-*•][ \t]*)?)"


def in_order(answer: str, ordered: Sequence[str]) -> bool:
    """The answer's last list (items one after another with only separators between, one a line where lines part
    them) is the items in order and no other item stands beside or between them: an answer that echoes the list
    first ("Sorting kiwi, banana, cherry gives banana, cherry, kiwi") gives its own last; one that holds more ("1, 2,
    5, 9, 10", "2\n4\n7\n9\n11", "kiwi, kiwi", "Berlin, Rio de Janeiro, Paris, Rome") is another list; two items a
    sentence names after the list ("So 7 and 9 are the largest.") are no list. Named in sentences, not as one list,
    each item's last naming comes after the one before it."""
    answer = re.sub(r"[*`]", "", _ASIDE.sub(" ", _LIST_NUMBER.sub("", answer))).replace("−", "-")  # "**Berlin**"
    by_name = {item.casefold(): item for item in ordered}
    names = "|".join(re.escape(item) for item in sorted(ordered, key=len, reverse=True))
    named = [*re.finditer(rf"(?<!\w)(?<!\w-)(?<!\d\.)(?:{names})(?!\w|\.\d|-\w)", answer, re.I)]  # not 1.5, kiwi-fruit
    if {by_name[m.group(0).casefold()] for m in named} != set(ordered):
        return False
    runs: list[list[re.Match[str] | None]] = [[named[0]]]
    for before, after in itertools.pairwise(named):
        gap, alone = answer[before.end() : after.start()], re.match(r"[.,;]?[ \t]*(?:\n|$)", answer[after.end() :])
        parts = re.split(_BETWEEN, gap, flags=re.I)
        if "\n" in gap and not alone:  # "Rome.\nRome is last because …" names an item again, in a sentence
            runs.append([after])
        elif parts == ["", ""]:
            runs[-1].append(after)
        elif len(parts) > 2 and parts[0] == parts[-1] == "" and all(_AN_ITEM.fullmatch(p) for p in parts[1:-1]):
            runs[-1] += [None, after]  # another item between: "apple, banana, mango"
        else:
            runs.append([after])
    lists = [run for run in runs if len(run) >= len(ordered) or (len(run) > 1 and _presented(answer, run))]
    if not lists:  # "First banana, then cherry, and kiwi is last."; no number between numbers but theirs
        last = {by_name[m.group(0).casefold()]: m.start() for m in named}
        listed = re.findall(r"-?\d+(?:\s*,\s*-?\d+){2,}", answer[min(last.values()) : max(last.values())])
        others = any(set(re.findall(r"-?\d+", found)) - set(ordered) for found in listed)  # "2, 1,1,1,1 x 5, 7, 9"
        return not others and [last[item] for item in ordered] == sorted(last.values())
    run = lists[-1]
    first, final = (next(m for m in side if m) for side in (run, run[::-1]))
    numeric = all(re.fullmatch(r"-?[\d.,]+", item) for item in ordered)
    item = r"-?\d+(?:[.,]\d+)*" if numeric else r"[^\W\d_]+(?:-[^\W\d_]+)*"
    more_after = re.match(rf"{_BETWEEN}{item}\.?(?:\s*$|\s*\n|{_BETWEEN}|[!?]|\.\s)", answer[final.end() :], re.I)
    more_before = numeric and re.search(
        rf"(?:^|[\s:(]){item}{_BETWEEN}$", answer[max(0, first.start() - 40) : first.start()], re.I
    )
    listed = [by_name[m.group(0).casefold()] if m else None for m in run]
    return listed == list(ordered) and not (more_after or more_before)


def _presented(text: str, run: list[re.Match[str] | None]) -> bool:
    """Whether a run of fewer items than asked is given as the list ("…, is: kiwi, banana."): after a colon or at
    a line's start, ending the answer; "The two largest are 7 and 9." names two items in a sentence."""
    first, final = run[0], run[-1]
    if first is None or final is None or not re.fullmatch(r"\W*", text[final.end() :]):
        return False
    return text[: first.start()].rstrip(" \t*_-").endswith((":", "\n")) or not text[: first.start()].strip()


#: An item of a list that is none of the asked ones: a few words or a number, no sentence ("Rio de Janeiro").
_AN_ITEM = re.compile(r"[^.!?:\n]{1,40}")
