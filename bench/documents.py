"""`python -m bench.documents`: how readable `document.extract`'s markdown is, per real file, against its peers.

Corpus: `python -m bench.corpus` first (Debian manuals of five PDF producers, the Office libraries' test
files). Per PDF and engine: time and its ratio to poppler's `pdftotext` run on the same file in the same run;
run-together words (25+ letters per 10,000 words); ligature characters; words split at line ends by a hyphen;
outline entries found as headings, headings that are no outline entry, tables and code blocks. Engines:
paor, paor's previous pypdf reader ("before"), and, where they install (`pip install -e '.[bench]'`),
pymupdf4llm and markitdown. Per Office file with charts, pictures or tables: how many of each the file holds
and how many the markdown accounts for. Nothing is asserted; timings are noisy.
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from pptx.enum.shapes import MSO_SHAPE_TYPE

from tools.document.md_parser import markdown_parser
from tools.document.pdf_markdown import SIMILAR_HEADING_RATIO, heading_key
from tools.document.readers import extract_text

CORPUS = Path(__file__).resolve().parent / "corpus"
_LONG_WORD = re.compile(r"[^\W\d_]{25,}")
_WORD = re.compile(r"\w+")
_LIGATURES = re.compile("[\ufb00-\ufb06]")
_HYPHEN_SPLIT = re.compile(r"[^\W\d_]-\n\s*[^\W\d_A-Z]")
_PAGE_ANCHOR = re.compile(r"^\[?page \d+\]?$", re.I)

Engine = Callable[[Path], str]


@dataclass
class Quality:
    seconds: float
    long_words: float
    ligatures: int
    hyphen_splits: int
    headings_found: int
    stray_headings: int
    tables: int
    code_blocks: int


def paor(path: Path) -> str:
    return extract_text(path.read_bytes(), path.name).text


def before(path: Path) -> str:
    """paor's reader before this benchmark: pypdf's extract_text per page under `## Page N`."""
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(path.read_bytes())).pages
    texts = ((number, (page.extract_text() or "").strip()) for number, page in enumerate(pages, start=1))
    return "\n\n".join(f"## Page {number}\n\n{text}" for number, text in texts if text)


def pymupdf4llm(path: Path) -> str:
    import pymupdf4llm as engine

    return str(engine.to_markdown(str(path), show_progress=False))


def markitdown(path: Path) -> str:
    from markitdown import MarkItDown

    return str(MarkItDown().convert(str(path)).text_content)


def pdftotext_seconds(path: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["pdftotext", "-q", str(path), "-"], check=True, capture_output=True)
    return time.perf_counter() - start


def outline_keys(path: Path) -> list[str]:
    document = pdfium.PdfDocument(str(path))
    try:
        return [key for bookmark in document.get_toc() if (key := heading_key(bookmark.get_title() or ""))]
    finally:
        document.close()


def measure(engine: Engine, path: Path, outline: list[str]) -> Quality:
    start = time.perf_counter()
    text = engine(path)
    seconds = time.perf_counter() - start
    words = len(_WORD.findall(text)) or 1
    tokens = markdown_parser().parse(text)
    headings = [
        heading_key(tokens[i + 1].content)
        for i, token in enumerate(tokens)
        if token.type == "heading_open" and not _PAGE_ANCHOR.match(tokens[i + 1].content.strip())
    ]
    wanted = set(outline)
    matches = {key: _outline_match(key, wanted) for key in set(headings)}
    found = len({match for match in matches.values() if match})
    return Quality(
        seconds=seconds,
        long_words=len(_LONG_WORD.findall(text)) * 10_000 / words,
        ligatures=len(_LIGATURES.findall(text)),
        hyphen_splits=len(_HYPHEN_SPLIT.findall(text)),
        headings_found=min(found, len(outline)),
        stray_headings=sum(1 for key in headings if not matches[key]) if outline else 0,
        tables=sum(1 for token in tokens if token.type == "table_open"),
        code_blocks=sum(1 for token in tokens if token.type in ("fence", "code_block")),
    )


def _outline_match(key: str, outline: set[str]) -> str | None:
    """The outline entry a heading is (same key, or ≥ 85 % similar: some bookmarks carry stray markup)."""
    if key in outline:
        return key
    similar = (entry for entry in outline if SequenceMatcher(None, key, entry).ratio() >= SIMILAR_HEADING_RATIO)
    return next(similar, None)


def available_engines() -> dict[str, Engine]:
    engines: dict[str, Engine] = {"paor": paor, "before": before}
    for name, engine, module in (("pymupdf4llm", pymupdf4llm, "pymupdf4llm"), ("markitdown", markitdown, "markitdown")):
        try:
            __import__(module)
        except ImportError:
            continue
        engines[name] = engine
    return engines


def pdf_table(files: list[Path], engines: dict[str, Engine], emit: Callable[[str], None]) -> list[str]:
    """Emit the table row by row (a slow peer should not hide the rows already measured); return the totals."""
    header = (
        "| file | engine | s | × pdftotext | 25+ letter words /10k | ligatures | hyphen splits "
        "| outline headings found | other headings | tables | code blocks |"
    )
    emit(header)
    emit("|" + " --- |" * 11)
    totals: dict[str, float] = {}
    baseline_total = 0.0
    for path in files:
        outline = outline_keys(path)
        baseline = pdftotext_seconds(path)
        baseline_total += baseline
        for name, engine in engines.items():
            try:
                q = measure(engine, path, outline)
            except Exception as exc:  # a peer failing on a file is a result, not a crash
                emit(f"| {path.name} | {name} | failed: {type(exc).__name__} |" + " |" * 8)
                continue
            totals[name] = totals.get(name, 0.0) + q.seconds
            found = f"{q.headings_found}/{len(set(outline))}" if outline else "no outline"
            emit(
                f"| {path.name} | {name} | {q.seconds:.2f} | {q.seconds / baseline:.1f} | {q.long_words:.1f} "
                f"| {q.ligatures} | {q.hyphen_splits} | {found} | {q.stray_headings} | {q.tables} | {q.code_blocks} |"
            )
    summary = [f"pdftotext: {baseline_total:.2f} s over {len(files)} PDFs"]
    summary += [
        f"{name}: {seconds:.2f} s ({seconds / baseline_total:.1f} × pdftotext"
        + (f", {seconds / totals['before']:.2f} × before)" if "before" in totals else ")")
        for name, seconds in totals.items()
    ]
    return summary


def office_table(files: list[Path]) -> str:
    lines = [
        "| file | charts (in file → as tables) | pictures (→ noted) | tables (→ in markdown) |",
        "|" + " --- |" * 4,
    ]
    for path in files:
        held = _office_inventory(path)
        if not any(held):
            continue
        try:
            text = paor(path)
        except Exception as exc:  # the reader refusing a file is a result
            lines.append(f"| {path.name} | refused: {exc} | | |")
            continue
        tables = sum(1 for token in markdown_parser().parse(text) if token.type == "table_open")
        charts = text.count("[chart")
        chart_tables = len(re.findall(r"^\[chart[^\n]*\]\n\n\|", text, re.M))
        pictures = len(re.findall(r"\[(?:image|SmartArt diagram|embedded object|drawing|video or audio)", text))
        without_data = f" (+{charts - chart_tables} noted, no data)" if charts > chart_tables else ""
        lines.append(
            f"| {path.name} | {held[0]} → {chart_tables}{without_data} | {held[1]} → {pictures} "
            f"| {held[2]} → {tables - chart_tables} |"
        )
    return "\n".join(lines)


def _office_inventory(path: Path) -> tuple[int, int, int]:
    """(charts, pictures and other drawings, tables) the file holds, counted by walking its shapes / body."""
    if path.suffix == ".pptx":
        from pptx import Presentation

        counts = [0, 0, 0]

        def walk(shapes: Any) -> None:
            for shape in shapes:
                if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
                    walk(shape.shapes)
                elif getattr(shape, "has_chart", False):
                    counts[0] += 1
                elif getattr(shape, "has_table", False):
                    counts[2] += 1
                elif shape.element.tag.endswith(("}pic", "}graphicFrame")):
                    counts[1] += 1

        for slide in Presentation(str(path)).slides:
            walk(slide.shapes)
        return counts[0], counts[1], counts[2]
    import docx

    body = docx.Document(str(path)).element.body
    drawings = body.xpath(".//w:drawing")
    charts = sum(1 for d in drawings if d.xpath(".//a:graphicData/@uri")[0].endswith("/chart"))
    pictures = len(drawings) - charts + len(body.xpath(".//w:pict"))
    return charts, pictures, len(body.xpath("./w:tbl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--engines", help="comma-separated subset of paor,before,pymupdf4llm,markitdown")
    parser.add_argument("--office-only", action="store_true", help="only the Office table")
    parser.add_argument("--files", help="comma-separated parts of the PDF file names to measure (default: all)")
    args = parser.parse_args()
    if not shutil.which("pdftotext"):
        raise SystemExit("pdftotext (poppler-utils) is needed as the timing baseline: apt-get install poppler-utils")
    pdfs = sorted(CORPUS.glob("*.pdf"))
    if args.files:
        pdfs = [path for path in pdfs if any(part in path.name for part in args.files.split(","))]
    if not pdfs:
        raise SystemExit("no corpus: run `python -m bench.corpus` first")
    engines = available_engines()
    if args.engines:
        engines = {name: engine for name, engine in engines.items() if name in args.engines.split(",")}
    if not args.office_only:
        print("## PDF\n")
        summary = pdf_table(pdfs, engines, lambda line: print(line, flush=True))
        print()
        print("\n".join(f"- {line}" for line in summary))
    print("\n## Office (charts, pictures and tables accounted for)\n")
    print(office_table(sorted([*CORPUS.glob("*.pptx"), *CORPUS.glob("*.docx")])))


if __name__ == "__main__":
    main()
