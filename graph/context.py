"""Deprecated: moved to `core.context` (the ground layer); kept for code written against it (CHANGELOG.md)."""

from core.context import *  # noqa: F403
