"""The table of kinds: what a short program decides from a one-line request's words, read by what it states.

Each kind names the word families it is recognised by (nodes/reading/lexicon.py) and the slots it needs — a quoted
word, a letter, a list of items, a range, a number, a named day, a date — and answers a `Known`: the result, the
test an answer must pass (nodes/reading/stated.py: the result it states, never a number it merely contains) and the
result stated in each of paor's languages. A kind decides only where its slots are stated without doubt and every
other word of the request is one of its families or filler: "How many letters are in the alphabet?" names no word,
"Sort these animals by size: …" has "size" and "animals", "Is 97 prime, and why?" has "why". Where two kinds read
a request, or none, nothing is decided and the model's answer stands.

Kinds: a calculation or unit conversion (nodes/reading/numbers.py); the letters, the vowels, how often a letter
occurs, the first or last letter of a word; the words of a quoted sentence; a word reversed or in capitals; the
letter before or after a letter; the sum of a range; stated items in order, the largest or smallest; prime, even,
odd, leap year; the days of a month or a leap year; the weekday before or after a named day, of a stated date; the
days between two dates; a number rounded.
"""

from __future__ import annotations

import calendar
import contextlib
import datetime
import decimal
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

from nodes.reading import ONE_LINE_CHARS
from nodes.reading.lexicon import (
    AND,
    ANSWER_FORM,
    ASKED_OF,
    ASKS_MORE,
    CHANGES_READING,
    COUNTING,
    FAMILIES,
    FILLER,
    LIST_SEPARATOR,
    NOT_SUBJECT,
    ONE_WORD,
    OR,
    QUESTION_WORDS,
    QUOTED,
    SITUATION,
    day_name,
    fold,
    language_names,
    languages_of,
    month_name,
    months,
    told_language,
    typed_for,
    weekdays,
    words_in,
)
from nodes.reading.numbers import (
    DOTTED_THOUSANDS,
    NUMBER_PROPERTIES,
    ONE_COMMA_GROUP,
    expected_number,
    in_digits,
    is_unit,
    numbers_in,
    other_names,
    unclear_commas,
)
from nodes.reading.stated import (
    concluded_word,
    denied,
    in_a_note,
    in_order,
    same_number,
    stated_extreme,
    stated_letter,
    stated_number,
    stated_weekday,
    states_property,
    what_it_states,
    worked_out,
)

#: Words that ask which things, not how many ("Which vowels are in 'piano'?"), and those that count.
_WHICH = (QUESTION_WORDS | {"que"}) - COUNTING - {"how", "wie", "cuanto", "quanto"}
_COUNTS = COUNTING | FAMILIES["count"] | FAMILIES["number"] | frozenset(["nombre", "anzahl", "long"])


@dataclass(frozen=True)
class Known:
    """The result code computed for a request: stated in each language paor speaks, the result alone (what a retry
    is told) and the test an answer must pass (it states that result)."""

    statements: Mapping[str, str]
    result: str
    test: Callable[[str], bool]

    def holds(self, answer: str) -> bool:
        """Whether the answer states the result: what it states after its last correction, not what it asks; each
        time where it works the result out again."""
        return all(self.test(what_it_states(part)) for part in worked_out(answer))

    def say(self, language: str) -> str:
        return self.statements.get(language) or self.statements["en"]

    @property
    def statement(self) -> str:
        return self.say("en")


@dataclass(frozen=True)
class Request:
    """A request read once: its quoted parts, its numbers (words read as digits), and its other words."""

    text: str
    quoted: list[str]
    numbers: list[float]
    words: list[str]
    rest: str  # the text without its quoted parts, numbers in digits
    languages: list[str]

    def only(self, *families: str, extra: Sequence[str] = ()) -> bool:
        """Every word is one of `families`, filler or `extra`: nothing the kind does not account for."""
        # "par" is French filler (by) and names a property elsewhere ("el mayor número par": the largest even number)
        filler = FILLER if self.languages[:1] == ["fr"] else FILLER - {"par"}
        allowed = filler.union(*(FAMILIES[f] for f in families), extra)
        return all(word in allowed for word in self.words)

    def has(self, *families: str) -> bool:
        return any(word in FAMILIES[family] for family in families for word in self.words)


def read_request(text: str) -> Request:
    quoted = [q.strip() for q in QUOTED.findall(text)]
    rest = QUOTED.sub(" ", text)
    heading, colon, named = rest.partition(":")
    if colon and not quoted and _NAMED_AFTER_COLON.fullmatch(named) and not _WORDS_READ.intersection(words_in(named)):
        quoted, rest = [named.strip(" .!?")], heading  # "uppercase pls: velvet thunder", "Dreh um: Regenschirm"
    languages = languages_of(words_in(rest))
    rest = in_digits(rest, languages)
    numbers = numbers_in(rest)
    one_word = rest
    for word, written in ONE_WORD.items():
        one_word = written.sub(f" {word} ", one_word)
    as_typed = re.findall(r"[^\W\d_]+", ANSWER_FORM.sub(" ", fold(one_word)))
    words = [word if (meant := typed_for(word)) is None or is_unit(word) else meant for word in as_typed]  # "mnay"
    return Request(text, quoted, numbers, words, rest, languages)


#: What a request names after its colon, as if quoted: words alone, none of a kind's families nor a question word.
_NAMED_AFTER_COLON = re.compile(r"\s*[^\W\d_]+(?:[ '’-][^\W\d_]+){0,7}\s*[.!?]?\s*")
_WORDS_READ = QUESTION_WORDS.union(*FAMILIES.values())


#: A second question that only asks the answer's form ("Is 97 prime? Yes or no?").
_FORM_ASKED = re.compile(rf"(?:{ANSWER_FORM.pattern})\s*\?")


@lru_cache(maxsize=256)
def known_answer(request: str) -> Known | None:
    """The result of the request, where exactly one kind decides it from its words alone; the clauses before it that
    only tell the user's situation ("Wedding planning — what day of the week is 2032-04-15?") are left aside."""
    text = " ".join(request.replace("−", "-").split())  # the minus sign: "−29 °C" is below zero
    if not text or len(text) > ONE_LINE_CHARS:
        return None
    return _decided(text) or _decided_beside_situation(text)


def _decided_beside_situation(text: str) -> Known | None:
    """The request decided alone where the clauses before it tell the situation ("Wedding planning — …") and those
    after it tell who asks and why ("… It's for my homework.", "…, brauche ich für ein Rätsel"); never where a clause
    after it asks for more ("Quanto fa 6 per 7? E spiegami perché.")."""
    cuts = [m.span() for m in _CLAUSE_END.finditer(text)]
    told = [end for _, end in cuts[:_SITUATIONS] if _all_tell(text[:end], _tells_the_situation, _CLAUSE_END)]
    comma = _COMMA.search(text)  # the first: a request that lists with commas is never cut at one
    if comma and not told and _tells_who_asks(text[: comma.start()]):
        told = [comma.end()]  # "pour mon devoir, compte les mots de « … »", "Mein Sohn fragt, …"
    start = max(told, default=0)
    tails = sorted(at for at, _ in [*cuts[-_SITUATIONS:], *([comma.span()] if comma else [])] if at > start)
    end = next((at for at in tails if _all_tell(text[at:], _tells_who_asks, _SITUATION_PART)), len(text))
    return None if (start, end) == (0, len(text)) else _decided(text[start:end])  # the whole was read before


def _all_tell(text: str, tells: Callable[[str], bool], parts: re.Pattern[str]) -> bool:
    return all(tells(part) for part in parts.split(text) if part.strip(" .!?,"))


#: Where a request's clauses part: a sentence's end, a colon, a dash; and where a situation joins it: a comma ("Convert
#: 12 miles to km, I'm training for a race."; never in a request that lists with commas: "Sort: Emma, Hugo, our cat").
_CLAUSE_END = re.compile(r"(?<=[.?!])\s+|\s*[:—–]\s+|\s+-\s+")
_COMMA = re.compile(r",\s+")
_SITUATION_PART = re.compile(rf"{_CLAUSE_END.pattern}|{_COMMA.pattern}")
#: How many clauses of situation a request may have on each side.
_SITUATIONS = 3
#: What a situation never holds: a word that asks for more ("why", "explain", "as a fraction"), says how to compute
#: ("in binary", "Julian calendar") or changes the result ("Rounded.", "alphabetically", "twice"); it may say where or
#: when ("at the gym", "ich will …") and why ("pour", "per").
# fmt: off
_RESULT_FAMILIES = (
    "letters", "vowels", "sum", "order", "alphabetical", "ascending", "descending", "largest", "smallest", "prime",
    "even", "odd", "leap", "round", "reverse", "capitals", "first", "last", "words", "calculation", "after", "before",
)
# fmt: on
_SITUATION_NEVER = (
    CHANGES_READING
    | QUESTION_WORDS
    | (NOT_SUBJECT - FILLER - frozenset(["at", "from", "by", "will", "when", "where", "who", "some", "every", "all"]))
    | {word for family in _RESULT_FAMILIES for word in FAMILIES[family] if len(word) > 3}
) - SITUATION
_CHANGES_STEMS = frozenset(word[:5] for word in CHANGES_READING)  # "Binärsystem" is binary too
#: A number, a quote ("it's" is none) or a question: a clause that holds one asks, or states what a kind reads.
_ASKS = re.compile(r"\d|[\"“‘«„»?]|'(?![^\W\d_])|(?<![^\W\d_])'")
#: A unit named as a target ("in metres", "en jours", "in Metern"): the clause asks for the result in it.
_IN_A_UNIT = re.compile(r"\b(?:in|into|to|en|auf|nach|im)\s+([^\W\d_]{2,})")


def _tells_the_situation(clause: str) -> bool:
    """A clause of a few words with no number, no quote, no question, no unit named as a target and no word that asks
    for more, changes how one computes or what ("Wedding planning", "for my homework", "Hochzeitsplanung")."""
    words = words_in(clause)
    asks = _ASKS.search(clause)
    changes = {w[:5] for w in words} & _CHANGES_STEMS
    unit = any(is_unit(w) and w not in FILLER for w in _IN_A_UNIT.findall(fold(clause)))
    return 0 < len(words) <= 12 and not (asks or changes or unit) and _SITUATION_NEVER.isdisjoint(words)


def _tells_who_asks(clause: str) -> bool:
    """A situation told after the request: it says who asks or why ("It's for a quiz.", "Just curious.", "Gracias
    de antemano.") and adds nothing ("and then to metres", "Y explícame …")."""
    written = re.findall(r"[^\W\d_]+", ONE_WORD["porque"].sub(" why ", clause).casefold())  # "e" adds, "è" is
    return not SITUATION.isdisjoint(words_in(clause)) and ASKS_MORE.isdisjoint(written) and _tells_the_situation(clause)


def _decided(text: str) -> Known | None:
    read = read_request(text)
    if _FORM_ASKED.sub(" ", fold(text)).count("?") > 1 or sum(word in QUESTION_WORDS for word in read.words) > 1:
        return None  # two questions ("How many vowels does 'Mississippi' have, and how many s's?")
    dotted = DOTTED_THOUSANDS.search(read.rest)  # "Ist 3.000 eine Primzahl?", "Which is larger, 1.000 or 999?"
    if dotted and (told_language(read.words) != "en" or dotted.group(0).endswith(".000")):
        return None  # "3.000": 3000, or 3 with no reason to write so
    if unclear_commas(read.rest, read.words):
        return None  # "Runde 3,256": 3.256, or 3256 as English reads it
    found = [known for kind in KINDS if (known := kind(read)) is not None]
    if len({tuple(numbers_in(k.result)) or k.result for k in found}) != 1:
        return None  # none, or two kinds that disagree ("366 days" and "366" agree)
    return found[0]


def _count(value: float, units: Sequence[str] = (), **statements: str) -> Known:
    """A number the answer must state, within rounding where it is a fraction (10/3 as 3.33)."""
    return Known(statements, plain(value), lambda answer: _is(stated_number(answer, units), value))


#: "'banana' has 6 letters.", in each language: its quotation marks, its "has", and the nouns counted.
_QUOTES = {"en": "'{}'", "de": "„{}“", "fr": "« {} »", "es": "«{}»", "it": "«{}»"}
_HAS = {"en": "has", "de": "hat", "fr": "a", "es": "tiene", "it": "ha"}
_NOUNS = {
    "letters": {"en": "letters", "de": "Buchstaben", "fr": "lettres", "es": "letras", "it": "lettere"},
    "vowels": {"en": "vowels", "de": "Vokale", "fr": "voyelles", "es": "vocales", "it": "vocali"},
    "words": {"en": "words", "de": "Wörter", "fr": "mots", "es": "palabras", "it": "parole"},
    "days": {"en": "days", "de": "Tage", "fr": "jours", "es": "días", "it": "giorni"},
}


def _has(subjects: Mapping[str, str], n: int, noun: str, units: Sequence[str] = ()) -> Known:
    """A count stated in each language ("'banana' has 6 letters.", "February has 29 days."); the answer's count is
    the one it ties to `units`, by default the noun ("5 consonants and 4 vowels" counts 4 vowels)."""
    statements = {code: f"{subjects[code]} {has} {n} {_NOUNS[noun][code]}." for code, has in _HAS.items()}
    return _count(n, units or (*_NOUNS[noun].values(), *(FAMILIES[noun] - _SENTENCE)), **statements)


def _quoted(what: str) -> dict[str, str]:
    """A quoted word or sentence, in each language's quotation marks."""
    return {code: quote.format(what) for code, quote in _QUOTES.items()}


def _capitalised(text: str) -> str:
    """The first letter in capitals, the rest as written ("ein Schaltjahr", unlike `str.capitalize`)."""
    return text[:1].upper() + text[1:]


_SENTENCE = frozenset(["sentence", "satz", "phrase", "frase"])


def plain(value: float) -> str:
    """A number as a person writes it: 1000000, not 1e+06; 3.5."""
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


def _is(found: float | None, value: float, unit: str | None = None) -> bool:
    """`found` states `value`; a calculation's fraction (`unit` "") is never stated whole: 1234 / 8 is not 154, 100 / 7
    not 14 (a conversion may round to whole units: 37 °C is about 99 °F)."""
    whole = found is not None and found.is_integer() and not float(value).is_integer()
    return found is not None and same_number(value, found) and not (whole and unit == "")


#: What makes a stated number stand for another value: an operation between numbers, a share, a root, a power, an
#: exponent, a factorial, a time, a currency, a repeating decimal, a scale word ("3+4", "20-15", "5%", "√50", "3⁴",
#: "2e3", "5!", "10:30", "$5 or €4", "0.999...", "1.5 million"). A kind that takes the request's numbers as they are
#: decides nothing where one is written so.
_NOT_AS_WRITTEN = re.compile(
    r"\d\s*[-+/^*×÷:]\s*\d|[%√$€£¥]|\d[eE][-+]?\d|\d!|\d(?:\.{2,}|…)"
    r"|\b(?:percent|prozent|pour\s*cent|por\s*ciento|per\s*cento)\b",
    re.I,
)
_SCALE_WORDS = re.compile(
    r"\b(?:thousand|million|billion|trillion|tausend|millionen|milliarden?|mille|millions?|milliards?|mil|millones|"
    r"milioni|miliardi)\b",
    re.I,
)


def _as_written(read: Request, *, scales: bool = True) -> bool:
    """No number of the request stands for another value; with `scales`, none is scaled by a word ("1.5 million",
    where "the nearest thousand" of a rounding names a place)."""
    if any(c.isnumeric() and not c.isdecimal() for c in read.text):  # "3⁴", "½", "Ⅻ": no digit as written
        return False
    return not any(_NOT_AS_WRITTEN.search(t) or (scales and _SCALE_WORDS.search(t)) for t in (read.rest, read.text))


#: Letters whose place or count each language decides its own way: ñ (after n in Spanish), œ and æ (one letter or
#: two), ß, and any letter outside the Latin alphabet once accents are folded.
def _unsorted(text: str) -> bool:
    composed = unicodedata.normalize("NFC", text)  # "ﬁsh": 3 letters, or 4 as written out
    return not fold(text).isascii() or "ñ" in composed.casefold() or unicodedata.normalize("NFKC", text) != composed


def _word(read: Request, *families: str, of: bool = True) -> str | None:
    """The one word the request is about: quoted, or named after "word" ("the word banana"); none where its letters
    are counted differently by language ("cœur": 4 or 5). With `families`, only where every other word is of them."""
    if read.quoted:
        word = read.quoted[0] if len(read.quoted) == 1 and read.quoted[0].isalpha() else None  # not "x²"
    else:  # "How many letters does the word have?" names none
        named = re.findall(r"\b(?:word|wort|mot|palabra|parola)\s+([^\W\d_]+)", read.rest, re.I)
        word = named[0] if len(named) == 1 and named[0].isalpha() and fold(named[0]) not in NOT_SUBJECT else None
        word = _bare_word(read, families, of=of) if not named else word
    if word is None or _unsorted(word) or (families and not read.only(*families, extra=[fold(word)])):
        return None
    return word


def _bare_word(read: Request, families: Sequence[str], *, of: bool) -> str | None:
    """The one word that neither filler nor the kind's `families` account for, named bare where two of the kind's
    words ask of it ("count the vowels in onomatopoeia", "erster Buchstabe von Wolke", "spell giraffe backwards");
    none that is someone's ("the letters in my name"), where a number is stated ("Il y a 10 lettres, dont 5
    voyelles."), a language or the alphabet ("How many letters does Greek have?"), nor where one word names the kind
    ("What is reverse engineering?"). Without `of`, only a word of the kind may come before it ("write X in capitals",
    not "the capital of Germany")."""
    kind = frozenset().union(*(FAMILIES[family] for family in families))
    unaccounted = [at for at, word in enumerate(read.words) if word not in FILLER and word not in kind]
    asked = sum(w in kind or w in _COUNTS for w in read.words)
    if not families or len(unaccounted) != 1 or asked < 2 or read.numbers:
        return None
    at = unaccounted[0]
    word = read.words[at]
    before = [w for w in read.words[:at] if w not in _SOFTENERS]  # "Schreib mal Kartoffelsalat rückwärts"
    if not before or before[-1] not in (kind | ASKED_OF if of else kind):
        return None  # "the letter that comes before S", "my name", "my to-do list": no word asked of
    if len(word) < 2 or word in NOT_SUBJECT | FAMILIES["alphabet"] or word in language_names():
        return None
    # as written ("Wolke"); none where folding parts it otherwise ("ab½" folds to "ab1⁄2")
    return next((w for w in re.findall(r"[^\W\d_]+", read.rest) if fold(w) == word), None)


#: Words that soften a request and stand between its verb and the word it names.
_SOFTENERS = frozenset(["mal", "bitte", "please", "pls", "plz", "doch", "einfach"])


# -- the kinds -------------------------------------------------------------------------------------------------------


def _calculation(read: Request) -> Known | None:
    expected = expected_number(read.text)
    if expected is None or not read.only("calculation", extra=words_in(expected.how)):
        return None  # a word the calculation does not account for: "in binary", "rounded", "the difference"
    how = expected.how.replace("**", "^").replace("*", "×")
    unit, value, name = expected.target, expected.value, expected.target.casefold()
    units = tuple({name, name.rstrip("s"), f"{name.rstrip('s')}s", *other_names(unit)}) if unit else ()
    return Known({"en": f"{how}."}, how.rsplit(" = ", 1)[-1], lambda a: _is(stated_number(a, units, unit), value, unit))


def _letters(read: Request) -> Known | None:
    word = _word(read, "letters", "count", "count_more", "words")
    if word is None or not read.has("letters") or read.has("vowels", "first", "last") or _letter_named(read):
        return None
    return _has(_quoted(word), len(word), "letters") if _asks_how_many(read) else None


def _letter_named(read: Request) -> str | None:
    """The one letter a request names: quoted alone, "the letter r", or "r's"."""
    single = [q for q in read.quoted if len(q) == 1 and q.isalpha()]
    if single:
        return single[0].casefold()
    named = re.findall(  # "letras a", not "lettres y a-t-il" nor "lettres a « maison »" (French "a" after a plural has)
        r"\b(?:letters?|buchstaben?|lettres?|letras?|letter[ae])\s+(?!(?<=lettres\s)a(?:-t-|\s+(?!dans\b)))([^\W\d_])\b"
        r"(?![\s-]+(?:a|le|la|les|l|un|une|il)\b)",
        read.rest,
        re.I,
    )
    named += _PLURAL.findall(read.rest)
    return named[0].casefold() if len(set(n.casefold() for n in named)) == 1 else None


#: A letter named as a plural: "How many r's are in 'strawberry'?"
_PLURAL = re.compile(r"(?<![\w'’])([^\W\d_])['’]s\b")
#: The word a letter is counted in, unquoted, ending the request: "How many r's in strawberry?", "wie viele r hat
#: Erdbeere", "cuántas r tiene ferrocarril".
_LAST_WORD = re.compile(
    r"\b(?:in|im|dans|en|nel|nella|has|hat|tiene|ha)\s+([^\W\d_]{2,})(?:\s+vor)?\s*[?.!]?\s*$", re.I
)  # "… vor?"
#: A letter right after "how many": "how many r in strawberry", "combien de r dans fraise", "cuántas r hay en fresa".
_HOW_MANY_LETTER = re.compile(r"\b(?:many|viele|combien\s+de|cuantas|cuantos|quante|quanti)\s+([a-z])\b(?!['’-])")


def _occurrences(read: Request) -> Known | None:
    after_how_many = _HOW_MANY_LETTER.findall(fold(read.rest))
    letter = _letter_named(read) or (_lone_letter(read) if read.has("occur") else None)  # "la r en «ferrocarril»"
    letter = letter or (after_how_many[0] if len(after_how_many) == 1 else None)
    words = [q for q in read.quoted if len(q) > 1 and q.isalpha()]
    if not read.quoted and (unquoted := _word(read) or next(iter(_LAST_WORD.findall(read.rest)), None)):
        words = [unquoted] if fold(unquoted) not in FAMILIES["alphabet"] and not is_unit(unquoted) else []  # "g in kg"
    counted = _PLURAL.search(read.rest) or read.has("occur", "letters", "count") or after_how_many
    if letter is None or len(words) != 1 or not counted or not words[0].isalpha():
        return None
    word = words[0]
    if not read.only("occur", "letters", "count", "count_more", "words", extra=[letter, "s", fold(word)]):
        return None
    n = fold(word).count(fold(letter))
    if n != word.lower().count(letter.lower()):
        return None  # "s" in "Straße", "e" in "élève": whether ß holds an s, or é is an e, is a doubt
    once = n == 1
    return _count(
        n,
        (f"{letter}'s", f"{letter}’s", f"{letter}s"),
        en=f"'{letter}' occurs {n} {'time' if once else 'times'} in '{word}'.",
        de=f"„{letter}“ kommt {n}-mal in „{word}“ vor.",
        fr=f"« {letter} » apparaît {n} fois dans « {word} ».",
        es=f"«{letter}» aparece {n} {'vez' if once else 'veces'} en «{word}».",
        it=f"«{letter}» compare {n} {'volta' if once else 'volte'} in «{word}».",
    )


def _vowels(read: Request) -> Known | None:
    word = _word(read, "vowels", "count", "count_more", "letters", "words")
    if word is None or not read.has("vowels") or "y" in fold(word) or not _asks_how_many(read):
        return None  # "y": a vowel in "rhythm" and in French, not in "yes"
    return _has(_quoted(word), sum(c in "aeiou" for c in fold(word)), "vowels")


def _first_or_last_letter(read: Request) -> Known | None:
    word = _word(read, "first", "last", "letters", "words")
    first, last = read.has("first"), read.has("last")
    if word is None or len(word) < 2 or first == last or not read.has("letters"):
        return None
    if any(w in COUNTING for w in read.words):
        return None  # "How many letters does 'apple' start with?" counts nothing
    letter = word[0] if first else word[-1]
    return _letter(
        read,
        letter,
        en=f"The {'first' if first else 'last'} letter of '{word}' is '{letter}'.",
        de=f"Der {'erste' if first else 'letzte'} Buchstabe von „{word}“ ist „{letter}“.",
        fr=f"La {'première' if first else 'dernière'} lettre de « {word} » est « {letter} ».",
        es=f"La {'primera' if first else 'última'} letra de «{word}» es «{letter}».",
        it=f"{'La prima' if first else 'L’ultima'} lettera di «{word}» è «{letter}».",
    )


def _word_count(read: Request) -> Known | None:
    if len(read.quoted) != 1 or not read.has("words") or read.has("letters", "vowels"):
        return None
    if not read.only("words", "count", "count_more") or "long" in read.words or not _asks_how_many(read):
        return None  # "how many long words", "which words"
    n = sum(any(c.isalnum() for c in part) for part in read.quoted[0].split())  # "The U.S. costs $3.50": 4
    if n < 2:
        return None
    return _has(_quoted(read.quoted[0]), n, "words")


def _reversed_or_capitals(read: Request) -> Known | None:
    kind = ("reverse", "reverse_more", "capitals", "capitals_more", "letters", "words")
    text = read.quoted[0] if len(read.quoted) == 1 else None if read.quoted else _word(read, *kind, of=False)
    if text is None or read.numbers or (read.words and read.words[0] in _ASKS_YES_OR_NO):
        return None  # "Is 'hello' in capitals?" asks for a yes or a no
    if any(word in COUNTING or word in _WHICH - {"what"} for word in read.words):
        return None  # "How many capital letters in 'HeLLo'?" counts, "Which letters of 'HeLLo' are capitals?" picks
    if read.has("reverse") and len(text.split()) > 1 and (read.has("words") or _ORDER & set(read.words)):
        return None  # "Reverse the words in 'one two three'", "the order of …": the words' order, or each's letters
    named = [] if read.quoted else [fold(text)]
    if (
        read.has("reverse")
        and not read.has("capitals")
        and read.only("reverse", "reverse_more", "letters", "words", extra=named)
    ):
        result = "".join(reversed(regex.findall(r"\X", text)))  # "naïve" with a combining ¨ stays on its i
        holds = _names_whole(result, case=False, besides=text, request=read.text)
    elif _capitals(read) and not read.has("reverse") and read.only("capitals", "capitals_more", "words", extra=named):
        result = text.upper()
        if len(result) != len(text):  # "straße": "STRASSE", or "STRAẞE" as German writes it since 2017
            return None
        holds = _names_whole(result, case=True)
    else:
        return None
    return Known({"en": result}, result, holds)


_ORDER = frozenset(["order", "reihenfolge", "ordre", "orden", "ordine"])


def _asks_how_many(read: Request) -> bool:
    """The request counts, or asks nothing of which things ("Which vowels are in 'piano'?" asks for i, a, o)."""
    return any(w in _COUNTS for w in read.words) or not any(w in _WHICH for w in read.words)


#: A request's first word that asks a yes or a no ("Is 'hello' in capitals?", "Are all letters of 'NASA' capitals?").
_ASKS_YES_OR_NO = frozenset(["is", "are", "does", "do", "ist", "sind", "est", "es", "e", "sont"])


def _capitals(read: Request) -> bool:
    return read.has("capitals") or ("capital" in read.words and read.has("letters"))


#: Two words quoted as alternatives: "«onimac» o «oimac»".
_QUOTED_OR = re.compile(rf"[\"'“‘«„]([^\"'”’»“]+)[\"'”’»“]\s*,?\s+{OR}\s+[\"'“‘«„]([^\"'”’»“]+)[\"'”’»“]", re.I)


def _names_whole(result: str, *, case: bool, besides: str = "", request: str = "") -> Callable[[str], bool]:
    """The answer names `result` and offers no other word quoted as another answer ("«onimac» o «oimac»", "«LANTENA»
    oppure «LANTERNA»"); with `besides` (the word reversed), no other arrangement of its letters either ("'teksab', or
    written differently 'tekasb'"; "'stop' uses the same letters" offers none), nor concludes with one ("Some would
    write 'olleh', but the right answer is 'hello'.")."""
    pattern = re.compile(rf"(?<!\w)[\"'“‘«„]?{re.escape(result)}(?!\w)", 0 if case else re.I)
    letters, own = sorted(result.casefold()), {result.casefold(), besides.casefold()}
    *_, last = words_in(result) or [""]
    parts = {*words_in(result), *words_in(besides)}

    def holds(answer: str) -> bool:
        named = [m.end() for m in pattern.finditer(answer) if not denied(answer, m.start())]
        if not named:
            return False
        words = [m for m in re.finditer(r"[\"'“‘«„]?([^\W\d_]+)", answer) if not denied(answer, m.start())]
        offered = (
            m for m in words if re.search(rf"(?<![\w-]){OR}\s", answer[max(0, m.start() - 40) : m.start()], re.I)
        )
        if any(
            ((besides and sorted(m.group(1).casefold()) == letters) or m.group(0) != m.group(1))
            and m.group(1).casefold() not in own
            for m in offered
        ):
            return False  # another arrangement of its letters, or another word quoted after an "or"
        if any(not {w.casefold() for w in m.groups()} <= own for m in _QUOTED_OR.finditer(answer)):
            return False  # another word quoted beside it ("«onimac» o «oimac»", "«LANTENA» oppure «LANTERNA»")
        if not besides:
            return True
        after = [m.group(1).casefold() for m in words if m.start() >= named[-1] and not in_a_note(answer, m.start())]
        if any(_nearly(word, result.casefold()) for word in after if word not in own):
            return False  # "n-r-e-t-n-a-l … Written as one word: **nretnl**": what it writes last is another word
        concluded = concluded_word(answer, request) or last
        return concluded == last or (concluded not in parts and sorted(concluded) != sorted(last))

    return holds


def _nearly(word: str, result: str) -> bool:
    """Another word of nearly the result's letters: two letters changed at most ("nretnl" for "nretnal", "ogalécrium"
    for "ogaléicrum")."""
    counted, wanted = Counter(word), Counter(result)
    return word != result and len(word) > 2 and (counted - wanted).total() + (wanted - counted).total() <= 2


def _letter_shift(read: Request) -> Known | None:
    after, before = read.has("after"), read.has("before")
    letter = _letter_named(read) or _lone_letter(read)
    named = read.has("letters") or bool(_ALPHABET & set(read.words))  # "what comes after f in the alphabet"
    if letter is None or after == before or not named or read.numbers or len(read.quoted) > 1:
        return None  # "two after C": not one step
    if letter not in string.ascii_lowercase or (read.quoted and len(read.quoted[0]) > 1):
        return None  # "the letter after c in 'cat'" is in the word, not the alphabet
    shifts = [word for word in read.words if word in FAMILIES["after"] | FAMILIES["before"]]
    if len(shifts) > len(set(shifts)) or len(set(shifts) - {"next"}) > 1:
        return None  # "the letter after the letter after B": not one step ("the next letter after B" is one)
    if not read.only("after", "before", "comes", "letters", "alphabet", extra=[letter]):
        return None
    if "es" in read.languages and letter in ("n", "o"):
        return None  # the Spanish alphabet has ñ between n and o
    index = string.ascii_lowercase.index(letter) + (1 if after else -1)
    if not 0 <= index < 26:
        return None
    result = string.ascii_uppercase[index]
    return _letter(read, result, en=f"{result}.")


_ALPHABET = frozenset(["alphabet", "abc", "alfabeto", "abecedario"])


def _letter(read: Request, letter: str, **statements: str) -> Known:
    """A letter the answer must state, beyond those the request names."""
    return Known(statements, letter, lambda answer: stated_letter(answer, read.text) == letter.casefold())


def _lone_letter(read: Request) -> str | None:
    """A letter standing alone; "a", "I", "y", "e" and "o" are words too, and letters only after an article ("the
    e", "das e", "della e", "la o")."""
    lone = [
        letter
        for article, letter in _LONE_LETTER.findall(read.rest)
        if article or letter not in ("a", "I", "y", "e", "o")
    ]
    return lone[0].casefold() if len(lone) == 1 else None


_LONE_LETTER = re.compile(
    r"(?:\b(the|das|der|die|le|la|el|il|lo|della|dello)\s+)?(?<![\w'’-])([A-Za-z])(?![\w'’-])", re.I
)


#: Two numbers joined as a range: "1 to 100", "1-100", "between 1 and 100", "von 1 bis 100", "del 1 al 100".
_RANGE = re.compile(r"\d\s*(?:-|–|\.\.|to|through|thru|bis|a|au|al|hasta|fino\s+a)\s*\d")
#: "The sum between 5 and 10" is 5 + 10 to many, and whether "between" holds its ends is a doubt, unless it says so.
_BETWEEN = frozenset(["between", "zwischen", "entre", "tra", "fra"])
_INCLUSIVE = frozenset(["inclusive", "einschliesslich", "inklusive", "inclus", "incluidos", "inclusi", "compresi"])
_ADD = re.compile(r"\b(?:add|addiere\w*|additionne\w*|sumar?|sommare|addiziona\w*)\b")
#: Words that make "add 1 to 100" a range ("add all numbers from 1 to 100").
_OPENS_RANGE = frozenset([
    "from", "through", "thru", "integers", "numbers", "all", "inclusive", "von", "zahlen", "alle", "de", "du",
    "nombres", "tous", "del", "desde", "numeros", "todos", "da", "dal", "numeri", "tutti",
])  # fmt: skip


def _range_sum(read: Request) -> Known | None:
    if not read.has("sum") or len(read.numbers) != 2 or read.quoted or not read.only("sum", "sum_more", "range"):
        return None
    rest = fold(read.rest)
    words = set(re.findall(r"\w+", rest))  # whole runs of word characters: "5to" holds no "to"
    between = words & _BETWEEN and words & _INCLUSIVE and re.search(rf"\d\s+{AND}\s+\d", rest)
    if not between and (not _RANGE.search(rest) or words & _BETWEEN):  # "3 numbers that add up to 10": no range
        return None
    if _ADD.search(rest) and words.isdisjoint(_OPENS_RANGE):  # "Add 5 to 10" is 5 + 10
        return None
    low, high = read.numbers
    if not (low.is_integer() and high.is_integer()) or high <= low or high - low > 10**7:
        return None
    low_i, high_i = int(low), int(high)
    total = (low_i + high_i) * (high_i - low_i + 1) // 2
    return _count(total, en=f"{low_i} + … + {high_i} = {total}.")


def _items(listed: str) -> list[str]:
    """The items a request lists after its colon."""
    parts = [p.strip(" .?!") for p in listed.split(";" if ";" in listed else ",")]  # "Smith, John; Doe, Jane"
    # "apple, pear and fig": only the last part joins two items ("salt and pepper, bread" is one)
    parts[-1:] = re.split(rf"\s+(?:{AND}|{OR})\s+", parts[-1])
    return [i.strip(_AROUND_ITEM) for i in parts if i.strip(_AROUND_ITEM)]


_AROUND_ITEM = " .?!\"'“”‘’«»"
#: An item sorted by its letters is a name: words of letters (not "Berlin. Thanks", "banana (case-insensitive)").
_NAME = re.compile(r"[^\W\d_]+(?:[\s'’,-]+[^\W\d_]+)*")  # "Smith, John; Doe, Jane"


def _not_names(items: list[str]) -> bool:
    """Whether the items hold more than names: a last item, where a request's closing words attach, of filler alone
    ("fig, thanks", "uva, por favor") or longer than every other ("banana pls", "kiwi s'il te plaît", "c and then
    reverse it"); "New York, Boston, Los Angeles" and "the, quick, brown, fox" are names."""
    words = [len(item.split()) for item in items]
    closing = all(w in FILLER for w in words_in(items[-1])) or words[-1] > max(words[:-1])
    return closing or not all(_NAME.fullmatch(item) for item in items)


def _ordering(read: Request) -> Known | None:
    heading, colon, listed = read.text.partition(":")
    runs = list(_NUMBER_LIST.finditer(read.text))
    if not colon and len(runs) == 1 and not _UNSPACED_LIST.search(read.text):  # "Sort 5, 2, 9 in descending order"
        heading, listed = f"{read.text[: runs[0].start()]} {read.text[runs[0].end() :]}", runs[0].group(0)
    items = _items(listed)
    if len(items) < 2 or len({fold(i) for i in items}) < len(items) or not read.has("order"):
        return None
    head = read_request(heading)
    if head.has("alphabetical"):
        if not head.only("order", "order_more", "alphabetical", "words"):
            return None
        if _not_names(items) or any(_unsorted(item) for item in items):
            return None  # "ñandu" after "nariz" in Spanish, "œuf" as "oeuf": each language sorts its own letters
        ordered = sorted(items, key=fold)
    else:
        descending = _descending(head)
        digits = [in_digits(item, read.languages) for item in items]
        values = [numbers_in(item) for item in digits]
        if (
            descending is None
            or not _as_written(read)
            or any(len(v) != 1 or re.search(r"[^\W\d_]", item) for v, item in zip(values, digits, strict=True))
            or len(numbers_in(" ; ".join(digits))) != len(numbers_in(in_digits(listed, read.languages)))
            or not head.only("order", "order_more", "ascending", "descending", "largest", "smallest")
        ):
            return None
        ordered = [item for _, item in sorted(zip((v[0] for v in values), items, strict=True), reverse=descending)]
    result = ", ".join(ordered)
    return Known({"en": f"{result}."}, result, lambda answer: in_order(answer, ordered))


def _descending(head: Request) -> bool | None:
    """Which way numbers are asked in: "from largest to smallest" and "descending" are down, "ascending" and "from
    smallest to largest" up; None when the request does not say."""
    down, up = head.has("descending"), head.has("ascending")
    if down or up:
        return down if down != up else None
    large, small = (
        next((at for at, w in enumerate(head.words) if w in FAMILIES[f]), None) for f in ("largest", "smallest")
    )
    return None if large is None or small is None else large < small


def _extreme(read: Request) -> Known | None:
    largest, smallest = read.has("largest"), read.has("smallest")
    if largest == smallest or len(read.numbers) < 2 or read.quoted or read.has("order") or not _as_written(read):
        return None  # "2/3 or 3/5", "5 or 3+4": values, not the numbers stated
    listed = max((numbers_in(m.group(0)) for m in _NUMBER_LIST.finditer(read.rest)), key=len, default=[])
    decimal_commas = ";" in read.rest and not (ONE_COMMA_GROUP.search(read.rest) or re.search(r"\d,\d+,", read.rest))
    if len(listed) != len(read.numbers) or (_UNSPACED_LIST.search(read.rest) and not decimal_commas):
        return None  # "the smallest of these 3 numbers: 4, 8, 5" counts them; "9,4,6": 9.4 and 6, or three numbers
    among = ("entre", "tra", "fra", "among", "unter", "parmi", "plus", "piu", "mas", "list", "liste", "lista", "elenco")
    if not read.only("largest", "smallest", extra=among):
        return None
    value = max(read.numbers) if largest else min(read.numbers)
    if read.numbers.count(value) > 1:  # "0.50 or 0.5": the same value
        return None
    shown = plain(value)
    statements = {
        "en": f"The {'largest' if largest else 'smallest'} is {shown}.",
        "de": f"Die {'größte' if largest else 'kleinste'} Zahl ist {shown}.",
        "fr": f"Le plus {'grand' if largest else 'petit'} est {shown}.",
        "es": f"El {'mayor' if largest else 'menor'} es {shown}.",
        "it": f"Il più {'grande' if largest else 'piccolo'} è {shown}.",
    }
    # one of the stated numbers, as stated: 4.7 is no rounding of 4.71 here
    return Known(statements, shown, lambda answer: stated_extreme(answer, largest=largest) == value)


#: Numbers written as one list ("4, 8, 5", "7 or 9"), and a list without spaces ("9,4,6"; "1,000" is a thousand; in
#: a list parted by semicolons, "3,7; 3,15", the commas are decimal).
_NUMBER_LIST = re.compile(rf"-?\d+(?:[.,]\d+)*(?:(?:{LIST_SEPARATOR})-?\d+(?:[.,]\d+)*)+", re.I)
_UNSPACED_LIST = re.compile(r"\d,(?!\d{3}(?!\d))\d")


_YES_NO = {"en": ("Yes", "No"), "de": ("Ja", "Nein"), "fr": ("Oui", "Non"), "es": ("Sí", "No"), "it": ("Sì", "No")}
_IS_NOT = {
    "en": ("{n} is {p}.", "{n} is not {p}."),
    "de": ("{n} ist {p}.", "{n} ist {p}."),
    "fr": ("{n} est {p}.", "{n} n'est pas {p}."),
    "es": ("{n} es {p}.", "{n} no es {p}."),
    "it": ("{n} è {p}.", "{n} non è {p}."),
}
_PROPERTY_NAMES = {
    "prime": {"en": ("prime",) * 2, "de": ("eine Primzahl", "keine Primzahl"), "fr": ("premier",) * 2,
              "es": ("primo",) * 2, "it": ("primo",) * 2},
    "even": {"en": ("even",) * 2, "de": ("gerade", "nicht gerade"), "fr": ("pair",) * 2, "es": ("par",) * 2,
             "it": ("pari",) * 2},
    "odd": {"en": ("odd",) * 2, "de": ("ungerade", "nicht ungerade"), "fr": ("impair",) * 2, "es": ("impar",) * 2,
            "it": ("dispari",) * 2},
    "leap": {"en": ("a leap year",) * 2, "de": ("ein Schaltjahr", "kein Schaltjahr"),
             "fr": ("une année bissextile",) * 2, "es": ("un año bisiesto",) * 2, "it": ("un anno bisestile",) * 2},
}  # fmt: skip
#: The words (folded) an answer names each property by ("par" is also French for "by"), and its opposite by ("15 is
#: odd." says no to "even").
_SAYS = {prop: FAMILIES[prop] - {"par"} for prop in ("prime", "even", "odd", "leap")}
_OPPOSITE = {
    "prime": frozenset(["composite", "zusammengesetzt", "compose", "compuesto", "composto"]),
    "even": _SAYS["odd"],
    "odd": _SAYS["even"],
    "leap": frozenset(["common", "gemeinjahr", "commune", "comun", "comune"]),  # "1900 is a common year."
}


def _property(read: Request) -> Known | None:
    named = [p for p in ("leap", "prime", "even", "odd") if read.has(p)]
    which = named == ["even", "odd"]  # "Is 17 even or odd?" asks which of the two, not a yes or a no
    if (len(named) != 1 and not which) or len(read.numbers) != 1 or read.quoted or not read.numbers[0].is_integer():
        return None
    number = int(read.numbers[0])
    prop = ("even" if number % 2 == 0 else "odd") if which else named[0]
    if (number < 0 and prop in ("prime", "leap")) or abs(number) > 10**12:  # -7 is odd, and prime or not by convention
        return None
    if not read.only(*named, "year") or not _as_written(read) or (prop == "leap" and number < GREGORIAN.year):
        return None  # 1500 was a leap year in the calendar of its day
    holds = NUMBER_PROPERTIES[prop](number)
    said = 0 if holds else 1  # the yes or the no of each table
    # "even or odd?" is answered by one of the two words, Spanish "par" too ("par" is French for "by" elsewhere)
    other = "odd" if prop == "even" else "even"
    named_by = (FAMILIES[prop], FAMILIES[other]) if which else (_SAYS[prop], _OPPOSITE[prop])
    statements = {
        code: ("" if which else f"{_YES_NO[code][said]}, ")
        + _IS_NOT[code][said].format(n=number, p=_PROPERTY_NAMES[prop][code][said])
        for code in _YES_NO
    }
    return Known(
        statements,
        prop if which else "yes" if holds else "no",
        lambda answer: states_property(answer, number, *named_by, yes_or_no=not which) is holds,
    )


def _month_days(read: Request) -> Known | None:
    abbreviated = [w for w in _MONTH_OF_YEAR.findall(fold(read.rest)) if w in months(abbreviated=True)]  # "feb 2032"
    families = ("days", "month", "leap", "year", "count")
    if not read.has("days") or read.quoted or not read.only(*families, extra=[*months(), *abbreviated]):
        return None
    named = [months()[w] for w in read.words if w in months()] or [months(abbreviated=True)[w] for w in abbreviated]
    years = [int(n) for n in read.numbers if n.is_integer() and 1 <= n <= 9999]
    if read.has("leap") and not named and not read.numbers and not read.has("month"):
        leap_year = {code: _capitalised(names[0]) for code, names in _PROPERTY_NAMES["leap"].items()}
        return _has(leap_year, 366, "days", _DAYS)  # "A leap year has 366 days."
    counted = any(w in _DAYS for w in read.words if w != "day")  # "What day is 2036?" counts none
    if not named and years == read.numbers and len(years) == 1 and years[0] > GREGORIAN.year and counted:
        if read.has("leap", "month"):
            return None  # "the leap year 2023", "the months of 2030"
        days = 366 if calendar.isleap(years[0]) else 365
        return _has({code: the_year.format(years[0]) for code, the_year in _THE_YEAR.items()}, days, "days", _DAYS)
    if len(set(named)) != 1 or len(read.numbers) > 1 or (read.numbers and not years):
        return None
    month = named[0]
    if month == 2 and not years and not read.has("leap"):  # 28 or 29: the year decides
        return None
    if years and years[0] <= GREGORIAN.year and month in (2, 10):  # the Julian calendar's Februaries; October 1582
        return None
    days = calendar.monthrange(years[0] if years else 2004, month)[1]  # no year: "February of a leap year"
    named_month = {code: _capitalised(month_name(month, code)) for code in _HAS}
    return _has({**named_month, "de": f"Der {named_month['de']}"}, days, "days", _DAYS)


#: A month's abbreviation before a year: "feb 2032", "sept. 2027" (alone, "mar" is the sea in Spanish).
_MONTH_OF_YEAR = re.compile(r"\b([a-z]{3,4})\.?\s+\d{4}\b")
_THE_YEAR = {"en": "The year {}", "de": "Das Jahr {}", "fr": "L’année {}", "es": "El año {}", "it": "L’anno {}"}


def _weekday_shift(read: Request) -> Known | None:
    named = [weekdays()[w] for w in read.words if w in weekdays()]
    after = read.has("after") or bool(_TODAY_ON.search(fold(read.rest)))
    before = read.has("before") or bool(_DAYS_AGO.search(fold(read.rest)))
    if len(named) != 1 or after == before or read.quoted or len(read.numbers) > 1:
        return None
    if not read.only("after", "before", "comes", "weekday", "weekday_more", "days", "today_is", extra=list(weekdays())):
        return None
    if ("weekday" in read.words and not read.numbers) or (read.numbers and not read.numbers[0].is_integer()):
        return None  # "the weekday after Friday": a working day (Monday) or the day after (Saturday)? "3.5 days"
    if any(read.words.count(w) > 1 for w in FAMILIES["after"] | FAMILIES["before"]) or _A_WEEK.search(read.rest):
        return None  # "the day after the day after Monday", "a week after Monday": more than one day on
    if _NEXT_NAMES_A_DATE.search(fold(read.rest)):
        return None  # "next Friday", "the Monday after next", "Friday next week": a date, not a day on
    if read.numbers and not re.search(rf"\d\s+(?:{'|'.join(FAMILIES['days'])})\b", fold(read.rest)):
        return None  # "the day after Friday 13", "Friday in week 3": a date or a week, not days on
    shift = int(read.numbers[0]) if read.numbers else 1
    return _weekday(read, (named[0] + (shift if after else -shift)) % 7)


#: A day named as today's and days counted on from it, in either order ("If today is Tuesday, what day will it be in
#: 10 days?", "¿Qué día será dentro de 9 días si hoy es lunes?").
_TODAY_ON = re.compile(
    r"^(?=.*\b(?:today is|hoy es|heute(?: ist)?|oggi e|aujourd'hui(?: c'est| est| on est)?|si on est)\s+[^\W\d_]+)"
    r"(?=.*\b(?:in|dans|dentro de|en|tra|fra)\s+\d+\s+(?:days|tagen|jours|dias|giorni)\b)"
)
#: Days counted back where no word of "before" says so: "6 giorni fa", "il y a 6 jours".
_DAYS_AGO = re.compile(r"\b\d+\s+giorni\s+fa\b|\bil\s+y\s+a\s+\d+\s+jours\b")
_NEXT_NAMES_A_DATE = re.compile(
    rf"\b(?:next|nachsten?|prochain|proximo|prossimo)\s+(?:{'|'.join(weekdays())}|week|woche|semaine|semana|settimana)\b"
    rf"|\b(?:{'|'.join(weekdays())})\s+(?:after\s+next|prochain|proximo|prossimo)\b"
)
_A_WEEK = re.compile(r"\b(?:a|one|eine|une|una|un)\s+(?:week|woche|semaine|semana|settimana)\b", re.I)


def _weekday(read: Request, day: int) -> Known:
    """A weekday (0 is Monday) the answer must name, beyond those the request names."""
    statements = {code: f"{day_name(day, code)}." for code in _YES_NO}
    return Known(statements, day_name(day, "en"), lambda a: stated_weekday(a, read.text) == day)


_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DOTTED = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b")  # "1.3.2023", as German writes a date
#: "28/02/1997" and "02/28/1997", read where only one order makes a date ("03/04/2031" is April or March).
_DAY_FIRST = re.compile(r"\b(1[3-9]|2\d|3[01])/(0?[1-9]|1[0-2])/(\d{4})\b")
_MONTH_FIRST = re.compile(r"\b(0?[1-9]|1[0-2])/(1[3-9]|2\d|3[01])/(\d{4})\b")
_IN_DIGITS = ((_ISO, "ymd"), (_DOTTED, "dmy"), (_DAY_FIRST, "dmy"), (_MONTH_FIRST, "mdy"))
_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th|\.|er|º|°)?\s+(?:of\s+|de\s+)?([^\W\d_]+)\.?,?\s+(?:de\s+)?(\d{4})\b")
_MDY = re.compile(r"\b([^\W\d_]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")


def dates_in(text: str) -> list[datetime.date]:
    """The full dates a text states: 2024-03-15, 15.3.2024, 15/03/2024, 15 March 2024, March 15, 2024 (month names in
    paor's languages)."""
    found: list[tuple[int, int, datetime.date]] = []  # where each date starts and ends
    for pattern, order in (*_IN_DIGITS, (_DMY, "dmy"), (_MDY, "mdy")):
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e, _ in found):
                continue
            parts = dict(zip(order, match.groups(), strict=True))
            named = parts["m"]
            month = int(named) if named.isdecimal() else months(abbreviated=True).get(fold(named).rstrip("."))
            with contextlib.suppress(ValueError, TypeError):  # "31 February 2024", a month no language names
                found.append((*match.span(), datetime.date(int(parts["y"]), month or 0, int(parts["d"]))))
    return [date for *_, date in sorted(found)]


#: The first day of the Gregorian calendar: a weekday or a count of days before it depends on which calendar a
#: place kept ("12 October 1492" was a Friday in the Julian one).
GREGORIAN = datetime.date(1582, 10, 15)


def _dated(read: Request) -> tuple[list[datetime.date], Request]:
    """The dates a request states, and the request read without anything written as a date."""
    undated = read.text
    for pattern in [*(written for written, _ in _IN_DIGITS), _MDY, _DMY]:
        undated = pattern.sub(" ", undated)
    return dates_in(read.text), read_request(undated)


def _weekday_of_date(read: Request) -> Known | None:
    dates, rest = _dated(read)
    if len(dates) != 1 or dates[0] < GREGORIAN or rest.numbers or rest.quoted or rest.has("number"):
        return None  # "What number day is 1 March 2024?" asks the day of the year
    if not rest.has("weekday", "days"):
        return None
    if any(w in weekdays() for w in rest.words) or not rest.only("weekday", "weekday_more", "date"):
        return None
    return _weekday(read, dates[0].weekday())


def _days_between(read: Request) -> Known | None:
    dates, rest = _dated(read)
    if len(dates) != 2 or min(dates) < GREGORIAN or rest.numbers or rest.quoted or not rest.has("days"):
        return None
    if not rest.only("days", "between", "count") or not any(w in _DAYS for w in rest.words if w != "day"):
        return None  # "What day is between 1 and 3 March?" names a day, counts none
    n = abs((dates[1] - dates[0]).days)
    return _count(n, _DAYS, **{code: f"{n} {word}." for code, word in _NOUNS["days"].items()})


#: The names an answer counts days by.
_DAYS = ("days", "day", "tage", "tagen", "jours", "días", "dias", "giorni")


_PLACES = re.compile(
    r"\b(?<![\d.,-])(\d|one|an?|eine[rm]?|une?|un[ao]?)\s+(?:decimal|places?|nachkommastellen?|stellen?|d[eé]cimales?|cifr(?:as?|e)(?=\s+decimal)|posti|lugar)",
    re.I,
)
_WHOLE = frozenset(["whole", "integer", "ganze", "ganzzahl", "entier", "entero", "intero"])
_TO_TENS = {
    **dict.fromkeys(["ten", "tens", "zehn", "zehner", "dizaine", "decena", "decina", "decine"], 10),
    **dict.fromkeys(["hundred", "hundert", "hunderter", "centaine", "centena", "centinaio", "centinaia"], 100),
    **dict.fromkeys(["thousand", "tausender", "millier", "millar", "migliaio", "migliaia"], 1000),
}


#: A place named as a fraction: "the nearest tenth" (text2num would read it as 10th), "au centième", "auf Zehntel".
_PLACE_NAMES = re.compile(
    r"\b(?:(?P<one>tenths?|dixiemes?|zehntel|decim[ao]s?)|(?P<two>hundredths?|centiemes?|hundertstel|centesim[ao]s?))\b"
)


def _rounding(read: Request) -> Known | None:
    named = list(_PLACE_NAMES.finditer(fold(read.text)))
    extra = [named[0].group(0), "th", "eme"] if named else []  # text2num's "10th", "100ème"
    extra += re.findall(r"\b(cifras?)\s+decimal", fold(read.text))  # "a una cifra" alone: a digit, or a place?
    if not read.has("round") or read.quoted or not read.only("round", "round_to", extra=extra):
        return None
    if not _as_written(read, scales=False):  # "Round √2 to 2 decimal places"
        return None
    places = _PLACES.findall(fold(read.rest))  # how many places each names: "2", "one"
    wholes = [w for w in read.words if w in _WHOLE or w in _TO_TENS]
    if len(named) + len(places) + len(wholes) > 1:
        return None  # "to the nearest whole number and the nearest tenth": two results
    numbers = list(read.numbers)
    if named:
        digits = 1 if named[0].group("one") else 2
        if numbers.count(10.0**digits) > numbers_in(read.text).count(10.0**digits):
            numbers.remove(10.0**digits)  # "tenth" read as 10th
    elif places:
        digits = int(places[0]) if places[0].isdigit() else 1  # "one decimal place"
        if places[0].isdigit() and float(digits) not in numbers:
            return None  # a count of places the request does not state as one
        if places[0].isdigit():
            numbers.remove(float(digits))
    else:
        tens = {_TO_TENS[w] for w in words_in(read.text) if w in _TO_TENS}  # "the nearest hundred."
        tens |= {int(n) for n in re.findall(r"\bnearest\s+(10{1,6})\b", read.rest)}  # "the nearest 100"
        digits = 1 - len(str(min(tens))) if len(tens) == 1 else 0
        if tens and float(min(tens)) in numbers:  # "the nearest hundred" reads as 100
            numbers.remove(float(min(tens)))
    if len(numbers) != 1:
        return None
    value = numbers[0]
    if digits > 0 and ONE_COMMA_GROUP.search(read.rest):
        return None  # "Round 2,675 to two decimal places": 2675 in English, and nothing to round; 2.675 meant?
    if abs(value) >= 1e15:  # beyond the digits a float holds ("Round 12345678901234567890.5")
        return None
    stated, unit = decimal.Decimal(str(value)), decimal.Decimal(1).scaleb(-digits)
    if stated < 0 and stated % unit == -unit / 2:
        return None  # -2.5: -3 half away from zero, -2 half up; which the user means is a doubt
    rounded = float(stated.quantize(unit, rounding=decimal.ROUND_HALF_UP))
    shown = f"{rounded:.{max(digits, 0)}f}"
    # judged to the digit: "3.1416" is not 3.14 rounded
    return Known({"en": f"{plain(value)} ≈ {shown}."}, plain(rounded), lambda a: stated_number(a) == rounded)


KINDS: tuple[Callable[[Request], Known | None], ...] = (
    _letters,
    _occurrences,
    _vowels,
    _first_or_last_letter,
    _word_count,
    _reversed_or_capitals,
    _letter_shift,
    _range_sum,
    _ordering,
    _extreme,
    _property,
    _month_days,
    _weekday_shift,
    _weekday_of_date,
    _days_between,
    _rounding,
    _calculation,
)
