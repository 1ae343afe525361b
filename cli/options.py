"""The options the `paor` commands share, and the run options they turn into (only what the user gave: everything
else keeps Context's env-filled defaults)."""

from __future__ import annotations

import json
import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from core.errors import ConfigurationError

if TYPE_CHECKING:
    from core.context import Context


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


def mcp_option(mcp_config: Path | None) -> dict[str, Any]:
    """The MCP config a run uses — `--mcp-config`, else the file PAOR_MCP_CONFIG names — as an absolute path: it is
    saved with the thread's options, so `paor resume` brings the same tools in any shell."""
    from tools.mcp.config import CONFIG_ENV

    named = mcp_config or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    return {"mcp_config": str(named.expanduser().resolve())} if named is not None else {}


def asking_options(approve: Approve | None, ask: bool) -> dict[str, Any]:
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


def new_thread_id() -> str:
    import uuid

    return uuid.uuid4().hex[:12]


def given_options(
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


def context_of(options: dict[str, Any]) -> Context:
    """The run's Context: the options given over the environment's settings."""
    from core.context import Context

    try:
        return Context.from_env(**{key: value for key, value in options.items() if key not in ("local", "mcp_config")})
    except ValueError as exc:  # an env var of the wrong type
        raise ConfigurationError(str(exc)) from exc
