"""The `paor` command line: run, resume, history, strategies, doctor, serve-local.

Exit codes: 0 the criteria were met, 1 the run stopped without meeting them, 2 bad input or configuration (one
line on stderr, no traceback; also credentials a service refused), 3 waiting for an answer (the run asks a question
or an approval and nobody can answer here: `paor resume THREAD --answer …` continues it), 75 try again later
(another worker is running the thread, the database is unavailable, or a service the step needs — the model
endpoint, a tool's service — is away or busy; the thread stays resumable at that step), 130 interrupted (the thread
stays resumable: the graph checkpoints synchronously).
`--db` (env PAOR_DATABASE_URL) selects the database: a postgresql:// URL for several workers, else an SQLite file.
Progress goes to stderr, results to stdout; `--json` puts exactly one JSON document on stdout, whatever the outcome
(`status`, `exit_code`, and `error` when the run could not start or finish). docs/usage.md describes it all.
"""

from __future__ import annotations

import gc
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any, NoReturn
from urllib.parse import urlsplit

import typer

from core.errors import ActionNotDeclared, ConfigurationError, InvalidRequest, PaorError, ServiceUnavailable

if TYPE_CHECKING:  # the agent itself (LangGraph, LangChain, tools) is imported only by the commands that run it
    from langgraph.store.base import BaseStore
    from rich.console import Console
    from rich.text import Text

    from cli.view import LiveView
    from core.context import Context
    from core.state import InputState

_own_process = False  # set by main(): the process runs the `paor` command and nothing else

app = typer.Typer(
    name="paor",
    help="Plan · Act · Observe · Refine: an adaptive ReAct agent that keeps at it until the result is right.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: rendering it with rich costs more start-up time than the rest of the CLI
)

# psycopg logs the connection it has just lost a second time, as a warning Python prints on stderr ("error ignored
# terminating <psycopg.Pipeline [BAD]>"); paor reports that failure itself, in one line. A logging set-up of the
# user's still receives these records.
logging.getLogger("psycopg").addHandler(logging.NullHandler())

#: Store namespace where `run` remembers the options a thread was started with, so `resume` reuses them.
RUNS = ("paor", "runs")
EXIT_INTERRUPTED = 130
EXIT_WAITING = 3  # the run asks the user something and nobody can answer here
EXIT_TEMPORARY = 75  # EX_TEMPFAIL: the same command may succeed later
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
PROBE_TIMEOUT_S = 5.0


class Approve(StrEnum):
    never = "never"
    side_effects = "side_effects"
    always = "always"


class Mode(StrEnum):
    React = "React"
    Actionplan = "Actionplan"


ModelOpt = Annotated[str | None, typer.Option("--model", help="Chat model name (env PAOR_MODEL).")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL).")]
MaxStepsOpt = Annotated[int | None, typer.Option("--max-steps", min=1, max=100, help="Most actions per run.")]
OutOpt = Annotated[
    Path | None, typer.Option("--out", help="Folder for the deliverables (default: ./paor-out/<thread>).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON result on stdout and nothing else there.")]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database: a postgresql:// URL (shared by several workers) or an SQLite file "
        "(env PAOR_DATABASE_URL; default $PAOR_HOME/paor.sqlite).",
        show_default=False,
    ),
]
LocalOpt = Annotated[bool, typer.Option("--local", help="Run against the bundled local model (needs the local extra).")]
ApproveOpt = Annotated[
    Approve | None,
    typer.Option("--approve", help="Ask before actions run: never, side_effects (web, reports, code) or always."),
]
AskOpt = Annotated[bool, typer.Option("--ask", help="Ask a clarifying question when the request is ambiguous.")]
YesOpt = Annotated[bool, typer.Option("--yes", help="Approve every action without asking.")]
McpConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--mcp-config", help='MCP servers ({"mcpServers": …} file) whose tools become actions (env PAOR_MCP_CONFIG).'
    ),
]


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def _stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _text(line: str, style: str = "") -> Text:
    from rich.text import Text

    return Text(line, style=style)


#: The `status` of `--json` output for each exit code that is not a run's own outcome (completed, incomplete).
JSON_STATUS = {2: "error", EXIT_WAITING: "waiting", EXIT_TEMPORARY: "unavailable", EXIT_INTERRUPTED: "interrupted"}


def _fail(reason: str, code: int = 2, *, as_json: bool = False, thread: str | None = None) -> NoReturn:
    from prompts.templates import clip

    line = clip(reason)
    if as_json:
        _echo_json({"thread": thread, "status": JSON_STATUS.get(code, "error"), "error": line, "exit_code": code})
    _stderr().print(_text(f"paor: {line}", style="red"))
    raise typer.Exit(code)


def _echo_json(document: dict[str, Any]) -> None:
    typer.echo(json.dumps(document, ensure_ascii=False, indent=2))


@contextmanager
def bad_input_exits(*, as_json: bool = False, thread: str | None = None) -> Iterator[None]:
    """Expected failures (input, configuration, endpoint) end with exit 2 and one line; never with a traceback.
    With `as_json` the same line goes to stdout as the one JSON document, so scripts read every outcome there."""
    try:
        yield
    except PaorError as exc:
        from core.persistence import DatabaseUnavailable, ThreadBusy

        code = EXIT_TEMPORARY if isinstance(exc, ThreadBusy | DatabaseUnavailable) else 2
        line = str(exc)
        if isinstance(exc, ServiceUnavailable):  # away or busy: later; credentials refused: configuration
            code = EXIT_TEMPORARY if exc.temporary else 2
            line += f"; then `paor resume {thread}`" if thread else ""
        _fail(line, code, as_json=as_json, thread=thread)
    except Exception as exc:
        reason = _endpoint_failure(exc)
        if reason is None:
            raise
        _fail(reason, as_json=as_json, thread=thread)


def _endpoint_failure(exc: Exception) -> str | None:
    """A one-line reason for an expected endpoint failure; None for anything else (a bug: let it surface).

    openai and httpx are imported here, not at start-up: an exception of theirs means they are loaded already."""
    import httpx
    import openai

    if isinstance(exc, openai.AuthenticationError):  # its message may quote part of the key: never print it
        return f"the model endpoint rejected OPENAI_API_KEY (HTTP {exc.status_code}); check the key"
    if isinstance(exc, openai.PermissionDeniedError | openai.NotFoundError):
        return f"the model endpoint refused the request (HTTP {exc.status_code}); check --model and the key"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot reach the model endpoint ({exc}); check --base-url / OPENAI_BASE_URL or run `paor doctor`"
    if isinstance(exc, httpx.HTTPError):
        return f"network error: {exc}"
    return None


# --- run / resume -----------------------------------------------------------------------------------------------


@app.command()
def run(
    prompt: Annotated[
        str | None, typer.Argument(help="What paor should deliver; `-` reads it from stdin.", show_default=False)
    ] = None,
    prompt_file: Annotated[
        Path | None, typer.Option("--prompt-file", help="Read the prompt from this UTF-8 file (`-`: stdin).")
    ] = None,
    doc: Annotated[list[str] | None, typer.Option("--doc", help="Input document (file or URL); repeatable.")] = None,
    thread: Annotated[str | None, typer.Option("--thread", help="Thread id (default: a new one).")] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    max_steps: MaxStepsOpt = None,
    out: OutOpt = None,
    mode: Annotated[Mode | None, typer.Option("--mode", help="React (default) or the legacy Actionplan.")] = None,
    as_json: JsonOpt = False,
    local: LocalOpt = False,
    db: DbOpt = None,
    approve: ApproveOpt = None,
    ask: AskOpt = False,
    yes: YesOpt = False,
    mcp_config: McpConfigOpt = None,
) -> None:
    """Work on PROMPT until its criteria are met or no step can improve the result."""
    from core.state import InputState
    from nodes.intent import checked_request
    from tools.ingest import check_sources

    thread = thread or _new_thread_id()
    with bad_input_exits(as_json=as_json, thread=thread):
        request = checked_request(_prompt_text(prompt, prompt_file))  # refused before anything is stored
        check_sources(doc or [])
        if out is not None and out.exists() and not out.is_dir():
            raise InvalidRequest(f"--out {out} exists and is not a folder")
        if local and base_url:
            raise InvalidRequest("--local and --base-url exclude each other")
        documents = [s if "://" in s else str(Path(s).expanduser().resolve()) for s in doc or []]
        options = {**_options(model, base_url, max_steps, mode, local), **_asking(approve, ask), **_mcp(mcp_config)}
        _execute(thread, InputState(prompt=request, documents=documents), options, out, as_json, db, yes=yes)


def _prompt_text(prompt: str | None, prompt_file: Path | None) -> str:
    """The prompt as given: the argument, stdin (`-`), or a file (a long prompt does not fit in a command line)."""
    from cli.prompt_input import read_prompt

    if prompt is not None and prompt_file is not None:
        raise InvalidRequest("give the prompt as an argument or with --prompt-file, not both")
    if prompt_file is not None:
        return read_prompt(str(prompt_file))
    if prompt is None:
        raise InvalidRequest("no prompt: give it as an argument, `-` to read it from stdin, or --prompt-file FILE")
    return read_prompt("-") if prompt == "-" else prompt


@app.command()
def resume(
    thread: Annotated[str, typer.Argument(help="Thread id printed by `paor run`.")],
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    max_steps: MaxStepsOpt = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
    local: LocalOpt = False,
    db: DbOpt = None,
    answer: Annotated[
        str | None,
        typer.Option("--answer", help="Answer to the waiting question: approve, reject, JSON or the text to send."),
    ] = None,
    approve: ApproveOpt = None,
    yes: YesOpt = False,
    mcp_config: McpConfigOpt = None,
) -> None:
    """Continue an interrupted thread from its last checkpoint, with the options (and the MCP servers) it was started
    with."""
    with bad_input_exits(as_json=as_json, thread=thread):
        options = {**_options(model, base_url, max_steps, None, local), **_asking(approve, False)}
        if mcp_config is not None:
            options["mcp_config"] = str(mcp_config.expanduser().resolve())
        _execute(
            thread, None, options, out, as_json, db, yes=yes, answer=None if answer is None else parse_answer(answer)
        )


def _mcp(mcp_config: Path | None) -> dict[str, Any]:
    """The MCP config a run uses — `--mcp-config`, else the file PAOR_MCP_CONFIG names — as an absolute path: it is
    saved with the thread's options, so `paor resume` brings the same tools in any shell."""
    from tools.mcp.config import CONFIG_ENV

    named = mcp_config or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    return {"mcp_config": str(named.expanduser().resolve())} if named is not None else {}


def _asking(approve: Approve | None, ask: bool) -> dict[str, Any]:
    """The human-in-the-loop options the user gave (nothing given keeps Context's env-filled defaults)."""
    given: dict[str, Any] = {"approve": approve.value if approve else None, "ask_user": ask or None}
    return {key: value for key, value in given.items() if value is not None}


def parse_answer(text: str) -> Any:
    """`approve`, `reject`, a JSON value, or else the text itself (a clarification answer)."""
    word = text.strip()
    if word in ("approve", "reject"):
        return {"decision": word}
    try:
        return json.loads(word)
    except ValueError:
        return word


def _new_thread_id() -> str:
    import uuid

    return uuid.uuid4().hex[:12]


def _options(
    model: str | None, base_url: str | None, max_steps: int | None, mode: Mode | None, local: bool
) -> dict[str, Any]:
    """Only what the user gave: everything else keeps Context's env-filled defaults."""
    given = {
        "model": model,
        "base_url": base_url,
        "max_steps": max_steps,
        "workflow_mode": mode.value if mode else None,
        "local": local or None,
    }
    return {key: value for key, value in given.items() if value is not None}


def _execute(
    thread: str,
    payload: InputState | None,
    options: dict[str, Any],
    out: Path | None,
    as_json: bool,
    db: str | None,
    *,
    yes: bool = False,
    answer: Any = None,
) -> None:
    """Stream a new run (payload) or a resumed one (None) with the live view, then show and export the result.

    The thread's lock is held from the first look at its state to the last checkpoint, so two workers never run
    it at once (`ThreadBusy`, exit 75); a database lost mid-run ends the run with `DatabaseUnavailable` (exit 75)
    and the thread resumes from its last checkpoint. A question of the run (approval, clarification) is answered
    by `--yes`, on a TTY by the user, else the run exits with EXIT_WAITING and the command that answers it."""
    from langgraph.types import Command

    from cli.interrupt import Outcome, ctrl_c_stops_the_run
    from cli.view import LiveView
    from core.persistence import locked_persistence
    from graph.builder import build_graph

    if _own_process:  # what the imports built lives as long as the process: frozen, no collection walks it again,
        gc.freeze()  # the one at exit neither (`python -m bench.startup`: a whole `paor run`)
    err = _stderr()
    config: Any = {"configurable": {"thread_id": thread}}
    _check_folders(options, db, _out_folder(thread, out))
    with locked_persistence(thread, db) as (saver, store):
        if payload is None:  # the options the thread was started with, its MCP config among them
            options = _resumed_options(store, thread, options)
        graph = build_graph(checkpointer=saver, store=store, mcp_config=options.get("mcp_config"))
        snapshot = graph.get_state(config)
        if payload is None:
            if not snapshot.values:
                raise InvalidRequest(f"unknown thread {thread!r}")
            if answer is not None and not snapshot.interrupts:
                raise InvalidRequest(f"thread {thread} is not waiting for an answer; resume it without --answer")
            if not snapshot.tasks:  # `next` omits a node whose writes were saved before the interrupt
                err.print(
                    _text(f"thread {thread} already finished ({snapshot.values.get('status')}); nothing to resume")
                )
                _finish(thread, snapshot.values, _context(options).store_path, out, as_json)
        elif snapshot.tasks:
            raise InvalidRequest(f"thread {thread} was interrupted; continue it with: paor resume {thread}")
        _check_settings(options)
        store.put(RUNS, thread, options)
        store_path = _context(options).store_path
        view = LiveView(err)
        values: dict[str, Any] = dict(snapshot.values) if payload is None else {}
        pending: Any = payload if answer is None else Command(resume=answer)
        interrupted = Outcome(lambda: _report_interrupted(thread, as_json, view))
        try:
            with ctrl_c_stops_the_run(interrupted), _endpoint(options) as effective:
                while True:
                    with view.running(thread):
                        stream = graph.stream(
                            pending, config, context=_context(effective), stream_mode=["custom", "values"]
                        )
                        for mode, chunk in stream:
                            if mode == "custom" and isinstance(chunk, dict) and chunk.get("event") == "progress":
                                view.show(chunk)
                            elif mode == "values" and isinstance(chunk, dict):
                                values = dict(chunk)
                    waiting = graph.get_state(config).interrupts
                    if not waiting:
                        break
                    reply = _reply(waiting[0].value, yes, err)
                    if reply is None:
                        _wait_for_answer(thread, waiting[0].value, as_json)
                    pending = Command(resume=reply)
        except KeyboardInterrupt:
            interrupted.report()
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except ServiceUnavailable:  # the step stopped on an outage: the thread resumes at that step
            view.stop()
            raise
        except ActionNotDeclared as exc:  # resumed without a tool the thread needs: say how to bring it
            view.stop()
            hint = f"; resume with the config that declares it: paor resume {thread} --mcp-config FILE"
            raise ActionNotDeclared(f"{exc}{hint}") from None
    _finish(thread, values, store_path, out, as_json)


def _report_interrupted(thread: str, as_json: bool, view: LiveView) -> None:
    """The outcome of a run stopped by Ctrl-C: the thread resumes from its last checkpoint."""
    view.stop()
    hint = f"interrupted; resume with: paor resume {thread}"
    if as_json:
        _echo_json({"thread": thread, "status": "interrupted", "error": hint, "exit_code": EXIT_INTERRUPTED})
    _stderr().print(_text(hint, style="yellow"))


def _out_folder(thread: str, out: Path | None) -> Path:
    """Where a thread's deliverables go: `--out`, else ./paor-out/<thread>; each round in its own folder below."""
    from tools.documents import safe_file_name

    return out if out is not None else Path("paor-out") / safe_file_name(thread)


def _check_folders(options: dict[str, Any], db: str | None, out: Path) -> None:
    """PAOR_HOME, the database and the output folder can be created and written: else one line, before any of
    them is touched."""
    problems = _folder_problems(options, db, out)
    if problems:
        raise ConfigurationError(problems[0])


def _folder_problems(options: dict[str, Any], db: str | None, out: Path | None) -> list[str]:
    """What `_check_folders` refuses, every problem (a PostgreSQL database is checked by connecting to it)."""
    from cli.preflight import folder_problems
    from core.persistence import database_url, is_postgres, sqlite_file

    database = None if is_postgres(database_url(db)) else sqlite_file(db)
    return folder_problems(_context(options), database, _database_setting(db), out)


def _database_setting(db: str | None) -> str:
    """The setting that chose the database, for messages about it."""
    if db:
        return "--db"
    return next((name for name in ("PAOR_DATABASE_URL", "PAOR_DB") if os.environ.get(name, "").strip()), "PAOR_HOME")


def _check_settings(options: dict[str, Any]) -> None:
    """The keys and the endpoint can be sent and called: else one line naming the variable, before any request."""
    from cli.preflight import key_problem, setting_problems

    if options.get("local"):  # the endpoint is the local server paor starts; the key is still sent to it
        problems = [problem for name in ("OPENAI_API_KEY",) if (problem := key_problem(name))]
    else:
        problems = setting_problems(_context(options), options.get("base_url"))
    if problems:
        raise ConfigurationError(problems[0])


def _reply(question: Any, yes: bool, err: Console) -> Any:
    """The answer to one interrupt: `--yes` approves, a terminal asks the user, else None (nobody to ask)."""
    if yes and isinstance(question, dict) and question.get("kind") == "approve":
        return {"decision": "approve"}
    if not _interactive():
        return None
    from cli.asking import ask

    return ask(question, err)


def _interactive() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stderr.isatty()


def _wait_for_answer(thread: str, question: Any, as_json: bool) -> NoReturn:
    """Nobody can answer here: say what is asked and how to answer it, and leave the thread resumable."""
    from cli.asking import one_line

    if as_json:
        _echo_json({"thread": thread, "status": "waiting", "exit_code": EXIT_WAITING, "interrupt": question})
    _stderr().print(_text(f"{one_line(question)}; answer with `paor resume {thread} --answer …`", style="yellow"))
    raise typer.Exit(EXIT_WAITING)


def _resumed_options(store: BaseStore, thread: str, given: dict[str, Any]) -> dict[str, Any]:
    saved = store.get(RUNS, thread)
    options = {**(saved.value if saved else {}), **given}
    if "base_url" in given and not given.get("local"):
        options.pop("local", None)
    return options


def _context(options: dict[str, Any]) -> Context:
    from core.context import Context

    try:
        return Context.from_env(**{key: value for key, value in options.items() if key not in ("local", "mcp_config")})
    except ValueError as exc:  # an env var of the wrong type
        raise ConfigurationError(str(exc)) from exc


@contextmanager
def _endpoint(options: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The options as given, or — with `local` — pointed at a llama.cpp server that lives as long as the run."""
    if not options.get("local"):
        yield options
        return
    if options.get("base_url"):
        raise InvalidRequest("--local and --base-url exclude each other")
    local = _local_model()
    model = options.get("model") or local.LOCAL_MODEL_NAME  # the alias the local server answers to
    fitting = {k: v for k, v in local.LOCAL_SETTINGS.items() if f"PAOR_{k.upper()}" not in os.environ}
    with local.serve_local() as base_url:
        yield {**fitting, **options, "base_url": base_url, "model": model}


def _local_model() -> ModuleType:
    try:
        import cli.local_model as local
    except ImportError as exc:
        raise ConfigurationError(f"local model support is not available ({exc}); install paor[local]") from exc
    return local


def _finish(thread: str, values: dict[str, Any], store_path: Path, out: Path | None, as_json: bool) -> NoReturn:
    """Export the round's deliverables into their own folder (a later round never overwrites them) and show the
    result; exit 0 when the answer was delivered without a failed check (criteria met, or no check could decide),
    else 1."""
    from cli.view import export_deliverables, print_result, round_folder
    from core.schemas import DocumentRef
    from tools.documents import DocumentStore

    refs = [DocumentRef.model_validate(d) for d in values.get("deliverables") or []]
    round_number = int(values.get("round") or 1)
    folder = round_folder(_out_folder(thread, out), round_number)
    written = export_deliverables(refs, DocumentStore(store_path), folder) if refs else []
    status = values.get("status") or "incomplete"
    code = 0 if status in ("completed", "unverified") else 1  # unverified: delivered, no check failed it
    if as_json:
        _echo_json(
            {
                "thread": thread,
                "status": status,
                "exit_code": code,
                "round": round_number,
                "stop_reason": values.get("stop_reason", ""),
                "answer": values.get("answer", ""),
                "folder": str(folder.resolve()) if written else None,
                "deliverables": [
                    {**ref.model_dump(mode="json"), "path": str(p)} for ref, p in zip(refs, written, strict=True)
                ],
                "totals": values.get("totals", {}),
                "notes": values.get("notes", []),
            }
        )
    else:
        print_result(_stdout(), thread, values, written)
    raise typer.Exit(code)


# --- history / strategies ---------------------------------------------------------------------------------------


@app.command()
def history(thread: Annotated[str, typer.Argument(help="Thread id.")], db: DbOpt = None) -> None:
    """The steps of a thread, newest first, with their outcome and summary."""
    with bad_input_exits():
        from cli.view import print_history
        from core import history_store

        with _thread(thread, db) as (values, store):
            entries = history_store.complete(store, thread, values)  # state holds a window, the store every step
    console = _stdout()
    print_history(console, thread, entries)
    for note in values.get("notes") or []:  # questions asked and answered, assumptions, unavailable actions
        console.print(_text(f"note: {note}"))


@contextmanager
def _thread(thread: str, db: str | None) -> Iterator[tuple[dict[str, Any], BaseStore]]:
    """The thread's state as its last checkpoint holds it, and the store beside it, read through the persistence
    alone: building the graph would import every node and tool for a read-only look."""
    from core.persistence import database_errors, open_persistence

    if not _database_exists(db):
        raise InvalidRequest(f"unknown thread {thread!r}")
    with database_errors(db), open_persistence(db) as (saver, store):
        saved = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
        values = saved.checkpoint.get("channel_values") if saved else None
        if not values:
            raise InvalidRequest(f"unknown thread {thread!r}")
        yield dict(values), store


@app.command()
def strategies(
    pattern: Annotated[str | None, typer.Option("--pattern", help="Only patterns containing this text.")] = None,
    db: DbOpt = None,
) -> None:
    """What paor has learned: per intent pattern, what worked and what to avoid."""
    from cli.view import print_strategies
    from core.persistence import database_errors, open_persistence
    from core.schemas import Strategy
    from nodes.direct_lessons import learned_notes
    from nodes.strategies import learned as learned_strategies

    learned: list[Strategy] = []
    notes: dict[str, str] = {}
    with bad_input_exits():
        if _database_exists(db):
            with database_errors(db), open_persistence(db) as (_, store):
                learned = learned_strategies(store)
                notes = learned_notes(store) if pattern is None else {}
    learned = [s for s in learned if pattern is None or pattern in s.pattern]
    learned.sort(key=lambda s: (s.successRate, s.attempts), reverse=True)
    if not learned and not notes:
        _stdout().print(_text("no strategies learned yet" + (f" for {pattern!r}" if pattern else "")))
        return
    print_strategies(_stdout(), learned)
    for language, note in notes.items():
        _stdout().print(_text(f"direct answers in {language!r}: the first call adds {note!r}"))


@app.command()
def endpoints(
    reset: Annotated[
        bool, typer.Option("--reset", help="Forget what was learned (of the endpoints matching --endpoint, or all).")
    ] = False,
    endpoint: Annotated[
        str | None, typer.Option("--endpoint", help="Only endpoints whose key contains this text.")
    ] = None,
    db: DbOpt = None,
) -> None:
    """What paor remembers of each model endpoint (structured-output methods refused or accepted, whether it takes
    images), shared by every run on this database, a server's included; `--reset` forgets it (a server re-reads
    it within a minute)."""
    from core.capabilities import Capabilities
    from core.persistence import database_errors, open_persistence

    console = _stdout()
    with bad_input_exits():
        if not _database_exists(db):
            console.print(_text("nothing remembered of any endpoint yet"))
            return
        with database_errors(db), open_persistence(db) as (_, store):
            memory = Capabilities(store)
            known = {key: record for key, record in memory.records().items() if endpoint is None or endpoint in key}
            if reset:
                for key in known:
                    memory.reset(key)
    if not known:
        console.print(
            _text("nothing remembered of any endpoint yet" if endpoint is None else f"no endpoint {endpoint!r}")
        )
    for key, record in sorted(known.items()):
        strikes = ", ".join(f"{method} ×{count}" for method, count in sorted(record.get("strikes", {}).items()))
        seen = record.get("images")
        images = ("yes" if seen else "no") if isinstance(seen, bool) else "not asked"
        line = f"{key}: accepted {record.get('accepted') or '-'}; refused {strikes or '-'}; images {images}"
        console.print(_text(("forgotten: " if reset else "") + line))


def _database_exists(db: str | None) -> bool:
    """A PostgreSQL database always exists (setup creates the tables); an SQLite file only once written."""
    from core.persistence import database_url, is_postgres, sqlite_path

    return is_postgres(database_url(db)) or sqlite_path(db).exists()


# --- doctor / serve-local ---------------------------------------------------------------------------------------


ServerHostOpt = Annotated[
    str,
    typer.Option("--server-host", help="The host `langgraph dev --host` binds (checked against PAOR_SERVER_API_KEY)."),
]


@app.command()
def doctor(db: DbOpt = None, server_host: ServerHostOpt = "127.0.0.1", mcp_config: McpConfigOpt = None) -> None:
    """Show the configuration and check that the model endpoint answers; exit 0 when paor can run."""
    from cli.preflight import base_url_source, endpoint_problem, key_problem, setting_problems
    from core.context import paor_home
    from core.persistence import DatabaseUnavailable, describe_database
    from prompts.templates import clip
    from server import settings
    from tools.catalog import catalog, extended_by, unavailable_notes
    from tools.code.available import status as code_execution_status
    from tools.extra.actions import ExtraActions

    with bad_input_exits():
        context = _context({})
        database = describe_database(db)
        problems = _folder_problems({}, db, None)  # PAOR_HOME, the document store, the database file
        extra = ExtraActions.build(mcp_config=mcp_config)
    with extended_by(extra):  # starts the declared MCP servers to list their tools
        warnings, actions = unavailable_notes(), len(catalog())
        servers = extra.describe() if extra is not None else []
    if extra is not None:
        extra.close()
    openai_key = os.environ.get("OPENAI_API_KEY", "")
    db_state = "not checked: see below" if problems else ""
    try:
        db_state = db_state or _database_state(db)
    except ConfigurationError as exc:
        db_state = "unusable"
        problems.append(str(exc))
    except DatabaseUnavailable as exc:
        db_state = "unreachable"
        problems.append(str(exc))
    if not openai_key and not context.base_url:
        problems.append("OPENAI_API_KEY is missing and no local endpoint (OPENAI_BASE_URL) is set")
    unsendable = setting_problems(context, None)  # a key no header can carry, an endpoint that is no URL
    problems.extend(unsendable)
    if key_problem("OPENAI_API_KEY") or endpoint_problem(base_url_source(None), context.base_url):
        endpoint_state = "not probed (its settings are wrong, see below)"
    else:
        reachable, endpoint_state = _probe(context.base_url or OPENAI_DEFAULT_URL, openai_key)
        if not reachable:
            problems.append(f"the model endpoint is {endpoint_state}")
    tavily_hint = " (web.search needs it, or PAOR_SEARCH_BACKEND=ddgs)" if context.search_backend == "tavily" else ""
    rows = [
        ("model", context.model),
        ("base URL", _display_url(context.base_url) if context.base_url else f"{OPENAI_DEFAULT_URL} (default)"),
        ("PAOR_HOME", str(paor_home())),
        ("database", f"{database} ({db_state})"),
        ("document store", str(context.store_path)),
        ("OPENAI_API_KEY", _key_state("OPENAI_API_KEY", "")),
        ("TAVILY_API_KEY", _key_state("TAVILY_API_KEY", tavily_hint)),
        ("endpoint", endpoint_state),
        ("actions", f"{actions} available" + (f", {len(warnings)} unavailable" if warnings else "")),
        *((f"mcp {name}", state) for name, state in servers),
        (
            "server auth",
            f"on ({settings.API_KEY_ENV})" if settings.api_keys() else f"off ({settings.API_KEY_ENV} unset)",
        ),
        ("server folder", str(settings.documents_dir() or f"none ({settings.DOCUMENTS_DIR_ENV} unset: no paths)")),
        ("code.execute", code_execution_status()),
    ]
    console = _stdout()
    width = max(16, *(len(name) + 2 for name, _ in rows))  # a long server name never runs into its value
    for name, value in rows:
        console.print(_text(f"{name:<{width}}{value}"))
    for warning in warnings:  # the other actions still work: a warning, not a problem
        console.print(_text(f"! {clip(warning)}", style="yellow"))
    if not settings.api_keys() and not settings.is_loopback(server_host):
        console.print(
            _text(
                f"! a LangGraph server on {server_host} without {settings.API_KEY_ENV} lets anyone who reaches it "
                "run paor and read every thread and its documents: set the key or keep the server on 127.0.0.1",
                style="yellow",
            )
        )
    if problems:
        for problem in problems:
            console.print(_text(f"✗ {clip(problem)}", style="red"))
        raise typer.Exit(2)
    console.print(_text("✓ ready", style="green"))


def _key_state(name: str, missing_hint: str) -> str:
    """`set`, `missing…`, or that the value cannot be a key (the value itself is never shown)."""
    from cli.preflight import key_problem

    if not os.environ.get(name):
        return f"missing{missing_hint}"
    return "set, but not a usable key" if key_problem(name) else "set"


def _database_state(db: str | None) -> str:
    """'ok' / 'will be created' for SQLite; for PostgreSQL a connection and `SELECT 1` (errors password-free)."""
    from core.persistence import (
        check_database,
        database_errors,
        database_url,
        is_postgres,
        open_persistence,
        sqlite_path,
    )

    url = database_url(db)
    if is_postgres(url):
        with database_errors(url), open_persistence(url) as (saver, _):
            saver.get_tuple({"configurable": {"thread_id": "paor-doctor", "checkpoint_ns": ""}})
        return "ok (PostgreSQL)"
    path = sqlite_path(db)
    check_database(path)
    return "ok" if path.exists() else "will be created"


def _probe(base_url: str, key: str) -> tuple[bool, str]:
    """GET {base_url}/models: the cheapest request every OpenAI-compatible server answers."""
    import httpx

    from prompts.templates import clip

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=PROBE_TIMEOUT_S)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return False, f"unreachable ({type(exc).__name__}: {clip(exc, 120)})"
    code = response.status_code
    if code in (401, 403):
        return False, f"reachable but refusing the key (HTTP {code})"
    if code >= 500:
        return False, f"reachable but failing (HTTP {code})"
    return True, f"reachable (HTTP {code})"


def _display_url(url: str) -> str:
    """The URL without user info or query, which may carry credentials."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


@app.command("serve-local")
def serve_local(
    port: Annotated[int | None, typer.Option("--port", min=1, max=65535, help="Port (default: a free one).")] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            min=1,
            max=os.cpu_count() or 1,
            help="CPU threads llama.cpp uses, at most one a core (default: all cores to read a prompt, half to "
            "generate); 1 is faster on a machine busy with other work.",
        ),
    ] = None,
) -> None:
    """Serve the bundled local model (llama.cpp, OpenAI-compatible) on 127.0.0.1 until Ctrl-C."""
    with bad_input_exits():
        local = _local_model()
        from core.context import paor_home

        try:
            local.run_local_server(port, log=paor_home() / "logs" / "llama-server.log", threads=threads)
        except KeyboardInterrupt:
            _stderr().print("local model server stopped")


@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port.")] = 2026,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64, help="Server processes on this port (each one instance).")
    ] = 1,
) -> None:
    """Serve paor on Aegra with PostgreSQL (PAOR_DATABASE_URL) and Redis (PAOR_REDIS_URL): the production engine;
    every instance on the same database and Redis, on this machine or another, is one service (Python 3.12+, the
    `aegra` extra)."""
    with bad_input_exits():
        from cli.serve import serve as become_server

        become_server(host, port, workers)


def main() -> None:
    """The `paor` command: the process is paor's alone (an in-process CliRunner's is not, so it is not frozen)."""
    global _own_process
    _own_process = True
    app(prog_name="paor")


if __name__ == "__main__":
    main()
