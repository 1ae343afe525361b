"""Reverse-chronological workflow history for Stage 1 (spec 1, "History").

Current round newest first, then earlier rounds. Each entry carries label, document references, summary,
findings and learnings — all clipped — so the prompt stays the same size however large the tool outputs were.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from graph.schemas import HistoryEntry
from prompts.templates import clip, untrusted

MAX_ENTRIES = 8
DETAILED_ENTRIES = 3  # the newest steps in full; older ones as one line, so the prompt stops growing
FIELD_CHARS = 240


def render_history(
    entries: Sequence[HistoryEntry], current_round: int, limit: int = MAX_ENTRIES, listed: Collection[str] = ()
) -> str:
    """`listed`: the labels of the document lists the prompt's AVAILABLE DOCUMENTS shows, with their files; an entry
    whose list is one of them names it in its first line only."""
    if not entries:
        return "(no steps yet)"
    ordered = sorted(entries, key=lambda e: (e.round != current_round, -e.round, -e.step))
    shown = ordered[:limit]
    lines: list[str] = []
    in_earlier = False
    for position, entry in enumerate(shown):
        if entry.round != current_round and not in_earlier:
            lines.append("Earlier rounds:")
            in_earlier = True
        rendered = _render_entry(entry, lessons_shown=entry.round == current_round, listed=listed)
        lines.extend(rendered if position < DETAILED_ENTRIES else rendered[:1])
    if len(ordered) > limit:
        lines.append(f"(… {len(ordered) - limit} older steps omitted)")
    return "\n".join(lines)


def _render_entry(entry: HistoryEntry, lessons_shown: bool, listed: Collection[str]) -> list[str]:
    """One entry; `lessons_shown`: the round's lessons (learn's "Step n: …") are in CURRENT LEARNINGS already."""
    outcome = {
        "met": f"met the criteria, quality {entry.qualityScore:.2f}",
        "progress": f"intermediate result, quality {entry.qualityScore:.2f}",
        "judging": "delivered, being checked",
    }.get(entry.outcome or "", "FAILED")
    head = f"- [round {entry.round} · step {entry.step}] {entry.action or '(no action)'} — {outcome}"
    if entry.resultLabel:
        head += f" — {entry.resultLabel}"
    lines = [head]
    if entry.actionObjective:
        lines.append(f"  objective: {clip(entry.actionObjective, FIELD_CHARS)}")
    if entry.documents and entry.documents[0].label not in listed:
        names = ", ".join(ref.name for ref in entry.documents[:5])
        more = f" +{len(entry.documents) - 5}" if len(entry.documents) > 5 else ""
        lines.append(f"  documents: docList:{entry.documents[0].label} ({names}{more})")
    if entry.summary and not entry.findings:  # a summary names the documents and the findings again
        lines.append("  summary: " + untrusted(clip(entry.summary, FIELD_CHARS), "summary").replace("\n", " "))
    if entry.findings:  # tool notes carry URLs, file names and page text: untrusted like the summary
        findings = untrusted(clip("; ".join(entry.findings), FIELD_CHARS), "findings").replace("\n", " ")
        lines.append(f"  findings: {findings}")
    if entry.learnings and not (lessons_shown and entry.learnings[-1].startswith(f"Step {entry.step}:")):
        lines.append(f"  learnings: {clip(entry.learnings[-1], FIELD_CHARS)}")
    return lines
