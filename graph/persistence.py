"""Deprecated: moved to `core.database`, `core.thread_lock`, `core.persistence` and `core.server_persistence` (the
ground layer); kept for code written against it (CHANGELOG.md)."""

from core.database import *  # noqa: F403
from core.persistence import *  # noqa: F403
from core.server_persistence import *  # noqa: F403
from core.thread_lock import *  # noqa: F403
