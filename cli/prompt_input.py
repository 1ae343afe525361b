"""A prompt from stdin (`paor run -`) or a file (`--prompt-file`): a long prompt does not fit in a command line
("Argument list too long"). It is read as UTF-8 and never beyond what the length limit could accept, so a huge
file is refused without being loaded."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

import click

from core.errors import InvalidRequest
from nodes.intent import MAX_PROMPT_CHARS

#: A UTF-8 character takes at most four bytes: more than this many bytes is over the limit whatever they are.
MAX_PROMPT_BYTES = 4 * MAX_PROMPT_CHARS + 3  # + a byte-order mark


def read_prompt(source: str) -> str:
    """The text of `source`: `-` for stdin, else a file path."""
    if source == "-":
        if sys.stdin.isatty():
            click.echo("reading the prompt from stdin; end it with Ctrl-D", err=True)
        return _decoded(_read_capped(sys.stdin.buffer), "the prompt on stdin")
    path = Path(source).expanduser()
    try:
        with path.open("rb") as handle:
            data = _read_capped(handle)
    except OSError as exc:
        raise InvalidRequest(f"--prompt-file {source}: {(exc.strerror or str(exc)).lower()}") from None
    return _decoded(data, f"--prompt-file {source}")


def _read_capped(stream: BinaryIO) -> bytes:
    data = stream.read(MAX_PROMPT_BYTES + 1)
    if len(data) > MAX_PROMPT_BYTES:
        raise InvalidRequest(
            f"the prompt has more than {MAX_PROMPT_CHARS} characters (the limit); pass long material as a document"
            " with --doc"
        )
    return data


def _decoded(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidRequest(f"{what} is not UTF-8 text (byte {exc.start + 1}); save it as UTF-8") from None
