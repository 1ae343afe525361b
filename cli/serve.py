"""`paor serve`: paor's graph on Aegra, with PostgreSQL and Redis — the production engine, several processes on one
or more machines acting as one service (`langgraph dev` stays the development server, for Studio).

The operator's settings are paor's: `PAOR_DATABASE_URL` (PostgreSQL: threads, runs, checkpoints, store),
`PAOR_REDIS_URL` (the run queue, leases and streams), `PAOR_SERVER_API_KEY`, `PAOR_STORE_DIR`. They become Aegra's
(`DATABASE_URL`, `REDIS_URL` with its broker on) for the launcher (server/aegra_launch.py), which sets the schema up
once under an advisory lock however many instances start together, then serves `aegra.json`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from graph.errors import ConfigurationError

DATABASE_ENV, REDIS_ENV = "PAOR_DATABASE_URL", "PAOR_REDIS_URL"
CONFIG = Path(__file__).resolve().parents[1] / "aegra.json"


def engine_environment(environ: dict[str, str]) -> dict[str, str]:
    """The environment Aegra runs in, from paor's settings; ConfigurationError naming what is missing."""
    if sys.version_info < (3, 12) or importlib.util.find_spec("aegra_api") is None:
        raise ConfigurationError(
            "paor serve runs on Aegra, which needs Python 3.12 or later: in a 3.12 venv, "
            "pip install -c constraints.txt -e '.[aegra]'"
        )
    database, redis = environ.get(DATABASE_ENV, "").strip(), environ.get(REDIS_ENV, "").strip()
    missing = [name for name, value in ((DATABASE_ENV, database), (REDIS_ENV, redis)) if not value]
    if missing:
        raise ConfigurationError(f"paor serve needs {' and '.join(missing)} (postgresql://… and redis://…)")
    if not database.startswith(("postgres://", "postgresql://", "postgresql+")):
        raise ConfigurationError(f"{DATABASE_ENV} must be a PostgreSQL URL (postgresql://…)")
    return {
        **environ,
        "DATABASE_URL": database,
        "REDIS_URL": redis,
        "REDIS_BROKER_ENABLED": "true",
        "AEGRA_CONFIG": str(CONFIG),
        "RUN_MIGRATIONS_ON_STARTUP": "false",
    }


def serve(host: str, port: int) -> None:
    """Become the launcher: schema once, then Aegra serving paor (this process is replaced)."""
    environment = engine_environment(dict(os.environ))
    os.chdir(CONFIG.parent)  # Aegra resolves the configuration's paths and loads `.env` from there
    launcher = [sys.executable, "-m", "server.aegra_launch", "--host", host, "--port", str(port)]
    os.execve(sys.executable, launcher, environment)
