"""The words paor reads requests by: each word family once, in every language paor speaks (en, de, fr, es, it).

A kind of request (nodes/reading/kinds.py) names the families its words come from; `FILLER` holds the words any
request may carry around what it states (question words, articles, "please", "answer yes or no"). A request is
decided only when every word it has is a slot, a word of its kind's families or filler: "Is 97 prime, and why?"
has a word no kind accounts for, and stays the model's. Weekday and month names come from the CLDR data Babel ships.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from functools import cache

from babel.dates import get_day_names, get_month_names

LANGUAGES = ("en", "de", "fr", "es", "it")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The words any request may carry besides what it states, by language (accents folded: see `fold`).
FILLER_BY_LANGUAGE = {
    "en": _words(
        "what whats which how many much is are was were be being the a an of in on there does do did please tell me us "
        "give calculate compute work out find answer with or number numbers value result exactly it this that for to "
        "say can you could would i need know want quick question show kindly get determine figure whole given "
        "following these those here word words my our now briefly short one simply reply respond single and its has "
        "have s hey hi thanks thank quickly will u pls plz mind telling gimme again comes come got thx q like"
    ),
    "de": _words(
        "was wie viele viel ist sind war waren der die das den dem des ein eine einen einem einer im in es gibt "
        "bitte berechne rechne sag sage mir uns antworte antwort mit oder zahl zahlen wort worter "
        "welche welcher welches wieviel wieviele hat haben kannst du sie mal folgende folgenden diese dieser "
        "dieses genau ergebnis nenne gib an und kurz kurze frage einfach von am auf gewesen sagen hatte welchem "
        "vielen ne fur danke konnten konnen welchen dann mochte mochten wissen ich"
    ),
    "fr": _words(
        "quel quelle quels quelles combien est sont le la les l un une des de du d en y a t il ce c qu que qui elle ou "
        "nombre nombres mot mots dans calcule calculez donne donnez moi reponds repondez par font fait stp svp ces "
        "suivants suivantes peux pouvez tu te vous plait resultat exactement dis dites et etait quoi sera avait ca "
        "merci pourriez pourrais dire cette cet voudrais savoir je"
    ),
    "es": _words(
        "que cual cuales cuantos cuantas cuanto es son el la los las un una de del en hay por favor calcula "
        "calcule dime diga responde responda con o numero numeros palabra palabras tiene estos "
        "estas siguientes puedes resultado exactamente y da dame a fue oye sera tuvo esta este esto dices ser va "
        "gracias porfa podria podrias decir quisiera gustaria saber eso yo"
    ),
    "it": _words(
        "che qual quale quali quanti dei delle degli quante quanto e sono il lo la i gli le un una uno di del della "
        "dello in nella nel c ci per favore calcola dimmi rispondi con o numero numeri parola parole ha fa questi "
        "queste seguenti puoi risultato esattamente dai dammi a era mi ciao scusa calcoli ebbe quant dici avuto grazie "
        "aveva potrebbe potresti dire questa questo vorrei sapere io"
    ),
}
FILLER = frozenset().union(*FILLER_BY_LANGUAGE.values())
#: How a request may ask for its answer's form ("Answer yes or no.", "Just the number, please.", "… or not?"), taken
#: out before its words are read: "no", "only" and "just" are filler here and nowhere else ("a non leap year",
#: "counting only a" restrict what is asked).
_ONLY = r"(?:just|only|nur|seulement|juste|solo|solamente|soltanto)"
ANSWER_FORM = re.compile(
    rf"\b(?:{_ONLY}\s+)?(?:(?:a|mit|par|con|with)\s+)?(?:yes\s+or\s+no|ja\s+oder\s+nein|oui\s+ou\s+non|si\s+o\s+no)\b"
    rf"|\b{_ONLY}\s+(?:(?:with|mit|avec|con)\s+)?(?:(?:the|die|das|den|der|le|la|el|il)\s+)?"
    r"(?:number|result|answer|zahl|ergebnis|antwort|nombre|resultat|reponse|numero|resultado|respuesta|risultato|"
    r"risposta|day|weekday|tag|wochentag|jour|dia|giorno|letter|buchstabe|lettre|letra|lettera)\b"
    r"|\b(?:or not|oder nicht|ou (?:non|pas)|o no|o meno)\W*$"
)
#: Two words read as one, where each alone would say another thing: Spanish "por qué" (why) folds to two filler
#: words ("¿Cuánto es 9 por 7 y por qué?"), "next to" is beside, on either side ("the letter next to p": o or q).
ONE_WORD = {"porque": re.compile(r"\bpor\s+qu[ée]\b", re.I), "beside": re.compile(r"\bnext\s+to\b", re.I)}
#: A quoted part of a text: "banana", 'banana', “banana”, «banana», „banana“ (an apostrophe inside ends none: 'it's').
QUOTED = re.compile(r"(?:(?<=^)|(?<=[\s(:,]))[\"'“‘«„‚»]\s*([^\"“”‘’«»„‚]+?)\s*[\"'”’»“‘«](?=$|[\s?.!,:;)])")
#: "and" and "or" in paor's languages: how a list joins its last items and a range its ends ("2, 3 und 5", "entre 1
#: y 10", "pera o higo").
AND = r"(?:and|und|et|y|e)"
OR = r"(?:or|oder|ou|o|oppure)"
#: What stands between a list's items: a comma or a semicolon (an "and" or "or" may follow it), an "and", an "or".
LIST_SEPARATOR = rf"\s*[,;]\s*(?:(?:{AND}|{OR})\s+)?|\s+(?:{AND}|{OR}|&)\s+"
#: Words that say nothing of a request's subject either, though a kind may not take them as filler ("why", "about",
#: "describe" ask for more than a result); a thank-you is filler, but the subject of "What does 'merci' mean?".
NOT_SUBJECT = (FILLER - _words("danke merci gracias grazie")) | _words(
    "into who why when where your list write make provide name state explain describe about as from by at than then "
    "should will shall let some any all first brief two three four five six seven eight nine ten sentence sentences "
    "schreibe quoi comment everything anything something nothing alles etwas nichts tout rien tutto niente todo nada "
    "algo qualcosa every each jede jeder jedes chaque cada ogni text texte testo texto"
)

#: Words that say how to compute, not who asks: "In binary: 5 + 3", "Using the Julian calendar — …" (folded).
CHANGES_READING = _words(
    "binary binar binaire binario hex hexadecimal hexadezimal esadecimale octal oktal ottale base basis roman romisch "
    "romain romano numerals julian julianisch julien juliano giuliano modulo mod approximately roughly estimate "
    "ungefahr etwa environ aproximadamente circa"
)

#: Words that tell who asks and why, told after the request ("It's for my homework.", "Brauche ich für ein
#: Kreuzworträtsel.", "Solo per curiosità."): a clause after a request is the asker's situation only where it holds one.
SITUATION = _words(
    "i we my our on for thanks thank thx lol curious asking ich wir mein meine meinen meiner meinem unser unsere fur "
    "furs danke neugier je j nous mon mes notre nos pour merci curiosite yo estoy estamos tengo mi mis nuestro nuestra "
    "para gracias curiosidad io sto stiamo ho mio mia miei mie nostro nostra per grazie curiosita chiedo"
)
#: Words that add to a request or turn it ("and then to metres", "aber die geraden zuerst", "e spiegami perché"), or
#: ask why, as written ("e" adds, "è" says what is): a clause that holds one asks for more, whatever else it tells.
ASKS_MORE = _words(
    "and und et y e but aber mais pero then dann puis luego poi also too auch aussi también anche why warum wieso "
    "pourquoi perché"
)

#: Word families the kinds of request are recognised by (folded).
FAMILIES: dict[str, frozenset[str]] = {
    "letters": _words(
        "letters letter characters buchstaben buchstabe zeichen lettres lettre caracteres letras letra lettere "
        "lettera caratteri"
    ),
    "count": _words("count counting zahle zaehle compte compter cuenta contar conta contare"),
    "count_more": _words(
        "contains contain has have long enthalt enthalten contient contiene besteht bestehen stecken steckt trae aus"
    ),
    "occur": _words(
        "times appear appears occur occurs occurrences mal vorkommt fois apparait apparaissent veces aparece "
        "aparecen volte appare compare compaiono oft kommt vor revient reviennent sale salen"
    ),
    "vowels": _words("vowels vowel vokale vokal voyelles voyelle vocales vocal vocali vocale"),
    "sum": _words(
        "sum add total summe addier addiere addieren somme additionne additionner suma sumar suman somma sommare "
        "addiziona"
    ),
    "sum_more": _words("up all every if adding together alle aller allen zusammen tous toutes todos todas tutti i"),
    "range": _words(
        "from to through thru between and integers numbers whole natural inclusive von bis zwischen ganzen "
        "naturlichen zahlen de a au entre entiers nombres naturels inclus del al hasta enteros numeros "
        "naturales da fino tra fra interi numeri naturali inclusi desde einschliesslich inklusive incluidos compresi "
        "integer beide bornes comprises compris ambos estremi both included ends"
    ),
    "order": _words(
        "sort order arrange rank alphabetize alphabetise ordne sortiere ordnen sortieren reihenfolge trie trier classe "
        "classer ordre ordena ordenar orden ordina ordinare ordine sortier range ranger"
    ),
    "order_more": _words(
        "put list in into bring bringe range ranger metti metter pon al to from bis zum zur au del von vom dal plus "
        "piu mas names items entries namen elemente noms elements nomi elementi"
    ),
    "alphabetical": _words(
        "alphabetical alphabetically alphabetize alphabetise alphabetisch alphabetischer alphabetique alphabetiquement "
        "alfabetico alfabeticamente alfabetica alphabetische"
    ),
    "ascending": _words("ascending increasing aufsteigend aufsteigender croissant ascendente creciente crescente"),
    "descending": _words(
        "descending decreasing absteigend absteigender decroissant descendente decreciente decrescente"
    ),
    "largest": _words(
        "largest biggest greatest highest maximum max bigger larger greater higher grosste grossten groesste "
        "hochste hochsten grosser grossere hoher grand grande mayor maximo maggiore massimo"
    ),
    "smallest": _words(
        "smallest lowest least minimum min smaller lower kleinste kleinsten niedrigste kleiner kleinere petit petite "
        "menor minimo piccolo minore pequeno pequena"
    ),
    "prime": _words("prime primzahl primzahlen premier primo"),
    "even": _words("even gerade pair paire par pari"),
    "odd": _words("odd ungerade impair impaire impar dispari"),
    "leap": _words("leap schaltjahr bissextile bisiesto bisestile"),
    "year": _words("year yr jahr annee ano anno"),
    "days": _words("days day tage tagen tag jours jour dias dia giorni giorno"),
    "month": _words("month monat mois mes mese"),
    "after": _words("after follows next later nach folgt apres suit despues sigue dopo segue"),
    "before": _words("before precedes previous earlier vor vorher avant precede antes prima ago hace"),
    "comes": _words(
        "comes come kommt vient viene va right directly immediately just juste justo subito appena direkt unmittelbar "
        "steht"
    ),
    "weekday": _words("weekday wochentag"),
    "weekday_more": _words(
        "day tag jour dia giorno week woche semaine semana settimana of der de la della falls fell fall will be "
        "was fallt fiel sera serons nous etait fue sara era cae cade auf al welchem tombait cayo tombe"
    ),
    #: "If today is Tuesday, what day will it be in 10 days?": the day named as today's, the days counted on.
    "today_is": _words("if suppose today si aujourd hui on hoy wenn heute se oggi in dans dentro en tra fra"),
    "date": _words("date datum"),
    "number": _words("number nummer numero"),
    "between": _words(
        "between from to and until till zwischen und von bis entre et du au y desde hasta tra fra e da are there "
        "passed liegen separent hay ci vom zum passano dal al del temps"
    ),
    "round": _words(
        "round rounded rounding runde runden gerundet arrondis arrondir arrondi arrondie redondea redondear "
        "redondeado arrotonda arrotondare arrotondato arrotondi rund"
    ),
    "round_to": _words(
        "to the nearest whole integer proche plus decimal decimals places place digits auf die nachste nachsten ganze "
        "ganzzahl nachkommastellen nachkommastelle stellen stelle nach komma volle zehner hunderter tausender a l au "
        "entier pres decimales decimale al entero mas cercano lugares cercana all intero piu vicino vicina alla alle "
        "cifre decimali posti tenth hundredth ten hundred thousand zehn hundert unite dizaine centaine millier decena "
        "centena millar decina decine centinaio centinaia migliaio migliaia"
    ),
    "alphabet": _words("alphabet alphabets abc alfabeto abecedario in im dans en nel nell"),
    "reverse": _words(
        "reverse reversed backwards backward ruckwarts umgekehrt umkehren umdrehen dreh drehe kehre kehr envers "
        "inverse inverser reves inverso invertir contrario inverti invertire rovescio hinten"
    ),
    #: "Dreh 'Haus' um" parts its verb; "Wie lautet 'Haus' rückwärts?", "What's 'garden' spelled backwards?".
    "reverse_more": _words(
        "spell spelled spelt write schreib schreibe buchstabiere um lautet heisst ecris escribe scrivi l a al order "
        "reihenfolge string nach vorne escribeme scrivimi by como queda se come si scrive"
    ),
    "capitals": _words(
        "capitals uppercase caps grossbuchstaben majuscules majuscule mayusculas mayuscula maiuscolo maiuscole"
    ),
    #: "capital" alone names a city as often ("the capital of 'France'"); with "letters" it is "capitals".
    "capitals_more": _words(
        "capital upper case write convert make letters in into all tutto todo tout string schreib schreibe ecris mets "
        "escribe pon scrivi metti lettres letras lettere schreiben mettre ponme put turn"
    ),
    "first": _words(
        "first erste ersten erster premiere primera primer prima primo begin begins start starts beginnt fangt "
        "commence empieza comienza inizia comincia"
    ),
    "last": _words("last final letzte letzten derniere dernier ultima ultimo end ends endet finit termina finisce"),
    "words": _words("words word worter wort wortes mots mot palabras palabra parole parola sentence satz phrase frase"),
    "calculation": _words(
        "plus minus times multiplied divided by x add sum total of and the square root sqrt squared cube cubed power "
        "th if rd nd to cubo cube kubikwurzel cubique cubica grad degrees degres grados gradi "
        "multiply divide multipliziere dividiere teile multiplie divise multiplica moltiplica dividi product ergibt "
        "produkt produit producto prodotto "
        "percent half double twice convert converted into in equals make makes zum au al elevado elevato alla "
        "mal geteilt durch und addiere summe von aus quadratwurzel wurzel quadrat hoch prozent halfte doppelte rechne "
        "um fois par moins et somme racine carree carre puissance pour cent moitie convertis convertir "
        "mas menos multiplicado dividido entre por y suma raiz cuadrada cuadrado potencia ciento mitad doble convierte "
        "pasa pasar piu meno moltiplicato diviso per e somma radice quadrata quadrato potenza cento meta doppio di "
        "converti"
    ),
}
#: Words that ask a second question or count something a transformation does not ("how many capital letters").
QUESTION_WORDS = _words(
    "how what which wie welche welcher welches combien quel quelle quels quelles cuantos cuantas cuanto cual cuales "
    "quanti quante quanto quale quali"
)
COUNTING = _words("many much viele viel combien cuantos cuantas quanti quante")
#: Articles: words that say nothing of what follows them ("as a PDF", "is a prime number").
ARTICLES = _words("a an ein eine einen un une una uno")
#: The words a word named bare follows where a kind asks of it ("the vowels in onomatopoeia", "erster Buchstabe von
#: Wolke", "how many letters does strawberry have", "wie viele Vokale hat Banane").
ASKED_OF = _words("in of for von im aus dans de du en di del della nel nella para per does has hat tiene ha")


def fold(text: str) -> str:
    """Lower case without accents and with ß as ss: "Größte" and "grosste", "número" and "numero" are one word."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("ß", "ss"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words_in(text: str) -> list[str]:
    """The words of `text`, folded (apostrophes end a word: "what's" → "what", "s"; "l'envers" → "l", "envers")."""
    return re.findall(r"[^\W\d_]+", fold(text))


def stems(text: str) -> set[str]:
    """The subject of a text: its words beyond `NOT_SUBJECT`, by their first five letters ("colours" meets
    "colour"), and its numbers."""
    words = re.findall(r"[^\W_]+", fold(text))
    return {w if w.isdigit() else w[:5] for w in words if w.isdigit() or (len(w) > 2 and w not in NOT_SUBJECT)}


def _filler_counts(words: Sequence[str]) -> list[tuple[str, int]]:
    """Each language with how many of the words are its filler, most first (ties in `LANGUAGES` order)."""
    counts = [(code, sum(word in filler for word in words)) for code, filler in FILLER_BY_LANGUAGE.items()]
    return sorted(counts, key=lambda count: count[1], reverse=True)


def languages_of(words: list[str], default: Sequence[str] = ("en",)) -> list[str]:
    """The languages whose filler the words use, most used first; `default` where none is told."""
    return [code for code, count in _filler_counts(words) if count] or list(default)


def told_language(words: Sequence[str]) -> str | None:
    """The one language whose filler the words use most; None where none is used, or two as much ("Arrondis 3,256
    a deux decimales": its "a" is English and French filler alike)."""
    (code, most), (_, second) = _filler_counts(words)[:2]
    return None if most in (0, second) else code


@cache
def weekdays() -> dict[str, int]:
    """Every weekday name in paor's languages, folded → 0 (Monday) … 6 (Sunday). Wide names only: the abbreviations
    are everyday words ("so" is Sunday in German, "di" Tuesday, and Italian's "of")."""
    return _names(get_day_names)


@cache
def months(*, abbreviated: bool = False) -> dict[str, int]:
    """Every month name in paor's languages, folded → 1 … 12; with `abbreviated`, also "Jan", "Mär", "sept." (read
    only inside a date: "mar" is the sea in Spanish, "set" Italian for September)."""
    return _names(get_month_names, ("wide", "abbreviated") if abbreviated else ("wide",))


def _names(names_of: Callable[..., Mapping[int, str]], widths: Sequence[str] = ("wide",)) -> dict[str, int]:
    found: dict[str, int] = {}
    for code in LANGUAGES:
        for width in widths:
            for number, name in names_of(width, locale=code).items():
                found.setdefault(fold(name).rstrip("."), number)
    return found


@cache
def language_names() -> frozenset[str]:
    """Every one-word language name CLDR gives in paor's languages, folded ("greek", "griechisch", "grec")."""
    from babel import Locale

    return frozenset(fold(name) for code in LANGUAGES for name in Locale.parse(code).languages.values())


def day_name(number: int, language: str) -> str:
    """The weekday's name in `language` (English where paor lacks it), as CLDR writes it: "Montag", "lundi"."""
    return get_day_names("wide", locale=language if language in LANGUAGES else "en")[number]


def month_name(number: int, language: str) -> str:
    return get_month_names("wide", locale=language if language in LANGUAGES else "en")[number]


def typed_for(word: str) -> str | None:
    """The word of a request's reading a typed word of four letters or more stands for, where it is one letter missing
    or two swapped ("mnay" many, "thursdy" thursday, "tien" tiene) from exactly one word; None for a word paor knows
    as written, and where the slip could be of two words. Shorter words and a letter too many are no slip: a word with
    one letter more or less is too often another word ("run" is no "rund", "world" no "word")."""
    if len(word) < 4 or word in _known_words():
        return None
    swapped = {word[:at] + word[at + 1] + word[at] + word[at + 2 :] for at in range(len(word) - 1)}
    candidates = _misspelled().get(word, set()) | (swapped & _reading_words())
    return next(iter(candidates)) if len(candidates) == 1 else None


@cache
def _reading_words() -> frozenset[str]:
    """The words a request is read by, of four letters or more."""
    words = FILLER.union(*FAMILIES.values(), QUESTION_WORDS, weekdays(), months())
    return frozenset(word for word in words if len(word) >= 4)


@cache
def _misspelled() -> dict[str, set[str]]:
    """Each reading word with one letter dropped → the words it is a slip of."""
    found: dict[str, set[str]] = {}
    for word in _reading_words():
        for at in range(len(word)):
            found.setdefault(word[:at] + word[at + 1 :], set()).add(word)
    return found


@cache
def _known_words() -> frozenset[str]:
    """Every word paor reads by, of any length: none of them is a slip of another."""
    families = FILLER.union(*FAMILIES.values(), QUESTION_WORDS, COUNTING, NOT_SUBJECT, CHANGES_READING, SITUATION)
    return families | ASKS_MORE | weekdays().keys() | months(abbreviated=True).keys() | language_names()
