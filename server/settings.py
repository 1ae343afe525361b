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
