"""Which structured-output method an endpoint accepts, remembered in the LangGraph store.

A refusal (HTTP 400/404/405/415/422/500/501) counts against a method only where it is about that method
(`refusal_about`): its message names the feature (`response_format`, `tools`, `guided_json`…), or it named nothing
and another method then answered the same messages. A refusal of the request itself — too long for the model's
context, a setting out of range — never counts: all clients share these records, and one client's oversized prompt
once turned every later run of every client to plain text (issue 45). A refusal that names the method is the
endpoint's own word: the method is skipped for it from then on, by every stage (issue 46: counted as one strike of
two, llama.cpp's `json_schema` was refused once by Intent and once more by Stage 1 in each new process). One that
named nothing is one strike of `STRIKES_TO_SKIP`, since a transient 500 followed by another shape's answer proves
little; a success clears the strikes, so a hiccup never downgrades an endpoint for good. A method that worked is
tried first. The record lives in the store under `("paor", "endpoints")`, so every process — each `paor run`, each
worker, the server — starts with what the first run against that endpoint learned; a process-wide cache in front of
the store keeps the lookups off the hot path (without a store, the cache is all there is, and it is kept).

The same record keeps whether the endpoint accepts image input (`images`): asked once (nodes/attachments.py),
then remembered, so an image attached on any later run costs no probe.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Literal

from langgraph.store.base import BaseStore

Method = Literal[
    "json_schema", "json_object_schema", "guided_json", "function_calling", "generic_json_schema", "json_mode", "text"
]
#: Most constrained first: strict JSON schema (OpenAI, Ollama, vLLM), a schema grammar (llama.cpp), guided decoding
#: (older vLLM / SGLang), forced function calling, then JSON mode and plain text with repair.
METHODS: tuple[Method, ...] = (
    "json_schema",
    "json_object_schema",
    "guided_json",
    "function_calling",
    "json_mode",
    "text",
)
#: Status codes with which endpoints say "I do not support this request shape" (llama.cpp answers 500), not "try
#: again later"; the same set as core.llm's.
REFUSED_STATUS = frozenset({400, 404, 405, 415, 422, 500, 501})
NAMESPACE = ("paor", "endpoints")
#: Words with which an endpoint's refusal names each feature (lower case); "images" is the image input.
FEATURE_WORDS: dict[str, tuple[str, ...]] = {
    "json_schema": ("response_format", "json_schema", "structured output"),
    "json_object_schema": ("response_format", "json_object", "schema", "grammar"),
    "guided_json": ("guided_json", "guided decoding", "guided"),
    "function_calling": ("tool", "function"),
    "json_mode": ("response_format", "json_object", "json mode"),
    "images": ("image", "vision", "multimodal", "multi-modal", "modalit"),
}
#: Words of a refusal that is about the request's size, whatever else it names (OpenAI's context error counts the
#: tokens "in the functions"): never a feature's fault.
ABOUT_LENGTH = (
    "context length",  # OpenAI, vLLM ("This model's maximum context length is …")
    "context_length",
    "context size",  # llama.cpp ("the request exceeds the available context size")
    "context window",
    "maximum context",
    "too many tokens",
    "too long",
)
STRIKES_TO_SKIP = 2

#: Seconds a process trusts its cached record before reading the store again (an operator's reset reaches it).
CACHE_S = 60.0

_records: dict[str, dict[str, Any]] = {}
_loaded: dict[str, float] = {}
_lock = threading.Lock()


def endpoint_key(llm: Any) -> str:
    """Model class, model name and base URL: what decides which request shapes are understood."""
    model = str(getattr(llm, "model_name", "") or getattr(llm, "model", ""))
    base_url = str(getattr(llm, "openai_api_base", "") or "")
    return f"{type(llm).__name__}|{model}|{base_url}"


def refusal_about(feature: str, error: BaseException) -> bool | None:
    """Whether an endpoint's refusal is about `feature`: True when it names it, False when it is about the
    request's length, None when it says neither (the caller decides by what happens next)."""
    text = refusal_text(error).lower()
    if any(word in text for word in ABOUT_LENGTH):
        return False
    return True if any(word in text for word in FEATURE_WORDS[feature]) else None


def refusal_text(error: BaseException) -> str:
    """What an endpoint said when it refused: the client's message and the answer's body, if it has more."""
    body = getattr(error, "body", None)
    said = body.get("message", body) if isinstance(body, dict) else body
    return f"{error}: {said}" if said and str(said) not in str(error) else str(error)


def forget_all() -> None:
    """Drop the process cache (tests; the store keeps its records)."""
    with _lock:
        _records.clear()
        _loaded.clear()


class Capabilities:
    """The capability records of endpoints, read through the process cache and written to `store` on change."""

    def __init__(self, store: BaseStore | None) -> None:
        self.store = store

    def candidates(self, key: str, supported: tuple[Method, ...]) -> list[Method]:
        strikes = self._record(key)["strikes"]
        usable = [m for m in supported if strikes.get(m, 0) < STRIKES_TO_SKIP]
        return usable or ["text"]

    def accepted(self, key: str) -> Method | None:
        return self._record(key).get("accepted")

    def accept(self, key: str, method: Method) -> None:
        with _lock:
            record = self._load(key)
            if record.get("accepted") == method and not record["strikes"].get(method):
                return
            record["accepted"] = method
            record["strikes"].pop(method, None)
        self._save(key, record)

    def refuse(self, key: str, method: Method, status: int, *, named: bool = False) -> None:
        """Count a refusal against `method`; one that `named` the method's feature skips it at once."""
        with _lock:
            record = self._load(key)
            strikes = record["strikes"].get(method, 0) + 1
            record["strikes"][method] = max(strikes, STRIKES_TO_SKIP) if named else strikes
            record["lastRefusal"] = {"method": method, "status": status}
            if record.get("accepted") == method:
                record["accepted"] = None
        self._save(key, record)

    def images(self, key: str) -> bool | None:
        """Whether the endpoint accepts image input; None until it was asked."""
        seen = self._record(key).get("images")
        return seen if isinstance(seen, bool) else None

    def remember_images(self, key: str, accepted: bool) -> None:
        with _lock:
            record = self._load(key)
            record["images"] = accepted
        self._save(key, record)

    def records(self) -> dict[str, dict[str, Any]]:
        """Every endpoint's record in the store (what `paor endpoints` shows)."""
        if self.store is None:
            return {}
        found: dict[str, dict[str, Any]] = {}
        offset = 0
        while page := self.store.search(NAMESPACE, limit=100, offset=offset):
            found.update((item.key, dict(item.value)) for item in page)
            offset += len(page)
        return found

    def reset(self, key: str | None = None) -> list[str]:
        """Forget what was learned of one endpoint (None: of all); the keys forgotten. Every process re-reads its
        cache within `CACHE_S`, a running server included."""
        keys = [key] if key is not None else list(self.records())
        with _lock:
            for each in keys:
                _records.pop(each, None)
                if self.store is not None:
                    self.store.delete(NAMESPACE, each)
        return keys

    def _record(self, key: str) -> dict[str, Any]:
        with _lock:
            return self._load(key)

    def _load(self, key: str) -> dict[str, Any]:
        """The cached record, re-read from the store after `CACHE_S`; without a store there is nothing to re-read,
        and dropping the cache would forget what this process learned."""
        now = time.monotonic()
        stale = self.store is not None and now - _loaded.get(key, now) > CACHE_S
        if key not in _records or stale:
            saved = self.store.get(NAMESPACE, key) if self.store is not None else None
            record: dict[str, Any] = {"accepted": None, **(saved.value if saved is not None else {})}
            record["strikes"] = dict(record.get("strikes") or {})
            _records[key] = record
            _loaded[key] = now
        return _records[key]

    def _save(self, key: str, record: dict[str, Any]) -> None:
        if self.store is not None:
            self.store.put(NAMESPACE, key, {**record, "strikes": dict(record["strikes"])}, index=False)
