"""Issue 31, item 8, issue 33 and issue 46, item 6: a server loads what a run may need before its first request, so
the first run is no slower than the second; `build_graph()` (a Python program, `paor run`) loads on a thread of its
own what a run needs before its first model request at once, and sympy once a run has asked for its model, while
importing the graph loads none of it; loading is safe from the threads a run starts. Checked in fresh interpreters:
the test process has long loaded everything."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import deadlines

LOADED = """
from langdetect import detector_factory
from core.tokens import encoding
from tools import catalog
print(detector_factory._factory is not None, catalog._loaded, encoding.cache_info().currsize == 1,
      *(name in sys.modules for name in ("sympy", "mcp", "jsonschema", "openai.resources.beta")))
"""
IMPORTED = "import sys\nimport graph.builder\n" + LOADED
#: build_graph(), the warm-up's first needs loaded (by whom), then a run asks for its model. The loaders are counted
#: where the warm-up calls them: on the caller's thread, build_graph would keep its caller waiting for all of it.
BUILT = """
import sys, threading
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_openai.chat_models import _client_utils
import graph.warmup as warmup
from graph.builder import build_graph
from core.context import Context
from core.llm import Models

callers, asked_first = [], []
for name in ("catalog", "detect_language"):
    def loader(*args, _real=getattr(warmup, name)):
        callers.append(threading.current_thread() is threading.main_thread())
        return _real(*args)
    setattr(warmup, name, loader)

warmup.NEXT_NEEDS = (lambda _: asked_first.append(warmup.MODEL_ASKED.is_set()), *warmup.NEXT_NEEDS)

build_graph()
assert any(thread.name == "paor-warm" for thread in threading.enumerate()), "no warm-up thread"
assert warmup.FIRST_NEEDS_LOADED.wait(@DEADLINE)
print(*callers, _client_utils._cached_sync_httpx_client.cache_info().currsize > 0)
@LOADED
Models(injected=GenericFakeChatModel(messages=iter([]))).for_context(Context())  # a run asks for its model
assert warmup.warmed(@DEADLINE)
print(*asked_first)
@LOADED
""".replace("@LOADED", LOADED).replace("@DEADLINE", str(deadlines.PROCESS_S))
#: The process ends while the warm-up loads a part: the part waits for the exit to begin, then says it finished.
ENDING = """
from graph import warmup
from core.llm import Models

def loading(_):
    warmup._exiting.wait()
    print("finished", flush=True)

warmup.FIRST_NEEDS = (loading, lambda _: print("another part", flush=True))
warmup.warm_in_background(Models())
"""
SERVER_START = """
import asyncio, sys
from server import engine
from server.capacity import serving
from server.engine_langgraph import LangGraphDev

dev = LangGraphDev()  # langgraph dev's engine, as a test's: no runtime of its own
engine.use(dev)

async def start():
    async with serving(dev):
        exec(LOADED)

asyncio.run(start())
""".replace("LOADED", repr(LOADED))
FIRST_USE_FROM_THREADS = """
import json, threading
from nodes.reading.hints import detect_language
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


def _printed(program: str, **env: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=deadlines.PROCESS_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def test_importing_the_graph_loads_none_of_what_runs_load_on_first_use() -> None:
    """`paor --help`, `paor history` and a server's graph module import it: none of them pays for a run."""
    assert _printed(IMPORTED) == ["False"] * 7


def test_build_graph_loads_what_a_run_needs_first_off_the_callers_thread_and_the_rest_once_a_run_asks() -> None:
    """Issue 46, item 6: the first run of a Python process paid ~1.9 s before its first model call. sympy waits for
    a run's model request, so it never competes with the run's way to it; no MCP SDK, no jsonschema."""
    printed = _printed(BUILT, OPENAI_BASE_URL="http://127.0.0.1:9/v1-warm-test")
    callers, client = printed[:2], printed[2]
    assert callers == ["False", "False"], "the language profiles and the catalog load on the warm-up thread"
    assert client == "True", "the configured endpoint's HTTP clients are built"
    first, asked_first, then = printed[3:10], printed[10], printed[11:]
    assert first == ["True", "True", "False", "False", "False", "False", "False"]
    assert asked_first == "True", "sympy waited for a run's model request"
    assert then == ["True", "True", "False", "True", "False", "False", "False"], "the token encoding stays on first use"


def test_a_process_that_ends_while_the_warm_up_loads_waits_for_that_part_and_loads_no_other() -> None:
    """A daemon thread still running when the interpreter ends is unwound by it; through pydantic-core's Rust frames
    (a model's HTTP client being built) that aborted `paor resume` with SIGABRT."""
    assert _printed(ENDING) == ["finished"]


def test_a_server_loads_what_a_run_may_need_before_its_first_request_but_no_mcp_sdk() -> None:
    """Nor jsonschema, which only checks the arguments of a tool of the user's own, nor OpenAI's beta API (700
    modules), through which only streamed protocol answers would go."""
    assert _printed(SERVER_START) == ["True"] * 4 + ["False", "False", "False"]


def test_threads_that_use_the_catalog_and_language_detection_first_all_see_them_whole() -> None:
    done = subprocess.run([sys.executable, "-c", FIRST_USE_FROM_THREADS], capture_output=True, text=True, check=True)
    printed = json.loads(done.stdout)
    assert "de" in printed["whole"]
    assert printed["seen"] == printed["whole"]  # every thread saw what the process sees once all is loaded
