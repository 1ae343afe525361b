"""Skips for tests that run model-written code: they need an isolation that keeps the sandbox's promises, and
say which is missing when there is none (bubblewrap not installed, user namespaces refused, …)."""

from __future__ import annotations

from typing import Any

import pytest

from tools.code import available, isolation


def needs_isolation() -> pytest.MarkDecorator:
    """Skip unless code.execute can run here under a real isolation; the reason names what each one lacks."""
    found = available.detect()
    return pytest.mark.skipif(found.kind == "none", reason=f"code.execute needs an isolation: {found.detail}")


def each_isolation() -> list[Any]:
    """One parameter per isolation paor knows; those this machine lacks are skipped, naming what is missing."""
    params = []
    for kind in isolation.KINDS:
        problem = available.probe(kind)
        marks = [pytest.mark.skip(reason=f"{kind} is not usable here: {problem}")] if problem else []
        params.append(pytest.param(kind, marks=marks, id=kind))
    return params
