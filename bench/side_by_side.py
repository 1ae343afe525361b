"""`python -m bench.models --side-by-side`: paor against the bare model on held-out one-line requests.

The same requests go, one after the other on the same endpoint, through paor (`build_graph` with a real
`ChatOpenAI`, learning in a fresh temporary store, offline actions only) and through LangGraph's prebuilt
`create_react_agent` with no tools (the bare model behind the most common agent loop). Each answer is judged by
code (bench.heldout: six requests; bench.everyday: a wide set split into a dev and a test half); every request of
both systems goes through one recording HTTP client (bench.recording), so requests, prompt tokens and the
reused-prefix share are measured the same way for both. A follow-up runs its earlier turns on the same thread in
both systems; only the judged (last) turn's answer, time and requests count.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import re
import statistics
import subprocess
import time
import uuid
import warnings
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
from langchain_openai import ChatOpenAI

from bench.common import tempdir
from bench.everyday import Everyday
from bench.heldout import HELD_OUT, HeldOut
from bench.models import Prompt, run_prompt
from bench.recording import Exchange, Recorder
from core.context import Context
from core.llm import chat_openai, length_limit

PAOR, BARE = "paor", "create_react_agent"
#: Time target of issue 26: paor's median wall time at most this many times the bare agent's.
TIME_RATIO_TARGET = 3.0
#: Targets of "paor must never be worse than the bare model", on the everyday requests.
EVERYDAY_RATIO_TARGET = 1.5
FEW_REQUESTS, FEW_REQUESTS_SHARE = 2, 0.9
#: Texts of paor's host (not of a prompt template) that must never reach a user as the answer.
HOST_PHRASES = (
    "The previous answer was not accepted",
    "Stopped without meeting all criteria",
    "Best attempt",
    "Computed exactly by code",
    "USER REQUEST",
    "SUCCESS CRITERIA",
)
#: An answer repeats paor's prompt text when it repeats this many consecutive words of it.
RUN_WORDS = 6
_TOKEN = re.compile(r"[^\W_]+")
_CLIENT_FIELDS = {"client", "async_client", "root_client", "root_async_client", "http_client", "http_async_client"}


Request = HeldOut | Everyday


@dataclass
class Outcome:
    """One request through one system: the judged turn's answer, time and requests (a follow-up's earlier turns
    are kept in `earlier_answers` only)."""

    system: str
    prompt: Request
    answer: str = ""
    seconds: float = 0.0
    exchanges: list[Exchange] = field(default_factory=list)
    status: str = ""
    errors: list[str] = field(default_factory=list)
    earlier_answers: list[str] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        """The lenient judge (the only judge of bench.heldout's requests)."""
        return self.prompt.judge(self.answer)

    @property
    def strict(self) -> bool:
        return (self.prompt.strict if isinstance(self.prompt, Everyday) else self.prompt.judge)(self.answer)

    @property
    def earlier(self) -> tuple[str, ...]:
        return self.prompt.earlier if isinstance(self.prompt, Everyday) else ()

    @property
    def echo(self) -> str:
        """The run of paor's prompt text the answer repeats, '' when it repeats none."""
        return echoed(self.answer, "\n".join((*self.earlier, self.prompt.text)))

    @property
    def requests(self) -> int:
        return len(self.exchanges)


def _runs(text: str, n: int = RUN_WORDS) -> list[str]:
    """Every run of n consecutive words, in order; a number or a template placeholder ($request) breaks a run."""
    runs: list[str] = []
    for segment in re.split(r"\$\{?\w+\}?", text):
        words: list[str] = []
        for token in [*_TOKEN.findall(segment.casefold()), "0"]:
            if any(c.isdigit() for c in token):
                runs += [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
                words = []
            else:
                words.append(token)
    return runs


def _descriptions() -> list[str]:
    """The descriptions of the fields the model is shown: core.schemas' protocol models and every built-in
    action's arguments, with the action's summary."""
    from pydantic import BaseModel

    from core import schemas
    from tools.catalog import catalog

    models = [m for m in vars(schemas).values() if isinstance(m, type) and issubclass(m, BaseModel)]
    models += [entry.args_schema for entry in catalog().values()]
    texts = [f.description for m in models for f in m.model_fields.values() if f.description]
    return texts + [entry.summary for entry in catalog().values()]


@functools.cache
def prompt_runs() -> frozenset[str]:
    """Every run of RUN_WORDS words of paor's prompt templates (prompts/*.txt) and field descriptions; read from
    the files and models themselves, not from paor's nodes, so that the check stays independent of them."""
    templates = [f.read_text(encoding="utf-8") for f in files("prompts").iterdir() if f.name.endswith(".txt")]
    return frozenset(run for text in [*templates, *_descriptions()] for run in _runs(text))


def echoed(answer: str, asked: str) -> str:
    """The first run of paor's prompt text (or a whole host phrase) the answer repeats and the user's own words do
    not contain; '' when there is none."""
    own = set(_runs(asked))
    for run in _runs(answer):
        if run in prompt_runs() and run not in own:
            return run
    words, asked_words = (f" {_words(answer)} ", f" {_words(asked)} ")
    for phrase in HOST_PHRASES:
        plain = f" {_words(phrase)} "
        if plain in words and plain not in asked_words:
            return phrase
    return ""


def _words(text: str) -> str:
    return " ".join(_TOKEN.findall(text.casefold()))


def recorded(llm: ChatOpenAI, recorder: Recorder, transport: httpx.BaseTransport | None = None) -> ChatOpenAI:
    """The same model (every setting it was built with) on the recorder's HTTP clients; `transport` sends the
    synchronous client's requests."""
    settings = {name: getattr(llm, name) for name in llm.model_fields_set - _CLIENT_FIELDS}
    return ChatOpenAI(**settings, http_client=recorder.client(transport), http_async_client=recorder.async_client())


def run_paor(
    prompt: Request, context: Context, recorder: Recorder, folder: Path, database: Path, **settings: Any
) -> Outcome:
    """The request as `paor run` would take it; a follow-up's earlier turns first, on the same thread (run_prompt's
    thread is the folder's name) and in the same database, as a user's next request on that thread."""
    recorder.system = PAOR
    llm = recorded(chat_openai(context), recorder)
    steps, earlier = context.max_steps, []
    turns = prompt.earlier if isinstance(prompt, Everyday) else ()
    for text in turns:
        before = run_prompt(
            Prompt(prompt.kind, text), context.base_url, context.model, folder, steps, database, llm=llm, **settings
        )
        earlier.append(before.answer)
    start = len(recorder.exchanges)
    request = Prompt(prompt.kind, prompt.text)
    result = run_prompt(request, context.base_url, context.model, folder, steps, database, llm=llm, **settings)
    outcome = Outcome(PAOR, prompt, result.answer, result.seconds, recorder.of(PAOR, start), result.status)
    outcome.errors, outcome.earlier_answers = result.errors, earlier
    return outcome


def bare_agent(context: Context, recorder: Recorder, max_tokens: int | None) -> Any:
    """LangGraph's prebuilt ReAct agent with no tools, on the same endpoint, temperature and timeout as paor; its
    in-memory checkpointer keeps a follow-up's thread."""
    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent (langchain not installed)
        warnings.simplefilter("ignore")
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.prebuilt import create_react_agent

        llm = recorded(chat_openai(context), recorder)
        # the same bound as paor's, under both names (llama-cpp-python reads only `max_tokens`)
        bounded = llm.bind(**length_limit(llm, max_tokens)) if max_tokens else llm
        return create_react_agent(bounded, tools=[], checkpointer=InMemorySaver())


def run_bare(prompt: Request, agent: Any, recorder: Recorder, thread: str = "") -> Outcome:
    """The request as one conversation on its own thread: the earlier turns, then the judged one, timed alone."""
    recorder.system = BARE
    outcome = Outcome(BARE, prompt)
    config = {"configurable": {"thread_id": thread or uuid.uuid4().hex}}
    first, started = len(recorder.exchanges), time.monotonic()
    try:
        for text in prompt.earlier if isinstance(prompt, Everyday) else ():
            out = agent.invoke({"messages": [("user", text)]}, config)
            outcome.earlier_answers.append(str(out["messages"][-1].text))
        first, started = len(recorder.exchanges), time.monotonic()
        out = agent.invoke({"messages": [("user", prompt.text)]}, config)
        outcome.answer, outcome.status = str(out["messages"][-1].text), "completed"
    except Exception as exc:  # a benchmark reports every failure instead of stopping at the first
        outcome.status, outcome.errors = "error", [f"{type(exc).__name__}: {exc}"]
    outcome.seconds = time.monotonic() - started
    outcome.exchanges = recorder.of(BARE, first)
    return outcome


def side_by_side(
    base_url: str,
    model: str,
    prompts: tuple[Request, ...] = HELD_OUT,
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
        settle(context)
        mine = run_paor(prompt, context, recorder, root / f"run{i}", database, **settings)
        settle(context)
        for outcome in (mine, run_bare(prompt, agent, recorder, f"run{i}")):
            outcomes.append(outcome)
            strict = f" (strict: {'correct' if outcome.strict else 'wrong'})" if isinstance(prompt, Everyday) else ""
            print(
                f"  {i + 1}/{len(prompts)} {prompt.kind} {outcome.system}: "
                f"{'correct' if outcome.correct else 'wrong'}{strict}, {outcome.requests} requests, "
                f"{outcome.seconds:.1f}s",
                flush=True,
            )
    saved = root / "outcomes.json"
    saved.write_text(json.dumps([record(o) for o in outcomes], indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"  whole answers and figures: {saved}")
    return outcomes


def settle(context: Context) -> None:
    """One unrecorded one-token request, so that each system starts from the same state of the endpoint: llama.cpp
    reuses the previous prompt's cache, and a request that follows the identical one is computed in other batches,
    which can tip a greedy choice (the same request then gets another answer, and another wall time)."""
    llm = chat_openai(context)
    with contextlib.suppress(Exception):  # an endpoint that refuses it still serves the measured requests
        llm.invoke("Hi", **length_limit(llm, 1))


def record(outcome: Outcome) -> dict[str, Any]:
    """Everything measured of one outcome, the whole answer included (to audit a judge without a rerun)."""
    return {
        "system": outcome.system,
        "kind": outcome.prompt.kind,
        "prompt": outcome.prompt.text,
        "earlier": list(outcome.earlier),
        "earlier_answers": outcome.earlier_answers,
        "answer": outcome.answer,
        "correct": outcome.correct,
        "strict": outcome.strict,
        "echo": outcome.echo,
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


def case_table(outcomes: list[Outcome]) -> str:
    """One row per request and system, for the everyday requests (both judges; a follow-up marked ↳)."""
    lines = ["| kind | request | system | lenient | strict | wall s | requests |", "|---|---|---|---|---|---:|---:|"]
    for o in outcomes:
        text = f"↳ {o.prompt.text} (after: {' / '.join(o.earlier)})" if o.earlier else o.prompt.text
        lines.append(
            f"| {o.prompt.kind} | {text} | {o.system} | {'yes' if o.correct else 'no'} | "
            f"{'yes' if o.strict else 'no'} | {o.seconds:.1f} | {o.requests} |"
        )
    return "\n".join(lines)


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """Per system: correct count (lenient and strict), median wall time, median requests, the share of judged turns
    in at most FEW_REQUESTS requests, answers repeating paor's prompt text, median prompt tokens and reused share
    per request."""
    out: dict[str, dict[str, float]] = {}
    for system in (PAOR, BARE):
        mine = [o for o in outcomes if o.system == system]
        exchanges = [e for o in mine for e in o.exchanges]
        out[system] = {
            "runs": len(mine),
            "correct": sum(o.correct for o in mine),
            "median_s": statistics.median(o.seconds for o in mine) if mine else 0.0,
            "strict": sum(o.strict for o in mine),
            "median_requests": statistics.median(o.requests for o in mine) if mine else 0.0,
            "few_requests": sum(o.requests <= FEW_REQUESTS for o in mine) / len(mine) if mine else 0.0,
            "echoes": sum(bool(o.echo) for o in mine),
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


def everyday_verdicts(outcomes: list[Outcome]) -> list[str]:
    """The targets of "paor must never be worse than the bare model", MET or NOT MET with the figures."""
    s = summary(outcomes)
    paor, bare = s[PAOR], s[BARE]
    ratio = paor["median_s"] / bare["median_s"] if bare["median_s"] else float("inf")
    runs = f"{paor['runs']:.0f}"

    def met(ok: bool) -> str:
        return "MET" if ok else "NOT MET"

    return [
        *(
            f"correct ({judge}): paor {paor[key]:.0f}/{runs}, {BARE} {bare[key]:.0f}/{bare['runs']:.0f} "
            f"→ {met(paor[key] >= bare[key])} (paor at least the bare agent's count)"
            for judge, key in (("lenient", "correct"), ("strict", "strict"))
        ),
        f"median wall time: paor {paor['median_s']:.1f} s, {BARE} {bare['median_s']:.1f} s, ratio {ratio:.1f}× "
        f"→ {met(ratio <= EVERYDAY_RATIO_TARGET)} (≤ {EVERYDAY_RATIO_TARGET:g}×)",
        f"judged turns in ≤ {FEW_REQUESTS} model requests: paor {paor['few_requests']:.0%} of {runs} "
        f"({BARE} {bare['few_requests']:.0%}) → {met(paor['few_requests'] >= FEW_REQUESTS_SHARE)} "
        f"(≥ {FEW_REQUESTS_SHARE:.0%})",
        f"answers containing paor's prompt text: paor {paor['echoes']:.0f}, {BARE} {bare['echoes']:.0f} "
        f"→ {met(paor['echoes'] == 0)} (paor 0)",
    ]


def answers(outcomes: list[Outcome], width: int = 100) -> list[str]:
    """One line per answer (what the judge saw), and the first error of a run that failed."""
    lines = []
    for o in outcomes:
        text = " ".join(o.answer.split())
        what = f"{o.prompt.kind}: {o.prompt.text}" if isinstance(o.prompt, Everyday) else o.prompt.kind
        lines.append(f"{what} / {o.system}: {text[:width] or '(no answer)'}")
        lines += [f"    error: {' '.join(e.split())[:width]}" for e in o.errors[:1]]
        lines += [f"    repeats paor's prompt text: {o.echo!r}"] if o.echo else []
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


def report(outcomes: list[Outcome], model: str, title: str = "") -> str:
    """The markdown section the docs page keeps per model: when, what, the table and the summary; with a `title`
    (the everyday requests), the table per request with both judges and the everyday targets."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    everyday = bool(title)
    lines = [
        f"### {model}{f': {title}' if title else ''}",
        "",
        f"Measured {when} on commit `{commit() or 'unknown'}`.",
        "",
        case_table(outcomes) if everyday else table(outcomes),
        "",
        *(f"- {line}" for line in (everyday_verdicts(outcomes) if everyday else verdicts(outcomes))),
        "",
        "Answers (as judged):",
        "",
        *(f"    {line}" for line in answers(outcomes)),
    ]
    return "\n".join(lines)


def write_section(page: Path, model: str, section: str, scope: str = "") -> None:
    """Put `section` between the page's markers for `model` (and `scope`, such as "everyday test": a measurement
    of another set of requests keeps its own section), replacing an earlier measurement, or append it."""
    name = f"side-by-side {scope}" if scope else "side-by-side"
    begin, end = f"<!-- {name}: {model} -->", f"<!-- end {name}: {model} -->"
    block = f"{begin}\n{section.strip()}\n{end}"
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = f"{text.rstrip()}\n\n{block}\n" if text.strip() else f"{block}\n"
    page.write_text(text, encoding="utf-8")
