"""The one markdown dialect paor renders: CommonMark + GFM tables + strikethrough, raw HTML disabled.

With `html: False` any HTML the model writes is text, so it appears escaped in HTML and literally in DOCX —
a report can never carry a script, an iframe or a tracking pixel written as markup.
"""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt


@cache
def markdown_parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
