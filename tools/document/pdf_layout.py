"""A PDF page's text as lines with the layout facts markdown needs, read with PDFium (pypdfium2).

PDFium already orders the characters, separates words at layout gaps (it inserts "generated" spaces) and
marks hyphens it judged to be line-end hyphenation with U+FFFE. This module adds what a reader of markdown
needs on top: per line its font size, left edge, baseline, whether it is set in a monospaced font (code), and
where it splits into cells at wide gaps (tables). Only a few characters per line are queried (line ends and
spaces), which keeps it fast.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field
from typing import Any

import pypdfium2.raw as pdfium_c

from tools.document.fonts import is_monospace_font

#: A gap wider than this many font sizes between two words separates table cells.
CELL_GAP_EM = 1.5
_FIXED_PITCH_FLAG = 1
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class Line:
    """One text line of a page, as PDFium laid it out."""

    text: str
    size: float
    x: float
    y: float
    mono: bool
    #: Origin x of the last character: with `x` it gives a monospaced line's character advance.
    right: float = 0.0
    cells: list[tuple[float, str]] = field(default_factory=list)


class _CharInfo:
    """ctypes buffers reused for every query on one text page."""

    def __init__(self, textpage: Any) -> None:
        self.raw = textpage.raw
        self._x = ctypes.c_double()
        self._y = ctypes.c_double()
        self._box = [ctypes.c_double() for _ in range(4)]
        self._name = ctypes.create_string_buffer(128)
        self._flags = ctypes.c_int()

    def origin(self, index: int) -> tuple[float, float]:
        pdfium_c.FPDFText_GetCharOrigin(self.raw, index, ctypes.byref(self._x), ctypes.byref(self._y))
        return self._x.value, self._y.value

    def left_right(self, index: int) -> tuple[float, float]:
        left, right, bottom, top = self._box
        pdfium_c.FPDFText_GetCharBox(
            self.raw, index, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top)
        )
        return left.value, right.value

    def size(self, index: int) -> float:
        return float(pdfium_c.FPDFText_GetFontSize(self.raw, index))

    def mono(self, index: int) -> bool:
        length = pdfium_c.FPDFText_GetFontInfo(self.raw, index, self._name, len(self._name), ctypes.byref(self._flags))
        name = self._name.value.decode("latin-1", "replace") if length else ""
        return bool(self._flags.value & _FIXED_PITCH_FLAG) or is_monospace_font(name)


def page_lines(textpage: Any) -> list[Line]:
    """The page's non-empty lines in reading order."""
    text = textpage.get_text_range()
    info = _CharInfo(textpage)
    lines: list[Line] = []
    start = 0
    for match in [*_LINE_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        raw = text[start:end]
        if raw.strip():
            lines.append(_line(info, raw, start))
        start = match.end() if match else end
    return lines


def _line(info: _CharInfo, raw: str, offset: int) -> Line:
    first = offset + (len(raw) - len(raw.lstrip()))
    last = offset + len(raw.rstrip()) - 1
    x, y = info.origin(first)
    size = info.size(first)
    mono = info.mono(first) and info.mono(last)
    right = info.origin(last)[0] if mono else x
    cells = _cells(info, raw, offset, size)
    return Line(text=raw.strip(), size=round(size, 1), x=x, y=y, mono=mono, right=right, cells=cells)


def _cells(info: _CharInfo, raw: str, offset: int, size: float) -> list[tuple[float, str]]:
    """The line cut at gaps wider than CELL_GAP_EM font sizes: [(left x, text)]; [] for ordinary text."""
    if " " not in raw.strip() or size <= 0:
        return []
    cells: list[tuple[float, str]] = []
    begin = len(raw) - len(raw.lstrip())
    cell_x = info.left_right(offset + begin)[0]
    index = begin
    while (space := raw.find(" ", index)) != -1:
        after = space + 1
        while after < len(raw) and raw[after] == " ":
            after += 1
        if after >= len(raw):
            break
        gap = info.left_right(offset + after)[0] - info.left_right(offset + space - 1)[1]
        if gap > CELL_GAP_EM * size:
            cells.append((cell_x, raw[begin:space].strip()))
            begin = after
            cell_x = info.left_right(offset + after)[0]
        index = after
    if not cells:
        return []
    cells.append((cell_x, raw[begin:].strip()))
    return cells
