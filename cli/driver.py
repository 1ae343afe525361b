"""The run driver of `paor run` and `paor resume`: the thread's lock, the live view, the questions a run asks, the
local model's server, and the deliverables written at the end."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from cli.exits import EXIT_INTERRUPTED, EXIT_WAITING, echo_json, stderr, stdout, styled
from cli.options import context_of
from core.errors import ActionNotDeclared, ConfigurationError, InvalidRequest, ServiceUnavailable

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore
    from rich.console import Console

    from cli.view import LiveView
    from core.state import InputState

#: Set by cli.app.main(): the process runs the `paor` command and nothing else.
own_process = False
#: Store namespace where `run` remembers the options a thread was started with, so `resume` reuses them.
RUNS = ("paor", "runs")


def execute(
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

    if own_process:  # what the imports built lives as long as the process: frozen, no collection walks it again,
        gc.freeze()  # the one at exit neither (`python -m bench.startup`: a whole `paor run`)
    err = stderr()
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
                    styled(f"thread {thread} already finished ({snapshot.values.get('status')}); nothing to resume")
                )
                _finish(thread, snapshot.values, context_of(options).store_path, out, as_json)
        elif snapshot.tasks:
            raise InvalidRequest(f"thread {thread} was interrupted; continue it with: paor resume {thread}")
        _check_settings(options)
        store.put(RUNS, thread, options)
        store_path = context_of(options).store_path
        view = LiveView(err)
        values: dict[str, Any] = dict(snapshot.values) if payload is None else {}
        pending: Any = payload if answer is None else Command(resume=answer)
        interrupted = Outcome(lambda: _report_interrupted(thread, as_json, view))
        try:
            with ctrl_c_stops_the_run(interrupted), _endpoint(options) as effective:
                while True:
                    with view.running(thread):
                        stream = graph.stream(
                            pending, config, context=context_of(effective), stream_mode=["custom", "values"]
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
        echo_json({"thread": thread, "status": "interrupted", "error": hint, "exit_code": EXIT_INTERRUPTED})
    stderr().print(styled(hint, style="yellow"))


def _out_folder(thread: str, out: Path | None) -> Path:
    """Where a thread's deliverables go: `--out`, else ./paor-out/<thread>; each round in its own folder below."""
    from tools.documents import safe_file_name

    return out if out is not None else Path("paor-out") / safe_file_name(thread)


def _check_folders(options: dict[str, Any], db: str | None, out: Path) -> None:
    """PAOR_HOME, the database and the output folder can be created and written: else one line, before any of
    them is touched."""
    problems = setup_problems(options, db, out)
    if problems:
        raise ConfigurationError(problems[0])


def setup_problems(options: dict[str, Any], db: str | None, out: Path | None) -> list[str]:
    """What `_check_folders` refuses, every problem (a PostgreSQL database is checked by connecting to it)."""
    from cli.preflight import folder_problems
    from core.database import database_url, is_postgres, sqlite_file

    database = None if is_postgres(database_url(db)) else sqlite_file(db)
    return folder_problems(context_of(options), database, _database_setting(db), out)


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
        problems = setting_problems(context_of(options), options.get("base_url"))
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
        echo_json({"thread": thread, "status": "waiting", "exit_code": EXIT_WAITING, "interrupt": question})
    stderr().print(styled(f"{one_line(question)}; answer with `paor resume {thread} --answer …`", style="yellow"))
    raise typer.Exit(EXIT_WAITING)


def _resumed_options(store: BaseStore, thread: str, given: dict[str, Any]) -> dict[str, Any]:
    saved = store.get(RUNS, thread)
    options = {**(saved.value if saved else {}), **given}
    if "base_url" in given and not given.get("local"):
        options.pop("local", None)
    return options


@contextmanager
def _endpoint(options: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The options as given, or — with `local` — pointed at a llama.cpp server that lives as long as the run."""
    if not options.get("local"):
        yield options
        return
    if options.get("base_url"):
        raise InvalidRequest("--local and --base-url exclude each other")
    local = local_model()
    model = options.get("model") or local.LOCAL_MODEL_NAME  # the alias the local server answers to
    fitting = {k: v for k, v in local.LOCAL_SETTINGS.items() if f"PAOR_{k.upper()}" not in os.environ}
    with local.serve_local() as base_url:
        yield {**fitting, **options, "base_url": base_url, "model": model}


def local_model() -> ModuleType:
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
        echo_json(
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
        print_result(stdout(), thread, values, written)
    raise typer.Exit(code)


# --- history / strategies ---------------------------------------------------------------------------------------
