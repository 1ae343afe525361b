"""One place reads a request's words: a lexicon (lexicon.py), one reader of numbers (numbers.py), the intent's
hints (hints.py), one table of kinds (kinds.py) and the judge of what an answer states (stated.py)."""

#: A one-line request: what code reads for a kind, answers directly and checks against what it computed. Longer
#: requests are tasks with parts (the loop), and reading stays bounded whatever a request holds.
ONE_LINE_CHARS = 400
