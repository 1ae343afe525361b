"""The result every reader returns: markdown text plus the facts a summary or an observation needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.document.detect import Kind


@dataclass
class ExtractedText:
    text: str
    kind: Kind
    title: str | None = None
    pages: int | None = None
    sheets: int | None = None
    slides: int | None = None
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """Short description for summaries, e.g. 'PDF, 3 pages, 5120 chars'."""
        parts = [self.kind if self.kind in {"markdown", "text"} else self.kind.upper()]
        for count, unit in ((self.pages, "page"), (self.sheets, "sheet"), (self.slides, "slide")):
            if count is not None:
                parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
        parts.append(f"{len(self.text)} chars")
        return ", ".join(parts)
