"""Small markdown builders shared by the readers and the report tool, so tables and code blocks stay valid."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from tools.document import limits

_BACKTICK_RUNS = re.compile(r"`+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
TRUNCATION_MARK = "[… truncated]"


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


def truncate_markdown(text: str, max_chars: int) -> str:
    """The first `max_chars` characters; a code fence left open by the cut is closed, and the truncation mark
    goes after it, so neither the mark nor the rest of the document ends up inside a code block."""
    if len(text) <= max_chars:
        return text
    kept = text[:max_chars].rstrip()
    open_fence: str | None = None
    for line in kept.split("\n"):
        fence = _FENCE.match(line)
        if fence is None:
            continue
        marker = fence.group(1)
        if open_fence is None:
            open_fence = marker
        elif marker[0] == open_fence[0] and len(marker) >= len(open_fence) and not line.strip()[len(marker) :]:
            open_fence = None
    closing = f"\n{open_fence}" if open_fence else ""
    return f"{kept}{closing}\n\n{TRUNCATION_MARK}"


def drawing_note(kind: str, name: str | None, alt_text: str | None) -> str:
    """`[image: alt text]`, or `[image "Picture 1", no alt text]` when the author gave none."""
    alt = " ".join((alt_text or "").split())
    if alt:
        return f"[{kind}: {alt}]"
    label = " ".join((name or "").split())
    return f'[{kind} "{label}", no alt text]' if label else f"[{kind}, no alt text]"


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"
