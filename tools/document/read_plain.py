"""Text formats: plain text, markdown, JSON, CSV (sniffed dialect, capped table), HTML (trafilatura)."""

from __future__ import annotations

import csv
import io
import json
import re

from core.errors import DocumentRejected
from tools.document.extracted import ExtractedText
from tools.document.md_build import capped_table, fenced_block
from tools.document.text_codec import decode_text

_ATX_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SNIFF_CHARS = 64 * 1024


def read_text(data: bytes, name: str) -> ExtractedText:
    return ExtractedText(text=decode_text(data).strip(), kind="text")


def read_markdown(data: bytes, name: str) -> ExtractedText:
    text = decode_text(data).strip()
    heading = _ATX_H1.search(text)
    return ExtractedText(text=text, kind="markdown", title=heading.group(1) if heading else None)


def read_json(data: bytes, name: str) -> ExtractedText:
    """Pretty-printed in a code block: JSON is data, and markdown would mangle it."""
    text = decode_text(data)
    try:
        pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError as exc:
        return ExtractedText(
            text=fenced_block(text.strip()),
            kind="json",
            notes=[f"{name} is not valid JSON ({exc}); shown as text"],
        )
    return ExtractedText(text=fenced_block(pretty, "json"), kind="json")


def read_csv(data: bytes, name: str) -> ExtractedText:
    text = decode_text(data)
    sample = text[:_SNIFF_CHARS]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if "\t" in sample and "," not in sample else csv.excel
    try:
        table, notes = capped_table(csv.reader(io.StringIO(text, newline=""), dialect), name)
    except csv.Error as exc:
        raise DocumentRejected(f"{name} is not a readable CSV file: {exc}") from exc
    return ExtractedText(text=table, kind="csv", notes=notes)


def read_html(data: bytes, name: str) -> ExtractedText:
    from tools.html import html_title, html_to_text

    try:
        text = html_to_text(data)
        title = html_title(data)
    except Exception as exc:  # lxml/trafilatura fail in many ways on broken markup
        raise DocumentRejected(f"{name} is not readable HTML: {exc or type(exc).__name__}") from exc
    return ExtractedText(text=text, kind="html", title=title or None)
