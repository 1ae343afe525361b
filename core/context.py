"""Run configuration: one dataclass that Studio renders as a form and env vars pre-fill.

Secrets (API keys) are deliberately not fields: Studio shows context values and checkpoints store them, so keys
are read from the environment at the point of use only.
"""

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from platformdirs import user_data_dir

from core.errors import ConfigurationError

MAX_STEPS_LIMIT = 100
#: The sampling temperatures OpenAI-compatible endpoints accept (OpenAI's range; llama.cpp and vLLM take it too).
TEMPERATURE_RANGE = (0.0, 2.0)


def refused_setting(temperature: Any) -> str | None:
    """Why the model endpoint would refuse this run's settings, or None: a request paor knows will be refused is
    refused here, before it is sent (a refusal would also tell paor nothing true about the endpoint)."""
    low, high = TEMPERATURE_RANGE
    try:
        value = float(temperature)
    except (TypeError, ValueError):
        return f"temperature must be a number from {low:g} to {high:g}, not {temperature!r}"
    if not low <= value <= high:  # NaN fails both
        return f"temperature {value:g} is outside {low:g}–{high:g}, the range model endpoints accept"
    return None


def paor_home() -> Path:
    """Where paor keeps its databases and document store unless told otherwise (`PAOR_HOME`)."""
    return Path(os.environ.get("PAOR_HOME") or user_data_dir("paor", appauthor=False))


# Fields whose env var is not PAOR_<NAME>: they follow the OpenAI client's conventions.
_ENV_ALIASES = {"base_url": ("OPENAI_BASE_URL", "PAOR_BASE_URL")}


@dataclass(kw_only=True)
class Context:
    """How one paor run behaves. Fields left at their default are filled from `PAOR_<FIELD>` env vars."""

    model: Annotated[str, {"__template_metadata__": {"kind": "llm"}}] = field(
        default="gpt-4o-mini",
        metadata={"description": "Chat model name on the OpenAI-compatible endpoint (env PAOR_MODEL)."},
    )
    base_url: str = field(
        default="",
        metadata={"description": "OpenAI-compatible endpoint; empty means api.openai.com (env OPENAI_BASE_URL)."},
    )
    temperature: float = field(default=0.0, metadata={"description": "Sampling temperature for every call."})
    max_steps: int = field(default=5, metadata={"description": "Most actions per run (1..100)."})
    max_retries: int = field(default=2, metadata={"description": "HTTP retries of a failed model call (with backoff)."})
    request_timeout_s: float = field(default=120.0, metadata={"description": "Timeout of one model call."})
    token_budget: int = field(
        default=200_000, metadata={"description": "Stop once this many tokens (in + out) were spent."}
    )
    time_budget_s: float = field(
        default=900.0, metadata={"description": "Stop once the nodes have run this many seconds."}
    )
    quality_threshold: float = field(
        default=0.8, metadata={"description": "Quality score (0..1) at which met criteria end the run."}
    )
    workflow_mode: Literal["React", "Actionplan"] = field(
        default="React",
        metadata={"description": "React: one action per step. Actionplan: legacy plan-everything-first."},
    )
    user_language: str = field(
        default="",
        metadata={"description": "Language of deliverables (ISO 639-1); empty: taken from the request."},
    )
    allowed_methods: str = field(
        default="",
        metadata={"description": "Comma-separated actions the model may pick (e.g. ai.process); empty: all."},
    )
    search_backend: Literal["tavily", "ddgs"] = field(
        default="tavily",
        metadata={"description": "web.search backend: tavily (needs TAVILY_API_KEY) or ddgs."},
    )
    learning: bool = field(default=True, metadata={"description": "Learn strategies and reuse them."})
    documents_dir: str = field(
        default="",
        metadata={"description": "Folder tools may read files from by path; empty: the current directory."},
    )
    store_dir: str = field(
        default="",
        metadata={"description": "Content-addressed document store; empty: $PAOR_HOME/documents."},
    )
    tool_timeout_s: float = field(
        default=300.0, metadata={"description": "A tool running longer than this fails its step."}
    )
    max_document_mb: float = field(
        default=50.0, metadata={"description": "Tool output documents are cut at this size (MB)."}
    )
    chunk_tokens: int = field(
        default=6000, metadata={"description": "ai.process splits inputs larger than this many tokens."}
    )
    answer_tokens: int = field(
        default=6000,
        metadata={
            "description": "Most tokens of an action's own model answer (ai.process); a longer one fails the step. "
            "The first 1000 primes take about 2,500."
        },
    )
    code_time_s: float = field(
        default=30.0,
        metadata={"description": "code.execute: wall time of one program in seconds; its CPU time is capped alike."},
    )
    code_memory_mb: int = field(
        default=1024, metadata={"description": "code.execute: address space of one program (MB)."}
    )
    approve: Literal["never", "side_effects", "always"] = field(
        default="never",
        metadata={"description": "Ask before an action runs: never, side_effects (web, reports, code) or always."},
    )
    ask_user: bool = field(
        default=False,
        metadata={"description": "Ask a clarifying question when the request is ambiguous (off: assume, and note)."},
    )
    fetch_allowlist: str = field(
        default="",
        metadata={"description": "Comma-separated hosts/CIDRs the web tools may fetch although not public."},
    )
    system_prompt: str = field(
        default="",
        metadata={
            "description": "The operator's system prompt for the answering calls; empty: none, as a bare chat call."
        },
    )
    direct_answer: bool = field(
        default=True,
        metadata={
            "description": "Answer a short request that needs no document, web or file in one call, and enter the "
            "loop only when that answer fails its checks."
        },
    )

    overlap_requests: bool = field(
        default=True,
        metadata={
            "description": "Ask the next step's action choice while the judge reads this step (two requests at "
            "once); off for an endpoint that answers one request at a time, as llama-cpp-python's server does."
        },
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) != f.default:
                continue
            for var in _ENV_ALIASES.get(f.name, (f"PAOR_{f.name.upper()}",)):
                raw = os.environ.get(var)
                if raw is not None and raw != "":
                    setattr(self, f.name, _convert(raw, f.type, f.name))
                    break
        self.max_steps = max(1, min(int(self.max_steps), MAX_STEPS_LIMIT))
        self._check_settings()

    def _check_settings(self) -> None:
        if refused := refused_setting(self.temperature):
            raise ConfigurationError(refused)

    @classmethod
    def from_env(cls, **given: Any) -> "Context":
        """Env-filled defaults with `given` values on top: an explicit `--max-steps 5` beats PAOR_MAX_STEPS=10."""
        context = cls()
        for name, value in given.items():
            setattr(context, name, value)
        context.max_steps = max(1, min(int(context.max_steps), MAX_STEPS_LIMIT))
        context._check_settings()
        return context

    @property
    def allowed_method_names(self) -> list[str]:
        return [m.strip() for m in self.allowed_methods.split(",") if m.strip()]

    @property
    def documents_path(self) -> Path:
        return Path(self.documents_dir or os.getcwd()).resolve()

    @property
    def store_path(self) -> Path:
        return Path(self.store_dir) if self.store_dir else paor_home() / "documents"


def _convert(raw: str, annotation: Any, name: str) -> Any:
    kind = annotation if isinstance(annotation, type) else _base_type(annotation)
    try:
        if kind is bool:
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        if kind is int:
            return int(raw)
        if kind is float:
            return float(raw)
    except ValueError as exc:
        raise ValueError(f"environment variable for {name!r} is not a {kind.__name__}: {raw!r}") from exc
    return raw


def _base_type(annotation: Any) -> Any:
    if isinstance(annotation, str):
        return {"int": int, "float": float, "bool": bool}.get(annotation, str)
    if get_origin(annotation) is Annotated:
        return _base_type(get_args(annotation)[0])
    return str
