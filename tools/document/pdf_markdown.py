"""PDF lines (see `pdf_layout`) → markdown a model can read: headings, paragraphs, lists, code, tables.

- Headings come from the document's own outline (bookmarks) where it has one — the author's structure — and
  from font sizes larger than the body text otherwise. Nothing else becomes a heading: a body line starting
  with `#` (a shell or Gri comment, say) is escaped.
- Runs of monospaced lines become fenced code blocks; their indentation is rebuilt from the x positions.
- Runs of lines that split into aligned cells at wide gaps become GFM tables.
- Bullets become one markdown list, nested by marker indentation.
- Text is NFKC-normalised (ligatures such as `ﬁ` become `fi`) and words hyphenated at line ends are rejoined.
- Running headers and footers are dropped; each page starts with a light `[page N]` anchor to cite instead.
"""

from __future__ import annotations

import difflib
import itertools
import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from tools.document.md_build import fenced_block, markdown_table
from tools.document.pdf_layout import Line

#: A line at least this many times the body font size is a heading (when the PDF has no outline).
HEADING_SIZE_RATIO = 1.2
#: How similar (difflib ratio) a line must be to an outline title it does not spell exactly.
SIMILAR_HEADING_RATIO = 0.85
_MAX_HEADING_CHARS = 120
_SOFT_HYPHEN = "\ufffe"  # PDFium's mark for a hyphen it judged to be line-end hyphenation
_HYPHENS = ("-", "\u00ad", "\u2010")
_BULLETS = ("•", "◦", "▪", "‣", "∙", "●", "○", "■", "□", "–")
_NOT_KEY = re.compile(r"[\W_]+")
_NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|section|appendix|part|chapitre|annexe|kapitel)\s+)?"
    r"(?:[0-9]+(?:[.][0-9]+)*[.]?|[IVXLC]+[.]|[A-Z](?:[.][0-9]+)*[.]?)(?:\s+|[:.)]\s*)",
    re.I,
)
_SETEXT_OR_RULE = re.compile(r"^\s*([-=*_])(\s*\1)*\s*$")
_ORDERED = re.compile(r"^\d{1,3}[.)]\s")
_DIGITS = re.compile(r"\d+")
_RUN_TOGETHER = re.compile(r"[^\W\d_]{25,}")
_CASE_CHANGE = re.compile(r"(?<=[^\W\d_])(?<![A-Z])(?=[A-Z][a-z])")
#: A line at the top or bottom of at least this share of the pages (and of 3) is a running header or footer.
RUNNING_SHARE = 0.3
RUNNING_MIN_PAGES = 4


@dataclass
class Page:
    number: int
    lines: list[Line]
    heading_levels: dict[int, int] = field(default_factory=dict)
    #: First lines of outline headings: a heading never runs on into the next one, even at the same level.
    heading_starts: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class OutlineEntry:
    level: int
    title: str
    page_index: int


def pages_to_markdown(pages: list[Page], outline: list[OutlineEntry]) -> str:
    """The document as markdown."""
    for page in pages:
        page.lines = _rejoin_hyphens(_attach_bullets([_normalised(line) for line in page.lines]))
    _drop_running_lines(pages)
    if outline:
        _headings_from_outline(pages, outline)
    else:
        _headings_from_font_sizes(pages)
    blocks: list[str] = []
    for page in pages:
        if page.lines:
            blocks.append(f"[page {page.number}]")
            blocks.extend(_page_blocks(page))
    return "\n\n".join(blocks)


def _normalised(line: Line) -> Line:
    line.text = unicodedata.normalize("NFKC", line.text.replace("\u00a0", " "))
    if not line.mono:
        line.text = _RUN_TOGETHER.sub(_split_at_case_changes, line.text)
    line.cells = [(x, unicodedata.normalize("NFKC", text)) for x, text in line.cells]
    return line


def _attach_bullets(lines: list[Line]) -> list[Line]:
    """Put list markers that a PDF drew apart from their text (alone on a "line", often after the list) back
    in front of the text on their baseline."""
    markers = [line for line in lines if line.text in _BULLETS]
    if not markers:
        return lines
    kept = [line for line in lines if line.text not in _BULLETS]
    for marker in markers:
        beside = [
            line for line in kept if abs(line.y - marker.y) < 0.5 * marker.size and line.x > marker.x and not line.mono
        ]
        if beside:
            item = min(beside, key=lambda line: line.x)
            item.text = f"{marker.text} {item.text}"
            item.x = marker.x
    return kept


def _split_at_case_changes(match: re.Match[str]) -> str:
    """`BibliographyBibliographyTable` → `Bibliography Bibliography Table`: a PDF that drew words without any
    gap (no space, no distance) still marks their starts with capitals. Only very long runs are touched."""
    return _CASE_CHANGE.sub(" ", match.group())


def _rejoin_hyphens(lines: list[Line]) -> list[Line]:
    """`confi-` + `guration is…` → `configuration` + `is…`: the word moves up to the line it started on.

    PDFium's U+FFFE marks hyphenation (the hyphen goes); a plain hyphen before a lower-case continuation is
    kept (`well-known`), but the word is still rejoined so it is not split at the line end.
    """
    for current, following in itertools.pairwise(lines):
        text = current.text
        if current.mono or following.mono or not text or not following.text:
            continue
        if text.endswith(_SOFT_HYPHEN):
            keep = ""
        elif text.endswith(_HYPHENS) and len(text) > 1 and text[-2].isalpha() and following.text[0].islower():
            keep = "-"
        else:
            continue
        word, _, rest = following.text.partition(" ")
        current.text = text[:-1] + keep + word
        following.text = rest
        following.cells = []
        current.cells = []
    for line in lines:
        line.text = line.text.replace(_SOFT_HYPHEN, "")  # a mark PDFium left inside a line it joined itself
    return [line for line in lines if line.text.strip() or line.mono]


def _drop_running_lines(pages: list[Page]) -> None:
    """Remove running headers and footers (a line at a page's top or bottom that recurs, numbers aside, on
    many pages): they interrupt the text at every page and the `[page N]` anchors already say where it is."""
    if len(pages) < RUNNING_MIN_PAGES:
        return
    seen: Counter[str] = Counter()
    for page in pages:
        seen.update({_running_key(line.text) for line in _edge_lines(page.lines)})
    threshold = max(3, RUNNING_SHARE * len(pages))
    running = {key for key, count in seen.items() if count >= threshold}
    for page in pages:
        edges = {id(line) for line in _edge_lines(page.lines) if _running_key(line.text) in running}
        page.lines = [line for line in page.lines if id(line) not in edges]


def _edge_lines(lines: list[Line]) -> list[Line]:
    return lines[:2] + lines[2:][-2:]


def _running_key(text: str) -> str:
    return _DIGITS.sub("0", " ".join(text.casefold().split()))


def _key(text: str) -> str:
    return _NOT_KEY.sub("", unicodedata.normalize("NFKC", text).casefold())


def heading_key(text: str) -> str:
    """What two spellings of one heading share: no section number, case, spacing or punctuation
    ('2.1 Data-Files', 'Chapter 2: Data files' → 'datafiles')."""
    return _key(_NUMBERING.sub("", text, count=1))


def _headings_from_outline(pages: list[Page], outline: list[OutlineEntry]) -> None:
    """Mark the lines that spell an outline entry (on its target page, else a page next to it: some producers
    point one or two pages off) as headings of its level; a title repeated in the text is taken once."""
    by_index = {page.number - 1: page for page in pages}
    cursors: dict[int, int] = {}
    for entry in outline:
        wanted = heading_key(entry.title)
        if not wanted:
            continue
        level = min(entry.level + 1, 6)
        nearby = (entry.page_index, entry.page_index + 1, entry.page_index - 1, entry.page_index + 2)
        for find in (_mark_heading, _mark_similar_heading):
            index = next(
                (i for i in nearby if i in by_index and find(by_index[i], wanted, level, cursors.get(i, 0))), None
            )
            if index is not None:
                cursors[index] = max(by_index[index].heading_levels) + 1
                break


def _mark_heading(page: Page, wanted: str, level: int, start: int) -> bool:
    """Find `wanted` (an unnumbered key) in up to three consecutive lines from `start`; mark them as a heading."""
    lines = page.lines
    for first in range(start, len(lines)):
        spelled = ""
        for last in range(first, min(first + 3, len(lines))):
            if lines[last].mono or last in page.heading_levels:
                break
            spelled += " " + lines[last].text
            key = heading_key(spelled)
            if key == wanted:
                for number in range(first, last + 1):
                    page.heading_levels[number] = level
                page.heading_starts.add(first)
                return True
            if not key or not wanted.startswith(key):
                break
    return False


def _mark_similar_heading(page: Page, wanted: str, level: int, start: int) -> bool:
    """The fallback for outline titles that differ from the text a little (a producer left markup in the
    bookmark, say `The F[C]pdfmarkF[] Operator`): the first single line at least 85 % similar."""
    for number in range(start, len(page.lines)):
        line = page.lines[number]
        if line.mono or number in page.heading_levels or len(line.text) > 2 * len(wanted) + 20:
            continue
        key = heading_key(line.text)
        if key and difflib.SequenceMatcher(None, key, wanted).ratio() >= SIMILAR_HEADING_RATIO:
            page.heading_levels[number] = level
            page.heading_starts.add(number)
            return True
    return False


def _headings_from_font_sizes(pages: list[Page]) -> None:
    """Lines set larger than the body text are headings; the largest size is level 1 (three levels at most)."""
    weights: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            if not line.mono:
                weights[line.size] += len(line.text)
    if not weights:
        return
    body = weights.most_common(1)[0][0]
    candidates = [
        (page, number)
        for page in pages
        for number, line in enumerate(page.lines)
        if _looks_like_heading(line) and line.size >= body * HEADING_SIZE_RATIO
    ]
    sizes = sorted({page.lines[number].size for page, number in candidates}, reverse=True)
    levels = {size: min(rank + 1, 3) for rank, size in enumerate(sizes)}
    for page, number in candidates:
        page.heading_levels[number] = levels[page.lines[number].size]


def _looks_like_heading(line: Line) -> bool:
    return not line.mono and len(line.text) <= _MAX_HEADING_CHARS and any(ch.isalpha() for ch in line.text)


def _page_blocks(page: Page) -> Iterator[str]:
    lines = page.lines
    margin = _body_margin(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        if index in page.heading_levels:
            level = page.heading_levels[index]
            end = index + 1
            while (
                end < len(lines)
                and page.heading_levels.get(end) == level
                and lines[end].size == line.size
                and end not in page.heading_starts
            ):
                end += 1
            yield "#" * level + " " + " ".join(item.text for item in lines[index:end])
            index = end
            continue
        end = _run_end(page, index, lambda item: item.mono)
        if end > index and (end - index >= 2 or line.x > margin + line.size):
            yield _code_block(lines[index:end])
            index = end
            continue
        end = _run_end(page, index, lambda item: len(item.cells) >= 2 and not item.mono)
        if end - index >= 2:
            yield _table(lines[index:end])
            index = end
            continue
        if _is_list_item(line.text):
            end = _list_end(page, index)
            yield _list_block(lines[index:end])
            index = end
            continue
        end = _paragraph_end(page, index)
        yield "\n".join(_escaped(item.text) for item in lines[index:end])
        index = end


def _body_margin(lines: list[Line]) -> float:
    xs = Counter(round(line.x) for line in lines if not line.mono)
    return float(xs.most_common(1)[0][0]) if xs else 0.0


def _run_end(page: Page, start: int, belongs: object) -> int:
    end = start
    while end < len(page.lines) and end not in page.heading_levels and belongs(page.lines[end]):  # type: ignore[operator]
        end += 1
    return end


def _paragraph_end(page: Page, start: int) -> int:
    """Body lines stay together until a heading, code, a new list item or a wider vertical gap."""
    lines = page.lines
    end = start + 1
    while end < len(lines) and end not in page.heading_levels:
        previous, line = lines[end - 1], lines[end]
        if line.mono or len(line.cells) >= 2 or line.text.startswith(_BULLETS) or _ORDERED.match(line.text):
            break
        step = previous.y - line.y
        if step <= 0 or step > 1.6 * max(previous.size, line.size):
            break
        end += 1
    return end


def _is_list_item(text: str) -> bool:
    return (text.startswith(_BULLETS) and len(text) > 1) or bool(_ORDERED.match(text))


def _list_end(page: Page, start: int) -> int:
    """Consecutive list items, each with its continuation lines, make one list."""
    end = _paragraph_end(page, start)
    while end < len(page.lines) and end not in page.heading_levels and _is_list_item(page.lines[end].text):
        end = _paragraph_end(page, end)
    return end


def _list_block(lines: list[Line]) -> str:
    """Markdown list items, nested by the distinct indentations of their markers (leftmost = top level)."""
    indents: list[float] = []
    for line in lines:
        if _is_list_item(line.text) and all(abs(line.x - x) > 0.5 * line.size for x in indents):
            indents.append(line.x)
    indents.sort()
    items: list[str] = []
    for line in lines:
        if not _is_list_item(line.text):
            items[-1] += " " + line.text
            continue
        depth = min(range(len(indents)), key=lambda i: abs(indents[i] - line.x))
        if line.text.startswith(_BULLETS):
            items.append("  " * depth + "- " + _escaped(line.text[1:].strip()))
        else:
            items.append("   " * depth + line.text)
    return "\n".join(items)


def _escaped(text: str) -> str:
    if text.startswith(("#", ">", "+", "*")) or _SETEXT_OR_RULE.match(text):
        return "\\" + text
    return text


def _code_block(lines: list[Line]) -> str:
    """A fence whose lines keep their indentation, measured in character widths from the leftmost line."""
    left = min(line.x for line in lines)
    widths = [(line.right - line.x) / (len(line.text) - 1) for line in lines if len(line.text) >= 8]
    advance = statistics.median(widths) if widths else 0.6 * statistics.median(line.size for line in lines)
    advance = advance if advance > 0 else 6.0
    text = "\n".join(" " * round((line.x - left) / advance) + line.text for line in lines)
    return fenced_block(text)


def _table(lines: list[Line]) -> str:
    """Rows cut into cells; each cell goes to the column whose left edge is nearest."""
    template = max(lines, key=lambda line: len(line.cells))
    columns = [x for x, _ in template.cells]
    rows = []
    for line in lines:
        row = [""] * len(columns)
        for x, text in line.cells:
            column = min(range(len(columns)), key=lambda i: abs(columns[i] - x))
            row[column] = f"{row[column]} {text}".strip()
        rows.append(row)
    return markdown_table(rows)
