"""What `paor run` and `paor resume` check before the first request, and `paor doctor` reports: the folders and the
database paor will write, the keys it will send and the endpoints it will call. Each problem is one line that
names the setting, the path or variable, and what is wrong; a secret's value is never part of it.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from core.context import Context, paor_home
from core.writable import database_problem, folder_problem

#: Keys paor sends (as HTTP headers): each, when set, must be something a header can carry.
KEYS = ("OPENAI_API_KEY", "TAVILY_API_KEY")
#: Where the model endpoint comes from when `--base-url` was not given, in the order Context reads them.
BASE_URL_VARIABLES = ("OPENAI_BASE_URL", "PAOR_BASE_URL")
EXAMPLE_URL = "http://127.0.0.1:8080/v1"


def key_problem(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """A key is ASCII letters, digits and punctuation; a pasted `sk-…` (with the ellipsis), a space or a line
    break inside it would fail every request with an encoding error."""
    value = (os.environ if environ is None else environ).get(name, "")
    for position, char in enumerate(value, start=1):
        if not char.isascii() or not char.isprintable() or char.isspace():
            return (
                f"{name} contains {_describe(char)} at character {position}, which no key has; "
                f"set {name} to the key itself"
            )
    return None


def endpoint_problem(name: str, url: str) -> str | None:
    """An endpoint is an http(s) URL with a host; the value is not shown (it may be a key pasted by mistake)."""
    if not url:
        return None
    wrong = _url_flaw(url)
    return None if wrong is None else f"{name} is not an http(s) URL ({wrong}); it should look like {EXAMPLE_URL}"


def _url_flaw(url: str) -> str | None:
    if any(char.isspace() for char in url):
        return "it contains whitespace"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https"):
        return "no http:// or https:// at its start"
    if not parts.hostname:
        return "no host"
    return None


def base_url_source(options_base_url: str | None) -> str:
    """The name to blame for the endpoint: `--base-url`, or the variable Context read it from."""
    if options_base_url:
        return "--base-url"
    return next((name for name in BASE_URL_VARIABLES if os.environ.get(name)), BASE_URL_VARIABLES[0])


def setting_problems(context: Context, base_url_given: str | None) -> list[str]:
    """The keys and endpoints, checked before anything is sent."""
    problems = [problem for name in KEYS if (problem := key_problem(name))]
    endpoints = [(base_url_source(base_url_given), context.base_url), ("TAVILY_BASE_URL", _env("TAVILY_BASE_URL"))]
    problems.extend(problem for name, url in endpoints if (problem := endpoint_problem(name, url)))
    return problems


def folder_problems(context: Context, database: Path | None, database_setting: str, out: Path | None) -> list[str]:
    """PAOR_HOME (when something lives there), the document store, the SQLite database and the output folder."""
    home = paor_home()
    store = context.store_path
    problems: list[str] = []
    lives_at_home = _inside(store, home) or (database is not None and _inside(database, home))
    if lives_at_home and (problem := folder_problem(home)):
        return [f"PAOR_HOME {home} {problem}; set PAOR_HOME to a folder you can write"]  # one line says it all
    if problem := folder_problem(store):
        setting = "PAOR_HOME" if _inside(store, home) else "PAOR_STORE_DIR"
        problems.append(f"the document store {store} ({setting}) {problem}")
    if database is not None and (problem := database_problem(database)):
        problems.append(f"the database {database} ({database_setting}) {problem}; choose another file with --db")
    if out is not None and (problem := folder_problem(out)):
        problems.append(f"the output folder {out} {problem}; choose another with --out")
    return problems


def _inside(path: Path, folder: Path) -> bool:
    return path.expanduser().absolute().is_relative_to(folder.expanduser().absolute())


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def _describe(char: str) -> str:
    """`'…' (U+2026 HORIZONTAL ELLIPSIS)`, or the name alone for characters that do not print."""
    name = unicodedata.name(char, "").lower() or "a control character"
    code = f"U+{ord(char):04X}"
    return f"{char!r} ({code}, {name})" if char.isprintable() and not char.isspace() else f"{code} ({name})"
