"""What code decides from a one-line request's words (nodes/reading/kinds.py): each kind decided where the words leave
no doubt, nothing decided where they do, and the test an answer must pass."""

from __future__ import annotations

import pytest

from nodes.reading.kinds import known_answer
from nodes.reading.lexicon import stems


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
        # found in review, on wordings no one tuned on: a word the kind does not account for decides nothing
        "What is the difference between 10 and 3?",
        "What is the average of 4 and 8?",
        "Are 3 and 5 prime?",
        "What is 7 plus 8 in hexadecimal?",
        "What is 7 times 8? Answer in Roman numerals.",
        "What is 10 divided by 3 rounded to the nearest whole number?",
        "What is 15% of 80 kg in grams?",
        "What is 1 plus 1 and 2 plus 2?",
        "What is 50 minus 10%?",
        "What is 1/4 in percent?",
        "Was ist 1.234 mal 2?",  # 1234 in German
        "How many days are in a year?",  # pint's year has 365.25 days, a calendar year 365 or 366
        "How many kg are in a ton?",
        "How many bytes are in a kilobyte?",
        "Add 5 to 10",  # 5 + 10, not the range
        "Give me 3 numbers that add up to 10",
        "How many days are in a non leap year?",
        "Is 9 a non-prime number?",
        "How many letters are in 'banana' with no a?",
        "What letter is two after C?",
        "What letter comes 3 letters after A?",
        "What letter comes after the letter after B?",
        "Reverse the words in 'hello big world'",
        "What is the capital of 'France'?",
        "How many capital letters are in 'HeLLo'?",
        "Which is larger: 2/3 or 3/5?",
        "Which is bigger than 10: 3 or 7?",
        "Sort from biggest to smallest: 1,000, 200, 30",
        "Sort ascending: 3, 2, 5, 4 but only odd ones",
        "Sort ascending: 1 km, 500 m, 2 km",
        "How many long words are in 'a b ccc'?",
        "How many vowels does 'Mississippi' have, and how many s's?",
        "What day of the week was 4 October 1582?",  # before the Gregorian calendar: which calendar?
        "How many vowels are in 'rhythm'?",  # y: a vowel or not, as the user counts
        "Combien de voyelles dans le mot 'stylo' ?",
        "How many letters does the word have?",  # no word named: "have" is the question's own
        "Wie viele Buchstaben hat das Wort?",
        "What's 50% of 50%?",  # 25 %, not 25
        "What is 20 percent of 50 percent?",
        "Round -2.5 to the nearest integer.",  # -3 half away from zero, -2 half up
        "Round -1250 to the nearest hundred.",
        # found trying new wordings: a number written as another value, more than one step, a doubt of calendar,
        # alphabet or unit
        "Ist 3.000 eine Primzahl?",  # 3000 where German is told
        "Welche Zahl ist die größte: 1.500, 900, 20?",
        "Sortiere absteigend: 1.200, 950, 30",
        "What is half of 10 squared?",  # (10 / 2)² or 10² / 2
        "What is 10 percent of 50 squared?",
        "What is the square root of 16 squared?",
        "Which is bigger, 5 or 3+4?",
        "Which is smaller, 10 or 20-15?",
        "Which is larger, 5% or 0.06?",
        "Which is larger, √50 or 7?",
        "Which is smaller, 1e-3 or 0.01?",
        "Sort ascending: √10, 4, 2",
        "Is 3² a prime number?",
        "Round √2 to 2 decimal places",
        "What day is a week after Tuesday?",  # Tuesday again, not Wednesday
        "Welcher Tag ist eine Woche nach Montag?",
        "What is the day after the day after Monday?",
        "How many days are in a month in a leap year?",
        "What letter comes after c in 'cat'?",  # in the word, not the alphabet
        "What letter comes after 'a' and 'b'?",
        "How many s's in 'Straße'?",
        "How many ml in a teaspoon?",  # 4.93 in US units, 5 metric
        "How many ounces in a troy pound?",
        "Was 1500 a leap year?",  # a leap year in the calendar of its day
        "How many days were in October 1582?",
        "What is 0x10?",  # hexadecimal, not 0 × 10
        # found in a second round of new wordings
        "What is 9 to the power of 1/2?",  # 3, where 9 ** 1 / 2 is 4.5
        "¿Cuál es la suma entre 5 y 10?",  # 5 + 10 to many; whether "between" holds its ends is a doubt
        "Add all integers between 10 and 20",
        "Which is larger, 1.5 million or 2 million?",
        "Is 5! odd?",
        "Is 3⁴ prime?",
        "How many KB in a MB?",  # 1000 or 1024; "MB" in small letters is a millibarn
        "Convert 1 Mg to kg",  # a megagram, or mg in small letters
        "Which is greater, 10:30 or 9:45?",
        "Which is larger: $5 or €4?",
        "Which is bigger, 0.50 or 0.5?",
        "What number day is 1 March 2024?",  # the day of the year
        "What day is between 1 March 2024 and 3 March 2024?",
        "What day is 3.5 days after Monday?",
        "What weekday follows Friday?",  # a working day (Monday) or the next day?
        "Which is larger, 1.000 or 999?",  # 1000, or 1 written with three zeros for no reason
        "¿Cuánto es 2 elevado a 3 elevado a 2?",  # (2³)² or 2⁹
        # found in a fourth round
        "Ordena alfabeticamente: oso, ñandu, nariz",  # ñ after n in Spanish
        "Combien de lettres dans « cœur » ?",  # œ: one letter or two
        "what is 2 times 3 squared",  # said aloud: 36 or 18
        "what is 10 divided by 4 times 2",  # 5 or 1.25
        # found in a fifth round: each was decided, wrongly
        "What's the smallest of these 3 numbers: 4, 8, 5?",  # 3 counts the numbers
        "Welche der 2 Zahlen ist kleiner: 9 oder 12?",
        "Which is largest: 1,9,5?",  # 1.9 and 5, or three numbers
        "¿Cuál es el mayor número par entre 3 y 9?",  # "par" is even in Spanish (and "by" in French)
        "Which vowels are in 'piano'?",  # which ones, not how many
        "Quelles voyelles y a-t-il dans « chat » ?",
        "Is 'hello' in capitals?",  # a yes or a no
        "Which letters of 'HeLLo' are capitals?",
        "What day is next Friday?",  # a date, not the day after Friday
        "What's the Monday after next?",
        "What's the sum of 6 and 7 times 2?",  # (6 + 7) × 2 said aloud
        "Round 3.456 to the nearest whole number and the nearest tenth",  # two results
        "Is -7 prime?",  # prime or not by convention
        "How many letters does 'apple' start with?",
        "How many days in February?",  # 28 or 29
        # found by a review round: each was decided wrongly
        "What day comes after Friday 13?",  # a date, not 13 days on
        "Welcher Tag kommt nach Freitag, dem 13.?",
        "Which day comes after Friday in week 3?",
        "Sort alphabetically: kiwi, apple, banana please",  # "banana please" is no item
        "Sort alphabetically: kiwi, apple, banana (case-insensitive)",
        "Sort alphabetically: b, a, c and then reverse it",
        "Sort alphabetically: kiwi, apple, banana pls",  # closing words the request ends with, in any language
        "What is the smallest of 1,234; 1,3; 1,25?",  # semicolons part the items, but 1,234 may be 1234
        "Which is the largest of 9,4,6; 5?",
        "Arrotonda 1234 a una cifra",  # one significant digit, or one decimal place?
        "Trie par ordre alphabétique : poire, pomme, kiwi s'il te plaît",
        "Ordena alfabéticamente: pera, manzana, uva, por favor",
        "What's 60 per 3?",  # 20 as a rate, 180 as Italian's "per"
        "Round 2,675 to two decimal places",  # 2675 in English, nothing to round: 2.675 meant?
        "¿Qué letra viene después de la n?",  # ñ
        "How many letters has 'ﬁsh'?",  # a ligature: 3 or 4
        "What day of the week is 03/04/2031?",  # 3 April or March 4
        "How many days between 03/04/2031 and 25/12/2031?",
        "What day is 2036?",  # no days counted
        "How many days in the leap year 2023?",
        "How many days in 1500?",  # the Julian calendar's year, or the Gregorian's
        "Reverse the order: pear apple fig",  # the words' order, or the letters'
        "Reverse the order of 'pear apple fig'",
        "What letter comes after the letter after b?",  # two steps
        "What is the capital of: France",  # a colon, but no kind's words
        "how many g in kg",  # grams in a kilogram, or the letters of a unit's symbol
        "convert 1 US year to days",  # "US" decides a gallon, not a year
        "How many liters in 4 gallons?",  # US or imperial
        "In binary: what is 5 + 3?",  # a clause before the request that changes how to compute
        "Im Binärsystem: was ist 7 + 3?",
        "Using the Julian calendar — what day was 1 March 2024?",
        "Roughly: what is 17 × 23?",
        "Explain this: what is 2 + 2?",
        "For a 360-day year — how many days are in 2030?",
        "For 3 people — what is 10 + 5?",
        "In binary — for my homework: what is 5 + 3?",
        "Quanto fa 6 per 7? E spiegami perché.",  # a clause after it that asks for more
        # a word one letter from a word paor reads by is another word, not a slip: "run" no "rund" (round), "world"
        # no "word", "parmi" no "pari" (even); "wat" is "what" or "want"
        "run 3.7",
        "write hello world in all caps pls",
        "Quel est le plus grand nombre parmi 1024, 999, 1203, 1100 ou pair ?",
        "wat comes after t in the alphabet",
        "For my class, what is 7 times 8 and why?",  # a situation before, a clause that asks for more after
        "For 3 people, what is 10 + 5?",
    ],
)
def test_nothing_is_decided_where_the_words_leave_a_doubt(request_text: str) -> None:
    assert known_answer(request_text) is None


# -- issue 54: recognition by what a request states, in paor's five languages ---------------------------------------


@pytest.mark.parametrize(
    ("request_text", "result"),
    [
        # wordings the whole-sentence readers missed
        ("Count the letters in 'banana'", "6"),
        ("Is the number 97 prime?", "yes"),
        ("Add up all integers from 1 to 100", "5050"),
        ("Sort alphabetically: pear, apple, fig", "apple, fig, pear"),
        ("Is 23 a prime number? Answer yes or no.", "yes"),
        ("Which is the biggest of 4, 18, 9?", "18"),
        ("What is the last letter of 'window'?", "w"),
        ("Round 8.6 to the nearest whole number.", "9"),
        # the new kinds
        ("What day comes after Tuesday?", "Wednesday"),
        ("What day is two days after Friday?", "Sunday"),
        ("What day of the week was 4 July 1976?", "Sunday"),
        ("How many days are between 2024-01-01 and 2024-03-01?", "60"),
        ("How many days from March 1, 2024 to April 1, 2024?", "31"),
        ("Round 3.14159 to 2 decimal places.", "3.14"),
        ("Round 1234 to the nearest hundred", "1200"),
        ("Round 1234 to the nearest hundred.", "1200"),
        ("Runde 3,14159 auf zwei Nachkommastellen.", "3.14"),  # "zwei" read as German though "auf" is its only
        ("Redondea 3,14159 a dos decimales.", "3.14"),  # everyday word, "dos" as Spanish with only "a"
        ("Arrotonda 3,14159 a due decimali.", "3.14"),
        ("Round -2.6 to the nearest whole number.", "-3"),
        ("Round -1250 to the nearest ten.", "-1250"),
        ("What letter comes before M in the alphabet?", "L"),
        ("Spell 'stressed' backwards", "desserts"),
        ("Write 'paris' in uppercase", "PARIS"),
        ("How many words in the sentence 'I love sunny days'?", "4"),
        ("How many vowels are in 'education'?", "5"),
        ("What's half of 64?", "32"),
        ("Double 17", "34"),
        ("How many days in February 2024?", "29"),
        # an operation named before its numbers, an exponent named by a word, a share of a number, a list to add
        ("Multiply 6 by 7", "42"),
        ("Divide 100 by 4", "25"),
        ("Teile 100 durch 4", "25"),
        ("Moltiplica 6 per 7", "42"),
        ("What is 7 squared?", "49"),
        ("What is 3 cubed?", "27"),
        ("What is 1/3 of 90?", "30"),
        ("Add 2, 3 and 4", "9"),
        ("Add 2, 3, and 4.", "9"),
        ("What is 2 squared plus 3 squared?", "13"),
        ("How many meters are in 1,500 km?", "1500000"),  # was read as 1.5 km
        ("Which is larger: 3,256 or 4?", "3256"),  # English: a comma groups thousands
        ("Round 3.25 to the nearest tenth", "3.3"),
        ("Round 3.256 to the nearest hundredth", "3.26"),
        ("Redondea 3,25 a la décima", "3.3"),
        ("Welcher Wochentag folgt auf Freitag?", "Saturday"),
        ("¿Qué día sigue al viernes?", "Saturday"),
        ("Arrondis 3,7 à l'unité", "4"),
        # a word named without quotes, a product, a share of an amount of money, "alphabetize"
        ("How many r's in strawberry?", "3"),
        ("How many r's in the word strawberry?", "3"),
        ("How many letters in the word banana?", "6"),
        ("How many vowels in the word education?", "5"),
        ("What is the product of 6 and 7?", "42"),
        ("What is 15% of $80?", "12"),
        ("What is 10 per cent of 50?", "5"),
        # a share in words in each language ("cent", "ciento", "cento" are also numbers: 100)
        ("Wie viel sind 20 Prozent von 150?", "30"),
        ("Combien font 15 pour cent de 200 ?", "30"),
        ("¿Cuánto es el 10 por ciento de 50?", "5"),
        ("Quanto è il 25 per cento di 80?", "20"),
        ("Alphabetize: pear, apple, fig", "apple, fig, pear"),
        # German
        ("Wie viele Buchstaben hat das Wort 'Banane'?", "6"),
        ("Wie oft kommt 'r' in 'Erdbeere' vor?", "2"),
        ("Ist dreiundzwanzig eine Primzahl?", "yes"),
        ("Welcher Tag kommt nach Dienstag?", "Wednesday"),
        ("Sortiere alphabetisch: Birne, Apfel, Feige", "Apfel, Birne, Feige"),
        ("Welcher Wochentag war der 1. Januar 2000?", "Saturday"),
        ("Was ist die Hälfte von 64?", "32"),
        ("Was ist sieben mal acht?", "56"),
        ("Wie viele Minuten hat ein Tag?", "1440"),
        ("Wie viele Meter sind 5 km?", "5000"),
        ("3 Stunden sind wie viele Minuten?", "180"),
        ("Wie viele Kilometer sind 5 Meilen?", "8.04672"),
        ("Rechne 100 Grad Celsius in Fahrenheit um", "212"),
        # French
        ("Combien de lettres dans le mot « maison » ?", "6"),
        ("Combien de lettres y a-t-il dans le mot « maison » ?", "6"),  # the euphonic t of "a-t-il"
        ("Combien de minutes y a-t-il dans 3 heures ?", "180"),
        ("Convertis 5 km en mètres", "5000"),
        ("Convertis 100 degrés Celsius en Fahrenheit", "212"),
        ("3 heures font combien de minutes ?", "180"),
        ("Est-ce que 23 est un nombre premier ?", "yes"),
        ("Quelle est la somme des nombres de 1 à 10 ?", "55"),
        ("Quel est le plus grand nombre : 4, 18, 9 ?", "18"),
        ("Arrondis 8,6 à l'entier le plus proche.", "9"),
        ("Combien font sept fois huit ?", "56"),
        # Spanish
        ("¿Cuántas letras tiene la palabra 'casa'?", "4"),
        ("¿Es 23 un número primo?", "yes"),
        ("¿Qué día viene después del martes?", "Wednesday"),
        ("Ordena alfabéticamente: pera, manzana, higo", "higo, manzana, pera"),
        ("¿Cuántos días tiene marzo?", "31"),
        ("¿Cuánto es siete por ocho?", "56"),
        ("¿Cuántos minutos hay en 3 horas?", "180"),
        ("¿Cuántos días tiene una semana?", "7"),
        ("Convierte 2 horas a minutos", "120"),
        ("¿Cuántos minutos son 2 horas?", "120"),
        ("¿Cuántos gramos hay en 2 kilos?", "2000"),
        ("Convierte 10 millas a kilómetros", "16.0934"),
        ("Convierte 100 grados Celsius a Fahrenheit", "212"),
        # Italian
        ("Quante lettere ha la parola 'casa'?", "4"),
        ("23 è un numero primo?", "yes"),
        ("Qual è l'ultima lettera di 'finestra'?", "a"),
        ("Qual è la somma dei numeri da 1 a 10?", "55"),
        ("Che giorno viene dopo martedì?", "Wednesday"),
        ("Arrotonda 8,6 all'intero più vicino.", "9"),
        ("Quanti secondi ci sono in un'ora?", "3600"),
        ("Quanti grammi ci sono in 2 chilogrammi?", "2000"),
        ("Quanti grammi in un chilo?", "1000"),
        ("2 ore sono quanti minuti?", "120"),
        ("Quanti centimetri sono 10 pollici?", "25.4"),
        ("Converti 37 gradi Celsius in Fahrenheit", "98.6"),
        ("What is 100 °C in °F?", "212"),
        # each of the other kinds in German, French, Spanish and Italian
        ("Wie viele Vokale hat das Wort 'Banane'?", "3"),
        ("Combien de voyelles dans le mot 'banane' ?", "3"),
        ("¿Cuántas vocales tiene la palabra 'banana'?", "3"),
        ("Quante vocali ha la parola 'banana'?", "3"),
        ("Was ist der erste Buchstabe von 'Haus'?", "H"),
        ("Quelle est la première lettre de 'maison' ?", "m"),
        ("¿Cuál es la primera letra de 'casa'?", "c"),
        ("Qual è la prima lettera di 'casa'?", "c"),
        ("Wie viele Wörter hat der Satz 'ich mag blaue Autos'?", "4"),
        ("Combien de mots dans la phrase 'je suis très content' ?", "4"),
        ("¿Cuántas palabras tiene la frase 'me gusta el sol'?", "4"),
        ("Quante parole ha la frase 'mi piace il sole'?", "4"),
        ("Schreibe 'hallo' rückwärts", "ollah"),
        ("Écris 'bonjour' à l'envers", "ruojnob"),
        ("Escribe 'hola' al revés", "aloh"),
        ("Scrivi 'ciao' al contrario", "oaic"),
        ("Écris 'bonjour' en majuscules", "BONJOUR"),
        ("Escribe 'hola' en mayúsculas", "HOLA"),
        ("Scrivi 'ciao' in maiuscolo", "CIAO"),
        # a power named before its number or by its ordinal; "miles" in French, a German dative plural
        ("What is the square of 7?", "49"),
        ("Quel est le carré de 7 ?", "49"),
        ("Qual è il quadrato di 7?", "49"),
        ("What is the cube of 4?", "64"),
        ("What's 3 to the 4th power?", "81"),
        ("What is 3 to the fourth power?", "81"),
        ("Combien font 3 miles en kilomètres ?", "4.82803 kilomètres"),
        ("Wie viel sind 3 Meilen in Kilometern?", "4.82803 Kilometern"),
        ("Arrondis 3,14159 au centième.", "3.14"),
        ("What do you get if you multiply 12 by 12?", "144"),
        ("Reverse the string 'abcdef'.", "fedcba"),
        ("Is 57 a prime number or not?", "no"),
        ("Ist 57 eine Primzahl oder nicht?", "no"),
        ("¿Es 2023 un año bisiesto o no?", "no"),
        # a list of numbers without a colon, "will", "s'il te plaît", feet and pounds, "weekday" with days counted
        ("Sort 7, 3, 12, 1 in descending order", "12, 7, 3, 1"),
        ("Please arrange 0.4, 0.15, 0.9 from smallest to largest.", "0.15, 0.4, 0.9"),
        ("Will 2300 be a leap year?", "no"),
        ("Calcule 15 % de 60 s'il te plaît", "9"),
        ("Convertis 10 pieds en mètres", "3.048 mètres"),
        ("Combien de livres font 2 kilos ?", "4.40925 livres"),
        ("What weekday is 9 days after a Tuesday?", "Thursday"),
        ("What's the sum of the numbers from one to twenty?", "210"),
        ("Pon 'gato' en mayúsculas", "GATO"),
        ("¿Qué letra va antes de la M?", "L"),
        # a second question that asks only the answer's form; casual and polite filler; "sqrt", "puissance"
        ("Is 89 a prime number? Yes or no?", "yes"),
        ("Ist 125 ungerade? Ja oder nein?", "yes"),
        ("Est-ce que 33 est un nombre premier ? Oui ou non ?", "no"),
        ("can u tell me what half of 31 is", "15.5"),
        ("Kurze Frage: Ist 53 eine Primzahl?", "yes"),
        ("Oye, ¿el 66 es par?", "yes"),
        ("ciao! quanto fa la metà di 17?", "8.5"),
        ("Scusa, quanti giorni ha aprile?", "30"),
        ("C'est quoi le double de 46 ?", "92"),
        ("sqrt 169", "13"),
        ("Combien font 3 puissance 4 ?", "81"),
        ("Calcule 20 % de 240.", "48"),
        ("Por favor, calcula 90 dividido entre 4. Responde solo con el número.", "22.5"),
        ("Quelle est la moitié de 9,5 ? Réponds juste avec le nombre.", "4.75"),
        ("Quanti litri sono 250 millilitri?", "0.25 litri"),
        ("Quanti grammi sono 1,5 chili?", "1500 grammi"),
        ("Runde 3462 auf Hunderter.", "3500"),
        ("Bitte runde 5,2849 auf zwei Stellen nach dem Komma", "5.28"),
        ("Redondea 3,56 a una cifra decimal", "3.6"),
        ("Schreib das Wort regal rückwärts", "lager"),
        ("Scrivi 'mare' tutto in maiuscolo", "MARE"),
        ("¿Cuánto suman los números del 1 al 10?", "55"),
        ("2100 sera-t-elle une année bissextile ?", "no"),
        ("Wie viele Tage hatte der Februar 2021?", "28"),
        # found by a third held-out set: "sqrt of", a power before a second sentence, "pls", "yr", »…«, "juste avant",
        # a letter after "la", "… in Bananen vor?", "esta frase", "quant'è", "au centième près" with a second sentence
        ("sqrt of 2025", "45"),
        ("cube of 6. Just the number.", "216"),
        ("letter count pls: 'rhythm'", "6"),
        ("is 1900 a leap yr", "no"),
        ("Was ist der erste Buchstabe von »Apfel«?", "A"),
        ("Quelle lettre vient juste avant le K ?", "J"),
        ("¿Cuántas veces aparece la l en «caballo»?", "2"),
        ("Quante volte compare la t in tartaruga?", "2"),
        ("Wie oft kommt der Buchstabe e in Erdbeere vor?", "4"),
        ("Cuenta las palabras de esta frase: «el perro come pan»", "4"),
        ("Quant'è il 20% di 75?", "15"),
        ("Arrondis 2,71828 au centième près. Juste le nombre.", "2.72"),
        # conversational words a fourth held-out set used
        ("mind telling me what 12 x 13 comes to?", "156"),
        ("gimme half of 388", "194"),
        ("how many days has june got", "30"),
        ("Aus wie vielen Buchstaben besteht 'Apfel'?", "5"),
        ("Wie viele Vokale stecken in „Banane“?", "3"),
        ("Schreib mal 'Tee' von hinten nach vorne", "eeT"),
        ("Sortier mal absteigend: 3, 17, 8", "17, 8, 3"),
        ("An welchem Wochentag war der 9. November 1989?", "Thursday"),
        ("Wie viele Tage sind es vom 1. Januar 2025 bis zum 1. März 2025?", "59"),
        ("Ça fait combien, 45 fois 11 ?", "495"),
        ("La lettre a revient combien de fois dans « banane » ?", "2"),
        ("Tu peux mettre « bonjour » en majuscules ?", "BONJOUR"),
        ("Le 14 juillet 1789 tombait quel jour de la semaine ?", "Tuesday"),
        ("¿Me dices cuánto es el 10 % de 300?", "30"),
        ("¿Cuántas veces sale la l en 'lila'?", "2"),
        ("Escríbeme 'sol' al revés", "los"),
        ("Ponme 'hola' en mayúsculas", "HOLA"),
        ("¿2300 va a ser bisiesto?", "no"),
        ("¿Qué día de la semana cayó el 20 de julio de 1969?", "Sunday"),
        ("Scrivimi 'mare' al contrario", "eram"),
        ("Mi arrotondi 58,7 all'intero più vicino?", "59"),
        ("Quanti giorni passano dal 1° maggio 2024 al 31 maggio 2024?", "30"),
        ("add up every number from 1 to 4", "10"),
        ("rund mal 12,68 auf ne ganze zahl", "13"),
        ("¿Cuál es el cubo de 4?", "64"),
        ("Quanti metri sono 10 iarde?", "9.144 metri"),
        # a day named as today's and days counted on from it
        ("If today is Tuesday, what day will it be in 10 days?", "Friday"),
        ("Wenn heute Montag ist, welcher Tag ist in 3 Tagen?", "Thursday"),
        ("Si aujourd'hui c'est mardi, quel jour serons-nous dans 10 jours ?", "Friday"),
        ("¿Qué día será dentro de 9 días si hoy es lunes?", "Wednesday"),
        ("Se oggi è venerdì, che giorno sarà tra 4 giorni?", "Tuesday"),
        # today's day stated without "if", in any order (wordings never tuned on)
        ("Heute ist Montag. Welcher Tag ist in 4 Tagen?", "Friday"),
        ("Hoy es lunes, ¿qué día será en 4 días?", "Friday"),
        ("Aujourd'hui on est lundi, quel jour sera-t-on dans 4 jours ?", "Friday"),
        ("Suppose today is Monday; what day is it in 4 days?", "Friday"),
        # a German verb in two parts, "lautet", "spelled", "convert", "make", "mets"
        ("Dreh das Wort 'Haus' um", "suaH"),
        ("Kehre 'Haus' um", "suaH"),
        ("Wie lautet 'Haus' rückwärts?", "suaH"),
        ("What's 'garden' spelled backwards?", "nedrag"),
        ("Convert 'hello' to uppercase.", "HELLO"),
        ("Make 'hello' all caps.", "HELLO"),
        ("Mets 'bonjour' en majuscules", "BONJOUR"),
        ("Welcher Buchstabe kommt nach G?", "H"),
        ("¿Qué letra viene después de la G?", "H"),
        ("Quale lettera viene dopo la G?", "H"),
        ("Wie viele Tage liegen zwischen dem 2024-01-01 und dem 2024-03-01?", "60"),
        ("Combien de jours entre le 2024-01-01 et le 2024-03-01 ?", "60"),
        ("¿Cuántos días hay entre 2024-01-01 y 2024-03-01?", "60"),
        ("Quanti giorni ci sono tra il 2024-01-01 e il 2024-03-01?", "60"),
        ("Welcher Wochentag ist der 15. März 2024?", "Friday"),
        ("Quel jour de la semaine était le 14 juillet 1789 ?", "Tuesday"),
        ("¿Qué día de la semana fue el 12 de octubre de 1992?", "Monday"),
        ("Che giorno della settimana era il 25 aprile 1945?", "Wednesday"),
        ("Runde 3,14159 auf 2 Nachkommastellen.", "3.14"),
        ("Arrondis 3,14159 à 2 décimales.", "3.14"),
        ("Redondea 3,14159 a 2 decimales.", "3.14"),
        ("Arrotonda 3,14159 a 2 cifre decimali.", "3.14"),
        ("Combien de fois la lettre 'a' apparaît dans 'banane' ?", "2"),
        ("¿Cuántas veces aparece la letra 'a' en 'banana'?", "3"),
        ("Quante volte compare la lettera 'a' in 'banana'?", "3"),
        ("Was ist die Summe aller Zahlen von 1 bis 100?", "5050"),
        # "even or odd?" asks which of the two
        ("Is 348 even or odd?", "even"),
        ("Ist 17 gerade oder ungerade?", "odd"),
        ("17 est-il pair ou impair ?", "odd"),
        ("¿Es 9 par o impar?", "odd"),
        ("Il numero 77 è pari o dispari?", "odd"),
        # the genitive, "prima" as before (not first), places named in each language, decimal commas parted by ";"
        ('Was ist der letzte Buchstabe des Wortes "Fenster"?', "r"),
        ('Qual è la lettera prima della "d"?', "C"),
        ("Qual è la lettera che viene prima di 'd' nell'alfabeto?", "C"),
        ("Arrotonda 3456 al centinaio più vicino.", "3500"),
        ("Arrondis 3456 à la centaine près.", "3500"),
        ("Redondea 3456 a la centena más cercana.", "3500"),
        ("Qual è il numero più grande: 3,7; 3,15; 3,6?", "3.7"),
        ("Trie par ordre croissant : 5, 2, 9", "2, 5, 9"),
        ("Trie par ordre décroissant : 5, 2, 9", "9, 5, 2"),  # "croissant" within it is no second way
        ("Ordina in ordine decrescente: 5, 2, 9", "9, 5, 2"),
        ("Sort from lowest to highest: 5, 2, 9", "2, 5, 9"),
        ("How many words are in 'The U.S. costs $3.50 at 3:30'?", "6"),  # a word is what spaces part
        ("Sort descending: 1.5, 2.25, 0.125", "2.25, 1.5, 0.125"),
        ("Which is smaller, -3 or 2?", "-3"),
        ("Ordena de menor a mayor: 5, 2, 9", "2, 5, 9"),
        ("Ordina in ordine crescente: 5, 2, 9", "2, 5, 9"),
        ("Welche Zahl ist am kleinsten: 5, 2, 9?", "2"),
        ("Quel est le plus petit : 5, 2, 9 ?", "2"),
        ("2024 est-elle une année bissextile ?", "yes"),
        ("Il 2024 è un anno bisestile?", "yes"),
        ("Che giorno viene prima di lunedì?", "Sunday"),
        ("Was ist die Wurzel aus 144?", "12"),
        # found by mutation testing: abbreviated month names, a decimal comma, a list's stray full stop
        ("What day of the week was Jan 5, 2024?", "Friday"),
        ("Quel jour de la semaine était le 5 janv. 2024 ?", "Friday"),
        ("Was ist die Hälfte von 2,5?", "1.25"),
        ("Was ist die größte von 3, 9 und 4?", "9"),
        ("Sort alphabetically: pear, apple, fig, .", "apple, fig, pear"),
        ("Sort alphabetically: pear, Zebra, apple", "apple, pear, Zebra"),  # whatever the case
        ("Reverse the word 'stressed'", "desserts"),
        # by the characters a person sees: a combining mark stays on its letter, an emoji family and a flag whole
        ("Reverse 'nai\u0308ve'", "evi\u0308an"),
        (
            "Reverse '\U0001f468\u200d\U0001f469\u200d\U0001f467 and \U0001f1eb\U0001f1f7'",
            "\U0001f1eb\U0001f1f7 dna \U0001f468\u200d\U0001f469\u200d\U0001f467",
        ),
        ("Round 10 to the nearest tenth", "10"),  # the 10 stated, not "tenth" read as 10th
        ("Runde 10 auf Zehntel", "10"),
        ("What is √144?", "12"),
        ("Sort alphabetically: pear, apple", "apple, pear"),
        ("Is 0 an even number?", "yes"),
        ("What letter comes after 'G'?", "H"),
        ("Sort alphabetically: pear, apple and fig", "apple, fig, pear"),
        ("What letter comes before B?", "A"),
        ("What day of the week was 15 October 1582?", "Friday"),  # the Gregorian calendar's first day
        ("Count the words in 'the quick brown fox'", "4"),
        ("Count the a's in 'banana'", "3"),
        ("Write 'hello' in capital letters", "HELLO"),
        ("How many days are in the month of March?", "31"),
        ("Qual è il più grande fra 4, 18 e 9?", "18"),  # the words that join the numbers, in each language
        ("Welches ist die größte Zahl unter 3, 9 und 4?", "9"),
        ("¿Cuál es el más grande: 4, 18 o 9?", "18"),
        ("Which is the largest among 4, 18 and 9?", "18"),
        ("Quel est le plus grand parmi 4, 18 et 9 ?", "18"),
        # found trying new wordings: a negative number, "one" as an amount, an operator as people type it
        ("What is 5 minus -3?", "8"),
        ("Convert -40 Celsius to Fahrenheit", "-40"),
        ("How many seconds are in one hour?", "3600"),
        ("Round 1234 to the nearest 100", "1200"),
        ("Welche Zahl ist größer, 7 oder 12?", "12"),
        ("Quanto fa 100 diviso 4?", "25"),
        ("¿Cuánto es 10 entre 2?", "5"),
        ("whats 5x5", "25"),
        ("Alphabetize: Smith, John; Doe, Jane", "Doe, Jane, Smith, John"),  # semicolons part the items
        ("Sort alphabetically: New York, Boston, Los Angeles", "Boston, Los Angeles, New York"),  # names of two words
        ("Sort these words alphabetically: the, quick, brown, fox", "brown, fox, quick, the"),  # a filler word as item
        ("Sort alphabetically: 'cat', 'apple', 'bob'", "apple, bob, cat"),
        ("Combien fait 12 au carré ?", "144"),
        ("¿Cuánto es 2 elevado a 10?", "1024"),
        ("Combien fait 2 à la puissance 10 ?", "1024"),
        ("Che giorno della settimana era il 1° gennaio 2000?", "Saturday"),
        ("Round 12345 to the nearest thousand.", "12000"),  # a place, not a scale
        ("What is 2*3^2?", "18"),  # typed as symbols: the order of operations
        ("Sort alphabetically: éclair, apple, zebra", "apple, éclair, zebra"),
        # found in a fifth round: everyday wordings left to the model
        ("hey, what's 17 times 23?", "391"),
        ("What's 12 times 15? Thanks!", "180"),
        ("Is -7 odd?", "yes"),
        ("Schreib bitte 'Hallo' rückwärts", "ollaH"),
        ("Ist 2000 ein Schaltjahr gewesen?", "yes"),
        ("¿Fue 2024 un año bisiesto?", "yes"),
        ("What letter does 'apple' begin with?", "a"),
        ("Which letter comes right after M in the alphabet?", "N"),
        ("Round 12.3456 to 2 places", "12.35"),
        ("How many days in February of a leap year?", "29"),
        ("Was ergibt 9 mal 11?", "99"),
        ("¿Cuántas letras a hay en 'banana'?", "3"),  # the letter after the plural noun
        ("Round 1234567 to the nearest thousand", "1235000"),  # not 1.235e+06
        # found by a sixth held-out set: a word named bare, without quotes or "the word"
        ("count the vowels in onomatopoeia", "8"),
        ("how many letters does strawberry have", "10"),
        ("erster Buchstabe von Wolke", "W"),
        ("combien de voyelles dans ordinateur", "5"),
        ("cuantas vocales tiene computadora", "5"),
        ("qual è l'ultima lettera di finestra", "a"),
        ("spell giraffe backwards", "effarig"),
        ("scrivi cavallo al contrario", "ollavac"),
        ("schreib Gewitter in Großbuchstaben", "GEWITTER"),
        ("Mi dici quanto è il 40 per cento di 215?", "86"),
        ("wieviel gramm sind 2,25 kilo", "2250"),
        ("quel jour tombe 20 jours après un samedi ?", "Friday"),
        ("Wie viele Tage liegen zwischen dem 1.3.2023 und dem 15.8.2023?", "167"),  # dates as German writes them
        ("Welcher Wochentag war der 3.10.1990?", "Wednesday"),
        # found by a seventh held-out set
        ("quel jour de la semaine était le 14/07/1989 ?", "Friday"),  # a date with slashes, one order possible
        ("giorni dal 25/04/2030 al 13/06/2030", "49"),
        ("What day of the week was 12/25/2030?", "Wednesday"),
        ("how many days in the year 2036?", "366"),  # a year named alone
        ("¿cuántos días tiene el año 2100?", "365"),
        ("Combien de jours compte février 2028 ?", "29"),
        ("Kubikwurzel aus 2744", "14"),  # a cube root
        ("what is the cube root of 343?", "7"),
        ("¿Cuánto es 12 al cubo?", "1728"),
        ("sum of every whole number between 10 and 20 inclusive", "165"),  # "between", with its ends
        ("suma todos los enteros desde 5 hasta 9", "35"),
        ("¿cuál es el número más pequeño: 802, 820, 208?", "208"),
        ("what's the next letter after 'q'", "R"),  # "next" and "after" name one step
        ("quale lettera viene prima della e nell'alfabeto?", "D"),  # "e" after an article is a letter
        ("wie oft kommt das e in Regenwetter vor", "4"),
        ("welcher buchstabe steht vor k im alphabet", "J"),
        ("welcher buchstabe kommt vor k im alphabet", "J"),  # "kommt vor" occurs, but not in "Alphabet"
        ("si hoy es lunes, qué día fue hace 10 días", "Friday"),  # "hace", "ago": days before
        ("If today is Tuesday, what day was it 10 days ago?", "Saturday"),
        ("day of the week of 4 July 2030? just the day", "Thursday"),
        ("was für ein tag war der 9. November 1989", "Thursday"),
        ("runde 7249 auf volle hunderter", "7200"),
        ("uppercase pls: silver river", "SILVER RIVER"),  # a text named after the colon, as if quoted
        ("Reverse: stressed", "desserts"),
        ("Quick question: how many vowels in onomatopoeia?", "8"),  # after the colon, the request itself
        ("how many r in strawberry", "3"),  # a letter right after "how many"
        ("cuántas r tiene ferrocarril", "4"),
        ("wie viele r hat Erdbeere", "2"),
        # found by an eighth held-out set
        ("days in feb 2032?", "29"),  # a month's abbreviation before its year
        ("count the days from june 1 2028 to june 1 2029", "365"),
        ("what comes after f in the alphabet", "G"),
        ("que letra va antes de la v en el abecedario", "U"),
        ("si on est mercredi, quel jour serons-nous dans 12 jours", "Monday"),
        ("turn this into all caps: meet me at noon", "MEET ME AT NOON"),
        ("How many liters are in 4 US gallons?", "15.1416"),  # "US" named: pint's gallon
        ("la mitad de 1375 porfa", "687.5"),  # thanks and please in five languages
        ("primera letra de mariposa? gracias", "m"),
        ("pasa 300 kelvin a celsius", "26.85"),
        ("What do you get if you add every whole number from 100 to 200?", "15150"),
        ("addier mal alle ganzen zahlen von 1 bis 750", "281625"),
        # found by a ninth held-out set, written as native speakers ask
        ("Wie viel sind −29 °C in Fahrenheit?", "-20.2"),  # the minus sign (it was read as 29 °C)
        ("Which is smaller: −5 or 3?", "-5"),
        ("Wie viel Grad Celsius sind 451 Grad Fahrenheit?", "232.778"),
        ("Quanti gradi Celsius sono 200 gradi Fahrenheit?", "93.3333"),
        ("Könnten Sie mir sagen, welcher Wochentag der 3. Oktober 1990 war?", "Wednesday"),
        ("¿Me podría decir qué día fue el 20 de noviembre de 1975?", "Thursday"),
        ("Auf welchen Wochentag fällt der 24. Dezember 2031?", "Wednesday"),
        ("Mit welchem Buchstaben fängt Quittung an?", "Q"),
        ("Schreib mal Kartoffelsalat rückwärts", "talasleffotraK"),  # "mal" between the verb and the word
        ('Reverse "Good Night Moon" letter by letter', "nooM thgiN dooG"),
        ("Additionne tous les nombres entiers de 350 à 420, bornes comprises", "27335"),
        ("Suma los números enteros del 500 al 600, ambos incluidos", "55550"),
        ("Add up every integer from 101 to 500.", "120200"),
        ("Range ces nombres du plus grand au plus petit : 563, 635, 356, 653, 365", "653,"),
        ("What's the smallest number in this list: 317, 173, 713, 137, 371", "137"),
        ("Runde 73849 auf den nächsten Tausender", "74000"),
        ("Combien de temps entre le 12 février 2032 et le 1er mai 2032, en jours ?", "79"),
        ("Quanti giorni aveva l'anno 1900?", "365"),
        ("Wenn heute Montag ist, welcher Wochentag war dann vor 250 Tagen?", "Wednesday"),
        # found by a tenth held-out set: the user's situation told first
        ("Wedding planning — what day of the week is 2032-04-15?", "Thursday"),
        ("Wedding planning. For my sister: what day of the week is 2032-04-15?", "Thursday"),
        ("for my homework: 15% of 2,340?", "351"),
        ("planning a trip - how many days does september 2027 have", "30"),
        ("Hochzeitsplanung — Wie viele Tage hat das Jahr 2016?", "366"),
        # found by an eleventh held-out wording set: who asks and why, told after the request, or around it
        ("What's 12% of 250? It's for a tip.", "30"),
        ("Is 89 a prime number? Just curious.", "yes"),
        ("Sort alphabetically: Paris, London, Berlin. Thanks", "Berlin, London, Paris"),
        ("Convert 3 km to metres, I'm making a map.", "3000"),
        ("Quick question while I'm at work: how many hours are in 3 days? thanks!", "72"),
        ("Wie viele Buchstaben hat „Regenschirm“? Brauche ich für ein Rätsel.", "11"),
        ("Quel jour de la semaine tombe le 3 mars 2031 ? C'est pour un anniversaire.", "Monday"),
        ("¿Cuántos días hay entre el 1 de abril de 2026 y el 1 de mayo de 2026? Es para unas vacaciones.", "30"),
        ("Quanto fa 14 per 16? È per i compiti di mio figlio.", "224"),
        ("Qual è l'ultima lettera di «gatto», è per un gioco", "o"),
        # a slip of the keys in a word the request is read by: a letter missing, or two swapped
        ("how mnay letters in 'strawberry'", "10"),
        ("cuántas letras tien «murciélago»", "10"),
        ("What day comes after thursdy?", "Friday"),
        # polite, and said another way
        ("I would like to know how many litres there are in 5 US gallons.", "18.9271"),
        ("Pouvez-vous compter les mots de cette phrase : « Le petit chat dort sur le canapé »", "7"),
        ("Potresti contare le parole di questa frase: «Chi dorme non piglia pesci»?", "5"),
        ("Please sort the following names alphabetically: Zoe, Adam, Maya, Ben. Thank you.", "Adam, Ben, Maya, Zoe"),
        ("sum of the numbers from twenty to sixty, both included", "1640"),
        ("suppose it's thursday — which weekday is 45 days later", "Sunday"),
        ("oggi è domenica, che giorno era 6 giorni fa", "Monday"),
        ("aujourd'hui c'est vendredi, c'était quel jour il y a 4 jours ?", "Monday"),
        ("Quelle est la lettre qui précède le S ?", "R"),
        ("350 degrees Fahrenheit, what's that in Celsius?", "176.667"),
        ("350 °F — what is that in Celsius?", "176.667"),  # asked in a clause or a sentence of its own
        ("3.5 km. What is that in miles?", "2.1748"),
        ("12 millas, ¿cuánto es eso en kilómetros?", "19.3121"),
        ("wie viel Grad Celsius sind 98,6 °F?", "37"),
        ("pour mon devoir, compte les mots de « le petit chat dort sur le canapé »", "7"),  # who asks, then a comma
        ("Mein Sohn fragt, was die Hälfte von 3,5 ist", "1.75"),
        ('wie heißt "Lagerregal" rückwärts?', "lagerregaL"),
        ('¿cómo queda "amor" al revés?', "roma"),
        ('come si scrive "ciao" al contrario?', "oaic"),
        ("which letter comes just before the letter T?", "S"),
        # "I" as every language says it, before a polite frame
        ("Je voudrais savoir combien font 12 fois 12", "144"),
        ("Yo quisiera saber cuántas letras tiene 'casa'", "4"),
        ("Io vorrei sapere quante lettere ha 'casa'", "4"),
        ("Ich möchte wissen wie viele Buchstaben 'Haus' hat", "4"),
        # French "a" after "lettres" is "has", not the letter a (which "dans" follows)
        ("Combien de lettres a « maison » ?", "6"),
        ("Le mot « maison », combien de lettres a-t-il ?", "6"),
        ("Combien de lettres a dans « ananas » ?", "3"),
    ],
)
def test_a_kind_is_decided_whatever_the_wording_that_states_its_slots(request_text: str, result: str) -> None:
    known = known_answer(request_text)
    assert known is not None, request_text
    assert known.result.removesuffix(".").split(" ")[0] == result or known.result == result


@pytest.mark.parametrize(
    "request_text",
    [
        "What's 12% of 250? Explain how you got it.",
        "Is 91 prime? Show your working, it's for homework.",
        "What is 14 times 12? And give me a trick to remember it.",
        "Convert 8 miles to km, and then to metres, for my log.",
        "Convert 5 miles to km. I need it in metres.",
        "What's 9 + 6? It's for a coding class, answer in binary.",
        "What's 18% of 65? It's for the tip, rounded.",
        "Is 2024 a leap year? Asking for my calendar, and the next one too.",
        "Sort alphabetically: Emma, Hugo, our cat",  # a list's last item is no situation
        "What is 14 times 12? Give me a trick to remember it.",
        "What is 7 times 8? And my teacher wants a trick to remember it.",
        "What's 18% of 65? I need it rounded.",
        "Quanto fa 6 per 7? Spiegami perché, per mio figlio.",
        "¿Cuánto es 25 por 4? Mi hijo quiere saber por qué.",
        "Ist 87 eine Primzahl? Und warum?",
        "Combien font 6 fois 8 ? Réponds en chiffres romains, c'est pour un jeu.",
        "¿Cuánto es 25 por 4? Y explícame por qué.",
        "Quanto fa 9 per 8? E spiegami come si fa.",
    ],
)
def test_a_clause_after_the_request_that_asks_for_more_is_never_left_aside(request_text: str) -> None:
    assert known_answer(request_text) is None


@pytest.mark.parametrize(
    "request_text",
    [
        "How many letters are in the English alphabet?",
        "Sort these animals by size: cat, elephant, mouse",
        "Sort these cities by population: Paris, Rome, Berlin",
        "What day is it today?",
        "How many days until Friday?",
        "What day is tomorrow?",
        "List the prime numbers below 50",
        "Is 17 a lucky number?",
        "What is the biggest planet?",
        "Translate 'good morning' into German",
        "Wie viele Buchstaben hat das deutsche Alphabet?",
        "¿Cuál es el mejor día de la semana?",
        "Round up the usual suspects",
        "Reverse the order of my to-do list",
        # a word named bare is none where it is someone's, a language, the alphabet, a thing or a verb
        "How many letters in my name?",
        "How many vowels does English have?",
        "How many letters does Greek have?",
        "How many letters does the alphabet have",
        "How many letters does a haiku have?",
        "first letter of every word",
        "What is reverse engineering?",
        "What is the capital of Germany in capital letters?",
        "Write everything in capitals",
        "Il y a 10 lettres, dont 5 voyelles.",
        "What's the letter next to p?",  # beside it, on either side, in any kind
        "What day is next to Monday?",
        "Which letter is next to K in the alphabet?",
        "What's half of 64 plus 2?",  # a calculation uses every number the request states, or none is decided
        "What is 10% of 50 plus 5?",
        "What is the square root of 16 times 3?",
        "Double 17 and add 3",
        "What is 1/3 of 90 plus 5?",
        "Multiply 6 by 7 and add 2",
        "What is 2 cubed squared?",  # (2³)² = 64, not 2 ** 3 ** 2
        "What's -3 squared?",  # -(3²) = -9 as algebra reads it, (-3)² = 9 as a spreadsheet and most people do
        "What is -3^2?",
        "Write 'Straße' in capitals",  # STRASSE, or STRAẞE
        # 3,256 is 3256 in English and 3.256 in German, French, Spanish and Italian
        "Was ist 3,256 mal 2?",
        "Quanto fa 1,234 più 1?",
        "Multipliziere 3,256 mit 2",  # no word says the language
        "Runde 3,256 auf Hundertstel",
        "Quel est le plus grand : 3,256 ou 4 ?",  # every kind reads the numbers, not only calculations
        "Arrondis 3,256 à deux décimales",  # "à" folds to English "a": the accent says French
        "Arrondis 3,256 a deux decimales",  # without accents: "a" is English and French filler alike
        "Redondea 3,256 a dos decimales",
        "What is half of 7 and a half?",  # a share of a number the digits do not state
        "Add up the numbers from 1 to 10 in 'my list'",  # a quoted part the range does not account for
        "Round 8.6 for my homework",
        "What day of the week was 5 Smarch 2024?",  # no month of that name: no date
        "What letter comes after the letter é?",  # no place in the alphabet a short program knows
        "What letter comes after Z?",
        "Was 4 July 1976 a Sunday?",  # a yes or no, not a weekday
        "What is 1 to 10?",  # a range, but no sum asked
        "Ist 1,001 eine Primzahl?",
        "How many letters in alphabet?",  # a word the letters of which are not counted: the alphabet's
        "How many r's in strawberry and raspberry?",
        "Convert 5 km to miles for my 2 trips",
        "Is it so?",  # "so" is Sunday's abbreviation in German, "di" Tuesday's: no weekday is read from them
        "How many days in a set?",  # "set" abbreviates September in Italian: a month only in a date
        "Wie viele Tage hat ein Jahr?",  # 365 or 366, in any language
        "Wie viele Buchstaben hat ein Wort?",
        "¿Cuántos minutos tiene un partido?",
        "Run 5 km a day",  # "a" joins two units only where one converts to the other
        "What is 30 minutes a day?",  # and in English it is a rate, not a conversion
        "Is 57 prime or not prime?",
        "Is 97 prime? Why?",  # a second question that is not the answer's form
        "If today is Tuesday, what day will it be in 10 days and in 20 days?",
        "¿Cuánto es 9 por 7 y por qué?",  # Spanish "why" folds to two filler words
        "Reverse the word",
        "Sort 7, 3, 12, 1",  # which way?
        "Sort 7, 3, 12 and then 4, 9 in descending order",  # two lists
        "Sort 9,4,6 in descending order",  # 9.4 and 6, or three numbers?
        "What weekday comes after Friday?",  # a working day, or the day after?
        "What is 5 plus 3 if x is 2?",
        "What is the square of 7 plus 1?",  # 50 or 64, and never 8
        "Quel est le carré de 7 plus 1 ?",
        "Draw a square of 4 cm",
        "Wie lautet das Wort 'Haus' auf Englisch?",  # "lautet" asks how it reads, not reversed
        "Convert 'hello' to French",
        "Make 'hello' longer",
    ],
)
def test_a_request_that_needs_knowledge_or_today_is_not_decided(request_text: str) -> None:
    assert known_answer(request_text) is None


@pytest.mark.parametrize(
    ("request_text", "statement", "language"),
    [
        ("Wie viele Buchstaben hat das Wort 'Banane'?", "„Banane“ hat 6 Buchstaben.", "de"),
        ("Ist 91 eine Primzahl?", "Nein, 91 ist keine Primzahl.", "de"),
        ("Quel jour vient après mardi ?", "mercredi.", "fr"),
        ("¿Es 2024 un año bisiesto?", "Sí, 2024 es un año bisiesto.", "es"),
        ("Quanti giorni ha marzo?", "Marzo ha 31 giorni.", "it"),
        # found by mutation testing: every language's statement of a kind, each word of it
        ("Was ist der letzte Buchstabe von 'Fenster'?", "Der letzte Buchstabe von „Fenster“ ist „r“.", "de"),
        ("Was ist der erste Buchstabe von 'Haus'?", "Der erste Buchstabe von „Haus“ ist „H“.", "de"),
        ("Quelle est la dernière lettre de 'maison' ?", "La dernière lettre de « maison » est « n ».", "fr"),
        ("¿Cuál es la última letra de 'casa'?", "La última letra de «casa» es «a».", "es"),
        ("¿Cuál es el menor: 4, 18 o 9?", "El menor es 4.", "es"),
        ("Which is the largest of 4, 18, 9?", "The largest is 18.", "en"),
        ("¿Cuál es el mayor: 4, 18 o 9?", "El mayor es 18.", "es"),
        ("Qual è il più piccolo: 4, 18 o 9?", "Il più piccolo è 4.", "it"),
        ("Qual è il più grande: 4, 18 o 9?", "Il più grande è 18.", "it"),
        ("What is the first letter of 'window'?", "The first letter of 'window' is 'w'.", "en"),
        ("¿Cuántos días hay entre 2024-01-01 y 2024-03-01?", "60 días.", "es"),
        ("Combien de jours entre le 2024-01-01 et le 2024-03-01 ?", "60 jours.", "fr"),
        ("Quanti giorni ci sono tra il 2024-01-01 e il 2024-03-01?", "60 giorni.", "it"),
        ("Welche Zahl ist am kleinsten: 5, 2, 9?", "Die kleinste Zahl ist 2.", "de"),
        ("Quel est le plus petit : 5, 2, 9 ?", "Le plus petit est 2.", "fr"),
        ("Combien de jours a mars ?", "Mars a 31 jours.", "fr"),
        ("How many times does 'b' occur in 'banana'?", "'b' occurs 1 time in 'banana'.", "en"),
        ("¿Cuántas veces aparece la letra 'b' en 'banana'?", "«b» aparece 1 vez en «banana».", "es"),
        ("Quante volte compare la lettera 'b' in 'banana'?", "«b» compare 1 volta in «banana».", "it"),
        ("Reverse 'Hello'", "olleH", "en"),
        ("Round 3.14159 to 2 decimal places.", "3.14159 ≈ 3.14.", "en"),
        ("Quel jour de la semaine était le 14 juillet 1789 ?", "mardi.", "fr"),
        ("Welche Zahl ist am größten: 5, 2, 9?", "Die größte Zahl ist 9.", "de"),
        ("Quante volte compare la lettera 'a' in 'banana'?", "«a» compare 3 volte in «banana».", "it"),
        ("What letter comes after G?", "H.", "en"),
        ("How many vowels are in the word 'education'?", "'education' has 5 vowels.", "en"),
        ("¿Cuál es la primera letra de 'casa'?", "La primera letra de «casa» es «c».", "es"),
        ("¿Cuántas veces aparece la letra 'a' en 'banana'?", "«a» aparece 3 veces en «banana».", "es"),
        ("¿Cuántos días tiene marzo?", "Marzo tiene 31 días.", "es"),
        ("Wie oft kommt 'a' in 'Banane' vor?", "„a“ kommt 2-mal in „Banane“ vor.", "de"),
        ("Quelle est la première lettre de 'maison' ?", "La première lettre de « maison » est « m ».", "fr"),
        ("Qual è l'ultima lettera di 'casa'?", "L’ultima lettera di «casa» è «a».", "it"),
        ("Quel est le plus grand : 4, 18 ou 9 ?", "Le plus grand est 18.", "fr"),
        ("Combien de fois 'a' apparaît dans 'banane' ?", "« a » apparaît 2 fois dans « banane ».", "fr"),
        ("Wie viele Tage liegen zwischen dem 1. März 2024 und dem 1. April 2024?", "31 Tage.", "de"),
        ("How many days are between 2024-01-01 and 2024-03-01?", "60 days.", "en"),
        ("What is 2 to the power of 10?", "2 ^ 10 = 1024.", "en"),
    ],
)
def test_the_result_is_stated_in_the_users_language(request_text: str, statement: str, language: str) -> None:
    known = known_answer(request_text)
    assert known is not None and known.say(language) == statement


@pytest.mark.parametrize(
    ("request_text", "wrong"),
    [
        # delivered on llama.cpp as "checked by code": the right number appears, another is stated
        ("How many hours are in four days?", "Four days is 4 * 96 = 384 hours."),
        ("What is 5 times 40?", "… So, 5 * (400 / 10) = 70 metres."),
        ("What is 156 divided by 13?", "156 divided by 13 is approximately 1.375, with a denominator of 12"),
        ("Which is the biggest of 4, 18, 9?", "Of 4, 18 and 9, the biggest is 9."),
        ("What day comes after Tuesday?", "Tuesday is followed by Thursday."),
        ("What letter comes after G?", "The letter after G is I."),
        ("Round 3.14159 to 2 decimal places.", "3.1416"),  # a rounded number is stated to the digit
        # found in review: a number the answer denies, a "No" that is no answer, a list echoed before the answer
        ("What is 3 times 5?", "It's not 15."),
        ("How many seconds are in 3 minutes?", "3 minutes is 200 seconds, not 180 seconds."),
        ("Is 91 a prime number?", "No doubt, 91 is prime."),
        # a property stated without a leading yes or no, denied or named by its opposite
        ("Is 97 a prime number?", "97 isn't prime."),
        ("Is 97 a prime number?", "97 ist keine Primzahl."),
        ("Is 91 prime?", "Unlike 97, which is not prime, 91 is prime."),
        ("Is 15 an even number?", "15 is even."),
        ("Is 14 an even number?", "14 est impair."),
        ("Is 2023 a leap year?", "2023 is a leap year."),
        ("How many minutes are in a day?", "A day has 1.440 minutes."),  # in English, 1.44
        ("Sort alphabetically: kiwi, banana, cherry", "Alphabetical order of banana, cherry, kiwi is: kiwi, banana."),
        # what follows a "but" stands, and a "but" about another number takes nothing back
        ("Is 51 prime?", "51 might look composite, but it is prime."),
        ("Is 14 an even number?", "14 seems even but is odd."),
        ("Is 97 prime?", "97 looks prime, but it is not."),
        ("Is 97 prime?", "97 is odd, but it is not prime."),
        # a fraction is judged to the digits the answer writes
        ("Convert 37 °C to °F", "37 °C is 98.7 °F."),
        ("What is 100 °C in °F?", "100 °C is 213 °F."),  # pint's 211.99999999999997 made 213 close enough
        ("Convert 37 °C to °F", "37 °C is about 98 °F."),  # 98.6 written without its tenth is 99
        ("Sort alphabetically: kiwi, banana, cherry", "banana, cherry"),  # an item left out
        # found by mutation testing: the last working of a chain states the result, not the first
        ("What is 5 times 40?", "5 × (400 / 10) = 5 × 40 = 20."),
        ("What day comes after Tuesday?", "I do not know."),
        ("Is 97 a prime number?", "97 is not prime, but I checked it twice."),  # a "but" that takes nothing back
        ("What is 17 plus 25?", "Let me see: 17 plus 25 is 42. I think 40."),  # the last plain sentence stands
        # found trying new answers: the right number written before another unit of the asked kind
        ("How many minutes are in two hours?", "2 hours = 120 seconds."),
        ("Wie viele Minuten hat eine Stunde?", "Eine Stunde hat 60 Sekunden."),
        ("What is 1 divided by 3?", "About 0.3."),  # a fraction stated with two significant digits at least
        ("What is 2 divided by 3?", "0.7"),
        # found trying new answers: a tie rounds both ways, a count tied to its noun, a correction after the result
        ("What is 25 divided by 2?", "13"),
        ("What is 15% of 90?", "The answer is 14."),
        ("How many vowels are in 'education'?", "Education has 5 consonants and 4 vowels."),
        ("How many letters in 'encyclopedia'?", "It has 12 vowels and 5 letters."),
        ("What is 12 times 12?", "I think 144 but it is actually 124."),
        ("What letter comes before B?", "The letter before B is C."),
        ("Is 15 odd?", "It is even, since 15 = 2 × 7 + 1."),
        ("What is 6 times 7?", "The answer could be 42, 43, or 48."),  # candidates, no result
        ("What weekday was the 1st of March 2024?", "Friday or Saturday"),
        ("How many letters in 'elephant'?", "7 or 8 letters"),
        ("Is 0 even?", "0 is neither even nor odd."),
        ("What letter comes after G?", "The answer is I — H comes right before it."),
        ("What day comes after Monday?", "Wednesday, so Tuesday is the day before that."),
        ("What is 17 times 24?", "The answer is 408 because 17 × 20 = 340 plus 68. Actually, wait: it's 418."),
        ("What is 17 times 24?", "17 × 24 = 418, so 408 is wrong."),
        ("Is 91 prime?", "To check if a number is not prime, look for divisors. 91 has no divisors but 1 and itself."),
        # a question echoed or asked states nothing; a correction takes back what came before it
        ("Is 17 prime?", "Is 17 prime? 17 is not prime."),
        ("Ist 29 eine Primzahl?", "Ist 29 eine Primzahl? Nein, 29 ist keine Primzahl."),
        ("How many days does April have?", "April has 30 days? No, 31."),
        ("Is 17 prime?", "Yes... wait, no. 17 is not prime."),
        ("Reverse 'hello'", '"hello" backwards is "olleh"... no, "oellh".'),
        ("What day of the week was 25 December 2023?", "It was Monday, no wait, Tuesday."),
        ("What is 15% of 240?", "The answer is 36.0... hmm, more like 35."),
        ("Which is the largest of 12, 45, 3, 27?", "45 is not the largest; 27 is."),
        # found in a fifth round, written as small local models write
        ("What is 27 times 36?", "**Step 3:** 810 + 162 = 972\n\n**Final Answer:** \\( \\boxed{982} \\)"),  # LaTeX
        ("How many minutes are in 7 hours?", "7 × 60 = 420 minutes. Therefore, the answer is 480."),
        ("What is the sum of 1 to 80?", "It is 3240 by Gauss's formula, but the correct total is 3160."),
        ("Which is the largest: 34, 91, 57, 12?", "Among 91, 57, 34 and 12, 57 is the largest."),
        ("What is 96 divided by 8?", "96 divided by 8 is a classic example. To see it, 96 ÷ 8 = 14."),  # 8 is no result
        # found attacking those rules: a label, an offer, a "but", a step's "so" that are not the answer
        (
            "Is 1900 a leap year?",
            "Divisible by 100? Answer: yes. Divisible by 400? Answer: no. So 1900 is a leap year.",
        ),
        (
            "What is 17 times 23?",
            "At first glance it looks like 391. If you want the exact product, though, it is 401.",
        ),
        ("How many seconds are in 2 hours?", "2 hours = 120 minutes, so 120 × 60 = 7200. That gives 720 seconds."),
        ("What is the largest of 4, 9, 2?", "The largest is 4, but 9 comes close."),
        (
            "What day comes after Monday?",
            "Wednesday. You can double-check on any calendar: Monday, Tuesday, Wednesday.",
        ),
        ("How many hours are in 120 minutes?", "That is \\( \\frac{5}{2} \\) hours."),  # 5/2 hours, not 2 hours
        ("What day comes 2 days after Saturday?", "It is Tuesday. The answer assumes the week starts on Monday."),
        # found comparing with the judge before: a conclusion named, a day named as the answer only "if"
        ("What is 17 times 23?", "401 is the final answer. Check: 17 × 20 = 340, 17 × 3 = 51, 340 + 51 = 391."),
        ("What day comes after Thursday?", "Saturday. The answer is Friday only if you count Thursday itself."),
        (
            "How many grams are in 2.5 kilograms?",
            "Multiply by 1,000: the result is 2,500. 2.5 kilograms equals 250 grams.",
        ),
        ("Is 119 prime?", "Is 119 divisible by 2? No. Is it divisible by 3? No. Therefore, 119 is a prime number."),
        ("Is 89 prime?", "You asked whether 89 is prime. It is not, because 89 = 7 × 13 − 2."),
        ("Ist 119 eine Primzahl?", "Ist 119 durch 2 teilbar? Nein. Durch 3? Nein. Also ist 119 eine Primzahl."),
        # the steps before a label are working: what follows "Answer:" is the result
        ("What day comes after Saturday?", "Step 1: Saturday, then Sunday. **Answer:** The day after is Monday."),
        ("Quel jour vient après samedi ?", "Étape 1 : samedi, puis dimanche.\n\nRéponse : lundi."),
        ("How many minutes are in 3 hours?", "3 × 60 = 180 minutes.\n**Final answer:** 190 minutes"),
        ("Reverse the word 'basket'.", "The reversed word is 'teksab'. Or written differently: 'tekasb'."),  # two
        # a label labels its own sentence: the working after it explains, it does not answer
        ("What is 12 * 12 * 12?", "**Answer:** 1700\n\nExplanation: 12 × 12 = 144 and 144 × 12 = 1728."),
        ("How many minutes are in 3.5 hours?", "Answer: 190 min. 210 minutes would be wrong."),
        # a list that holds more than the items is another list
        ("Sort ascending: 5, 2, 9, 1", "1, 2, 5, 9, 10"),
        ("Sort ascending: 5, 2, 9, 1", "1, 2, 2, 5, 9"),
        ("Put in alphabetical order: zebra, apple, mango", "apple, banana, mango, zebra"),
        # more than one item more, before the items, a duplicate, one item a line, a chain
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "2, 4, 7, 9, 10 and 12"),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "1, 2, 4, 7, 9"),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "2, 2, 4, 7, 9"),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "- 2\n- 4\n- 7\n- 9\n- 11"),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "2 < 4 < 7 < 9 < 11"),
        ("Sort alphabetically: kiwi, banana, cherry", "banana, cherry, kiwi, mango, papaya"),
        ("Sort alphabetically: kiwi, banana, cherry", "banana\ncherry\nkiwi\nkiwi"),
        (
            "Sort alphabetically: Smith, John; Doe, Jane; Brown, Alice",
            "Brown, Alice; Doe, Jane; Smith, John; Smith, Anna",
        ),
        # "en réalité", "in realtà" correct with a short statement
        ("Combien font 12 fois 11 ?", "12 fois 11 font 132, en réalité 121."),
        ("Quel jour vient après mardi ?", "C'est mercredi, en réalité jeudi."),
        ("¿Es 2400 un año bisiesto?", "Sí... aunque en realidad no, porque termina en 00 y esos no son bisiestos."),
        # a weekday or a letter is the one the conclusion ends with, not the first named
        ("What day of the week is 25 December 2025?", "The 24th is a Thursday, so the 25th is a Friday."),
        ("What day comes after Sunday?", "Monday is the day before Tuesday, so the answer is Tuesday."),
        ("Quel jour était le 14 juillet 1789 ?", "Le 13 juillet 1789 était un mardi, donc le 14 était un mercredi."),
        ("What letter comes before M?", "L comes after K, so the letter before M is K."),
        # a conclusion that is its number alone stands; a fraction states its value
        ("How many days are in February 2100?", "It usually has 28 days, and 29 in leap years. 2100 is one, so 29."),
        ("What is half of 7?", "3⅓"),
        ("How many hours are in 150 minutes?", "150/60 = 5/2 = 2 1/4 hours"),
        # the number an answer calls the larger, by its own clause or its place in a chain
        ("Which is larger: 9.11 or 9.9?", "The smaller one is 9.9; the larger is 9.11."),
        ("Which is larger: 9.11 or 9.9?", "9.9 is smaller and 9.11 is larger."),
        ("Which is larger: 9.11 or 9.9?", "9.9 < 9.11"),
        ("Which is smaller: 9.11 or 9.9?", "9.11 > 9.9"),
        ("Welche ist die kleinste Zahl: 45, 23, 67, 19?", "Die kleinste Zahl ist 19 oder 23."),  # a hedge
        # found by a review of this round's rules: a conclusion about another day or letter, English "also", a chain
        # beside a stated answer, another unit after "so", items not plain words, a longer self-correction
        (
            "What day of the week is 25 December 2025?",
            "Der 25. Dezember 2025 ist ein Freitag, also ist der Tag davor ein Donnerstag.",
        ),
        ("What day comes after Thursday?", "It's Saturday. Also, the weekend starts on Friday."),
        ("What day comes after Thursday?", "So the answer is Saturday, right after Friday."),
        (
            "What day of the week is 25 December 2025?",
            "Christmas falls on a Friday, so the holiday weekend starts Thursday.",
        ),
        ("What letter comes after H?", "The letter after H is J, so the letter before J is I."),
        ("Which is the smallest: 2.5, 1.75, 3.2?", "Since 1.75 < 2.5 < 3.2, the answer is 3.2."),
        ("How many vowels are in 'education'?", "'education' has 4 vowels, so 5 consonants."),
        ("Sort alphabetically: Rome, Berlin, Paris", "**Berlin**, **London**, **Paris**, **Rome**"),
        ("Sort alphabetically: Rome, Berlin, Paris", "Berlin, Rio de Janeiro, Paris, Rome"),
        ("Sort alphabetically: kiwi, banana, cherry", "banana, cherry, kiwi-fruit, kiwi"),
        ("¿Cuánto es 15 por 14?", "El resultado es 210. En realidad son 220, perdón por el error anterior."),
        ("Was ist 15 mal 14?", "Die Antwort ist 210.\n\nEigentlich habe ich mich verrechnet: 15 × 14 = 220."),
        ("What is 15 times 14?", "15 × 14 = 210. On second thought, the product would be 220."),
        ("Is 17 even or odd?", "17 ends in 7, which is odd, so 17 is even."),
        ("What is 144 divided by 12?", "144/12"),  # the question written again
        ("What is 2 to the power of 10?", "2^10 = 1000. - Note: 2^10 = 1024 is the usual value."),
        # found by a second review: a "wrong" that goes on corrects, a would-be that names the answer states, a
        # conclusion about another date, "so is" (too), a leading yes or no to "even or odd?", a verdict contradicted
        ("What is 17 × 23?", "17 × 23 = 391. That's wrong, it should be 401."),
        ("Combien font 12 fois 12 ?", "12 × 12 = 144. C'est faux, la bonne réponse est 124."),
        ("Combien font 12 fois 12 ?", "La réponse est 144. En fait, en refaisant le calcul 12 × 12 on obtient 124."),
        ("What is 17 × 23?", "17 × 23 = 391. Double-checking, I believe the final answer would be 401."),
        ("What day of the week was July 4, 1976?", "July 4, 1976 was a Saturday. So July 5 was a Sunday."),
        ("What day comes after Tuesday?", "The day after Tuesday is Thursday; so is Wednesday."),
        ("Which is larger, 9.9 or 9.11?", "You might think 9.9 is bigger, but the answer is 9.11."),
        ("Which is larger, 9.9 or 9.11?", "9.11 is larger: 9.9 < 9.11."),
        ("Is 348 even or odd?", "No, it's odd."),
        ("Is 348 even or odd?", "**Odd**\n\n348 ÷ 2 = 174 with no remainder, so it is even."),
        ("Ist 348 gerade oder ungerade?", "348 endet auf 8, das ist gerade, deshalb ist 348 ungerade."),
        ("¿Es 77 par o impar?", "77 termina en 7, que es impar, así que 77 es par."),
        ("How many minutes are in a day?", "24 × 60 = 1,440, as each hour has 60 minutes. Total: 1,400 minutes."),
        ("What is 17 × 23?", "401, as 17 × 23 = 391."),
        ("What is 10 divided by 4?", "To compute 10/4, divide 10 by 4."),
        ("Is 17 even or odd?", "Yes."),  # a yes says nothing of which
        ("Is 17 even or odd?", "17 is even."),
        ("Sort alphabetically: kiwi, banana, cherry", "First comes kiwi, then banana, and cherry is last."),
        # a hedge, a reason after "as", what the result would be or is not
        ("What is 12 * 12 * 12?", "About 1728, maybe 1738."),
        ("How many minutes are in a day?", "A day has 1,400 minutes, as 24 × 60 = 1,440 minutes."),
        ("What is 7 plus 8 times 2?", "It's 30. By PEMDAS you'd get 23."),
        (
            "How many minutes are in a day?",
            "It's 1,400 minutes. Many people think it's 1,440 minutes, but that's wrong.",
        ),
        # two days offered with an article between them
        ("Quel jour de la semaine était le 14 juillet 1789 ?", "Je crois que c'était un mardi ou un mercredi."),
        ("What day of the week was 14 March 2015?", "It was a Saturday or a Sunday, I'm not sure."),
        # found by a second held-out answer set: a candidate offered with "maybe"; a yes its last clause takes back
        ("Le 14 juillet 1789 tombait quel jour de la semaine ?", "Un mardi, ou peut-être un mercredi."),
        ("89, c'est un nombre premier ?", "En fait si, 8 + 9 = 17. Non, 89 n'est pas un nombre premier."),
        # a word reversed is the one the answer concludes with or does not deny, not one it merely names
        ("Reverse 'hello'", "Some would write 'olleh', but the right answer is 'hello'."),
        ("Reverse 'hello'", "It's not 'olleh', it's 'hello'."),
        ("Reverse 'hello world'", "Not 'dlrow olleh': the answer is 'olleh dlrow'."),
        ("Write 'hello' in capitals", "Not 'HELLO' but 'Hello'."),
        ("Schreibe 'Haus' rückwärts", "Man könnte 'suah' schreiben, aber die richtige Antwort ist 'haus'."),
        # found by a third held-out answer set: two letters offered, a Spanish "o bien … o bien"
        ("Which letter comes right after 's' in the alphabet?", "It is either t or r."),
        ("¿Cuál es el menor de estos números: 16, 90, 205, 216, 84?", "Es o bien 16 o bien 84."),
        # found by a fourth held-out answer set: a second result offered after the first, Italian "oppure", French
        # "soit … soit", another word quoted as an alternative; a "No" that answers alone before its clause
        ("What's 936 ÷ 13?", "I think it's 74, but it might also be 72."),
        ("Calcule 36 × 29.", "Je pense que c'est 1044, mais ça pourrait aussi être 1080."),
        ("Wie viele Tage hat der Februar 2100?", "Ich glaube, es ist 28, aber es könnte auch 29 sein."),
        ("Quante volte compare la lettera 'p' in 'pappagallo'?", "È 3 oppure 5."),
        ("Che giorno della settimana era 17 giorni prima di un sabato?", "È mercoledì oppure venerdì."),
        ("Quante ore sono 330 minuti?", "È 6 ore oppure 5.5 ore."),
        ("Combien de jours compte le mois de mars 1988 ?", "C'est soit 31, soit 30."),
        ("Escribe la palabra «camino» al revés.", "Es «onimac» o «oimac»."),
        ("7390 è un numero pari?", "1. 7390 ÷ 2 = 3695, resto 0\n2. Quindi: No, 7390 è dispari."),
        ("How many km is 5 miles?", "5 miles is 8,047 km."),  # in English, 8047
        ("Reverse 'stressed'", "stressed\n\nCheck: stressed → desserts ✓"),
        # found by a fifth held-out answer set: a multiple choice's pick, a result worked out again to another
        ("How many miles is 203 km?", "A) 107.22 miles  B) 151.37 miles  C) 126.14 miles\n\nThe correct answer is A."),
        ('How many letters are in the word "calendar"?', "A) 10\nB) 9\nC) 8\n\nThe correct answer is B."),
        (
            "How many minutes are in 2 hours?",
            "The answer is 120 minutes.\n\nLet me double-check:\n- 1 h = 60 min\n- 2 × 60\n"
            "Going through it once more, I get 20 minutes.",
        ),
        (
            "Schreibe „Tomate“ in Großbuchstaben.",
            'The answer is "TOMAT".\n\nLet me double-check:\n- t → T\nGoing through it once more, I get "TOMATE".',
        ),
        (
            "¿Qué letra va antes de la «b» en el alfabeto?",
            "La respuesta es «b».\n\nDéjame comprobarlo otra vez:\n- a b c d\nAl repasarlo de nuevo, obtengo «a».",
        ),
        ("Welcher Buchstabe kommt im Alphabet direkt nach „j“?", "It's k or i; I'm not completely sure which."),
        ("What is the first letter of 'apple'?", "The answer is a simple one: p."),  # "a" is an article there
        # found by a sixth held-out answer set
        ("Welcher Buchstabe kommt im Alphabet nach dem R?", "Vermutlich „S“, es könnte aber auch „Q“ sein."),
        ("Scrivi «lanterna» in maiuscolo.", "È «LANTENA» oppure «LANTERNA»."),
        # found by a seventh held-out answer set: a summary that reaches another result
        (
            "Che giorno della settimana era 38 giorni prima di un venerdì?",
            "La risposta è martedì.\n\n- 38 = 7 × 5 + 3\n\nRiassumendo, però, la risposta finale è lunedì.",
        ),
        ("Reverse 'stressed'", "Reversed: desserts (or 'dessert' if you drop the s)"),
        ("¿Qué día viene después del lunes?", "O bien martes o bien miércoles."),  # any two things offered so
        ("Quelle lettre vient après k ?", "Ou bien l ou bien m."),
        # a result headlined, then another concluded: the conclusion stands
        ("What is 6 + 6?", "**12**\n\n12 + 1 = 13, so the total is 13."),
        # an operand of a working is no result, though it comes first
        ("What is 5 + 0?", "5 + 0 yields 6."),
        ("How many letters are in the word 'banana'?", "Moltiplica 6 per 7"),
        # found by an eighth held-out answer set: a largest stated is one of the numbers as stated, never rounded
        ("Which is the largest: 5.8, 5.08, 5.81, 5.18?", "5.8 is the largest, since its first decimal is the biggest."),
        ("What is 2345 divided by 4?", "Dropping the remainder, 2345 ÷ 4 = 586."),  # a fraction is never whole
        ("What is 100 divided by 7?", "100 ÷ 7 = 14."),
        ("Was ist 50 geteilt durch 3?", "50 / 3 = 17"),
        ("What letter comes after K?", "… I, J, K, L, M …\n\nThe letter after K is M."),
        ("Spell 'window' backwards", "Letters reversed: w-o-d-n-i-w\n\nAs one word: **wodinw**"),  # written last
        ("Spell 'window' backwards", "w-o-d-n-i-w, so: wodnw"),
        ("Quelle est la racine carrée de 784 ?", "La racine carrée de 784 est **27**, car 28 × 28 = 784."),
        ("Was ist 18 mal 47?", "18 mal 47 sind 864. Probe: 846 : 18 = 47 ✓"),
        ("¿Cuántos metros son 2,4 kilómetros?", "2,4 km = **2.400,5 metros**."),
        ("Qual è l'ultima lettera della parola «gatto»?", "Lettere: g, a, t, t, o. Prima: g — ultima: **t**."),
        (
            "Che giorno della settimana era il 25 dicembre 2000?",
            "Per il 2000 il doomsday è martedì; il 12/12 è un doomsday, quindi martedì 12, martedì 19, e il 25 "
            "dicembre è **martedì**.",
        ),
        ('Qual è la lettera che viene dopo la "g"?', "L'alfabeto: ... e, f, g, h, i ... La lettera dopo la g è i."),
        (  # a conclusion about another date ("il 26"): Italian "è" is no "and" that would part it from its date
            "Che giorno della settimana era il 25 dicembre 2000?",
            "Il 25 dicembre 2000 è domenica, quindi il 26 dicembre è lunedì.",
        ),
        (  # a short last sentence says the day, whatever the working reached
            "¿Qué día será 100 días después de un lunes?",
            "Resto 2 → lunes + 2 = miércoles.\nPero el propio lunes cuenta como día 1, así que retrocedemos uno.\n\n"
            "Será martes.",
        ),
        (
            "What is the first letter of 'apple'?",
            "150 = 21 × 7 + 3\nMonday + 3 → Tue, Wed, Thu\n\n150 days after a Monday it's a Thursday.",
        ),
    ],
)
def test_an_answer_passes_only_on_the_result_it_states(request_text: str, wrong: str) -> None:
    known = known_answer(request_text)
    assert known is not None and not known.holds(wrong)


@pytest.mark.parametrize(
    ("request_text", "answer"),
    [
        ("What is 5 minus 12?", "5 − 12 = −7"),  # the minus sign
        ("Sort alphabetically: kiwi, banana, cherry", "Sorting kiwi, banana, cherry gives banana, cherry, kiwi."),
        ("Sort alphabetically: salt and pepper, bread, cheese", "bread, cheese, salt and pepper"),
        ("Is 23 a prime number? Answer yes or no.", "Yes."),
        # found in review: a property stated without a leading yes or no failed the judge
        ("Is 97 a prime number?", "97 is a prime number."),
        ("Is 97 a prime number?", "97 es un número primo."),
        ("Is 91 prime?", "91 = 7 × 13, so it is not prime."),
        ("Is 91 prime?", "Unlike 97, 91 is not a prime: 91 = 7 × 13."),
        ("Is 15 an even number?", "15 ist ungerade."),
        ("Is 2024 a leap year?", "2024 is a leap year: it is divisible by 4."),
        # a sentence that takes back what it said ("but") says what follows the turn
        ("Is 51 prime?", "51 looks prime but is not prime: 51 = 3 × 17."),
        ("Ist 51 eine Primzahl?", "51 sieht wie eine Primzahl aus, ist es aber nicht."),
        ("Is 14 an even number?", "14 is not odd but even."),
        ("Is 97 prime?", "97 is prime, but 91 is not."),
        # a unit named by another of its names: "°F" for Fahrenheit
        ("Rechne 100 Grad Celsius in Fahrenheit um", "100 °C entsprechen 212 °F."),
        ("Convert 37 °C to °F", "37 °C is 98.60 °F."),
        # German writes thousands with dots: "1.440" is 1440 where the answer is not English
        ("Wie viele Minuten hat ein Tag?", "Ein Tag hat 1.440 Minuten."),
        ("Was ist 1000 mal 1234?", "Das Ergebnis ist 1.234.000."),
        # found by mutation testing
        ("Convert 37 °C to °F", "37 °C is about 99 °F."),  # 98.6 to the digits written
        ("What is 5 times 40?", "5 × (400 / 10) = 5 × 40 = 200."),
        ("What is 6 times 7?", "Because 6 times 7 is 42."),  # only explaining sentences: the first states it
        ("What is 6 times 7?", "Therefore it is 42. I double-checked 6 and 7."),  # the concluding sentence states it
        ("Reverse 'Hello'", "Reversed: OLLEH"),  # a word reversed, whatever the case
        ("What letter comes after G?", "After G comes H."),  # the asked letter named first
        ("Is 97 a prime number?", "It is prime."),  # the number not named again
        ("Rechne 100 Grad Celsius in Fahrenheit um", "Water boils at 100 °C, or 212 °F."),  # °F names Fahrenheit
        ("What is 1000 times 1234?", "The result is 1.234.000."),  # two dots group thousands in English too
        ("What is 17 plus 25?", "Let me see: 17 plus 25. I think 42."),
        # found trying new answers: a rounding stated as such, and a result before a word that is no unit of its kind
        ("Round 8.6 to the nearest whole number.", "8.6 rounds to 9.0"),
        ("Round 8.6 to the nearest whole number.", "8.6 rounded to the nearest whole number is 9."),
        ("Arrondis 8,6 à l'unité.", "8,6 arrondi à l'unité donne 9."),
        ("How many minutes are in two hours?", "That is 120 in all."),
        ("How many minutes are in two hours?", "Two hours are 120 min."),
        ("How many minutes are in two hours?", "It makes 120 are... I mean 120 minutes."),
        # the asked unit by its symbol, after a number in another unit: the number tied to it is the result
        ("How many metres are in 3 km?", "3 km is 300000 cm, that is 3000 m."),
        ("How many minutes are in two hours?", "Two hours is 7200 s, or 120 min."),
        ("What is 1 divided by 3?", "0.33"),  # two significant digits, rounded right
        ("What is 2 divided by 3?", "About 0.67."),
        ("What is 0.1 + 0.2?", "0.3"),  # the result itself, whatever floating point makes of it
        # found trying new answers: markdown, a "so" within the sentence, the count tied to "days", a places word
        ("What is 17 times 23?", "17 × 23 = **391**"),
        ("Is 91 prime?", "**No** — 91 = 7 × 13."),
        ("What is 17 times 23?", "17 × 20 = 340, plus 17 × 3 = 51, so 391."),
        ("What is 17 times 23?", "17 × 20 = 340 and 17 × 3 = 51, so the answer is 391."),
        ("How many days in February 2000?", "2000 is a leap year, so February had 29 days."),
        ("Wie viele Tage hat der Februar 2024?", "Im Jahr 2024 hat der Februar 29 Tage."),
        ("Round 3.14159 to 2 decimal places", "3.14159 rounded to two decimal places is 3.14."),
        ("Rank from smallest to largest: 7, -2, 0", "−2, 0, 7"),
        ("How many vowels are in 'education'?", "Education has 4 consonants and 5 vowels."),
        # a letter as people state it: after an article or "I think", denied, in Italian after "È"
        ("What letter comes after Y?", "It's a Z."),
        ("What letter comes after G?", "I think it's H."),
        ("What letter comes after K?", "It's not J, it's L."),
        ("Quale lettera viene dopo la H?", "È la I."),
        ("Is 91 prime?", "It's not prime: 91 = 7 × 13."),  # the property named before the number
        ("Is 15 odd?", "It is odd, since 15 = 2 × 7 + 1."),
        # a result before its reason, a weekday after "so" or "actually", the asked day again, a count tied to "r's"
        ("How many hours are in 3 days?", "72 hours, because each day has 24 hours."),
        ("What is the square root of 81?", "9, since 9 × 9 = 81."),
        ("What day comes after Monday?", "Tuesday. So Wednesday would be two days after."),
        ("Quel jour vient après lundi ?", "Le jour après lundi est mardi, donc mercredi est dans deux jours."),
        ("How many hours are in 3 days?", "A day has 24 hours. Since we have 3 days, that's 72 hours."),
        ("How many days does February 2024 have?", "In 2024, since it is a leap year, February has 29 days."),
        ("What is 17 times 24?", "The product is 408, so roughly 400."),
        ("What is 1 divided by 4?", "0.25, or 25%"),  # one value said twice, not two candidates
        ("What is 25 divided by 2?", "It's neither 12 nor 13 but 12.5"),
        ("How many s's are in 'Mississippi'?", "'s' appears 4 times; 'i' also appears 4 times, and 'p' 2 times."),
        ("How many words are in 'the cat sat down now'?", "There are 5 words in this 1 sentence."),
        ("What letter comes after G?", "The letter after G is H. I hope this helps!"),
        ("What letter comes before C?", "The letter before C is B. A is the first letter."),
        ("What letter comes before B?", "A comes before B."),
        ("Quale lettera viene dopo la G?", "Dopo la G viene la H. E poi la I."),
        ("Combien font 6 fois 7 ?", "6 fois 7 égale 42."),
        ("Was ist 6 mal 7?", "6 mal 7 ist gleich 42."),
        ("Round 3.14159 to 2 decimal places", "3.14159 → 3.14"),
        ("Which is the largest of 12, 45, 3, 27?", "The largest is 45, not 27."),
        ("What weekday was the 1st of March 2024?", "It was Thursday... actually Friday."),
        ("What day is 7 days after Monday?", "Monday"),
        ("How many r's are in 'strawberry'?", "Strawberry has 10 letters and 3 r's."),
        # found in a fifth round, written as small local models write
        ("What is 27 times 36?", "So, \\( 27 \\times 36 = \\boxed{972} \\)."),
        ("What is 8 minus 15?", "\\( 8 - 15 = -7 \\)"),
        ("What is 3 divided by 8?", "3 ÷ 8 = 0,375"),  # a leading 0 is no thousands group
        ("How many seconds are in 4 hours?", "Il y a 14\u00a0400 secondes dans 4 heures."),
        ("How many metres are in 6 km?", "6 km = 6,000 meters.\n\nNote that 1 km equals 1,000 meters."),
        (
            "What is 27 times 36?",
            "27 × 36 = 972.\n\nLet me know if you'd like to see another way to multiply 27 by 36!",
        ),
        (
            "Is 119 prime?",
            "To determine if 119 is prime, we look for divisors. Therefore, 119 is **not** a prime number.",
        ),
        ("Is 1900 a leap year?", "**Answer:** No"),
        ("Is 2032 a leap year?", "To determine whether 2032 is a leap year: 2032 ÷ 4 = 508. **Answer: Yes**"),
        ("Sort these numbers in ascending order: 56, 9, 31, 4, 77", "1. 4\n2. 9\n3. 31\n4. 56\n5. 77"),
        ("Is 91 prime?", "Is 91 prime? No. It equals 7 × 13."),  # the question echoed, then answered
        ("What is 17 times 23?", "17 × 23 = 391. Feel free to double-check with a calculator!"),
        ("Is 2024 a leap year?", "To check whether 2024 is a leap year: 2024 ÷ 4 = 506, so yes."),
        ("What is 5 divided by 6?", "5 divided by 6 is 5/6, which is about 0.83."),
        # found comparing with the judge before: a remark after the result is no result
        ("How many days are in February 2023?", "February 2023 has 28 days, but in a leap year it would have 29."),
        ("What is 17 times 23?", "Many people guess 401, but the correct answer is 391."),
        ("Convert 5 km to meters.", "5 kilometers is 5,000 meters. So you multiply by 1,000."),
        ("Combien de mètres dans 3 kilomètres ?", "3 km = 3 000 m. Donc on multiplie par 1 000."),
        ("Is 2023 a leap year?", "No, 2023 isn't divisible by 4. The next leap year is 2024."),
        (
            "2100 est-elle une année bissextile ?",
            "Non, 2100 n'est pas bissextile : divisible par 100 mais pas par 400.",
        ),
        ("What is 15% of 240?", "**36** is the answer. Here's how: 10% of 240 is 24, and 5% is 12."),
        ("Sort these numbers in ascending order: 42, 7, 19, 3, 88", "Ascending:\n3.\n7.\n19.\n42.\n88."),
        # found on a fresh set of answers: a working named "the result", a hedge before the verdict
        ("How many minutes are there in 6.5 hours?", "The result is 6.5 × 60. That's 390 minutes."),
        ("How many hours are in 5 days?", "To find the answer, multiply 5 by 24. This gives 120 hours."),
        ("Is 133 a prime number?", "No, 133 might seem prime, but it equals 7 × 19."),
        ("Is 101 prime?", "Yes, 101 is not divisible by any prime below 11, which means it's prime."),
        ("Ist 57 eine Primzahl?", "Nein. 57 sieht aus wie eine Primzahl, ist aber durch 3 teilbar."),
        ("What day comes after Saturday?", "Saturday is day 6, Monday day 1.\n**Answer:** Sunday"),
        ("Is 7 prime?", "Is 7 prime? Answer: yes."),  # a label answering a question asked is no cut
        ("Reverse the word 'basket'.", "Not 'tekasb' but 'teksab' ('basket' backwards)."),
        ("Round 2.675 to 2 decimal places.", "Answer: 2.68\n\nThe digit in the third place is 5."),
        ("Sort ascending: 5, 2, 9, 1", "The sorted list is 1, 2, 5 and 9 and that is ascending."),
        # found by a review of the label and list rules: a label alone on its line opens what follows up to a heading,
        # a label's paragraph that leads on ("is:", "= ?") opens the next; a sentence after a list names no item
        ("What is 12 times 11?", "Answer:\n\n**Step 1:** 12 × 10 = 120\n**Step 2:** 120 + 12 = 132"),
        ("What is 12 times 11?", "Answer: 12 × 11 = ?\n\n12 × 11 = 132"),
        ("What is 12 times 11?", "Answer: Approx. 132"),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "Answer: The sorted list is:\n\n2\n4\n7\n9"),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "2, 4, 7, 9\n\nThe largest number, 9, comes last."),
        ("Sort these numbers in ascending order: 9, 2, 7, 4", "2, 4, 7, 9, ascending."),
        ("Sortiere aufsteigend: 3,5; 1,25; 10", "1,25 < 3,5 < 10"),
        (
            "Reverse 'tops'",
            "The reverse of 'tops' is 'spot'. Fun fact: 'stop', 'post' and 'pots' use the same letters!",
        ),
        # the last list is the answer's: the sentences after it name items again, the one before it echoes them
        (
            "Sort these numbers in ascending order: 9, 2, 7, 4",
            "The numbers in ascending order are: 2, 4, 7, 9. The smallest is 2 and the largest is 9.",
        ),
        (
            "Sort alphabetically: kiwi, banana, cherry",
            "banana, cherry, kiwi\n\nKiwi comes last because K comes after C.",
        ),
        # "in fact" before a remark corrects nothing; a check after the result states none
        ("Escribe 'perro' al revés", "Al revés, 'perro' se escribe 'orrep'. En realidad, solo hay que leer al revés."),
        (
            "Quel jour vient après mardi ?",
            "Le jour après mardi est mercredi. En réalité, la semaine commence le lundi.",
        ),
        ("Quanto fa 18 per 7?", "Il risultato è 126. In realtà, basta fare 10 × 7 + 8 × 7."),
        ("Quanto fa 18 per 7?", "Risposta: 116. In realtà, 18 × 7 = 126."),
        ("Ist 187 eine Primzahl?", "Ja. Eigentlich nein: 11 × 17 = 187, also keine Primzahl."),
        ("Combien font 12 fois 11 ?", "12 × 11 = 132. En réalité, on peut vérifier : 132 ÷ 11 = 12."),
        ("What is 144 divided by 12?", "144 ÷ 12 = 12.\n\nCheck: 12 × 12 = 144 ✓"),
        # a working after "is" or a colon is no result, one after "=" may be; "to get" gives a result
        ("Was ist 15 mal 14?", "Die Antwort: 15 mal 14 ist 210."),
        ("What's the square root of 144?", "144 = 12 × 12"),
        ("What is 5 - 10?", "It's 5 below zero, i.e. -5"),
        ("What is 12 times 11?", "Answer:\n1. Multiply 12 by 10 to get 120.\n2. Add 12 to get 132."),
        ("What is 2 to the power of 10?", "Answer: 2^10 = 2 × 2 × ... × 2 = 1024."),
        ("What day of the week is 25 December 2025?", "The 24th is a Wednesday, so the 25th is a Thursday."),
        ("What day is 3 days after Friday?", "Friday + 1 = Saturday, + 2 = Sunday, + 3 = Monday. So it's Monday."),
        ("Che giorno viene dopo venerdì?", "Giovedì, venerdì, sabato: quindi sabato."),
        ("What letter comes before M?", "The alphabet goes K, L, M, so the letter before M is L."),
        ("What letter comes before M?", "A B C D E F G H I J K L M → L"),
        # a fraction, a mixed number, a sign for one, a minus or a half in words state their value
        ("What is 1/2 plus 1/3?", "1/2 + 1/3 = 3/6 + 2/6 = 5/6"),
        ("What is 10 divided by 3?", "3 1/3"),
        ("What is half of 7?", "Half of 7 is 3½."),
        ("How many hours are in 90 minutes?", "One and a half hours."),
        ("What is 5 minus 10?", "The answer is minus 5."),
        # a sum named concludes, a conclusion of its number alone stands, a working explained is no conclusion
        ("What is the sum of all numbers from 1 to 50?", "The sum is 1,275. This is the 50th triangular number."),
        (
            "How many days are there between 1 January 2024 and 1 January 2025?",
            "A normal year has 365 days, but 2024 is a leap year, so there are 366.",
        ),
        ("What is 12 times 11?", "Answer:\n\nTo find the product of 12 and 11, we multiply them.\n\n12 × 11 = 132"),
        # a labelled or informal no, a common year
        ("Is 91 prime?", "Short answer: No. 91 = 7 × 13."),
        ("Is 91 prime?", "Nope, 91 = 7·13."),
        ("Is 1900 a leap year?", "1900 is a common year."),
        ("Which is larger: 9.11 or 9.9?", "9.11 is smaller and 9.9 is larger."),
        ("Which is larger: 9.11 or 9.9?", "9.9 is larger than 9.11."),
        ("Round 3.14159 to the nearest hundredth", "3.14. To the nearest thousandth, it would be 3.142."),
        ("Which is smaller: 9.11 or 9.9?", "9.9 > 9.11"),
        # found by the same review: "than" in each language, a chain that only works, "as" that gives no reason, a
        # remark after "in fact", one value said twice, a list's items named again in a sentence after it
        ("Which is larger: 9.11 or 9.9?", "9.9 ist größer als 9.11."),
        ("Which is larger: 9.11 or 9.9?", "9.9 es mayor que 9.11."),
        ("Which is larger: 9.11 or 9.9?", "Compare 9.11 and 9.90: since 90 > 11, 9.9 is larger."),
        ("How many hours are in 150 minutes?", "We can write 150 minutes as 2.5 hours."),
        ("Quanto fa 15 per 14?", "La risposta è 210. In realtà è semplice."),
        ("What is 3 divided by 4?", "The answer is 3/4 or 0.75."),
        ("What is 15 times 14?", "15 × 14 = 210, which we get by multiplying 15 by 10 and 15 by 4."),
        ("Sort these numbers in ascending order: 5, 2, 9, 7", "Sorted: 2, 5, 7, 9\n\nSo 7 and 9 are the two largest."),
        ("Sort alphabetically: Rome, Berlin, Paris", "Berlin, Paris, Rome.\nRome is last because R comes after P."),
        # found by the second review
        ("What is 17 × 23?", "17 × 23 = 401. My earlier result was wrong: the correct product is 391."),
        ("What is 17 × 23?", "17 × 20 = 340, 17 × 3 = 51. So the answer would be 391."),
        ("What is 17 × 23?", "First, the product of 17 and 20 is 340. Then 17 × 3 = 51. Adding them: 340 + 51 = 391."),
        ("What is 17 × 23?", "Let's compute 17 × 20 = 340 and 17 × 3 = 51. Since 340 + 51 = 391, the answer is 391."),
        ("Was ist 15 mal 14?", "15 × 10 = 150 und 15 × 4 = 60. Das Ergebnis wäre also 210."),
        ("Which is larger, 9.9 or 9.11?", "9.9 is larger than 9.11, since 0.90 > 0.11."),
        ("Which is smaller: -3 or -5?", "−5 is smaller."),
        ("Sort from smallest to largest: 9, 2, 7, 4", "Here you go: 2, 4, 7 and 9. The two largest are 7 and 9."),
        ("Is 348 even or odd?", "Odd numbers end in 1, 3, 5, 7 or 9. 348 ends in 8, so it is even."),
        ("¿Es 348 par o impar?", "348 es par."),
        (
            "How many minutes are in a day?",
            "Multiply 24 hours by 60, as each hour has 60 minutes: 24 × 60 = 1,440 minutes.",
        ),
        ("What is 17 × 23?", "17 × 23 = 391, as 17 × 20 = 340 and 17 × 3 = 51."),
        ("Was ist 15 mal 14?", "15 × 10 = 150 und 15 × 4 = 60. Die Summe wäre 210."),
        (
            "Sort these numbers in ascending order: 5, 2, 9, 7",
            "| Position | Number |\n|---|---|\n| 1 | 2 |\n| 2 | 5 |\n| 3 | 7 |\n| 4 | 9 |",
        ),
        ("Is 17 even or odd?", "Odd."),
        ("Ist 17 gerade oder ungerade?", "17 ist ungerade."),
        ("Sort alphabetically: kiwi, banana, cherry", "First comes banana, then cherry, and kiwi is last."),  # no list
        ("What is 12 * 12 * 12?", "**Final answer:**\n\n1728\n\n**Explanation:** 12 multiplied by itself 3 times."),
        ("Reverse 'hello'", "So, 'hello' backwards is 'olleh'."),
        # a working over days states the last day it reaches; "Moment –" corrects; a range's "à" and "da" state nothing
        ("Che giorno sarà 3 giorni dopo sabato?", "Sabato + 1 = domenica, + 2 = lunedì, + 3 = **martedì**."),
        ("What day comes 10 days after Monday?", "Monday + 7 days = Monday, then + 3 days = Thursday."),
        ("Ist 57 eine Primzahl?", "Ja, eine Primzahl. Moment – die Quersumme ist 12: 57 = 3 × 19. Also **nein**."),
        ("Quelle est la somme des entiers de 10 à 20 ?", "La somme des entiers de 10 à 20 est 165."),
        ("Somma dei numeri interi da 1 a 30?", "Certo! La somma da 1 a 30 è 465."),
        ("Reverse 'hello world'", "Some would write 'world hello', but the answer is 'dlrow olleh'."),
        ("What day of the week is 25 December 2025?", "The 24th is a Wednesday; consequently the 25th is a Thursday."),
        (
            "Welcher Wochentag ist der 25. Dezember 2025?",
            "Der 24. ist ein Mittwoch, folglich ist der 25. ein Donnerstag.",
        ),
        (
            "Quel jour de la semaine est le 25 décembre 2025 ?",
            "Le 24 est un mercredi, par conséquent le 25 est un jeudi.",
        ),
        ("Quelle est la somme des entiers de 1 à 100 ?", "La somme de 1 à 100 vaut 5050."),
        ("¿Cuánto es 12 por 12?", "12 por 12 vale 144."),
        ("Quanto fa 100 diviso 8?", "**12,5**"),  # bold, no multiplication
        # a result headlined alone before its working; a yes that ends "the answer is"; "vor M" offers no letter
        ("How many days does February 2019 have?", "**28**\n\n2019 mod 4 = 3"),
        ("Arrondis 687,76 à l'entier le plus proche.", "**688**\n\nChiffre suivant : 7 ≥ 5"),
        ("¿Es 2052 un año bisiesto?", "**Sí**\n\n2052 mod 4 = 0\n2052 mod 100 = 52"),
        ("Ist 997 eine Primzahl?", "Nein.\n\nWarte, 997 hat keinen Teiler bis 31.\n\nThe correct answer is **Yes**."),
        ("Welcher Buchstabe kommt vor M?", "Vor M kommt L."),
        # a remark by the way states no result; a count in bold before its unit; "No," then its clause
        ("What is 15% of 240?", "15% of 240 is 36. By the way, the Eiffel Tower is about 330 meters tall."),
        ("¿Cuál es el doble de 1458?", "El doble de 1458 es 2916. Por cierto, la Torre Eiffel mide unos 330 metros."),
        ("Combien de jours compte le mois de mars 1988 ?", "Le mois de mars 1988 compte **31** jours."),
        (
            "Is 4837 an even number?",
            "Step 1: 4837 ÷ 2 = 2419, remainder 1\nStep 2: Therefore: No, 4837 is odd, not even.",
        ),
        ("How many hours is 330 minutes?", "5.5 hours or 330 minutes."),  # one value said twice
        # a line that checks the result states none ("→" concludes elsewhere)
        (
            "Écris le mot « arrosoir » à l'envers.",
            "« arrosoir » à l'envers donne « **riosorra** ».\n\nVérification: riosorra → arrosoir ✓",
        ),
        # a multiple choice's pick; a yes or no alone on the last line or in a table's result row; a program's output
        ("¿Cuál es la mitad de 1646?", "A) 832\nB) 823\nC) 833\n\nLa respuesta correcta es la B."),
        ("Is 53661 even?", "A) Yes\nB) No\n\nThe correct answer is B."),
        ("Is 53661 even?", "Let's solve this step by step.\n\n53661 = 2 × 26830 + 1\n\n$$\\boxed{\\text{No}}$$"),
        ("Is 1800 a leap year?", "| Step | Working |\n|---|---|\n| 1 | 1800 mod 400 = 200 |\n| **Result** | **No** |"),
        ("87249 est-il impair ?", "1. 87249 = 2 × 43624 + 1\n\nSo the answer is Yes (87249 is odd)."),
        (
            "Convertis 956 pieds en mètres.",
            "Voici un petit script Python :\n\n```python\nft = 956\nm_value = ft * 0.3048\n"
            "print(round(m_value, 2))\n```\n\nSortie : 291.39",
        ),
        ("Schreibe „Garten“ rückwärts.", "n-e-t-r-a-G"),  # spelled out
        (
            'Which letter comes after "n" in the alphabet?',
            'The answer is "o".\n\nHere is how I got there:\n- l m n o p\n\n'
            "Fun fact: in a survey of 2455 adults, about 81% answered this kind of question correctly.",
        ),
        ("Was ist der letzte Buchstabe des Wortes „Gurke“?", "Die Antwort ist **e**."),
        ("Which letter comes after n?", "The letters go n o p q, so the answer is o."),  # no "o" (or) offers two
        ("Quelle lettre vient juste avant « k » dans l'alphabet ?", "… i, j, k, l, m …\n\nLa réponse est donc **j**."),
        (
            "Rechne 78 Meilen in Kilometer um.",
            "Die Antwort ist 125,53 km.\n\nLass mich das noch einmal überprüfen:\n- 78 × 1,609344\n"
            "Wenn ich es noch einmal durchgehe, komme ich auf 125,53 km.",
        ),
        ("Wie viel sind −29 °C in Fahrenheit?", "Das sind genau minus 20,2 °F."),
        # a hypothetical after the result, a yes or no named before the working, a note after it
        (
            "What is 68 times 22?",
            "The answer is 1496.\n\n- 68 × 20 = 1360\n\nIf it were 68 × 23 instead, the answer would be 1564.",
        ),
        (
            "92498 è un numero dispari?",
            "La risposta è No.\n\n- 92498 ÷ 2 = 46249\n\nSe fosse 92499, la risposta sarebbe Sì.",
        ),
        (
            "Wie viele Buchstaben hat das Wort „apfelbaum“?",
            "- a – p – f – e – l – b – a – u – m\n\nEndergebnis: 9.\n\nÜbrigens: Wasser kocht bei 100 °C, also 212 °F.",
        ),
        ("Convierte 104 °F a grados Celsius.", "104 °F son aproximadamente 40 °C. Además, el agua hierve a 100 °C."),
        # three decimals after a comma, in an answer told in German, French or Spanish
        ("Wie viele Kilometer sind 5 Meilen?", "5 Meilen sind 8,047 Kilometer."),
        ("Combien font 9 divisé par 8 ?", "Cela fait 1,125."),
        ("Convierte 2711 gramos a kilogramos.", "Son 2,711 kg."),
        # found by an eighth held-out answer set: the day a sentence states beyond the request's own, each sentence
        # read alone; a result said again in other units; a curiosity beside it; the alphabet written out, and a
        # sentence about another relation
        (
            "What day of the week is 150 days after a Monday?",
            "150 = 21 × 7 + 3\nMonday + 3 → Tue, Wed, Thu\n\n150 days after a Monday it's a Thursday.",
        ),
        ("What is 2345 divided by 4?", "2345 / 4 = 586.25"),
        ("Was ist 50 geteilt durch 3?", "Das sind 16,67."),  # rounded to the digits written
        ("Combien de jours y a-t-il en 2036 ?", "366 jours soit 52 semaines et 2 jours."),
        ("Quanti giorni ci sono tra il 1 marzo 2025 e il 1 maggio 2025?", "61 giorni, cioè 8 settimane e 5 giorni."),
        ("How many minutes are in 2 hours?", "2 hours, i.e. 120 minutes."),
        ("¿Cuánto es 156 entre 12?", "13.\n\nCuriosidad: 12 es una docena."),
        ("What letter comes after K?", "… I, J, K, L, M …\n\nThe letter after K is L."),
        ("What letter comes after K?", "J.\n\nSorry — J comes before K, not after it. The letter after K is L."),
        ("What letter comes after K?", "L comes after K, not before it."),  # the only sentence that names one
        ("Dans l'alphabet, quelle lettre précède M ?", "M est la 13e lettre, donc la lettre avant M est L."),  # l'
        (
            "What is the last letter of 'tempo'?",
            "The last letter of 'tempo' is O.\n\nFun fact: 'tempo' has 'm' and 'p' side by side.",
        ),
        ("Spell 'window' backwards", "wodniw\n\nFun fact: 'window' and 'widow' share most letters."),
        ("Reverse 'cat'", "tac, a cat backwards"),  # "a" is no word of its letters
        ("Quelle est la racine carrée de 784 ?", "La racine carrée de 784 est **28**, car 28 × 28 = 784."),  # bold
        (
            "What weekday was 14 July 1989?",
            "| Date | Weekday |\n|---|---|\n| 1 July 1989 | Saturday |\n| 14 July 1989 | Friday |\n\nIt was a Friday.",
        ),
        ("Was ist 18 mal 47?", "Gerne! 18 mal 47 sind 846. Probe: 846 : 18 = 47 ✓ Sag Bescheid!"),  # a check's 47
        ("¿Cuántos metros son 2,4 kilómetros?", "2,4 km = **2.400 metros**."),  # a decimal comma: dots group
        ("Qual è l'ultima lettera della parola «gatto»?", "Lettere: g, a, t, t, o. Prima: g — ultima: **o**."),
        ('Qual è la lettera che viene dopo la "g"?', "L'alfabeto: ... e, f, g, h, i ... La lettera dopo la g è h."),
        (
            "Che giorno della settimana era il 25 dicembre 2000?",
            "Metodo del doomsday: per il 2000 il doomsday è martedì; il 12/12 è un doomsday, quindi martedì 12, "
            "martedì 19, e il 25 dicembre è **lunedì**.",
        ),
    ],
)
def test_a_right_answer_passes(request_text: str, answer: str) -> None:
    known = known_answer(request_text)
    assert known is not None and known.holds(answer)


@pytest.mark.parametrize(
    "request_text",
    [
        "What is 2 + 2? " + "x" * 200_000,
        ", ".join(str(n) for n in range(10_000)),
        "Sort: " + ", ".join(str(n) for n in range(10_000)),
        "🙂🙃😀" * 50,
        "Сколько букв в слове 'банан'? 香蕉有几个字母？",
        "",
        "''''''''''",
        "?",  # punctuation alone: no clause to read
        "How many letters in ab¾?",  # a fraction sign is a letter to a regex, and folds to "3⁄4"
        "Write ab½ in capitals",
        ". .",
        # numbers no digit writes: a superscript read as a month, ½ and -3 as a count of places (each raised)
        "What weekday was 5 ² 2024?",
        "How many days are between 1 ² 2024 and 3 March 2024?",
        "Round 5 to ½ decimal places.",
        "Round 5 to -3 decimal places.",
        "Round 7.25 to 2.5 decimal places.",
        "How many letters are in 'x²'?",  # ² is no letter
        # a power or a number no float holds, two numbers grouped each its own way (each raised)
        "What is 0 to the power of -1?",
        "What is 999999 to the power of 64?",
        "Round 12345678901234567890123456789.5 to the nearest whole number.",
        "What is 1,000 250,000 plus 7?",
        "Sort ascending: 1,000 250,000, 7",
    ],
)
def test_bad_input_is_read_without_raising_and_decides_nothing(request_text: str) -> None:
    assert known_answer(request_text) is None


def test_a_long_answer_is_judged_by_its_start_and_end() -> None:
    """The stated result stands at an answer's start or end; the middle of a megabyte is not read for it."""
    known = known_answer("What is 12 multiplied by 11?")
    assert known is not None
    filler = "Multiplying is repeated adding. " * 40_000
    assert known.holds(f"12 × 11 = 132.\n{filler}") and known.holds(f"{filler}\nSo the answer is 132.")
    assert not known.holds(f"{filler}\nSo the answer is 131.")


def test_an_answer_built_to_stall_the_judge_is_judged_by_its_last_correction() -> None:
    """200,000 corrections, or 100,000 questions, are read once each, never once per mark."""
    known = known_answer("What is 6 times 7?")
    assert known is not None
    assert known.holds("wait " * 200_000 + "42")
    assert not known.holds("wait " * 200_000 + "48")
    assert known.holds("Is it 41? " * 100_000 + "42") and not known.holds("Is it 42? " * 100_000 + "48")


@pytest.mark.parametrize(
    "built",
    [
        "\\(" + "{" * 3000 + "1" + "}" * 3000 + "\\)",  # LaTeX nested past any formula: pylatexenc recursed to death
        "Let me know" + ". ." * 4000,  # a closing offer made of sentence ends: read once, not once per way to split
        "$\\" * 4000,
        "\\(" * 500 + "1" + "\\)" * 500,  # formulas nested in formulas: the same recursion without a brace
        "Populations: 1,000 250,000.",  # two numbers grouped each its own way were read as one: ValueError
        "Populations: 1,000'250,000.",
        "Here it is\udcff",  # a lone surrogate, which text2num cannot encode
    ],
)
def test_an_answer_built_to_break_the_latex_or_offer_reading_is_judged_without_raising(built: str) -> None:
    known = known_answer("What is 6 times 7?")
    assert known is not None
    assert not known.holds(built)
    assert known.holds(built + "\n\n6 × 7 = 42")  # what it states after the noise still counts


def test_a_thank_you_is_the_subject_of_a_question_about_it() -> None:
    """Filler where it closes a request ("primera letra de mariposa? gracias"), but what "What does 'merci' mean?" is
    about: the checks that match an answer's subject with the request's keep it."""
    assert {"merci", "grazi"} <= stems("What does 'merci' mean, and 'grazie'?")
