"""Re-level the headings of a markdown document so it nests under a report's title and section headings.

Uses the markdown-it token map (source line ranges), so `#` lines inside code blocks are never touched and
setext headings (underlined with === or ---) are rewritten as ATX headings of the new level.
"""

from __future__ import annotations

import re

from tools.document.md_parser import markdown_parser

_ATX_PREFIX = re.compile(r"^( {0,3})#{1,6}")


def nest_headings(markdown: str, top_level: int) -> str:
    """Shift top-level headings so the highest one becomes `top_level` (never shallower, capped at 6)."""
    lines = markdown.split("\n")
    headings = _top_level_headings(markdown)
    if not headings:
        return markdown
    shift = top_level - min(level for level, *_ in headings)
    if shift <= 0:
        return markdown
    for level, start, end, text in reversed(headings):
        new_level = min(level + shift, 6)
        atx = _ATX_PREFIX.match(lines[start])
        if atx and end - start == 1:
            lines[start] = atx.group(1) + "#" * new_level + lines[start][atx.end() :]
        else:
            lines[start:end] = [f"{'#' * new_level} {text}"]
    return "\n".join(lines)


def drop_leading_heading(markdown: str, text: str) -> str:
    """Remove a first heading that only repeats `text` (the report title), keeping everything else."""
    headings = _top_level_headings(markdown)
    if not headings:
        return markdown
    _, start, end, heading = headings[0]
    before = markdown.split("\n")[:start]
    if any(line.strip() for line in before) or _normal(heading) != _normal(text):
        return markdown
    return "\n".join(markdown.split("\n")[end:]).lstrip("\n")


def _top_level_headings(markdown: str) -> list[tuple[int, int, int, str]]:
    """(level, first line, line after, text) of headings outside lists, quotes and code."""
    tokens = markdown_parser().parse(markdown)
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            inline = tokens[index + 1]
            found.append((int(token.tag[1:]), token.map[0], token.map[1], " ".join(inline.content.split())))
    return found


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())
