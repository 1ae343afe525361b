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

import logging
import os
from pathlib import Path
from typing import Annotated

import typer

from cli import driver
from cli.exits import bad_input_exits, stderr
from cli.options import (
    ApproveOpt,
    AskOpt,
    BaseUrlOpt,
    DbOpt,
    JsonOpt,
    LocalOpt,
    MaxStepsOpt,
    McpConfigOpt,
    Mode,
    ModelOpt,
    OutOpt,
    YesOpt,
    asking_options,
    given_options,
    mcp_option,
    new_thread_id,
    parse_answer,
)
from core.errors import InvalidRequest

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

    thread = thread or new_thread_id()
    with bad_input_exits(as_json=as_json, thread=thread):
        request = checked_request(_prompt_text(prompt, prompt_file))  # refused before anything is stored
        check_sources(doc or [])
        if out is not None and out.exists() and not out.is_dir():
            raise InvalidRequest(f"--out {out} exists and is not a folder")
        if local and base_url:
            raise InvalidRequest("--local and --base-url exclude each other")
        documents = [s if "://" in s else str(Path(s).expanduser().resolve()) for s in doc or []]
        options = {
            **given_options(model, base_url, max_steps, mode, local),
            **asking_options(approve, ask),
            **mcp_option(mcp_config),
        }
        driver.execute(thread, InputState(prompt=request, documents=documents), options, out, as_json, db, yes=yes)


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
        options = {**given_options(model, base_url, max_steps, None, local), **asking_options(approve, False)}
        if mcp_config is not None:
            options["mcp_config"] = str(mcp_config.expanduser().resolve())
        driver.execute(
            thread, None, options, out, as_json, db, yes=yes, answer=None if answer is None else parse_answer(answer)
        )


# --- history / strategies / endpoints ---------------------------------------------------------------------------


@app.command()
def history(thread: Annotated[str, typer.Argument(help="Thread id.")], db: DbOpt = None) -> None:
    """The steps of a thread, newest first, with their outcome and summary."""
    from cli.records import show_history

    show_history(thread, db)


@app.command()
def strategies(
    pattern: Annotated[str | None, typer.Option("--pattern", help="Only patterns containing this text.")] = None,
    db: DbOpt = None,
) -> None:
    """What paor has learned: per intent pattern, what worked and what to avoid."""
    from cli.records import show_strategies

    show_strategies(pattern, db)


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
    from cli.records import show_endpoints

    show_endpoints(reset, endpoint, db)


# --- doctor / serve-local / serve -------------------------------------------------------------------------------


ServerHostOpt = Annotated[
    str,
    typer.Option("--server-host", help="The host `langgraph dev --host` binds (checked against PAOR_SERVER_API_KEY)."),
]


@app.command()
def doctor(db: DbOpt = None, server_host: ServerHostOpt = "127.0.0.1", mcp_config: McpConfigOpt = None) -> None:
    """Show the configuration and check that the model endpoint answers; exit 0 when paor can run."""
    from cli.doctor import diagnose

    diagnose(db, server_host, mcp_config)


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
        local = driver.local_model()
        from core.context import paor_home

        try:
            local.run_local_server(port, log=paor_home() / "logs" / "llama-server.log", threads=threads)
        except KeyboardInterrupt:
            stderr().print("local model server stopped")


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
    driver.own_process = True
    app(prog_name="paor")


if __name__ == "__main__":
    main()
