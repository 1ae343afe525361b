"""Charts as data a model can read: the chart's title, then a table of its series over its categories.

Read from the values Office caches in the DrawingML chart part (`c:ser` → `c:tx`, `c:cat`/`c:xVal`,
`c:val`/`c:yVal`), which every chart type has and which PPTX, DOCX and XLSX share — so no chart type is
unsupported and no chart is dropped.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from lxml import etree

from tools.document.md_build import drawing_note, markdown_table

_NS = {
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
}
_SERIES = etree.XPath(".//c:plotArea/*/c:ser", namespaces=_NS)
_TITLE = etree.XPath("./c:chart/c:title//a:t/text()", namespaces=_NS)
_NAME = etree.XPath("./c:tx//c:v/text()", namespaces=_NS)
_CATEGORIES = etree.XPath("./c:cat//c:pt | ./c:xVal//c:pt", namespaces=_NS)
_CATEGORY_FORMAT = etree.XPath("./c:cat//c:formatCode/text()", namespaces=_NS)
_DATE_FORMAT = re.compile(r"[dmy]", re.I)
_EXCEL_EPOCH = dt.date(1899, 12, 30)
_VALUES = etree.XPath("./c:val//c:pt | ./c:yVal//c:pt", namespaces=_NS)
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True)


def chart_markdown(blob: bytes, name: str | None, alt: str | None) -> str:
    """`[chart: title]` and a table, one row per category and one column per series, from a chart part's XML;
    the note alone, saying why, when the chart holds no data or its part cannot be read."""
    try:
        space = etree.fromstring(blob, _PARSER)
    except etree.XMLSyntaxError as exc:
        return f"{drawing_note('chart', name, alt)} (data not readable: {exc})"
    title = " ".join("".join(_TITLE(space)).split())
    note = drawing_note("chart", name, title or alt)
    rows = _rows(space)
    return note + ("\n\n" + markdown_table(rows) if rows else " (no data)")


def _rows(space: Any) -> list[list[str]]:
    categories: dict[int, str] = {}
    columns: list[tuple[str, dict[int, str]]] = []
    for number, series in enumerate(_SERIES(space), start=1):
        dates = any(_DATE_FORMAT.search(code) and code != "General" for code in _CATEGORY_FORMAT(series))
        for point in _CATEGORIES(series):
            categories.setdefault(_index(point), _date(_text(point)) if dates else _number(_text(point)))
        values = {_index(point): _number(_text(point)) for point in _VALUES(series)}
        columns.append((" ".join("".join(_NAME(series)).split()) or f"Series {number}", values))
    if not columns:
        return []
    indexes = sorted({*categories, *(i for _, values in columns for i in values)})
    header = ["", *(name for name, _ in columns)]
    body = [[categories.get(i, str(i + 1)), *(values.get(i, "") for _, values in columns)] for i in indexes]
    return [header, *body]


def _index(point: Any) -> int:
    idx = str(point.get("idx", "0"))
    return int(idx) if idx.isdigit() else 0


def _text(point: Any) -> str:
    return "".join(point.xpath("./c:v/text()", namespaces=_NS)).strip()


def _date(text: str) -> str:
    """A date category, which the cache holds as an Excel serial day number, as an ISO date."""
    try:
        return (_EXCEL_EPOCH + dt.timedelta(days=float(text))).isoformat()
    except (ValueError, OverflowError):
        return text


def _number(text: str) -> str:
    """Cached numbers as a person writes them: `10.0` → `10`, `12.5` stays."""
    try:
        value = float(text)
    except ValueError:
        return text
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else text
