"""Build real documents in memory with literal, recognisable content, so tests need no fixture files."""

from __future__ import annotations

import io
import zipfile
from functools import cache

import docx
import openpyxl
from pptx import Presentation
from pptx.util import Inches
from pypdf import PdfReader, PdfWriter

from tools.document.report import html_to_pdf


@cache
def pdf_bytes(*pages: str) -> bytes:
    """A PDF with one page per string (rendered by weasyprint, so it has a real text layer)."""
    body = "".join(
        f'<p style="page-break-before: {"auto" if i == 0 else "always"}">{text}</p>' for i, text in enumerate(pages)
    )
    return html_to_pdf(f"<html><head><title>Pdf Title</title></head><body>{body}</body></html>")


def encrypted_pdf(user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes("Secret page text"))))
    writer.encrypt(user_password=user_password, owner_password="owner-pw", algorithm="AES-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def docx_bytes() -> bytes:
    document = docx.Document()
    document.core_properties.title = "Quarterly Report"
    document.add_heading("Quarterly Report", level=1)
    document.add_paragraph("Alpha paragraph before the table.")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, (("Name", "Value"), ("Widget", "42")), strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_heading("Details", level=2)
    document.add_paragraph("First bullet", style="List Bullet")
    document.add_paragraph("Omega paragraph after the table.")
    return _save(document)


def xlsx_bytes() -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Sales"
    for row in (("Region", "Units"), ("North", 120), ("South", 80.0)):
        sheet.append(row)
    other = workbook.create_sheet("Costs")
    other.append(("Item", "Cost"))
    other.append(("Rent", 1000.5))
    return _save(workbook)


def pptx_bytes() -> bytes:
    presentation = Presentation()
    first = presentation.slides.add_slide(presentation.slide_layouts[1])
    assert first.shapes.title is not None
    first.shapes.title.text = "Launch Plan"
    body = first.placeholders[1].text_frame
    body.text = "Kickoff in March"
    sub = body.add_paragraph()
    sub.text = "Beta in May"
    sub.level = 1
    first.notes_slide.notes_text_frame.text = "Speaker note here"
    second = presentation.slides.add_slide(presentation.slide_layouts[5])
    assert second.shapes.title is not None
    second.shapes.title.text = "Budget Table"
    shape = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1))
    for r, values in enumerate((("Quarter", "Spend"), ("Q1", "500"))):
        for c, value in enumerate(values):
            shape.table.cell(r, c).text = value
    return _save(presentation)


def zip_bomb_docx(uncompressed_mb: int = 20) -> bytes:
    """A DOCX-shaped zip whose document.xml is megabytes of zeros (~1000:1), a few KB on disk."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\0" * (uncompressed_mb * 1024 * 1024))
    return buffer.getvalue()


def _save(document: object) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)  # type: ignore[attr-defined]
    return buffer.getvalue()


def pdf_from_html(body: str, css: str = "") -> bytes:
    """A PDF of an HTML body (weasyprint: real text layer, fonts and, for h1–h6, an outline)."""
    style = f"body {{ font-family: 'DejaVu Serif'; font-size: 10pt; }} {css}"
    return html_to_pdf(f"<html><head><style>{style}</style></head><body>{body}</body></html>")


def png_bytes() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def pptx_with_chart_and_picture() -> bytes:
    """One slide holding only a chart (two series over three quarters) and a picture with alt text."""
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3"]
    data.add_series("Revenue", (10.0, 12.5, 15.0))
    data.add_series("Costs", (7.0, 8.0, 9.25))
    slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1), Inches(6), Inches(4), data)
    picture = slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(7), Inches(1), Inches(1), Inches(1))
    picture._element.nvPicPr.cNvPr.set("descr", "Team photo at the launch")
    return _save(presentation)


def docx_of_images(alt_texts: tuple[str, ...]) -> bytes:
    """A DOCX whose body is only pictures; the first ones get the given alt texts, the last has none."""
    document = docx.Document()
    for alt in (*alt_texts, ""):
        document.add_picture(io.BytesIO(png_bytes()))
        if alt:
            properties = document.inline_shapes[-1]._inline.docPr
            properties.set("descr", alt)
    return _save(document)


def raw_pdf(*lines: tuple[float, float, bytes]) -> bytes:
    """A one-page PDF written by hand: Helvetica text drawn at the absolute (x, y) given, with a ToUnicode map
    in which byte 0x01 is the ligature `ﬁ` (U+FB01) — the way TeX and FOP PDFs carry ligatures into their text."""
    content = b"".join(b"BT /F1 11 Tf %.1f %.1f Td (%s) Tj ET\n" % (x, y, text) for x, y, text in lines)
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Lig def "
        b"1 begincodespacerange <00> <FF> endcodespacerange "
        b"1 beginbfchar <01> <FB01> endbfchar 1 beginbfrange <20> <7E> <0020> endbfrange "
        b"endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def pptx_with_3d_area_chart() -> bytes:
    """A slide whose only content is a 3-D area chart over dates (python-pptx cannot model that chart type)."""
    import datetime as dt

    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])
    data = CategoryChartData()
    data.categories = [dt.date(2024, 1, 31), dt.date(2024, 2, 29)]
    data.add_series("Visitors", (120, 135))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.AREA, Inches(1), Inches(1), Inches(5), Inches(4), data)
    area = frame.chart_part._element.xpath(".//c:areaChart")[0]
    area.tag = area.tag.replace("areaChart", "area3DChart")
    return _save(presentation)


def pptx_with_smartart(alt: str, texts: tuple[str, ...]) -> bytes:
    """A slide holding one SmartArt diagram (a graphic frame pointing at a diagram data part with `texts`)."""
    from lxml import etree
    from pptx.opc.constants import RELATIONSHIP_TYPE
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI

    dgm = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    points = "".join(
        f'<dgm:pt modelId="{i}"><dgm:t><a:p><a:r><a:t>{t}</a:t></a:r></a:p></dgm:t></dgm:pt>'
        for i, t in enumerate(texts, start=1)
    )
    data = f'<dgm:dataModel xmlns:dgm="{dgm}" xmlns:a="{a}"><dgm:ptLst>{points}</dgm:ptLst></dgm:dataModel>'
    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])
    part = Part(
        PackURI("/ppt/diagrams/data1.xml"),
        "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml",
        slide.part.package,
        data.encode(),
    )
    rel_id = slide.part.relate_to(part, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    frame = (
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        f'xmlns:a="{a}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f'<p:nvGraphicFramePr><p:cNvPr id="9" name="Diagram 1" descr="{alt}"/><p:cNvGraphicFramePr/><p:nvPr/>'
        '</p:nvGraphicFramePr><p:xfrm><a:off x="0" y="0"/><a:ext cx="100" cy="100"/></p:xfrm>'
        f'<a:graphic><a:graphicData uri="{dgm}"><dgm:relIds xmlns:dgm="{dgm}" r:dm="{rel_id}" r:lo="" r:qs="" '
        'r:cs=""/></a:graphicData></a:graphic></p:graphicFrame>'
    )
    slide.shapes._spTree.append(etree.fromstring(frame))
    return _save(presentation)
