"""PPTX → markdown with python-pptx: one section per slide with its title, text frames, tables and notes."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.shapes.picture import Picture

from core.errors import DocumentRejected
from tools.document.extracted import ExtractedText
from tools.document.md_build import drawing_note, markdown_table
from tools.document.office_charts import chart_markdown
from tools.document.office_drawings import alt_text, graphic_kind, smartart_text


def read_pptx(data: bytes, name: str) -> ExtractedText:
    try:
        presentation = Presentation(io.BytesIO(data))
        slides = list(presentation.slides)
        core_title = presentation.core_properties.title
    except Exception as exc:  # python-pptx raises KeyError/ValueError/PackageNotFoundError on broken files
        raise DocumentRejected(f"{name} is not a readable PPTX file: {exc or type(exc).__name__}") from exc
    sections: list[str] = []
    notes: list[str] = []
    first_title: str | None = None
    for number, slide in enumerate(slides, start=1):
        try:
            slide_title, body = _slide(slide)
        except Exception as exc:  # one broken slide must not lose the others
            notes.append(f"{name}: slide {number} could not be read ({exc or type(exc).__name__})")
            continue
        first_title = first_title or slide_title
        heading = f"## Slide {number}" + (f": {slide_title}" if slide_title else "")
        sections.append("\n\n".join([heading, *body]))
    title = " ".join(core_title.split()) if core_title else first_title
    return ExtractedText(text="\n\n".join(sections), kind="pptx", title=title or None, slides=len(slides), notes=notes)


def _slide(slide: Any) -> tuple[str | None, list[str]]:
    title_shape = slide.shapes.title
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    title_id = title_shape.shape_id if title_shape is not None else None
    body = [part for part in _shapes(slide.shapes, skip_id=title_id, part=slide.part) if part]
    if slide.has_notes_slide:
        notes_text = slide.notes_slide.notes_text_frame.text.strip() if slide.notes_slide.notes_text_frame else ""
        if notes_text:
            body.append("> Notes: " + " ".join(notes_text.split()))
    return title or None, body


def _shapes(shapes: Iterable[Any], skip_id: int | None, part: Any) -> Iterable[str]:
    """Every shape accounted for: text, tables, charts as tables, pictures and diagrams as notes."""
    for shape in shapes:
        if skip_id is not None and shape.shape_id == skip_id:
            continue
        if getattr(shape, "shape_type", None) == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes, skip_id=None, part=part)
        elif getattr(shape, "has_table", False):
            rows = [[cell.text for cell in row.cells] for row in shape.table.rows]
            yield markdown_table(rows)
        elif getattr(shape, "has_chart", False):
            yield chart_markdown(shape.chart_part.blob, shape.name, alt_text(_properties(shape))[1])
        elif shape.element.tag.endswith(("}pic", "}graphicFrame")):
            yield _drawing(shape, part)
        elif getattr(shape, "has_text_frame", False):
            yield _text_frame(shape.text_frame)


def _drawing(shape: Any, part: Any) -> str:
    name, alt = alt_text(_properties(shape))
    if getattr(shape, "shape_type", None) == MSO_SHAPE_TYPE.MEDIA:
        kind = "video or audio"
    else:
        kind = "image" if isinstance(shape, Picture) else graphic_kind(shape.element)
    note = drawing_note(kind, name, alt)
    texts = smartart_text(shape.element, part) if kind == "SmartArt diagram" else []
    return note + "".join(f"\n- {text}" for text in texts)


def _properties(shape: Any) -> Any:
    found = shape.element.xpath("./*[1]/p:cNvPr")
    return found[0] if found else None


def _text_frame(frame: Any) -> str:
    lines = []
    for paragraph in frame.paragraphs:
        text = " ".join(paragraph.text.split())
        if text:
            lines.append(f"{'  ' * (paragraph.level or 0)}- {text}")
    return "\n".join(lines)
