"""What the `paor` CLI shows and writes: a line per node as it runs, the result and its deliverables, the history
and the learned strategies.

Everything is built as rich `Text` (never markup), so brackets in model output print as they are, and rich drops
colour and cursor codes by itself when the console is not a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text

from core.errors import ConfigurationError, DocumentRejected
from core.schemas import REJECTED_BY_USER, DocumentRef, HistoryEntry, Strategy
from prompts.templates import clip
from tools.documents import DocumentStore, safe_file_name, unique_name

SUMMARY_CHARS = 300
_NODE_WIDTH = 10


def progress_line(event: dict[str, Any]) -> Text:
    """`[r1 s2] refine     stop — all criteria met   0.01s · 457→33 tok` for one custom progress event."""
    node = str(event.get("node", "?"))
    where = f"r{event.get('round', 0)}" + (f" s{event['step']}" if event.get("step") else "")
    line = Text()  # a style given to Text() would colour everything appended to it: style each part instead
    line.append(f"[{where}] ", style="dim")
    line.append(node.ljust(_NODE_WIDTH), style="bold cyan")
    line.append(" ")
    line.append_text(_what_happened(node, event))
    error = str(event.get("error") or "")
    if error.startswith(REJECTED_BY_USER):  # the user's decision, not a failure of paor's
        line.append(f"  rejected: {clip(error.removeprefix(REJECTED_BY_USER), 200)}", style="yellow")
    elif error:
        line.append(f"  error: {clip(error, 200)}", style="red")
    line.append(f"   {float(event.get('durationS', 0.0)):.2f}s", style="dim")
    tokens_in, tokens_out = int(event.get("inputTokens", 0)), int(event.get("outputTokens", 0))
    if tokens_in or tokens_out:
        line.append(f" · {tokens_in}→{tokens_out} tok", style="dim")
    return line


def _what_happened(node: str, event: dict[str, Any]) -> Text:
    action = str(event.get("action") or "")
    if node == "intent":
        return Text("request analysed")
    if node == "select":
        return Text(f"{action} — {clip(event.get('objective', ''), 160)}" if action else "no action selected")
    if node in ("act", "validate") and event.get("resultLabel"):
        text = Text(f"{action} → {event['resultLabel']}")
        if event.get("qualityScore") is not None:
            text.append(f"  quality {float(event['qualityScore']):.2f}", style="bold")
        return text
    if node == "refine" and event.get("decision"):
        style = "green" if event["decision"] == "stop" else "yellow"
        text = Text()
        text.append(str(event["decision"]), style=f"bold {style}")
        text.append(f" — {clip(event.get('reason', ''), 200)}")
        return text
    if node == "finalize":
        status = str(event.get("status", ""))
        return Text(status, style="bold green" if status == "completed" else "bold yellow")
    return Text(action)


class LiveView:
    """Prints progress lines as events arrive; on a terminal a spinner shows that the next node is working."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._status: Status | None = None

    @contextmanager
    def running(self, thread: str) -> Iterator[LiveView]:
        self.console.print(Text(f"thread {thread}", style="bold"))
        if self.console.is_terminal:
            self._status = self.console.status("working…")
            self._status.start()
        try:
            yield self
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop the spinner (and give the terminal its cursor back); also called by a Ctrl-C that leaves at once."""
        status, self._status = self._status, None
        if status is not None:
            status.stop()

    def show(self, event: dict[str, Any]) -> None:
        self.console.print(progress_line(event))
        if self._status is not None:
            self._status.update(f"{event.get('node')} done — working…")


def print_result(console: Console, thread: str, values: dict[str, Any], written: Iterable[Path]) -> None:
    """The answer, where the deliverables were written, and what the run cost."""
    status = str(values.get("status") or "incomplete")
    console.print(Text(values.get("answer") or "(no answer)"))
    paths = list(written)
    if paths:
        console.print(Text(f"\ndeliverables of round {values.get('round') or 1}, in {paths[0].parent}:", style="bold"))
        for path in paths:
            console.print(Text(f"  {path}"))
    for note in values.get("notes") or []:
        console.print(Text(f"note: {clip(note)}", style="yellow"))
    totals = values.get("totals") or {}
    summary = Text("\n")
    summary.append(status, style="bold green" if status == "completed" else "bold yellow")
    summary.append(f" — {clip(values.get('stop_reason') or 'finished')}")
    summary.append(
        f"\n{totals.get('steps', 0)} steps · {totals.get('tokens', 0)} tokens · {totals.get('seconds', 0)}s"
        f" · thread {thread}",
        style="dim",
    )
    console.print(summary)


def print_history(console: Console, thread: str, entries: list[HistoryEntry]) -> None:
    """Newest step first: round, step, action, result label, ✓/✗, quality and summary."""
    console.print(Text(f"thread {thread}: {len(entries)} step{'s' if len(entries) != 1 else ''}, newest first"))
    for entry in sorted(entries, key=lambda e: (e.round, e.step), reverse=True):
        line = Text(f"r{entry.round} s{entry.step}  ")
        line.append(entry.action or "(no action)", style="bold")
        line.append(f"  {entry.resultLabel or '-'}  ")
        line.append("✓" if entry.success else "✗", style="green" if entry.success else "red")
        line.append(f" quality {entry.qualityScore:.2f}")
        if entry.summary:
            line.append(f"  {clip(entry.summary, SUMMARY_CHARS)}", style="dim")
        console.print(line)


def print_strategies(console: Console, strategies: list[Strategy]) -> None:
    for strategy in strategies:
        head = Text()
        head.append(strategy.pattern, style="bold")
        head.append(
            f"  success {strategy.successRate:.0%} ({strategy.successes}/{strategy.attempts} attempts)"
            + (f", updated {strategy.lastUpdated}" if strategy.lastUpdated else "")
        )
        console.print(head)
        console.print(Text(f"  successful action: {strategy.successfulAction or '-'}"))
        console.print(Text(f"  prompt style: {clip(strategy.promptStyle or '-', SUMMARY_CHARS)}"))
        for avoided in strategy.avoid:
            console.print(Text(f"  avoid: {clip(avoided, SUMMARY_CHARS)}", style="red"))


def round_folder(folder: Path, round_number: int) -> Path:
    """`<folder>/round-<n>`: each round of a thread keeps its own deliverables."""
    return folder / f"round-{round_number}"


def export_deliverables(refs: list[DocumentRef], documents: DocumentStore, folder: Path) -> list[Path]:
    """Write each deliverable under its own name into `folder`; no name can reach outside it."""
    root = folder.expanduser().resolve()
    written: list[Path] = []
    taken: set[str] = set()
    try:
        root.mkdir(parents=True, exist_ok=True)
        for ref in refs:
            target = root / unique_name(safe_file_name(ref.name), taken)
            if target.parent != root:  # pragma: no cover - safe_file_name already keeps names flat
                raise DocumentRejected(f"deliverable name {ref.name!r} would leave {root}")
            if target.is_symlink():  # never write through a link someone placed in the folder
                target.unlink()
            target.write_bytes(documents.read_bytes(ref))
            written.append(target)
    except OSError as exc:
        raise ConfigurationError(f"cannot write the deliverables to {root}: {exc.strerror or exc}") from exc
    return written
