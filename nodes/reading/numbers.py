"""One reader of the numbers a text states, and of the one calculation or unit conversion a request asks for.

Digits in every common format (3,000 · 3 000 · 3'000 · 3.5 · 3,5), number words in paor's five languages through
text2num, units through pint. "What is 12 multiplied by 11?" has one right answer, 132, and "3 km in metres" has
3000. The request is parsed, never executed: arithmetic goes through Python's `ast` with only numbers and the four
operations (plus powers with a small exponent), unit conversions through pint's unit registry.
"""

from __future__ import annotations

import ast
import calendar
import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from nodes.reading.lexicon import AND, fold, languages_of, told_language, words_in

_NUMBER = r"\d+(?:[.,]\d+)?"
#: A number as a text writes it, with its sign, thousands separators (3,000 · 3 000 · 3'000) or decimal comma.
WRITTEN_NUMBER = r"-?[1-9]\d{0,2}(?:[,' \u202f\u00a0]\d{3})+(?!\d)(?:\.\d+)?|-?\d+(?:[.,]\d+)?"  # never 0,375
_SQUARED = r"\b(?:squared|zum\s+quadrat|au\s+carr[ée]|al\s+(?:cuadrado|quadrato))\b"
_CUBED = r"\b(?:cubed|au\s+cube|al\s+cubo)\b"
_OPERATOR_WORDS = [
    (
        r"\b(?:multiplied\s+by|multiplicado\s+por|moltiplicato\s+per|times|mal|fois)\b|[×✕·]"
        r"|(?<=\d)\s+(?:por|per|x)\s+(?=\d)|(?<=\d)(?<!\b0)x(?=\d)",  # "5x5", not 0x10
        "*",
    ),
    (
        r"\b(?:divided\s+by|geteilt\s+durch|divis[ée]\s+par|dividido\s+(?:por|entre)|diviso(?:\s+per)?)\b|÷"
        r"|(?<=\d)\s+entre\s+(?=\d)",
        "/",
    ),
    (r"\b(?:plus|m[aá]s|pi[uù])\b", "+"),
    (r"\b(?:minus|moins|menos|meno)\b|−", "-"),
    (r"\b(?:to\s+the\s+power\s+of|hoch|(?:[aà]\s+la\s+)?puissance|elevado\s+a|elevato\s+alla?)\b|\^", "**"),
    (_SQUARED, "**2"),
    (_CUBED, "**3"),
]
#: "Product" in paor's five languages: an operation named before its numbers, and a result named by it.
_PRODUCT = r"product|produkt|produit|producto|prodotto"
#: An operation named before its numbers: "Multiply 6 by 7", "Divide 100 by 4", "Teile 100 durch 4".
_NAMED_FIRST = [
    (
        rf"\b(?:multiply|multipliziere|multiplie|multiplica|moltiplica)\s+({_NUMBER})\s+(?:by|mit|par|por|per)\s+"
        rf"({_NUMBER})\b",
        r"\1 * \2",
    ),
    (
        rf"\b(?:divide|dividiere|teile|divise|dividi)\s+({_NUMBER})\s+(?:by|durch|par|por|entre|per)\s+({_NUMBER})\b",
        r"\1 / \2",
    ),
    (
        rf"\b(?:{_PRODUCT})\s+(?:of|von|aus|de|di)\s+({_NUMBER})\s+{AND}\s+({_NUMBER})\b(?!\s*(?:{AND}|,)\s*\d)",
        r"\1 * \2",
    ),
]
_FRACTION_OF = re.compile(rf"\b({_NUMBER})\s*/\s*({_NUMBER})\s+(?:of|von|de|di)\s+({_NUMBER})\b")
#: A power named before its number or by its ordinal: "the square of 7" is "7 squared", "the cube of 4" "4 cubed",
#: "3 to the 4th power" "3 to the power of 4" (text2num writes "fourth" as "4th"). Named before its number, it ends
#: its sentence: "the square of 7 plus 1" is 50 or 64, "a square of 4 cm" no power.
_POWERS_NAMED = [
    (
        rf"\b(?:square|quadrat|carr[ée]|cuadrado|quadrato)\s+(?:of|von|de|di)\s+({_NUMBER})(?=\s*(?:[.?!]|$))",
        r"\1 squared",
    ),
    (rf"\b(?:cube|kubik|cubo)\s+(?:of|von|de|di)\s+({_NUMBER})(?=\s*(?:[.?!]|$))", r"\1 cubed"),
    (r"\bto\s+the\s+(\d+)(?:st|nd|rd|th)\s+power\b", r"to the power of \1"),
]
#: A power named but not read as one: "the square of 7 plus 1" is no 7 + 1 (a root, "zum Quadrat", "au carré" and
#: "al cuadrado" are read).
_POWER_UNREAD = re.compile(
    r"(?<!zum )(?<!au )(?<!al )\b(?:square|quadrat|carr[ée]|cuadrado|quadrato|cube|cubo)\b(?! root)"
)
#: The exponent a word names: "7 squared" states 7 and 2.
_EXPONENT_WORDS = re.compile(f"(?P<square>{_SQUARED})|{_CUBED}")
#: A result named by its operation ("the sum of", "the product of"): it holds all that follows, not what precedence
#: says.
_AGGREGATE = re.compile(rf"\b(?:sum|total|summe|somme|suma|somma|{_PRODUCT})\b", re.I)
#: The "cent" of a share, written as one word or two ("pour cent", "por ciento", "per cento").
_CENT = r"pour\s*cent|por\s*ciento|per\s*cento"
_PERCENT = re.compile(rf"%|\b(?:per\s*cent|prozent|{_CENT})\b", re.I)
#: German, French, Spanish and Italian write 1.234 for 1234 and English 1.234 for a decimal: nothing is decided.
DOTTED_THOUSANDS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?!\d|[.,]\d)")  # never 0.125
#: And 3,256 for 3.256, where English writes 3256.
ONE_COMMA_GROUP = re.compile(r"(?<![\d,.])\d{1,3},\d{3}(?![\d,.])")
_PERCENT_OF = re.compile(
    rf"({_NUMBER})\s*(?:{_PERCENT.pattern})\s+(?:of|von|de|di)\s+[$€£]?\s*"
    rf"({_NUMBER})(?![\d]|[.,]\d|\s*(?:{_PERCENT.pattern}))",  # "50% of 50%" is a share of a share
    re.I,
)
_HALF_OR_DOUBLE = re.compile(
    r"\b(?:(?P<half>half(?:\s+of)?|h[äa]lfte\s+von|moiti[ée]\s+de|mitad\s+de|met[àa]\s+di)"
    rf"|double|twice|doppelte\s+von|double\s+de|doble\s+de|doppio\s+di)\s+(?P<number>{_NUMBER})\b",
    re.I,
)
_ROOT = re.compile(
    r"(?:\b(?:square\s+root\s+of|(?:quadrat)?wurzel\s+(?:aus|von)|racine\s+carr[ée]e\s+de|ra[ií]z\s+cuadrada\s+de|"
    r"radice\s+quadrata\s+di)\s+|√\s*|\bsqrt\s*(?:of\s+|\(\s*)?|(?P<cube>\b(?:cube\s+root\s+of|kubikwurzel\s+(?:aus|von)|"
    rf"racine\s+cubique\s+de|ra[ií]z\s+c[uú]bica\s+de|radice\s+cubica\s+di)\s+|∛\s*))(?P<number>{_NUMBER})",
    re.I,
)
_DATE = re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b")
_EXPRESSION = re.compile(r"[\d.\s()+\-*/]*\d[\d.\s()+\-*/]*")
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_MAX_MAGNITUDE = 1e15
#: "Grad", "degrees" before a temperature's scale: "Wie viel Grad Celsius sind 451 Grad Fahrenheit?"
_DEGREE_WORD = r"(?:grad|grados?|degrees?|degr[eé]s?|gradi)\s+(?=celsius|fahrenheit|kelvin)"
_DEGREES_OF = rf"(?:{_DEGREE_WORD})?"
_CONVERSION = re.compile(
    rf"(?P<amount>(?<![\w-])-?{_NUMBER})\s*(?P<source>(?:[^\W\d]|°)[\w°/ ]{{0,24}}?)\s+"
    r"(?P<to>in|to|into|in\s+die|en|a)\s+"
    rf"{_DEGREES_OF}(?P<target>(?:[^\W\d]|°)[\w°/]{{0,24}})",
    re.I,
)
#: "a", "ein", "une", "una", "un'" as the amount: one of the unit.
_ONE_OF = ("a", "an", "one", "ein", "eine", "einem", "einer", "einen", "un", "une", "una", "uno")
_HOW_MANY_WORDS = r"(?:how\s+many|wie\s*viele?|combien\s+(?:de\s+|d['’])|cu[aá]nt[oa]s|quant[ie])\s*"
_HOW_MANY = re.compile(
    _HOW_MANY_WORDS + _DEGREES_OF + r"(?P<target>[^\W\d][\w°/]{0,24})\s+"
    r"(?:(?:there\s+)?(?:are|is|make|makes|sind|hat|haben|gibt\s+es|y\s+a-t-il|font|fait|sont|hay|son|tiene|ci\s+sono|sono|ha|fanno)\s+)?"
    r"(?:there\s+)?(?:(?:in|to|per|im|dans|en|pour)\s+)?"
    rf"(?P<amount>{_NUMBER}|(?:{'|'.join(_ONE_OF)})\b['’]?)\s*(?P<source>(?:[^\W\d]|°)[\w°/ ]{{0,24}}?)\s*(?:\?|\.|$)",
    re.I,
)
_IS_HOW_MANY = re.compile(
    rf"(?P<amount>(?<![\w-])-?{_NUMBER})\s*(?P<source>[^\W\d][\w°/ ]{{0,24}}?)\s+"
    rf"(?:is|are|equals?|make|makes|ist|sind|sont|font|son|sono|fanno)\s+{_HOW_MANY_WORDS}"
    r"(?P<target>[^\W\d][\w°/]{0,24})",
    re.I,
)


class NotComputable(ValueError):
    """The text is not one calculation paor can evaluate safely."""


@dataclass(frozen=True)
class ExpectedNumber:
    """The number a correct answer states, and how it was found (shown in the check's detail)."""

    value: float
    how: str
    target: str = ""  # the unit a conversion asks for ("minutes"), "" for a calculation


@cache  # direct and every validate of a round parse the same request
def expected_number(request: str) -> ExpectedNumber | None:
    """The result of the one calculation or unit conversion the request asks for, if it asks for one: in digits or
    in words, as "how many X in Y", "Y in X", "Y is how many X" or "convert Y to X"."""
    words = words_in(request)
    languages = languages_of(words)
    text = in_digits(request.replace("−", "-"), languages)  # the minus sign
    if (languages != ["en"] and DOTTED_THOUSANDS.search(text)) or unclear_commas(text, words):
        return None
    if languages[:1] == ["en"] and re.search(r"\d\s+per\s+\d", text, re.I):
        return None  # "60 per 3": 60 / 3 as a rate, or 60 × 3 as Italian's "per"
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # English: 1,500 km is fifteen hundred, 1,000 one thousand
    return _converted(_THAT_IN.sub(" in ", text)) or _calculated(text)


#: A quantity stated, then asked in another unit in a clause or sentence of its own: "350 degrees Fahrenheit, what's
#: that in Celsius?", "350 °F — what is that in Celsius?", "12 pulgadas. ¿Cuánto es eso en centímetros?" — read as
#: "350 degrees Fahrenheit in Celsius".
_THAT_IN = re.compile(
    r"\s*[,.;:—–]\s*¿?\s*(?:what['’]?s|what\s+is|how\s+much\s+is|was\s+ist|wie\s+viel\s+ist|c['’]est\s+combien|cu[aá]nto\s+es|"
    r"quanto\s+(?:fa|[eè]))\s+(?:that|this|das|eso|esto)?\s*(?:in|en)\s+",
    re.I,
)


def unclear_commas(text: str, words: Sequence[str]) -> bool:
    """Whether `text` writes a number as 3,256 (3256 in English, 3.256 in German, French, Spanish and Italian) and
    does not say English: its `words` are not English before every other language, or it writes a letter English
    does not ("Arrondis 3,256 à deux décimales", whose "a" is English filler once folded)."""
    if not ONE_COMMA_GROUP.search(text):
        return False
    return told_language(words) != "en" or bool(re.search(r"[^\W\da-zA-Z_]", text))


def in_digits(text: str, languages: Sequence[str] = ("en",)) -> str:
    """Numbers written as words turned into digits, in each of `languages` ("seven plus eight" → "7 plus 8",
    "dreiundzwanzig" → "23"). An isolated "one", "un" or "eine" stays a word: it is an article as often as a number
    (English "one" is read before an operation, at the end, and in "from one to ten"). Ordinals and articles stay
    words: text2num reads "primo" (prime, in Italian) as 1º, and "ventitré un numero" as 23 1."""
    from text_to_num import alpha2digit

    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate ("\udcff"), which text2num cannot encode
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _KEPT_WORDS.sub(keep, text)
    for language in languages:
        text = alpha2digit(text, language, threshold=2)
    if "en" in languages:
        text = _ONE.sub("1", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)


#: Words text2num would read as numbers that are not: ordinals, articles, the "cent" of a share ("pour cent",
#: "por ciento", "per cento"), and "miles", which Spanish reads as thousands ("3 miles en kilomètres").
_KEPT_WORDS = re.compile(
    r"\b(?:first|second|third|prime|primes|premi[eè]re?s?|prim[aoe]s?|primer[ao]?s?|segund[ao]s?|second[aoe]s?|"
    r"erste[nrs]?|zweite[nrs]?|dritte[nrs]?|tiers|terz[aoe]|tercer[ao]?|"
    rf"{_CENT}|miles|(?<!et )(?<!y )(?<!e )(?:une?|un[ao]|ein[e]?[mnrs]?))\b",
    re.I,
)
_ONE = re.compile(
    r"\bone\b(?=\s*(?:[+\-*/×÷]|plus|minus|times|divided|multiplied|\?|$))|(?<=\bfrom )one(?= to | through )", re.I
)


@lru_cache(maxsize=4)
def first_primes(count: int) -> tuple[int, ...]:
    """The first `count` primes, in order. Cached: the direct answer's note and the check of its answer ask for the
    same count in one run (~20 ms for 1000 primes each time)."""
    from sympy import prime, primerange  # half a second to import: only runs that check primes pay it

    return tuple(int(p) for p in primerange(2, int(prime(count)) + 1))


def is_prime(number: int) -> bool:
    from sympy import isprime  # only requests that ask pay its import

    return bool(isprime(number))


def _is_square(n: int) -> bool:
    return n >= 0 and math.isqrt(n) ** 2 == n


#: The properties of a whole number code tests, by the name an intent gives them: asked of one number ("Is 2024 a
#: leap year?", nodes/reading/kinds.py) or of every number of a list ("the first 20 primes", nodes/checks.py).
NUMBER_PROPERTIES: dict[str, Callable[[int], bool]] = {
    "prime": is_prime,
    "even": lambda n: n % 2 == 0,
    "odd": lambda n: n % 2 == 1,
    "square": _is_square,
    "fibonacci": lambda n: n >= 0 and (_is_square(5 * n * n + 4) or _is_square(5 * n * n - 4)),
    "leap": calendar.isleap,
}


def numbers_in(text: str) -> list[float]:
    """Every number a text states, with thousands separators (3,000 · 3 000 · 3'000) and decimal commas read."""
    found = []
    for raw in re.findall(WRITTEN_NUMBER, text):
        token = re.sub(r"['\s]", "", raw)  # 3'000, 3 000, and the narrow and no-break spaces
        if re.fullmatch(r"-?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?", token):
            token = token.replace(",", "")
        try:
            found.append(_number(token))
        except ValueError:  # "1,000 250,000", "1,000'250,000": two numbers, each grouped its own way
            found += [float(part.replace(",", "")) for part in re.split(r"['\s]+", raw) if part]
    return found


def _calculated(request: str) -> ExpectedNumber | None:
    """The one calculation the request states: a share, a root or an expression that uses every number the request
    states ("half of 64 plus 2" or "1/3 of 90 plus 5" is not "half of 64" or "1/3 of 90": nothing is decided)."""
    text = _DATE.sub(" ", request.casefold())
    text = re.sub(r"(?<=\d)-(?=\d)", " to ", text)  # "2-3 sentences" is a range, not a subtraction
    for pattern, replacement in _POWERS_NAMED:
        text = re.sub(pattern, replacement, text)
    if _POWER_UNREAD.search(text):
        return None
    exponents = [2.0 if w.group("square") else 3.0 for w in _EXPONENT_WORDS.finditer(text)]
    stated = sorted(numbers_in(text) + exponents)  # "half of 10 squared" is no half of 10
    if percent := _PERCENT_OF.search(text):
        share, whole = (_number(g) for g in percent.groups())
        return _only(stated, percent.group(0), share * whole / 100)
    if fraction := _FRACTION_OF.search(text):  # "1/3 of 90 plus 5" leaves a number over: nothing is decided
        top, bottom, whole = (_number(g) for g in fraction.groups())
        return _only(stated, fraction.group(0), top / bottom * whole) if bottom else None
    if _PERCENT.search(text):  # "50 minus 10%", "1/4 in percent": a share of what is not said
        return None
    if part := _HALF_OR_DOUBLE.search(text):
        if len(_HALF_OR_DOUBLE.findall(text)) + len(re.findall(r"\ba\s+half\b", text)) > 1:
            return None  # "half of 7 and a half": a share of a number the digits do not state
        value = _number(part.group("number")) * (0.5 if part.group("half") else 2.0)
        return _only(stated, part.group(0).strip(), value)
    if root := _ROOT.search(text):
        value, cube = _number(root.group("number")), root.group("cube")
        result = math.cbrt(value) if cube else math.sqrt(value)
        return _only(stated, root.group(0), result, f"{'∛' if cube else '√'}{_show(value)}")
    aggregate = _AGGREGATE.search(text)
    # "and" joins two addends only in a request to add ("Add 2, 3 and 4", "Add 2, 3, and 4", "the sum of 7 and 8");
    # elsewhere it joins two questions ("1 plus 1 and 2 plus 2") or two things ("the difference between 10 and 3")
    if re.search(r"\b(?:add|sum|total)\b", text):
        text = re.sub(r"(?<=\d)\s*,\s*(?:and\s+)?(?=\d)|\band\b(?=\s*\d)", " + ", text)
    for pattern, replacement in _NAMED_FIRST:
        text = re.sub(pattern, replacement, text)
    worded = not re.search(r"[-+*/^×÷]", text)
    for pattern, symbol in _OPERATOR_WORDS:
        text = re.sub(pattern, f" {symbol} ", text)
    first = re.search(r"\d[\d.]*\s*(\*\*)?", text)  # "2 squared plus 3 squared" squares each number
    squared_last = first is not None and not first.group(1) and re.search(r"[-+*/]\s*[\d.]+\s*\*\*", text)
    if worded and (squared_last or re.search(r"/\s*[\d.]+\s*[*/]", text)):
        return None  # said aloud, "2 times 3 squared" is 36 or 18, "10 divided by 4 times 2" is 5 or 1.25
    if re.search(r"\*\*\s*[\d.]+\s*(?:\*\*|/)", text):
        return None  # "2 cubed squared" is (2³)², not 2 ** 9; "9 to the power of 1/2" is 3, not 9 ** 1 / 2 = 4.5
    for candidate in sorted((c.strip().rstrip(" .") for c in _EXPRESSION.findall(text)), key=len, reverse=True):
        if not re.search(r"\d\s*(?:\*\*|[+\-*/])\s*-?[\d(]", candidate):  # "5 - -3"
            continue
        if aggregate and len(set(re.findall(r"\*\*|[-+*/]", candidate))) > 1:
            return None  # "the sum of 6 and 7 times 2": (6 + 7) × 2 said aloud, 6 + 14 by precedence
        try:
            value = evaluate(candidate)
        except NotComputable:
            continue
        return _only(stated, candidate, value, " ".join(candidate.split()))
    return None


def _only(stated: list[float], part: str, value: float, shown: str | None = None) -> ExpectedNumber | None:
    """`part`'s value, where `part` uses every number the request states; None where another number is left over."""
    if sorted(numbers_in(part)) != stated:
        return None
    return ExpectedNumber(value, f"{shown or part} = {_show(value)}")


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression of numbers, + - * / ** and parentheses; anything else is refused."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise NotComputable(f"not an arithmetic expression: {expression!r}") from exc
    return _value(tree.body)


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        power = isinstance(node.operand, ast.BinOp) and isinstance(node.operand.op, ast.Pow)
        if power and isinstance(node.op, ast.USub):
            raise NotComputable("a minus before a power reads two ways: -(3²) as algebra, (-3)² as spreadsheets")
        inner = _value(node.operand)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            raise NotComputable("power too large to check")
        if isinstance(node.op, ast.Div) and right == 0:
            raise NotComputable("division by zero")
        try:
            result = float(_BINARY[type(node.op)](left, right))
        except (OverflowError, ZeroDivisionError) as exc:  # 999999 ** 64, 0 ** -1
            raise NotComputable(f"no number: {exc}") from None
        if not math.isfinite(result) or abs(result) > _MAX_MAGNITUDE:
            raise NotComputable("result too large to check")
        return result
    raise NotComputable(f"{type(node).__name__} is not arithmetic")


def _converted(request: str) -> ExpectedNumber | None:
    for pattern in (_HOW_MANY, _IS_HOW_MANY, _CONVERSION):
        match = pattern.search(request)
        if not match:
            continue
        amount = 1.0 if match.group("amount").lower().rstrip("'’") in _ONE_OF else _number(match.group("amount"))
        source, target = match.group("source").strip(), match.group("target").strip()
        named_elsewhere = fold(target.casefold()) in _UNITS_BY_NAME or target.casefold() in _UNIT_ALIASES
        if (match.groupdict().get("to") or "").lower() == "a" and not named_elsewhere:
            continue  # Spanish "a" ("2 horas a minutos"); in English it is a rate ("30 minutes a day")
        value = convert(amount, source, target)
        if value is not None and sorted(numbers_in(request)) == sorted(numbers_in(match.group(0))):
            return ExpectedNumber(value, f"{_show(amount)} {source} = {_show(value)} {target}", target)
    return None


def convert(amount: float, source: str, target: str) -> float | None:
    """`amount` in unit `source` expressed in unit `target`, or None when either is no unit pint knows, or one whose
    everyday meaning is not pint's (a gallon named "US gallon" is pint's own)."""
    units = [_unit(_US.sub("", name)) for name in (source, target)]
    us = [bool(_US.search(name)) and str(unit) in _US_UNITS for name, unit in zip((source, target), units, strict=True)]
    if None in units or any(str(unit) in _AMBIGUOUS_UNITS and not named for unit, named in zip(units, us, strict=True)):
        return None
    try:
        value = float(_registry().Quantity(amount, units[0]).to(units[1]).magnitude)
    except _PINT_ERRORS:
        return None
    return float(f"{value:.12g}")  # 212, not 211.99999999999997 (judged within rounding, 213 would pass)


def unit_named(word: str, unit: str) -> str | None:
    """How `word` names a unit, against the asked `unit`: "same" ("min" or "Minuten" for minutes), "other" (another
    unit of its kind: "seconds"), None (no unit of its kind: "total", "are", an area)."""
    named, asked = _unit(word), _unit(unit)
    if named is None or asked is None or named.dimensionality != asked.dimensionality:
        return None
    return "same" if named == asked else "other"


def is_unit(word: str) -> bool:
    """Whether pint reads `word` as one unit ("kg", "Gallone")."""
    return _unit(word) is not None


@lru_cache(maxsize=1024)
def _unit(name: str) -> Any | None:
    """The unit pint reads `name` as ("Minuten" → minute), or None: no unit pint knows, two it reads as written and in
    small letters, or a word too long to be one (pint takes ~0.4 s to refuse an 8,000-letter word)."""
    if len(name) > 40:
        return None
    cased = {name.strip()} - {name.strip().casefold()}  # "MB" is a megabyte as written, a millibarn in small letters
    read = {unit for written in {_unit_name(name), *cased} if (unit := _pint_unit(written)) is not None}
    return read.pop() if len(read) == 1 else None  # none, or a doubt: "Mg", "Mm", "MB"


def _pint_unit(written: str) -> Any | None:
    """The unit pint reads `written` as exactly, or None."""
    try:
        return _registry().Unit(written)
    except _PINT_ERRORS:
        return None


#: What pint raises on a name or conversion it refuses: each of its own errors (pint.errors) is one of these too.
_PINT_ERRORS = (AttributeError, TypeError, ValueError, KeyError, AssertionError)


#: Units whose everyday meaning is not pint's one: a year of 365.25 days, a month of 30.44, a US short ton, US
#: gallons, pints and spoons (a metric teaspoon is 5 ml), troy weights (a troy pound is 12 troy ounces), a kilobyte
#: of 1000 bytes where many mean 1024; a decade's or century's days depend on leap years.
_AMBIGUOUS_UNITS = frozenset(
    {"year", "month", "decade", "century", "millennium", "ton", "hundredweight", "barrel", "gallon", "pint", "quart"}
    | {"cup", "fluid_ounce", "gill", "teaspoon", "tablespoon", "troy_pound", "troy_ounce"}
    | {"kilobyte", "megabyte", "gigabyte", "terabyte", "petabyte"}
)


#: "US" named with a unit: pint's gallon, pint, quart, cup, fluid ounce, spoons and ton are the US ones.
_US = re.compile(r"^(?:us|u\.s\.)\s+|\s+(?:us|u\.s\.)$", re.I)
_US_UNITS = frozenset({"gallon", "pint", "quart", "cup", "fluid_ounce", "gill", "teaspoon", "tablespoon", "ton"})


@cache
def _registry() -> Any:
    import pint  # imported on first use: building the registry costs ~0.3 s, only conversions need it

    return pint.UnitRegistry(autoconvert_offset_to_baseunit=True)


_DEGREES = re.compile(rf"^{_DEGREE_WORD}")
_UNIT_ALIASES = {
    "celsius": "degC",
    "degrees celsius": "degC",
    "°c": "degC",
    "fahrenheit": "degF",
    "degrees fahrenheit": "degF",
    "°f": "degF",
    "kelvin": "kelvin",
}
#: The units of time, length, mass and volume by their German, French, Spanish and Italian names (folded, singular
#: and plural), as pint names them.
_UNITS_BY_NAME = {
    name: unit
    for unit, names in {
        "second": "sekunde sekunden seconde secondes segundo segundos secondo secondi",
        "minute": "minute minuten minutes minuto minutos minuti",
        "hour": "stunde stunden heure heures hora horas ora ore",
        "day": "tag tage tagen jour jours journee journees dia dias giorno giorni",
        "week": "woche wochen semaine semaines semana semanas settimana settimane",
        "meter": "meter metern metre metres metro metros metri",
        "kilometer": "kilometer kilometern kilometre kilometres kilometro kilometros chilometro chilometri",
        "centimeter": "zentimeter zentimetern centimetre centimetres centimetro centimetros centimetri",
        "gram": "gramm grammen gramme grammes gramo gramos grammo grammi",
        "kilogram": (
            "kilogramm kilogramme kilogrammes kilogramo kilogramos chilogrammo chilogrammi kilo kilos chilo chili"
        ),
        "milliliter": "milliliter millilitern millilitre millilitres mililitro mililitros millilitro millilitri",
        "mile": "meile meilen milla millas miglio miglia",
        "yard": "yarda yardas iarda iarde",
        "inch": "zoll pouce pouces pulgada pulgadas pollice pollici",
        "pound": "pfund livre livres libra libras libbra libbre",
        "foot": "fuss pied pieds pie pies piede piedi",
        "liter": "liter litern litre litres litro litros litri",
    }.items()
    for name in names.split()
}


def _unit_name(text: str) -> str:
    name = _DEGREES.sub("", text.strip().casefold())  # "grados celsius" is Celsius
    return _UNIT_ALIASES.get(name) or _UNITS_BY_NAME.get(fold(name)) or name.replace(" ", "_")


def other_names(unit: str) -> list[str]:
    """The other names paor reads as the same unit: "°F" for "Fahrenheit", "Minuten" for "minutes"."""
    return _names_by_unit().get(_unit(unit), [])


@cache
def _names_by_unit() -> dict[Any, list[str]]:
    """paor's own names of units, by the unit pint reads them as (one reading per unit, not per name: 0.4 s)."""
    by_name: dict[str, list[str]] = {}
    for name in (*_UNIT_ALIASES, *_UNITS_BY_NAME):
        by_name.setdefault(_unit_name(name), []).append(name)
    found: dict[Any, list[str]] = {}
    for written, names in by_name.items():
        if (unit := _pint_unit(written)) is not None:
            found.setdefault(unit, []).extend(names)
    return found


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def _show(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"
