"""Charts as data a model can read: the chart's title, then a table of its series over its categories.

python-pptx's chart model reads the values cached in the chart part; the DrawingML chart part is the same in
DOCX and XLSX, so DOCX charts are read through it too.
"""

from __future__ import annotations

from typing import Any

from tools.document.md_build import drawing_note, markdown_table


def chart_markdown(chart: Any, name: str | None, alt: str | None) -> str:
    """`[chart: title]` and a table: one row per category, one column per series (a note if it holds none)."""
    title = chart.chart_title.text_frame.text if chart.has_title and chart.chart_title.has_text_frame else ""
    note = drawing_note("chart", name, " ".join(title.split()) or alt)
    series = [s for plot in chart.plots for s in plot.series]
    if not series:
        return note + " (no data)"
    categories = [str(c) for c in chart.plots[0].categories] or [str(i + 1) for i in range(len(series[0].values))]
    length = max(len(categories), *(len(s.values) for s in series))
    categories += [""] * (length - len(categories))
    header = ["", *(s.name or f"Series {i + 1}" for i, s in enumerate(series))]
    rows = [[category, *(_value(s.values, i) for s in series)] for i, category in enumerate(categories)]
    return note + "\n\n" + markdown_table([header, *rows])


def chart_part_markdown(blob: bytes, name: str | None, alt: str | None) -> str:
    """A chart from the XML of its chart part (a DOCX chart); just the note when the part cannot be read."""
    from pptx.chart.chart import Chart
    from pptx.oxml import parse_xml

    try:
        return chart_markdown(Chart(parse_xml(blob), None), name, alt)
    except Exception:  # a broken chart part costs the chart's data, not the document
        return drawing_note("chart", name, alt) + " (data unreadable)"


def _value(values: Any, index: int) -> str:
    if index >= len(values) or values[index] is None:
        return ""
    value = values[index]
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
