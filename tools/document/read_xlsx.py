"""XLSX → markdown with openpyxl in read-only mode (streams rows), one capped table per sheet.

`data_only=True` gives the cached values of formulas — what the user saw — instead of the formula text.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import openpyxl

from core.errors import DocumentRejected
from tools.document import limits
from tools.document.extracted import ExtractedText
from tools.document.md_build import capped_table


def read_xlsx(data: bytes, name: str) -> ExtractedText:
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises InvalidFileException/KeyError/ValueError on broken files
        raise DocumentRejected(f"{name} is not a readable XLSX file: {exc or type(exc).__name__}") from exc
    notes: list[str] = []
    sections: list[str] = []
    try:
        sheets = workbook.worksheets
        for sheet in sheets[: limits.MAX_SHEETS]:
            try:
                values = sheet.iter_rows(
                    max_row=limits.MAX_TABLE_ROWS + 1, max_col=limits.MAX_TABLE_COLS + 1, values_only=True
                )
                table, sheet_notes = capped_table(
                    ([_cell(value) for value in row] for row in values), f"{name}: sheet {sheet.title}"
                )
            except Exception as exc:  # one broken sheet must not lose the others
                notes.append(f"{name}: sheet {sheet.title} could not be read ({exc or type(exc).__name__})")
                continue
            notes.extend(sheet_notes)
            sections.append(f"## Sheet: {sheet.title}\n\n{table or '(empty sheet)'}")
        if len(sheets) > limits.MAX_SHEETS:
            notes.append(f"{name}: only the first {limits.MAX_SHEETS} of {len(sheets)} sheets were read")
        title = workbook.properties.title if workbook.properties else None
    finally:
        workbook.close()
    return ExtractedText(text="\n\n".join(sections), kind="xlsx", title=title or None, sheets=len(sheets), notes=notes)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
