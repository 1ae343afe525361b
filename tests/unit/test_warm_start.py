"""Issue 31, item 8 and issue 33: a server loads what a run may need before its first request, so the first run is
no slower than the second; a `paor` process (or a program importing the graph) loads each part on first use, since
most runs need only some of it — and loading it then is safe from the threads a run starts. Checked in fresh
interpreters: the test process has long loaded everything."""

from __future__ import annotations

import json
import subprocess
import sys

LOADED = """
from langdetect import detector_factory
from graph.tokens import encoding
from tools import catalog
print(detector_factory._factory is not None, catalog._loaded, encoding.cache_info().currsize == 1,
      *(name in sys.modules for name in ("sympy", "mcp", "jsonschema")))
"""
IMPORTED = "import sys\nimport graph.builder\ngraph.builder.build_graph()\n" + LOADED
SERVER_START = """
import asyncio, sys
from server.capacity import lifespan

async def start():
    async with lifespan(None):
        exec(LOADED)

asyncio.run(start())
""".replace("LOADED", repr(LOADED))
FIRST_USE_FROM_THREADS = """
import json, threading
from nodes.hints import detect_language
from tools.catalog import catalog

start, seen = threading.Barrier(6), []

def use(first_use):
    start.wait()
    seen.append(first_use())

german = "Dies ist ein ganz gewöhnlicher Satz über das Wetter von heute"
uses = [lambda: len(catalog()), lambda: detect_language(german)]
threads = [threading.Thread(target=use, args=(uses[i % 2],)) for i in range(6)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
whole = [str(len(catalog())), str(detect_language(german))]
print(json.dumps({"seen": sorted(set(map(str, seen))), "whole": sorted(whole)}))
"""


def _printed(program: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()


def test_importing_and_building_the_graph_loads_none_of_what_runs_load_on_first_use() -> None:
    assert _printed(IMPORTED) == ["False"] * 6


def test_a_server_loads_what_a_run_may_need_before_its_first_request_but_no_mcp_sdk() -> None:
    """Nor jsonschema, which only checks the arguments of a tool of the user's own."""
    assert _printed(SERVER_START) == ["True"] * 4 + ["False", "False"]


def test_threads_that_use_the_catalog_and_language_detection_first_all_see_them_whole() -> None:
    done = subprocess.run([sys.executable, "-c", FIRST_USE_FROM_THREADS], capture_output=True, text=True, check=True)
    printed = json.loads(done.stdout)
    assert "de" in printed["whole"]
    assert printed["seen"] == printed["whole"]  # every thread saw what the process sees once all is loaded
