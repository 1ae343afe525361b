"""Which structured-output method an endpoint accepts, remembered in the LangGraph store.

A method that an endpoint refused twice (HTTP 400/404/405/415/422/500/501) is skipped for it from then on; a
method that worked is tried first. The record lives in the store under `("paor", "endpoints")`, so every process —
each `paor run`, each worker, the server — starts with what the first run against that endpoint learned, and a
server that refuses `json_schema` (llama.cpp) costs those refusals once, not on every run. A process-wide cache
in front of the store keeps the lookups off the hot path; one transient error counts one strike, and a success
clears the strikes, so a hiccup never downgrades an endpoint for good.

The same record keeps whether the endpoint accepts image input (`images`): asked once (nodes/attachments.py),
then remembered, so an image attached on any later run costs no probe.
"""

from __future__ import annotations

import threading
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
#: again later"; the same set as graph.llm's.
REFUSED_STATUS = frozenset({400, 404, 405, 415, 422, 500, 501})
NAMESPACE = ("paor", "endpoints")
STRIKES_TO_SKIP = 2

_records: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def endpoint_key(llm: Any) -> str:
    """Model class, model name and base URL: what decides which request shapes are understood."""
    model = str(getattr(llm, "model_name", "") or getattr(llm, "model", ""))
    base_url = str(getattr(llm, "openai_api_base", "") or "")
    return f"{type(llm).__name__}|{model}|{base_url}"


def forget_all() -> None:
    """Drop the process cache (tests; the store keeps its records)."""
    with _lock:
        _records.clear()


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

    def refuse(self, key: str, method: Method, status: int) -> None:
        with _lock:
            record = self._load(key)
            record["strikes"][method] = record["strikes"].get(method, 0) + 1
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

    def _record(self, key: str) -> dict[str, Any]:
        with _lock:
            return self._load(key)

    def _load(self, key: str) -> dict[str, Any]:
        if key not in _records:
            saved = self.store.get(NAMESPACE, key) if self.store is not None else None
            record: dict[str, Any] = {"accepted": None, **(saved.value if saved is not None else {})}
            record["strikes"] = dict(record.get("strikes") or {})
            _records[key] = record
        return _records[key]

    def _save(self, key: str, record: dict[str, Any]) -> None:
        if self.store is not None:
            self.store.put(NAMESPACE, key, {**record, "strikes": dict(record["strikes"])}, index=False)
