"""Reverse-chronological workflow history for Stage 1 (spec 1, "History").

Current round newest first, then earlier rounds. Each entry carries label, document references, summary,
findings and learnings — all clipped — so the prompt stays the same size however large the tool outputs were.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from itertools import pairwise

from core.schemas import HistoryEntry
from prompts.templates import clip, untrusted

MAX_ENTRIES = 8
DETAILED_ENTRIES = 3  # the newest steps in full; older ones as one line, so the prompt stops growing
FIELD_CHARS = 240


def render_history(
    entries: Sequence[HistoryEntry], current_round: int, limit: int = MAX_ENTRIES, listed: Collection[str] = ()
) -> str:
    """The newest `limit` steps (older ones are left out without a word: the step numbers say there were more).
    `listed`: the labels of the document lists the prompt's AVAILABLE DOCUMENTS shows, with their files; an entry
    in full whose list is one of them leaves it to that section (its label names the step). Repetition costs little:
    a detailed step whose objective or findings are those of the step above says so, and older one-line steps that
    did the same with the same outcome share one line ("steps 2–6"), which also reads as the repetition it is."""
    if not entries:
        return "(no steps yet)"
    ordered = sorted(entries, key=lambda e: (e.round != current_round, -e.round, -e.step))
    shown = ordered[:limit]
    lines: list[str] = []
    in_earlier = False
    above: HistoryEntry | None = None
    group: list[HistoryEntry] = []  # the one-line steps the last line names
    for position, entry in enumerate(shown):
        if entry.round != current_round and not in_earlier:
            lines.append("Earlier rounds:")
            in_earlier, above = True, None
        if position < DETAILED_ENTRIES:
            lines.extend(_render_entry(entry, current_round, listed, above))
        elif group and _same_line(group[-1], entry):
            group.append(entry)
            lines[-1] = _head(group, current_round)
        else:
            group = [entry]
            lines.append(_head(group, current_round))
        above = entry
    return "\n".join(lines)


def _outcome(entry: HistoryEntry) -> str:
    if entry.rejected is not None:
        return "REJECTED by the user (not run)"
    return {
        "met": f"met the criteria, quality {entry.qualityScore:.2f}",
        "progress": f"intermediate result, quality {entry.qualityScore:.2f}",
        "judging": "delivered, being checked",
    }.get(entry.outcome or "", "FAILED")


def _head(steps: Sequence[HistoryEntry], current_round: int, listed: Collection[str] = ()) -> str:
    """The first line of one step, or of consecutive steps newest first: where, action, outcome, result labels
    (but those AVAILABLE DOCUMENTS lists: its "docList:round1_task1_action9_…" names the step already). The round
    is named only for earlier rounds (the current round's steps come first)."""
    newest, oldest = steps[0], steps[-1]
    where = f"step {newest.step}" if len(steps) == 1 else f"steps {oldest.step}–{newest.step}"
    if newest.round != current_round:
        where = f"round {newest.round} · {where}"
    head = f"- [{where}] {newest.action or '(no action)'} — {_outcome(newest)}"
    labels = _labels([e.resultLabel for e in steps if e.resultLabel and e.resultLabel not in listed])
    return f"{head} — {labels}" if labels else head


_NUMBERED = re.compile(r"(.*?)(\d+)(\D*)")


def _labels(labels: Sequence[str]) -> str:
    """Result labels, newest first; labels that differ only in a number counting down one by one (one per step of
    a shared line) are their range, oldest first like "steps 2–6": the middle ones follow from the two ends."""
    parts = [m for m in map(_NUMBERED.fullmatch, labels) if m]
    one_shape = len(parts) == len(labels) and len({(m[1], m[3]) for m in parts}) == 1
    if len(labels) > 2 and one_shape and all(int(a[2]) == int(b[2]) + 1 for a, b in pairwise(parts)):
        return f"{labels[-1]} … {labels[0]}"
    return ", ".join(labels)


def _same_line(newer: HistoryEntry, older: HistoryEntry) -> bool:
    """Two one-line steps that read the same but for their number and label: consecutive, same action and outcome."""
    consecutive = newer.round == older.round and newer.step == older.step + 1
    return consecutive and newer.action == older.action and _outcome(newer) == _outcome(older)


def _render_entry(
    entry: HistoryEntry, current_round: int, listed: Collection[str], above: HistoryEntry | None
) -> list[str]:
    """One entry in full; `above`: the step shown just before, whose objective and findings this one may share."""
    lines = [_head([entry], current_round, listed)]
    if entry.actionObjective:
        objective = clip(entry.actionObjective, FIELD_CHARS)
        if above is not None and above.actionObjective == entry.actionObjective:
            objective = f"as step {above.step}"
        lines.append(f"  objective: {objective}")
    if entry.documents and entry.documents[0].label not in listed:
        names = ", ".join(ref.name for ref in entry.documents[:5])
        more = f" +{len(entry.documents) - 5}" if len(entry.documents) > 5 else ""
        lines.append(f"  documents: docList:{entry.documents[0].label} ({names}{more})")
    if entry.summary and not entry.findings:  # a summary names the documents and the findings again
        lines.append("  summary: " + untrusted(clip(entry.summary, FIELD_CHARS), "summary").replace("\n", " "))
    if entry.findings and above is not None and above.findings == entry.findings:
        lines.append(f"  findings: as step {above.step}")
    elif entry.findings:  # tool notes carry URLs, file names and page text: untrusted like the summary
        findings = untrusted(clip("; ".join(entry.findings), FIELD_CHARS), "findings").replace("\n", " ")
        lines.append(f"  findings: {findings}")
    # The current round's lessons (learn's "Step n: …") are in CURRENT LEARNINGS already.
    lessons_shown = entry.round == current_round
    if entry.learnings and not (lessons_shown and entry.learnings[-1].startswith(f"Step {entry.step}:")):
        lines.append(f"  learnings: {clip(entry.learnings[-1], FIELD_CHARS)}")
    return lines
