"""How the `paor` command speaks: its consoles, its exit codes and the one line (or JSON document) it ends with.

Progress goes to stderr, results to stdout; `--json` puts exactly one JSON document on stdout, whatever the outcome.
Expected failures (input, configuration, an endpoint) end with one line and an exit code, never with a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from core.errors import PaorError, ServiceUnavailable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

EXIT_INTERRUPTED = 130
EXIT_WAITING = 3  # the run asks the user something and nobody can answer here
EXIT_TEMPORARY = 75  # EX_TEMPFAIL: the same command may succeed later


def stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def styled(line: str, style: str = "") -> Text:
    from rich.text import Text

    return Text(line, style=style)


#: The `status` of `--json` output for each exit code that is not a run's own outcome (completed, incomplete).
JSON_STATUS = {2: "error", EXIT_WAITING: "waiting", EXIT_TEMPORARY: "unavailable", EXIT_INTERRUPTED: "interrupted"}


def fail(reason: str, code: int = 2, *, as_json: bool = False, thread: str | None = None) -> NoReturn:
    from prompts.templates import clip

    line = clip(reason)
    if as_json:
        echo_json({"thread": thread, "status": JSON_STATUS.get(code, "error"), "error": line, "exit_code": code})
    stderr().print(styled(f"paor: {line}", style="red"))
    raise typer.Exit(code)


def echo_json(document: dict[str, Any]) -> None:
    typer.echo(json.dumps(document, ensure_ascii=False, indent=2))


@contextmanager
def bad_input_exits(*, as_json: bool = False, thread: str | None = None) -> Iterator[None]:
    """Expected failures (input, configuration, endpoint) end with exit 2 and one line; never with a traceback.
    With `as_json` the same line goes to stdout as the one JSON document, so scripts read every outcome there."""
    try:
        yield
    except PaorError as exc:
        from core.database import DatabaseUnavailable, ThreadBusy

        code = EXIT_TEMPORARY if isinstance(exc, ThreadBusy | DatabaseUnavailable) else 2
        line = str(exc)
        if isinstance(exc, ServiceUnavailable):  # away or busy: later; credentials refused: configuration
            code = EXIT_TEMPORARY if exc.temporary else 2
            line += f"; then `paor resume {thread}`" if thread else ""
        fail(line, code, as_json=as_json, thread=thread)
    except Exception as exc:
        reason = endpoint_failure(exc)
        if reason is None:
            raise
        fail(reason, as_json=as_json, thread=thread)


def endpoint_failure(exc: Exception) -> str | None:
    """A one-line reason for an expected endpoint failure; None for anything else (a bug: let it surface).

    openai and httpx are imported here, not at start-up: an exception of theirs means they are loaded already."""
    import httpx
    import openai

    if isinstance(exc, openai.AuthenticationError):  # its message may quote part of the key: never print it
        return f"the model endpoint rejected OPENAI_API_KEY (HTTP {exc.status_code}); check the key"
    if isinstance(exc, openai.PermissionDeniedError | openai.NotFoundError):
        return f"the model endpoint refused the request (HTTP {exc.status_code}); check --model and the key"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot reach the model endpoint ({exc}); check --base-url / OPENAI_BASE_URL or run `paor doctor`"
    if isinstance(exc, httpx.HTTPError):
        return f"network error: {exc}"
    return None
