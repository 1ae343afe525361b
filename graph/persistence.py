"""Deprecated: moved to `core.persistence` (the ground layer); kept for code written against it (CHANGELOG.md)."""

from core.persistence import *  # noqa: F403
