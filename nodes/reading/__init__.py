"""One place reads a request's words: a lexicon, one reader of numbers, and one table of kinds (kinds.py)."""
