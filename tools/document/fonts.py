"""Which fonts are monospaced: text set in them is code, in a PDF as in a DOCX."""

from __future__ import annotations

import re

_MONOSPACE_NAME = re.compile(r"mono|monl|courier|typewriter|consol|inconsolata|menlo|tt(?:\d|-|$)", re.I)


def is_monospace_font(name: str | None) -> bool:
    """True for Courier, Consolas, DejaVu Sans Mono, TeX's cmtt/t1xtt and the like."""
    return bool(name) and bool(_MONOSPACE_NAME.search(name or ""))
