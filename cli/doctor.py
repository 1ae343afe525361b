"""`paor doctor`: the configuration shown, and every setting, folder, database and endpoint probed, so a problem is
named before a run meets it."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import typer

from cli.exits import bad_input_exits, stdout, styled
from cli.options import context_of
from core.errors import ConfigurationError

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
PROBE_TIMEOUT_S = 5.0


def diagnose(db: str | None, server_host: str, mcp_config: Path | None) -> None:
    """Show the configuration and check that the model endpoint answers; exit 0 when paor can run."""
    from cli.driver import setup_problems
    from cli.preflight import base_url_source, endpoint_problem, key_problem, setting_problems
    from core.context import paor_home
    from core.database import DatabaseUnavailable, describe_database
    from prompts.templates import clip
    from server import settings
    from tools.catalog import catalog, extended_by, unavailable_notes
    from tools.code.available import status as code_execution_status
    from tools.extra.actions import ExtraActions

    with bad_input_exits():
        context = context_of({})
        database = describe_database(db)
        problems = setup_problems({}, db, None)  # PAOR_HOME, the document store, the database file
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
    console = stdout()
    width = max(16, *(len(name) + 2 for name, _ in rows))  # a long server name never runs into its value
    for name, value in rows:
        console.print(styled(f"{name:<{width}}{value}"))
    for warning in warnings:  # the other actions still work: a warning, not a problem
        console.print(styled(f"! {clip(warning)}", style="yellow"))
    if not settings.api_keys() and not settings.is_loopback(server_host):
        console.print(
            styled(
                f"! a LangGraph server on {server_host} without {settings.API_KEY_ENV} lets anyone who reaches it "
                "run paor and read every thread and its documents: set the key or keep the server on 127.0.0.1",
                style="yellow",
            )
        )
    if problems:
        for problem in problems:
            console.print(styled(f"✗ {clip(problem)}", style="red"))
        raise typer.Exit(2)
    console.print(styled("✓ ready", style="green"))


def _key_state(name: str, missing_hint: str) -> str:
    """`set`, `missing…`, or that the value cannot be a key (the value itself is never shown)."""
    from cli.preflight import key_problem

    if not os.environ.get(name):
        return f"missing{missing_hint}"
    return "set, but not a usable key" if key_problem(name) else "set"


def _database_state(db: str | None) -> str:
    """'ok' / 'will be created' for SQLite; for PostgreSQL a connection and `SELECT 1` (errors password-free)."""
    from core.database import database_errors, database_url, is_postgres, sqlite_path
    from core.persistence import check_database, open_persistence

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
