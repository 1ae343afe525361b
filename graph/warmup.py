"""Loading what a run may need before it needs it: a server before its first request (`warm`, in its lifespan), a
Python program or `paor run` from `build_graph()` on a thread of its own (`warm_in_background`, issue 46).

Together the parts cost a first run about 1.2 s (2 cores): the language profiles (0.35 s), the action catalog with
its sandbox probe (0.3 s), the endpoint's model with its HTTP clients (0.1 s; they load the CA bundle twice, cached
per endpoint and timeout), sympy (0.2 s) and the token encoding (0.3 s). OpenAI's structured-output streaming (700
modules, 0.6–0.9 s) is not among them: protocol answers are never streamed (core/llm.py `_whole`). Importing the
graph loads none of them: `paor --help`, `paor history` and the server's graph module run nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import threading
from collections.abc import Callable

from core.context import Context
from core.errors import ConfigurationError
from core.llm import MODEL_ASKED, Models
from core.tokens import count_tokens
from nodes.reading.hints import detect_language
from tools.catalog import catalog

log = logging.getLogger(__name__)

Part = Callable[[Models], object]


def _model(models: Models) -> None:
    with contextlib.suppress(ConfigurationError):  # no endpoint configured yet: the first run says so
        models.prepared(Context())


def _number_checks(_: Models) -> None:
    importlib.import_module("sympy")


#: What nearly every run loads before its first model request: the request's language, the catalog its prompts
#: list, the model it calls.
FIRST_NEEDS: tuple[Part, ...] = (
    lambda _: detect_language("load the language profiles once"),
    lambda _: catalog(),
    _model,
)
#: What many runs load after it: the checks of numbers (a step's validation, a property of a stated number).
NEXT_NEEDS: tuple[Part, ...] = (_number_checks,)
#: What few runs load: token counts of long texts. A server loads them before its first request; a `build_graph()`
#: caller on first use, since loading them beside a short run made it slower (0.93 s vs 0.60 s for a one-call
#: answer, a model answering in 0.5 s).
RARE_NEEDS: tuple[Part, ...] = (lambda _: count_tokens("load the token encoding once"),)


def warm() -> None:
    """Load every part now, so the first run after a server's start is no slower than the second."""
    models = Models()
    for part in (*FIRST_NEEDS, *NEXT_NEEDS, *RARE_NEEDS):
        part(models)


_lock = threading.Lock()
_thread: threading.Thread | None = None
#: Set once the warm-up thread went through the first needs.
FIRST_NEEDS_LOADED = threading.Event()
_exiting = threading.Event()
#: How long an ending process waits for the part the warm-up is loading: a bound on a hang, not a measure.
EXIT_WAIT_S = 60.0


def warm_in_background(models: Models) -> None:
    """Load the first and the next needs on a daemon thread (one per process), so that neither `build_graph()`'s
    caller nor the first run waits for them: the first needs at once, the next once a run has asked for its model.
    Before that they would only take the interpreter (one GIL for both threads) from the run's way to its first
    request; after it, that run waits on the network. A run that needs a part sooner waits for this thread's loading
    of it, not for the rest: the loaders hold locks, and an import waits for the thread importing it."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_warming_up, args=(models,), name="paor-warm", daemon=True)
            atexit.register(_stop, _thread)
            _thread.start()


def warmed(timeout: float | None = None) -> bool:
    """Whether the warm-up thread went through its parts, waiting up to `timeout` (True where none started)."""
    thread = _thread
    if thread is not None:
        thread.join(timeout)
    return thread is None or not thread.is_alive()


def _stop(thread: threading.Thread) -> None:
    """At exit: no part after the one being loaded, and that one finished before the interpreter ends. A daemon
    thread still running then is unwound by the ending interpreter, and through pydantic-core's Rust frames (a
    model's HTTP client being built) that aborted `paor resume` with SIGABRT ("FATAL: exception not rethrown")."""
    _exiting.set()
    MODEL_ASKED.set()  # wakes a warm-up waiting for a run's request, which then stops
    thread.join(EXIT_WAIT_S)


def _warming_up(models: Models) -> None:
    _load(FIRST_NEEDS, models)
    FIRST_NEEDS_LOADED.set()
    MODEL_ASKED.wait()
    _load(NEXT_NEEDS, models)


def _load(parts: tuple[Part, ...], models: Models) -> None:
    for part in parts:
        if _exiting.is_set():
            return
        try:
            part(models)
        except Exception:  # a warm-up fails nothing: a run that needs the part meets the problem and reports it
            log.debug("warming up: a part failed; it loads on first use", exc_info=True)
