"""Issue 31, item 8: what the first request needs is loaded when the graph module is (at server start), so the first
run is no slower than the second — and nothing it does not need: the MCP SDK loads only where a server is declared.
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
print(detector_factory._factory is not None, catalog._loaded, "mcp" in sys.modules)
"""


def test_importing_the_graph_loads_the_language_profiles_and_the_actions_but_no_mcp_sdk() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "False"]
