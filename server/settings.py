"""The operator's server settings, read from the environment (never from a request); light enough for the CLI."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

API_KEY_ENV = "PAOR_SERVER_API_KEY"
DOCUMENTS_DIR_ENV = "PAOR_SERVER_DOCUMENTS_DIR"


def api_keys() -> list[str]:
    """The client keys: one, or several separated by commas (one per client); empty means auth is off."""
    return [key.strip() for key in os.environ.get(API_KEY_ENV, "").split(",") if key.strip()]


def documents_dir() -> Path | None:
    """The folder whose files server runs may name by path; None means no paths at all."""
    folder = os.environ.get(DOCUMENTS_DIR_ENV, "").strip()
    return Path(folder) if folder else None


def is_loopback(host: str) -> bool:
    """Whether a server bound to `host` is reachable from this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[] ")).is_loopback
    except ValueError:
        return False  # a host name other than localhost, or 0.0.0.0-style wildcards spelled oddly


PUBLIC_URL_ENV = "PAOR_SERVER_PUBLIC_URL"
LINK_SECRET_ENV = "PAOR_SERVER_LINK_SECRET"
LINK_TTL_ENV = "PAOR_SERVER_LINK_TTL_S"


def public_url() -> str:
    """Where clients reach this server (`https://paor.example.org`), for links, when a proxy hides it from the
    server; empty: each request's own base URL."""
    return os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")


def link_secret() -> str:
    """The operator's secret for signing download links; empty: one derived from the client keys."""
    return os.environ.get(LINK_SECRET_ENV, "").strip()


def link_ttl_s() -> int | None:
    """How long a signed download link opens its document, in seconds; None (unset, 0 or not a number): as long as
    its thread exists, since a link frozen in a chat message cannot be renewed by the person who clicks it."""
    raw = os.environ.get(LINK_TTL_ENV, "").strip()
    return int(raw) if raw.isdecimal() and int(raw) > 0 else None


SERVER_FOLDER = "server"


def server_store() -> Path:
    """Where a server keeps its documents, uploads and records: its own folder of the operator's document store
    (`$PAOR_STORE_DIR/server`, by default `$PAOR_HOME/documents/server`), so deleting a server thread's documents
    never deletes a file a CLI or Python run on the same machine holds."""
    from core.context import Context  # the CLI's doctor reads this module: it stays light until a store is asked

    return Context().store_path / SERVER_FOLDER


# --- the operator's limits per request and per client (docs/shared-server.md#limits) -----------------------------

#: (environment variable, default): every limit a shared server applies, by name.
LIMITS: dict[str, tuple[str, float]] = {
    "body_mb": ("PAOR_SERVER_MAX_BODY_MB", 10),
    "threads": ("PAOR_SERVER_MAX_THREADS", 500),
    "runs": ("PAOR_SERVER_MAX_RUNS", 4),
    "assistants": ("PAOR_SERVER_MAX_ASSISTANTS", 50),
    "crons": ("PAOR_SERVER_MAX_CRONS", 10),
    "store_items": ("PAOR_SERVER_MAX_STORE_ITEMS", 10_000),
    "store_mb": ("PAOR_SERVER_MAX_STORE_MB", 50),
    "documents_mb": ("PAOR_SERVER_MAX_DOCUMENTS_MB", 1024),
    "metadata_kb": ("PAOR_SERVER_MAX_METADATA_KB", 64),
    "run_kb": ("PAOR_SERVER_MAX_RUN_KB", 1024),
    "requests": ("PAOR_SERVER_MAX_REQUESTS", 32),
    "requests_per_s": ("PAOR_SERVER_MAX_REQUESTS_PER_S", 10),
    "body_mb_per_s": ("PAOR_SERVER_MAX_BODY_MB_PER_S", 10),
    "sent_mb_per_s": ("PAOR_SERVER_MAX_SENT_MB_PER_S", 5),
    "page": ("PAOR_SERVER_MAX_PAGE", 100),
}


def limit(name: str) -> float:
    """The operator's value of one limit (its environment variable, else the default); a value that is not a
    positive number counts as the default."""
    env, default = LIMITS[name]
    raw = os.environ.get(env, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 and value == value and value != float("inf") else default
