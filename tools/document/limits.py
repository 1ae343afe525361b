"""Caps that keep hostile or huge documents from exhausting memory or time.

Read at call time through this module (`limits.MAX_INPUT_BYTES`), so a deployment or a test can change them.
"""

from __future__ import annotations

#: Largest input file accepted at all, before any parsing.
MAX_INPUT_BYTES = 50 * 1024 * 1024
#: Sum of the declared uncompressed sizes of all members of an Office (zip) file.
MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
#: Highest uncompressed/compressed ratio of one zip member; real Office XML stays far below it.
MAX_COMPRESSION_RATIO = 100
#: Members smaller than this are not ratio-checked: tiny repetitive XML parts legitimately compress well.
RATIO_CHECK_MIN_BYTES = 1024 * 1024
#: Most members an Office zip may have.
MAX_ZIP_MEMBERS = 10_000
#: Rows and columns of a spreadsheet or CSV rendered as a markdown table (per sheet).
MAX_TABLE_ROWS = 1000
MAX_TABLE_COLS = 50
#: Sheets of one workbook rendered.
MAX_SHEETS = 50
#: Length of the markdown an extraction returns; the rest is cut with a note.
MAX_TEXT_CHARS = 2_000_000
#: Address space one document's parse may use on top of what the parse server holds with the readers loaded (MB);
#: past it the child doing the parse fails and is gone (`parsing`).
PARSE_MEMORY_MB = 1024
