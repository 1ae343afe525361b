"""Issue 31, item 8: what the first request needs is loaded when the graph module is (at server start), so the first
run is no slower than the second — and nothing it does not need: the MCP SDK loads only where a server is declared,
sympy, trafilatura and the token encoding (a prime check, a page, a long text) where used or when a server starts.
Checked in a fresh interpreter: the test process has long loaded everything."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import graph.builder
from langdetect import detector_factory
from tools import catalog
graph.builder.build_graph()
from graph.tokens import encoding
print(detector_factory._factory is not None, catalog._loaded, *(name in sys.modules for name in ON_DEMAND),
      encoding.cache_info().currsize)
"""
ON_DEMAND = ("mcp", "sympy", "trafilatura")
SERVER_START = """
import asyncio, sys
from server.capacity import lifespan

async def start():
    async with lifespan(None):
        from graph.tokens import encoding

        print(*(name in sys.modules for name in ("sympy", "trafilatura")), encoding.cache_info().currsize)

asyncio.run(start())
"""


def test_importing_the_graph_loads_the_language_profiles_and_the_actions_but_no_mcp_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.replace("ON_DEMAND", repr(ON_DEMAND))], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "True", "False", "False", "False", "0"]


def test_a_server_loads_what_runs_load_on_demand_before_its_first_request() -> None:
    done = subprocess.run([sys.executable, "-c", SERVER_START], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "1"]
