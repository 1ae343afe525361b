"""`python -m bench.models --side-by-side`: paor against the bare model on six held-out one-line requests.

The same requests go, one after the other on the same endpoint, through paor (`build_graph` with a real
`ChatOpenAI`, learning in a fresh temporary store, offline actions only) and through LangGraph's prebuilt
`create_react_agent` with no tools (the bare model behind the most common agent loop). Each answer is judged by
code (bench.heldout); every request of both systems goes through one recording HTTP client (bench.recording), so
requests, prompt tokens and the reused-prefix share are measured the same way for both.
"""

from __future__ import annotations

import datetime
import json
import re
import statistics
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_openai import ChatOpenAI

from bench.common import tempdir
from bench.heldout import HELD_OUT, HeldOut
from bench.models import Prompt, run_prompt
from bench.recording import Exchange, Recorder
from graph.context import Context
from graph.llm import chat_openai

PAOR, BARE = "paor", "create_react_agent"
#: Time target of issue 26: paor's median wall time at most this many times the bare agent's.
TIME_RATIO_TARGET = 3.0
_CLIENT_FIELDS = {"client", "async_client", "root_client", "root_async_client", "http_client", "http_async_client"}


@dataclass
class Outcome:
    """One request through one system."""

    system: str
    prompt: HeldOut
    answer: str = ""
    seconds: float = 0.0
    exchanges: list[Exchange] = field(default_factory=list)
    status: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        return self.prompt.judge(self.answer)

    @property
    def requests(self) -> int:
        return len(self.exchanges)


def recorded(llm: ChatOpenAI, recorder: Recorder) -> ChatOpenAI:
    """The same model (every setting it was built with) on the recorder's HTTP clients."""
    settings = {name: getattr(llm, name) for name in llm.model_fields_set - _CLIENT_FIELDS}
    return ChatOpenAI(**settings, http_client=recorder.client(), http_async_client=recorder.async_client())


def run_paor(
    prompt: HeldOut, context: Context, recorder: Recorder, folder: Path, database: Path, **settings: Any
) -> Outcome:
    recorder.system, start = PAOR, len(recorder.exchanges)
    llm = recorded(chat_openai(context), recorder)
    request, steps = Prompt(prompt.kind, prompt.text), context.max_steps
    result = run_prompt(request, context.base_url, context.model, folder, steps, database, llm=llm, **settings)
    return Outcome(PAOR, prompt, result.answer, result.seconds, recorder.of(PAOR, start), result.status, result.errors)


def bare_agent(context: Context, recorder: Recorder, max_tokens: int | None) -> Any:
    """LangGraph's prebuilt ReAct agent with no tools, on the same endpoint, temperature and timeout as paor."""
    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent (langchain not installed)
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        llm = recorded(chat_openai(context), recorder).model_copy(update={"max_tokens": max_tokens})
        return create_react_agent(llm, tools=[])


def run_bare(prompt: HeldOut, agent: Any, recorder: Recorder) -> Outcome:
    recorder.system, start = BARE, len(recorder.exchanges)
    outcome = Outcome(BARE, prompt)
    started = time.monotonic()
    try:
        out = agent.invoke({"messages": [("user", prompt.text)]})
        outcome.answer, outcome.status = str(out["messages"][-1].text), "completed"
    except Exception as exc:  # a benchmark reports every failure instead of stopping at the first
        outcome.status, outcome.errors = "error", [f"{type(exc).__name__}: {exc}"]
    outcome.seconds = time.monotonic() - started
    outcome.exchanges = recorder.of(BARE, start)
    return outcome


def side_by_side(
    base_url: str,
    model: str,
    prompts: tuple[HeldOut, ...] = HELD_OUT,
    max_steps: int | None = None,
    **settings: Any,
) -> list[Outcome]:
    """Each prompt through paor, then through the bare agent; one recorder sees every request in order."""
    root = tempdir("side-by-side")
    database = root / "paor.sqlite"  # a fresh store for this run, shared by its prompts as a user's would be
    limits: dict[str, Any] = {"max_steps": max_steps} if max_steps else {}
    context = Context(model=model, base_url=base_url, **settings, **limits)
    recorder = Recorder()
    agent = bare_agent(context, recorder, settings.get("answer_tokens"))
    outcomes = []
    for i, prompt in enumerate(prompts):
        for outcome in (
            run_paor(prompt, context, recorder, root / f"run{i}", database, **settings),
            run_bare(prompt, agent, recorder),
        ):
            outcomes.append(outcome)
            print(
                f"  {i + 1}/{len(prompts)} {prompt.kind} {outcome.system}: "
                f"{'correct' if outcome.correct else 'wrong'}, {outcome.requests} requests, "
                f"{outcome.seconds:.1f}s",
                flush=True,
            )
    saved = root / "outcomes.json"
    saved.write_text(json.dumps([record(o) for o in outcomes], indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"  whole answers and figures: {saved}")
    return outcomes


def record(outcome: Outcome) -> dict[str, Any]:
    """Everything measured of one outcome, the whole answer included (to audit a judge without a rerun)."""
    return {
        "system": outcome.system,
        "kind": outcome.prompt.kind,
        "prompt": outcome.prompt.text,
        "answer": outcome.answer,
        "correct": outcome.correct,
        "seconds": round(outcome.seconds, 2),
        "status": outcome.status,
        "errors": outcome.errors,
        "prompt_tokens": [e.prompt_tokens for e in outcome.exchanges],
        "reused_share": [round(e.reused_share, 3) for e in outcome.exchanges],
    }


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def table(outcomes: list[Outcome]) -> str:
    lines = [
        "| prompt | system | correct | wall s | requests | prompt tokens per request | reused prefix per request |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for o in outcomes:
        tokens = " · ".join(_tokens(e.prompt_tokens) for e in o.exchanges) or "–"
        shares = " · ".join(f"{e.reused_share:.0%}" for e in o.exchanges) or "–"
        lines.append(
            f"| {o.prompt.kind}: {o.prompt.text} | {o.system} | {'yes' if o.correct else 'no'} | {o.seconds:.1f} | "
            f"{o.requests} | {tokens} | {shares} |"
        )
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """Per system: correct count, median wall time, median requests, median prompt tokens and reused share per
    request."""
    out: dict[str, dict[str, float]] = {}
    for system in (PAOR, BARE):
        mine = [o for o in outcomes if o.system == system]
        exchanges = [e for o in mine for e in o.exchanges]
        out[system] = {
            "runs": len(mine),
            "correct": sum(o.correct for o in mine),
            "median_s": statistics.median(o.seconds for o in mine) if mine else 0.0,
            "median_requests": statistics.median(o.requests for o in mine) if mine else 0.0,
            "median_prompt_tokens": statistics.median(e.prompt_tokens for e in exchanges) if exchanges else 0.0,
            "median_reused_share": statistics.median(e.reused_share for e in exchanges) if exchanges else 0.0,
        }
    return out


def verdicts(outcomes: list[Outcome]) -> list[str]:
    s = summary(outcomes)
    paor, bare = s[PAOR], s[BARE]
    ratio = paor["median_s"] / bare["median_s"] if bare["median_s"] else float("inf")
    return [
        f"correct: paor {paor['correct']:.0f}/{paor['runs']:.0f}, {BARE} {bare['correct']:.0f}/{bare['runs']:.0f} "
        f"→ {'MET' if paor['correct'] >= bare['correct'] else 'NOT MET'} (paor at least the bare agent's count)",
        f"median wall time: paor {paor['median_s']:.1f} s, {BARE} {bare['median_s']:.1f} s, ratio {ratio:.1f}× "
        f"→ {'MET' if ratio <= TIME_RATIO_TARGET else 'NOT MET'} (≤ {TIME_RATIO_TARGET:g}×)",
        f"median requests: paor {paor['median_requests']:g}, {BARE} {bare['median_requests']:g} "
        f"→ {'MET' if paor['median_requests'] <= 3 else 'NOT MET'} (paor ≤ 3)",
        f"median prompt tokens per request: paor {paor['median_prompt_tokens']:.0f}, "
        f"{BARE} {bare['median_prompt_tokens']:.0f}; median reused prefix: paor {paor['median_reused_share']:.0%}, "
        f"{BARE} {bare['median_reused_share']:.0%}",
    ]


def answers(outcomes: list[Outcome], width: int = 100) -> list[str]:
    """One line per answer (what the judge saw), and the first error of a run that failed."""
    lines = []
    for o in outcomes:
        text = " ".join(o.answer.split())
        lines.append(f"{o.prompt.kind} / {o.system}: {text[:width] or '(no answer)'}")
        lines += [f"    error: {' '.join(e.split())[:width]}" for e in o.errors[:1]]
    return lines


def commit() -> str:
    """The commit measured (with `+dirty` when the work tree has changes), or '' outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=here, capture_output=True, text=True)
    except OSError:
        return ""
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "") if head.returncode == 0 else ""


def report(outcomes: list[Outcome], model: str) -> str:
    """The markdown section the docs page keeps per model: when, what, the table and the summary."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"### {model}",
        "",
        f"Measured {when} on commit `{commit() or 'unknown'}`.",
        "",
        table(outcomes),
        "",
        *(f"- {line}" for line in verdicts(outcomes)),
        "",
        "Answers (as judged):",
        "",
        *(f"    {line}" for line in answers(outcomes)),
    ]
    return "\n".join(lines)


def write_section(page: Path, model: str, section: str) -> None:
    """Put `section` between the page's markers for `model`, replacing an earlier measurement, or append it."""
    begin, end = f"<!-- side-by-side: {model} -->", f"<!-- end side-by-side: {model} -->"
    block = f"{begin}\n{section.strip()}\n{end}"
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = f"{text.rstrip()}\n\n{block}\n" if text.strip() else f"{block}\n"
    page.write_text(text, encoding="utf-8")
