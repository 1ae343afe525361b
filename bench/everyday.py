"""Everyday one-line requests paor was never tuned on, each judged by code twice (leniently and strictly), split
into a dev half and a test half.

Issue: "paor must never be worse than the bare model". Six requests (bench.heldout) are too few to show that, and
any request a change was tuned on stops measuring anything: the fix fits the case, not the kind. So the requests
here are many (15 kinds, several wordings each, written as people type them) and split once, by position: tune
only on `DEV`, report on `TEST`. A change that helps DEV but not TEST was fitted to DEV.

Each request has two judges. The lenient one asks whether the right content is there at all (the right number
stated anywhere, "yes" said, enough valid items named); the strict one also asks that nothing contradicts it (no
other candidate number, no "no" opening a sentence, exactly the asked count of items, exactly one sentence).
Numbers copied from the request do not count either way, and `good`/`bad` examples pin each judge down
(tests/unit/test_everyday_bench.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from bench.heldout import _ITEM, COLOURS, _plain, numbers, says, sentences

Judge = Callable[[str], bool]

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2)
}
_SCALES = {"hundred": 100, "thousand": 1000}
_WORDS = re.compile(r"[a-z]+")
#: What separates the items of a list written in prose: commas, semicolons, "and", "or", "&".
_SEPARATOR = re.compile(r"\s*(?:,\s*(?:and|or)\b|,|;|&|\band\b|\bor\b)\s*")
WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
#: "may" is left out: it is also a verb ("you may").
MONTHS = frozenset(
    ["january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"]
)


def word_numbers(text: str) -> list[float]:
    """Numbers written in words: 'eight', 'twenty-one', 'one hundred and forty-four'. A lone 'one' is prose ('one
    of them'), not a number."""
    found: list[float] = []
    total = current = 0
    run: list[str] = []

    def flush() -> None:
        nonlocal total, current, run
        if run and run != ["one"]:
            found.append(float(total + current))
        total, current, run = 0, 0, []

    for word in [*_WORDS.findall(_plain(text)), ""]:
        last = run[-1] if run else ""
        if word in _UNITS:
            if last and not (last in _TENS and _UNITS[word] < 10) and last not in _SCALES and last != "and":
                flush()
            current += _UNITS[word]
        elif word in _TENS:
            if last and last not in _SCALES and last != "and":
                flush()
            current += _TENS[word]
        elif word == "hundred" and last not in _SCALES:
            current = (current or 1) * 100
        elif word == "thousand":
            total, current = total + (current or 1) * 1000, 0
        elif word == "and" and last in _SCALES:
            pass
        else:
            while run and run[-1] == "and":
                run.pop()
            flush()
            continue
        run.append(word)
    return found


def stated(text: str) -> list[float]:
    """Every number the text states, in digits (list markers left out) or in words."""
    return numbers(text) + word_numbers(text)


def answered(answer: str, asked: str, value: float) -> list[float]:
    """The numbers the answer states that it did not copy from the request: a number of the request is dropped,
    except that the right value keeps the occurrences beyond those the request has ('144 / 12 is 12')."""
    request = Counter(stated(asked))
    left = Counter(n for n in stated(answer) if n not in request or n == value)
    left[value] -= request[value]
    return [n for n, times in left.items() for _ in range(max(times, 0))]


def _says_any(phrases: Iterable[str]) -> Judge:
    judges = [says(p) for p in phrases]
    return lambda answer: any(j(answer) for j in judges)


def _named(answer: str, vocabulary: frozenset[str], canon: dict[str, str]) -> set[str]:
    """The vocabulary words the answer names (plurals understood), each under its canonical name."""
    named = set()
    for word in _WORDS.findall(_plain(answer)):
        forms = (word, word[:-1], word[:-2], word[:-3] + "y") if word.endswith("s") else (word,)
        for form in forms:
            if form in vocabulary:
                named.add(canon.get(form, form))
                break
    return named


def _item_count(answer: str, vocabulary: frozenset[str], canon: dict[str, str]) -> int:
    """How many items the answer lists: the items of a numbered or bulleted list, else the parts of the first
    sentence naming two or more valid items (after its last colon)."""
    items = _ITEM.findall(answer)
    if len(items) >= 2:
        return len(items)
    for sentence in sentences(answer):
        if len(_named(sentence, vocabulary, canon)) >= 2:
            tail = sentence.rsplit(":", 1)[-1]
            return len([p for p in _SEPARATOR.split(tail) if re.search(r"\w", p)])
    return len(_named(answer, vocabulary, canon))


def _openers(answer: str) -> set[str]:
    """'yes' or 'no' where it opens the answer, a sentence or a line: the answer's verdicts."""
    return set(re.findall(r"(?:^|[.!?;:]\s+|\n)[\W_]*(yes|no)\b", _plain(answer).strip()))


@dataclass(frozen=True)
class Everyday:
    """One request; `earlier` are the user's earlier turns of the same thread (a follow-up is judged alone)."""

    kind: str
    text: str
    lenient: Judge
    strict: Judge
    expected: str  # what is accepted, for the report
    good: str  # a right answer in a natural style: both judges accept it
    bad: str  # a plausible wrong answer: both judges reject it
    earlier: tuple[str, ...] = ()

    @property
    def judge(self) -> Judge:
        """The lenient judge, under the name bench.heldout's requests give theirs."""
        return self.lenient

    @property
    def asked(self) -> str:
        """Everything the user typed in the thread: what an answer may repeat without it counting."""
        return "\n".join((*self.earlier, self.text))


def number(
    kind: str, text: str, value: float, good: str, bad: str, *, allow: Sequence[float] = (), earlier: Sequence[str] = ()
) -> Everyday:
    """A number is the answer; strict: no other number than the value, the request's own and `allow` (the working,
    such as 60 in 'three hours is 3 × 60 = 180 minutes')."""
    asked = "\n".join((*earlier, text))

    def lenient(answer: str) -> bool:
        return value in answered(answer, asked, value)

    def strict(answer: str) -> bool:
        left = answered(answer, asked, value)
        return value in left and set(left) <= {value, *allow}

    working = f" ({', '.join(f'{a:g}' for a in allow)} allowed as working)" if allow else ""
    return Everyday(kind, text, lenient, strict, f"{value:g}{working}", good, bad, tuple(earlier))


def pick(
    kind: str,
    text: str,
    accepted: Sequence[str],
    wrong: Iterable[str],
    good: str,
    bad: str,
    *,
    allow: Iterable[str] = (),
    earlier: Sequence[str] = (),
) -> Everyday:
    """One of a few words or phrases is the answer; strict: no wrong candidate named too, unless the user named it
    or it is in `allow` (the day in between of 'the day after that')."""
    asked = "\n".join((*earlier, text))
    right = _says_any(accepted)
    mentioned = {w for w in wrong if not says(w)(asked)} - set(allow) - set(accepted)
    contradicts = _says_any(mentioned)
    return Everyday(
        kind,
        text,
        right,
        lambda answer: right(answer) and not contradicts(answer),
        " / ".join(accepted),
        good,
        bad,
        tuple(earlier),
    )


def yes_no(text: str, yes: bool, good: str, bad: str) -> Everyday:
    """Strict: the right word said, and the other one never opening a sentence (a 'yes' answer may still say
    'no other divisors')."""
    right, other = ("yes", "no") if yes else ("no", "yes")

    def strict(answer: str) -> bool:
        return says(right)(answer) and other not in _openers(answer) and (yes or not says("yes")(answer))

    return Everyday("yes/no", text, says(right), strict, right, good, bad)


def items(text: str, count: int, vocabulary: str, good: str, bad: str, canon: dict[str, str] | None = None) -> Everyday:
    """A short list; lenient: at least `count` valid items named; strict: exactly `count` items, all valid."""
    words, aliases = frozenset(vocabulary.split()), canon or {}

    def lenient(answer: str) -> bool:
        return len(_named(answer, words, aliases)) >= count

    def strict(answer: str) -> bool:
        return len(_named(answer, words, aliases)) == count == _item_count(answer, words, aliases)

    return Everyday("list", text, lenient, strict, f"{count} of: {vocabulary}", good, bad)


def ordered(text: str, order: Sequence[float | str], good: str, bad: str) -> Everyday:
    """A sorted sequence; lenient: it appears in that order; strict: it is all the answer names, after at most a
    copy of the request's own order."""
    words = frozenset(o for o in order if isinstance(o, str))

    def mentions(t: str) -> list[float | str]:
        return [w for w in _WORDS.findall(_plain(t)) if w in words] if words else [*numbers(t)]

    given, want = mentions(text), list(order)

    def lenient(answer: str) -> bool:
        said = mentions(answer)
        return any(said[i : i + len(want)] == want for i in range(len(said)))

    def strict(answer: str) -> bool:
        return mentions(answer) in (want, given + want)

    return Everyday(
        "ordering", text, lenient, strict, ", ".join(f"{o:g}" if isinstance(o, float) else o for o in order), good, bad
    )


def sentence(
    text: str, topic: Sequence[str], good: str, bad: str, *, kind: str = "sentence", earlier: Sequence[str] = ()
) -> Everyday:
    """Lenient: it is about the topic; strict: and it is exactly one sentence."""
    about = _says_any(topic)
    return Everyday(
        kind,
        text,
        about,
        lambda answer: about(answer) and len(sentences(answer)) == 1,
        f"one sentence mentioning {' / '.join(topic)}",
        good,
        bad,
        tuple(earlier),
    )


FRUITS = (
    "apple banana cherry orange grape pear peach plum mango pineapple strawberry blueberry raspberry blackberry lemon "
    "lime kiwi watermelon melon apricot fig papaya coconut pomegranate grapefruit avocado nectarine"
)
VEGETABLES = (
    "carrot potato broccoli spinach onion cabbage lettuce pea bean cucumber pepper tomato celery cauliflower corn "
    "garlic leek kale zucchini courgette aubergine eggplant radish beetroot beet asparagus pumpkin turnip"
)
SEA_ANIMALS = (
    "fish shark whale dolphin octopus squid jellyfish crab lobster seal starfish turtle shrimp eel seahorse walrus "
    "orca stingray clam oyster"
)
PLANETS = "mercury venus earth mars jupiter saturn uranus neptune"
OTHER_COLOURS = {c: sorted(COLOURS - {c}) for c in COLOURS}

_CASES = (
    # yes/no
    yes_no(
        "Is 17 a prime number?",
        True,
        "Yes, 17 is a prime number: it is divisible only by 1 and itself.",
        "No, 17 is not a prime number.",
    ),
    yes_no(
        "Does water boil at 100 degrees Celsius at sea level?",
        True,
        "Yes. At sea level, water boils at 100 °C.",
        "No, at sea level water boils at 90 degrees Celsius.",
    ),
    yes_no("Is 21 an even number?", False, "No, 21 is an odd number.", "Yes, 21 is an even number."),
    yes_no(
        "Can penguins fly?", False, "No, penguins cannot fly; they are excellent swimmers.", "Yes, penguins can fly."
    ),
    yes_no("Is the Sun a star?", True, "Yes, the Sun is a star, the closest one to Earth.", "No, the Sun is a planet."),
    yes_no("Is a whale a fish?", False, "No. A whale is a mammal, not a fish.", "Yes, a whale is a very big fish."),
    # definitions
    pick(
        "definition",
        "What does 'enormous' mean?",
        ("large", "big", "huge", "gigantic", "immense", "massive"),
        ("tiny", "small", "little"),
        "'Enormous' means very large or huge.",
        "It means very small.",
    ),
    pick(
        "definition",
        "Define 'ancient'.",
        ("very old", "old", "long ago"),
        ("new", "modern", "recent", "young"),
        "Ancient means very old, from a time long ago.",
        "Ancient means new and modern.",
    ),
    pick(
        "definition",
        "What is the meaning of the word 'rapid'?",
        ("fast", "quick", "quickly", "swift", "speedy", "high speed"),
        ("slow", "slowly"),
        "Rapid means very fast or quick.",
        "Rapid means slow and calm.",
    ),
    pick(
        "definition",
        "What does 'fragile' mean?",
        ("easily broken", "breaks easily", "break easily", "easily damaged", "delicate", "breakable"),
        ("strong", "sturdy", "tough", "unbreakable"),
        "Fragile means easily broken or damaged.",
        "Fragile means very strong and hard to break.",
    ),
    pick(
        "definition",
        "Give a short definition of 'silent'.",
        ("quiet", "no sound", "no noise", "without sound", "without noise", "any sound", "any noise"),
        ("loud", "noisy"),
        "Silent means making no sound at all.",
        "Silent means loud and noisy.",
    ),
    # opposites
    pick(
        "opposite",
        "What is the opposite of hot?",
        ("cold",),
        ("warm", "cool", "hotter"),
        "The opposite of hot is cold.",
        "The opposite of hot is warm.",
    ),
    pick("opposite", "What's the opposite of 'up'?", ("down",), ("above", "over", "high"), "Down.", "Above."),
    pick(
        "opposite",
        "Give me the opposite of 'happy'.",
        ("sad", "unhappy"),
        ("glad", "joyful", "cheerful"),
        "Sad is the opposite of happy.",
        "The opposite of happy is joyful.",
    ),
    pick(
        "opposite",
        "What is the antonym of 'fast'?",
        ("slow",),
        ("quick", "rapid", "speedy"),
        "The antonym of 'fast' is 'slow'.",
        "The antonym of fast is quick.",
    ),
    pick("opposite", "Opposite of 'early'?", ("late",), ("soon", "earlier", "before"), "Late.", "Soon."),
    # synonyms
    pick(
        "synonym",
        "What is another word for happy?",
        ("glad", "joyful", "cheerful", "delighted", "pleased", "joyous", "merry", "elated", "jolly"),
        ("sad", "unhappy", "angry"),
        "Another word for happy is joyful.",
        "Another word for happy is sad.",
    ),
    pick(
        "synonym",
        "Give me a synonym for 'big'.",
        ("large", "huge", "enormous", "giant", "massive", "vast", "gigantic", "immense"),
        ("small", "little", "tiny"),
        "A synonym for big is large.",
        "Small.",
    ),
    pick(
        "synonym",
        "What's a synonym of 'quick'?",
        ("fast", "rapid", "swift", "speedy", "hasty", "brisk"),
        ("slow",),
        "Fast.",
        "Slow.",
    ),
    pick(
        "synonym",
        "Another word for 'begin'?",
        ("start", "commence", "initiate", "launch"),
        ("end", "finish", "stop"),
        "Start.",
        "Finish.",
    ),
    pick(
        "synonym",
        "What is a synonym for 'smart'?",
        ("intelligent", "clever", "bright", "brilliant", "wise"),
        ("stupid", "dumb", "foolish"),
        "Intelligent, or clever.",
        "Stupid.",
    ),
    # ordering
    ordered(
        "Sort these numbers from smallest to largest: 9, 2, 7, 4",
        (2.0, 4.0, 7.0, 9.0),
        "From smallest to largest: 2, 4, 7, 9.",
        "2, 7, 4, 9",
    ),
    ordered(
        "Put these words in alphabetical order: pear, apple, mango",
        ("apple", "mango", "pear"),
        "In alphabetical order: apple, mango, pear.",
        "Pear, mango, apple.",
    ),
    ordered(
        "Arrange from largest to smallest: 15, 3, 42, 8",
        (42.0, 15.0, 8.0, 3.0),
        "42, 15, 8, 3",
        "From largest to smallest: 42, 8, 15, 3.",
    ),
    ordered(
        "Can you order these from lowest to highest? 31, 13, 22",
        (13.0, 22.0, 31.0),
        "Sure: 13, 22, 31.",
        "31, 22, 13",
    ),
    ordered(
        "Sort alphabetically: zebra, cat, lion, dog",
        ("cat", "dog", "lion", "zebra"),
        "1. Cat\n2. Dog\n3. Lion\n4. Zebra",
        "Cat, lion, dog, zebra.",
    ),
    ordered(
        "Order these planets by distance from the Sun: Mars, Mercury, Earth",
        ("mercury", "earth", "mars"),
        "Mercury, Earth, Mars.",
        "Mars, Earth, Mercury.",
    ),
    # counting
    number("counting", "How many legs does a spider have?", 8, "A spider has eight legs.", "A spider has six legs."),
    number(
        "counting",
        "How many letters are in the word 'banana'?",
        6,
        "The word 'banana' has 6 letters.",
        "'Banana' has 5 letters.",
    ),
    number("counting", "How many days are in a week?", 7, "There are 7 days in a week.", "There are 5 days in a week."),
    number(
        "counting",
        "How many sides does a triangle have?",
        3,
        "A triangle has three sides.",
        "A triangle has four sides.",
    ),
    number(
        "counting",
        "How many vowels are in the word 'education'?",
        5,
        "'Education' has 5 vowels: e, u, a, i and o.",
        "It has 4 vowels.",
    ),
    number(
        "counting",
        "How many wheels does a bicycle have?",
        2,
        "A bicycle has two wheels.",
        "A bicycle has three wheels.",
    ),
    # days and dates
    pick(
        "dates",
        "What day comes after Tuesday?",
        ("wednesday",),
        WEEKDAYS,
        "Wednesday comes after Tuesday.",
        "Monday.",
    ),
    number("dates", "How many days are in a leap year?", 366, "A leap year has 366 days.", "A leap year has 365 days."),
    pick(
        "dates",
        "What month comes after March?",
        ("april",),
        MONTHS,
        "April comes after March.",
        "May comes after March.",
    ),
    number(
        "dates",
        "How many months are in a year?",
        12,
        "There are 12 months in a year.",
        "There are 10 months in a year.",
    ),
    pick(
        "dates",
        "If today is Friday, what day will it be in two days?",
        ("sunday",),
        WEEKDAYS,
        "It will be Sunday.",
        "It will be Saturday.",
    ),
    number("dates", "How many days are there in September?", 30, "September has 30 days.", "September has 31 days."),
    # unit conversions
    number(
        "conversion",
        "How many centimetres are in 2 metres?",
        200,
        "There are 200 centimetres in 2 metres.",
        "There are 20 centimetres in 2 metres.",
        allow=(100,),
    ),
    number(
        "conversion",
        "Convert 5 kilograms to grams",
        5000,
        "5 kilograms is 5,000 grams.",
        "5 kilograms is 500 grams.",
        allow=(1000,),
    ),
    number(
        "conversion",
        "What is 3 hours in minutes?",
        180,
        "3 hours is 180 minutes (3 × 60).",
        "3 hours is 120 minutes.",
        allow=(60,),
    ),
    number(
        "conversion",
        "2 litres in millilitres?",
        2000,
        "2 litres = 2000 millilitres.",
        "2 litres = 200 millilitres.",
        allow=(1000,),
    ),
    number(
        "conversion",
        "How many seconds are in 4 minutes?",
        240,
        "4 minutes is 240 seconds.",
        "4 minutes is 400 seconds.",
        allow=(60,),
    ),
    number(
        "conversion",
        "Convert 1.5 km to metres, please.",
        1500,
        "1.5 km is 1,500 metres.",
        "1.5 km is 150 metres.",
        allow=(1000,),
    ),
    # arithmetic in words
    number("arithmetic", "What is seven plus eight?", 15, "Seven plus eight is fifteen.", "Seven plus eight is 13."),
    number("arithmetic", "What's 144 divided by 12?", 12, "144 divided by 12 is 12.", "144 divided by 12 is 14."),
    number("arithmetic", "What is 9 times 6?", 54, "9 × 6 = 54", "9 × 6 = 56"),
    number("arithmetic", "How much is 100 minus 37?", 63, "100 − 37 = 63.", "100 − 37 = 73."),
    number("arithmetic", "What is twenty-five plus seventeen?", 42, "25 + 17 = 42.", "25 + 17 = 32."),
    number("arithmetic", "What's half of 86?", 43, "Half of 86 is 43.", "Half of 86 is 42."),
    # short lists
    items("Name three fruits.", 3, FRUITS, "Apple, banana and cherry.", "Apple, carrot and potato."),
    items(
        "List four seasons of the year.",
        4,
        "spring summer autumn fall winter",
        "Spring, summer, autumn and winter.",
        "Spring, summer and winter.",
        {"fall": "autumn"},
    ),
    items(
        "Name three colours of the rainbow.",
        3,
        "red orange yellow green blue indigo violet",
        "Red, orange and yellow.",
        "Red, pink and brown.",
    ),
    items("Give me two animals that live in the sea.", 2, SEA_ANIMALS, "Dolphins and sharks.", "Lions and tigers."),
    items(
        "Name three planets in our solar system.",
        3,
        PLANETS,
        "1. Mars\n2. Venus\n3. Jupiter",
        "The Sun, the Moon and Mars.",
    ),
    items(
        "List four vegetables.",
        4,
        VEGETABLES,
        "Carrot, potato, broccoli and spinach.",
        "Apple, banana, carrot and grape.",
    ),
    # one sentence
    sentence(
        "Write one sentence about the moon.",
        ("moon",),
        "The moon circles the Earth about once a month.",
        "The sun is a star. It gives us light.",
    ),
    sentence(
        "Write a single sentence about dogs.",
        ("dog", "dogs"),
        "Dogs are loyal animals that love to play.",
        "Cats are independent pets that like to sleep a lot.",
    ),
    sentence(
        "Give me one sentence about winter.",
        ("winter",),
        "In winter the days are short and the nights are cold.",
        "Summer is warm. People go to the beach.",
    ),
    sentence(
        "Can you write one sentence about rain?",
        ("rain", "rains", "raining", "rainy", "raindrops"),
        "Rain helps plants grow.",
        "The sun shines all day. The sky is clear.",
    ),
    sentence(
        "Write exactly one sentence about coffee.",
        ("coffee",),
        "Coffee is a warm drink made from roasted beans.",
        "Tea is a popular drink. Many people drink it every day.",
    ),
    # translation
    pick(
        "translation",
        "Translate 'thank you' into French.",
        ("merci",),
        ("gracias", "danke", "grazie", "obrigado"),
        "'Thank you' in French is 'merci'.",
        "'Thank you' in French is 'gracias'.",
    ),
    pick(
        "translation",
        "How do you say 'hello' in Spanish?",
        ("hola",),
        ("bonjour", "hallo", "ciao", "ola"),
        "Hello in Spanish is 'hola'.",
        "Bonjour.",
    ),
    pick(
        "translation",
        "What is 'cat' in German?",
        ("katze",),
        ("gato", "gatto", "chat"),
        "The German word for cat is 'die Katze'.",
        "Gato.",
    ),
    pick(
        "translation",
        "Translate 'good morning' into Italian.",
        ("buongiorno", "buon giorno"),
        ("buenos dias", "bonjour", "guten morgen"),
        "Buongiorno!",
        "Buenos días.",
    ),
    pick(
        "translation",
        "What is the Spanish word for 'water'?",
        ("agua",),
        ("eau", "wasser", "acqua"),
        "Agua.",
        "Acqua.",
    ),
    pick(
        "translation",
        "How do you say 'please' in French?",
        ("il vous plait", "il te plait"),  # s'il vous plaît, read as words
        ("por favor", "bitte", "per favore"),
        "'Please' in French is 's'il vous plaît'.",
        "Por favor.",
    ),
    # colours
    pick(
        "colour",
        "What colour is the sky on a clear day?",
        ("blue",),
        OTHER_COLOURS["blue"],
        "On a clear day the sky is blue.",
        "The sky is green on a clear day.",
    ),
    pick(
        "colour",
        "What colour do you get by mixing blue and yellow?",
        ("green",),
        OTHER_COLOURS["green"],
        "Mixing blue and yellow gives you green.",
        "You get purple.",
    ),
    pick(
        "colour",
        "What colour is a ripe banana?",
        ("yellow",),
        OTHER_COLOURS["yellow"],
        "A ripe banana is yellow.",
        "A ripe banana is green.",
    ),
    pick("colour", "What colour is snow?", ("white",), OTHER_COLOURS["white"], "Snow is white.", "Snow is blue."),
    pick(
        "colour",
        "What colour do you get when you mix red and white?",
        ("pink",),
        OTHER_COLOURS["pink"],
        "Red and white make pink.",
        "Red and white make orange.",
    ),
    pick(
        "colour",
        "What color are most leaves in summer?",
        ("green",),
        OTHER_COLOURS["green"],
        "Most leaves are green in summer.",
        "They are brown.",
    ),
    # facts
    pick(
        "fact",
        "What is the capital of Italy?",
        ("rome",),
        ("milan", "naples", "venice", "florence", "turin", "paris", "madrid", "berlin"),
        "The capital of Italy is Rome.",
        "The capital of Italy is Milan.",
    ),
    pick(
        "fact",
        "What is the capital of Japan?",
        ("tokyo",),
        ("kyoto", "osaka", "beijing", "seoul"),
        "Tokyo is the capital of Japan.",
        "Kyoto.",
    ),
    pick(
        "fact",
        "Which planet is closest to the Sun?",
        ("mercury",),
        ("venus", "earth", "mars", "jupiter", "saturn", "uranus", "neptune", "pluto"),
        "Mercury is the planet closest to the Sun.",
        "Venus is the closest planet to the Sun.",
    ),
    pick(
        "fact",
        "What is the largest ocean on Earth?",
        ("pacific",),
        ("atlantic", "indian", "arctic", "southern"),
        "The Pacific Ocean is the largest.",
        "The Atlantic Ocean.",
    ),
    pick(
        "fact",
        "Who wrote Romeo and Juliet?",
        ("shakespeare",),
        ("dickens", "marlowe", "austen", "chaucer"),
        "William Shakespeare wrote Romeo and Juliet.",
        "Charles Dickens wrote it.",
    ),
    pick(
        "fact",
        "What is the chemical symbol for gold?",
        ("au",),
        ("ag", "gd"),
        "The chemical symbol for gold is Au.",
        "The chemical symbol for gold is Ag.",
    ),
    # follow-ups: the right answer does not depend on what was answered before
    number(
        "follow-up",
        "Now add 10 to that.",
        66,
        "56 + 10 = 66.",
        "7 times 8 plus 10 is 76.",
        allow=(56,),
        earlier=("What is 7 times 8?",),
    ),
    pick(
        "follow-up",
        "And into French?",
        ("bonne nuit",),
        ("gute nacht", "buona notte", "bonsoir"),
        "In French, 'good night' is 'bonne nuit'.",
        "Bonsoir.",
        earlier=("Translate 'good night' into Spanish.",),
    ),
    pick(
        "follow-up",
        "Which of them is usually yellow?",
        ("banana",),
        (),
        "The banana.",
        "The apple is usually yellow.",
        earlier=("I have a banana, an apple and a cherry.",),
    ),
    number(
        "follow-up",
        "And in 3 metres?",
        300,
        "3 metres is 300 centimetres.",
        "30 centimetres.",
        allow=(100,),
        earlier=("How many centimetres are in a metre?",),
    ),
    pick(
        "follow-up",
        "And of Spain?",
        ("madrid",),
        ("barcelona", "seville", "valencia", "lisbon"),
        "The capital of Spain is Madrid.",
        "Barcelona.",
        earlier=("What is the capital of France?",),
    ),
    pick(
        "follow-up",
        "And the day after that?",
        ("wednesday",),
        WEEKDAYS,
        "The day after Tuesday is Wednesday.",
        "Tuesday.",
        allow=("tuesday",),
        earlier=("What day comes after Monday?",),
    ),
    sentence(
        "Now write one about the sun.",
        ("sun",),
        "The sun warms the Earth every day.",
        "The moon is bright tonight.",
        kind="follow-up",
        earlier=("Write one sentence about the moon.",),
    ),
)

KINDS = tuple(dict.fromkeys(c.kind for c in _CASES))


def _halves() -> tuple[tuple[Everyday, ...], tuple[Everyday, ...]]:
    """Within each kind, the 1st, 3rd, … wording goes to dev and the 2nd, 4th, … to test; each half interleaves
    the kinds (one of each, then the next of each), so its first N requests span N kinds."""
    by_kind = [[c for c in _CASES if c.kind == kind] for kind in KINDS]
    dev = [c for row in zip_longest(*(cases[0::2] for cases in by_kind)) for c in row if c is not None]
    test = [c for row in zip_longest(*(cases[1::2] for cases in by_kind)) for c in row if c is not None]
    return tuple(dev), tuple(test)


DEV, TEST = _halves()
EVERYDAY = DEV + TEST
HALVES = {"dev": DEV, "test": TEST, "all": EVERYDAY}
