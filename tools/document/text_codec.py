"""Bytes → str for text formats whose encoding nobody declared.

Order matters: BOMs are certain, UTF-8 is strict enough to rarely mis-detect, cp1252 covers most legacy
Western files, and latin-1 never fails, so reading a text file never raises.
"""

from __future__ import annotations

import codecs

_CONTROL_EXCEPT_WHITESPACE = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 127])


def decode_text(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def strip_control_chars(text: str) -> str:
    """Drop control characters XML (DOCX) cannot hold and markdown has no use for; keeps tabs and newlines."""
    return text.translate(_CONTROL_EXCEPT_WHITESPACE)
