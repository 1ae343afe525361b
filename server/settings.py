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
DEFAULT_LINK_TTL_S = 24 * 3600


def public_url() -> str:
    """Where clients reach this server (`https://paor.example.org`), for links, when a proxy hides it from the
    server; empty: each request's own base URL."""
    return os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")


def link_secret() -> str:
    """The operator's secret for signing download links; empty: one derived from the client keys."""
    return os.environ.get(LINK_SECRET_ENV, "").strip()


def link_ttl_s() -> int:
    """How long a signed download link opens its document (seconds, at least one)."""
    raw = os.environ.get(LINK_TTL_ENV, "").strip()
    return max(1, int(raw)) if raw.isdigit() else DEFAULT_LINK_TTL_S
