"""Deprecated: moved to `core.schemas` (the ground layer); kept for code written against it (CHANGELOG.md)."""

from core.schemas import *  # noqa: F403
