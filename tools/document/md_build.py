"""Small markdown builders shared by the readers and the report tool, so tables and code blocks stay valid."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from tools.document import limits

_BACKTICK_RUNS = re.compile(r"`+")


def table_cell(value: object) -> str:
    """One cell's text: single line, pipes escaped so they cannot split the cell."""
    text = "" if value is None else str(value)
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[object]]) -> str:
    """A GFM table whose first row is the header; short rows are padded so every row has the same width."""
    if not rows:
        return ""
    width = max(len(row) for row in rows) or 1
    cells = [[table_cell(value) for value in row] + [""] * (width - len(row)) for row in rows]
    header, body = cells[0], cells[1:]
    lines = [_row(cell or " " for cell in header), _row("---" for _ in range(width))]
    lines.extend(_row(row) for row in body)
    return "\n".join(lines)


def capped_table(rows: Iterable[Sequence[str]], where: str) -> tuple[str, list[str]]:
    """Markdown table of at most MAX_TABLE_ROWS x MAX_TABLE_COLS, without trailing empty rows and columns.

    Consumes at most one row more than the cap, so a huge CSV or sheet is never read to its end.
    """
    notes: list[str] = []
    cells = [list(row) for row in itertools.islice(rows, limits.MAX_TABLE_ROWS + 1)]
    if len(cells) > limits.MAX_TABLE_ROWS:
        cells = cells[: limits.MAX_TABLE_ROWS]
        notes.append(f"{where}: only the first {limits.MAX_TABLE_ROWS} rows are shown")
    if any(any(row[limits.MAX_TABLE_COLS :]) for row in cells):
        notes.append(f"{where}: only the first {limits.MAX_TABLE_COLS} columns are shown")
    cells = [row[: limits.MAX_TABLE_COLS] for row in cells]
    while cells and not any(cells[-1]):
        cells.pop()
    width = max((max((i + 1 for i, value in enumerate(row) if value), default=0) for row in cells), default=0)
    if width == 0:
        return "", notes
    return markdown_table([row[:width] for row in cells]), notes


def fenced_block(text: str, language: str = "") -> str:
    """A code fence longer than any backtick run inside, so the content cannot close it early."""
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"
