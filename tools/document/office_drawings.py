"""Name the drawings of Office documents (pictures, charts, SmartArt) so none is dropped silently.

A model cannot see an image, but it can read that one is there and what its author said it shows (the alt
text, `descr`/`title` of the drawing's `docPr`/`cNvPr`).
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from tools.document.md_build import drawing_note
from tools.document.office_charts import chart_markdown

_GRAPHIC_KINDS = {
    "http://schemas.openxmlformats.org/drawingml/2006/picture": "image",
    "http://schemas.openxmlformats.org/drawingml/2006/chart": "chart",
    "http://schemas.openxmlformats.org/drawingml/2006/diagram": "SmartArt diagram",
    "http://schemas.openxmlformats.org/presentationml/2006/ole": "embedded object",
}
_NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "wp": "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "v": "urn:schemas-microsoft-com:vml",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
}
_VML_TITLE = "{urn:schemas-microsoft-com:office:office}title"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True)

_GRAPHIC_URI = etree.XPath(".//a:graphicData/@uri", namespaces=_NS)
_DIAGRAM_DATA = etree.XPath(".//dgm:relIds/@r:dm", namespaces=_NS)
_WORD_DRAWINGS = etree.XPath(".//w:drawing", namespaces=_NS)
_WORD_DRAWING_PROPERTIES = etree.XPath(".//wp:docPr", namespaces=_NS)
_CHART_IDS = etree.XPath(".//c:chart/@r:id", namespaces=_NS)
_WORD_VML_IMAGES = etree.XPath(".//w:pict//v:imagedata", namespaces=_NS)


def alt_text(properties: Any) -> tuple[str | None, str | None]:
    """(name, alt text) of a `docPr`/`cNvPr` element; the description wins over the title."""
    if properties is None:
        return None, None
    return properties.get("name"), properties.get("descr") or properties.get("title")


def graphic_kind(element: Any) -> str:
    """What a drawing holds, by its `a:graphicData` URI (or 'image' for a picture element)."""
    uris = _GRAPHIC_URI(element)
    return _GRAPHIC_KINDS.get(str(uris[0]), "drawing") if uris else "image"


def smartart_text(element: Any, part: Any) -> list[str]:
    """The texts typed into a SmartArt diagram (its data part), in order; [] when they cannot be read."""
    ids = _DIAGRAM_DATA(element)
    if not ids:
        return []
    try:
        data = etree.fromstring(part.related_part(str(ids[0])).blob, _PARSER)
    except Exception:  # a missing or broken data part costs the diagram's text, not the document
        return []
    paragraphs = data.iter(f"{{{_NS['a']}}}p")
    texts = (" ".join("".join(t.text or "" for t in p.iter(f"{{{_NS['a']}}}t")).split()) for p in paragraphs)
    return [text for text in texts if text]


def word_drawing_notes(paragraph: Any, part: Any) -> list[str]:
    """A note per picture, chart or diagram anchored in a DOCX paragraph (`w:p`), with its alt text; charts
    also as a table of their data (read from the chart part that `part`, the document part, relates)."""
    notes = []
    for drawing in _WORD_DRAWINGS(paragraph):
        properties = _WORD_DRAWING_PROPERTIES(drawing)
        name, alt = alt_text(properties[0] if properties else None)
        kind = graphic_kind(drawing)
        chart_ids = _CHART_IDS(drawing) if kind == "chart" else []
        if chart_ids and str(chart_ids[0]) in part.related_parts:
            notes.append(chart_markdown(part.related_parts[str(chart_ids[0])].blob, name, alt))
        else:
            notes.append(drawing_note(kind, name, alt))
    notes.extend(drawing_note("image", None, image.get(_VML_TITLE)) for image in _WORD_VML_IMAGES(paragraph))
    return notes
