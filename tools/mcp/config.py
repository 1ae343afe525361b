"""The `{"mcpServers": {...}}` file that Claude Desktop, Cursor, VS Code and langchain-mcp-adapters read, and the
`connections` dict of langchain-mcp-adapters' `MultiServerMCPClient` as it is.

Each entry is a stdio server (`command`, `args`, `env`, `cwd`) or a remote one (`url`, `headers`; streamable HTTP,
SSE when `type`/`transport` says `sse` or the URL ends in `/sse`, a websocket for `websocket` or a ws:// URL).
paor also reads `timeout` (seconds per call), `startupTimeout` (seconds to start and list the tools),
`maxOutputKb` (a call's output cap) and `disabled`. In a `connections` dict the keys mean what they mean to
`MultiServerMCPClient` (its `timeout` is the HTTP timeout, passed on with `auth`, `sse_read_timeout` …).
`${VAR}` in args, env, url and headers is taken from the environment of whoever declared the file (the operator).

A server's name becomes part of its action names (`mcp.<name>.<tool>`): characters other than letters, digits,
`_` and `-` become `_` (`acme.orders` → `mcp.acme_orders.*`). A file that cannot be read or parsed is a
configuration error (nothing can be known from it); one broken entry only makes that server unavailable, with
the reason, and leaves the others usable.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.errors import ConfigurationError
from core.llm import explain

CONFIG_ENV = "PAOR_MCP_CONFIG"
NAME_CHARS = 64
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TRANSPORTS = {
    "stdio": "stdio",
    "http": "streamable_http",
    "streamable-http": "streamable_http",
    "streamable_http": "streamable_http",
    "streamableHttp": "streamable_http",
    "sse": "sse",
    "websocket": "websocket",
    "ws": "websocket",
}
#: Keys of a MultiServerMCPClient connection that configure its transport, passed on as they are.
_TRANSPORT_OPTIONS = ("timeout", "sse_read_timeout", "terminate_on_close", "auth", "httpx_client_factory")

Transport = Literal["stdio", "streamable_http", "sse", "websocket"]
#: What a config names: a file path, the parsed file, or None for the PAOR_MCP_CONFIG variable.
McpConfig = str | os.PathLike[str] | Mapping[str, Any] | None


class ServerSpec(BaseModel):
    """One declared server, validated; `name` is the key it was declared under, made safe for action names."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str
    declared: str = ""
    transport: Transport
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(60.0, gt=0, le=3600, description="Seconds one call may take.")
    startupTimeout: float = Field(30.0, gt=0, le=600, description="Seconds to start and list the tools.")
    maxOutputKb: int = Field(1024, ge=1, le=100 * 1024, description="A call's output is cut at this size.")
    options: dict[str, Any] = Field(default_factory=dict, description="A remote transport's own settings.")

    @model_validator(mode="after")
    def _endpoint_given(self) -> ServerSpec:
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio server needs `command`")
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"a {self.transport} server needs `url`")
        return self

    @property
    def endpoint(self) -> str:
        """Where the server is, for messages: the command (without its env) or the URL (without user info)."""
        if self.transport == "stdio":
            return " ".join([self.command or "", *self.args]).strip()
        return re.sub(r"//[^/@]*@", "//", self.url or "")


@dataclass(frozen=True)
class Servers:
    """The declared servers, and the entries that could not be used (name → reason)."""

    specs: list[ServerSpec] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)
    source: str = ""
    #: The variable that named the file (CONFIG_ENV), or "" when the caller named it.
    named_by: str = ""

    def __bool__(self) -> bool:
        return bool(self.specs or self.broken)

    def record(self) -> dict[str, Any]:
        """What a thread keeps of its servers: their names and where the config came from (no entry: they may
        hold secrets)."""
        return {"servers": [*(s.name for s in self.specs), *self.broken], "config": self.named_by or self.source}


def load_servers(config: McpConfig) -> Servers:
    """The servers a config declares; None reads the file PAOR_MCP_CONFIG names (unset or empty: none)."""
    named_by = ""
    if config is None:
        config = os.environ.get(CONFIG_ENV) or None
        if config is None:
            return Servers()
        named_by = CONFIG_ENV
    if isinstance(config, Mapping):
        return parse_servers(config, "the MCP config")
    path = Path(config).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        where = f" ({CONFIG_ENV})" if named_by else ""
        raise ConfigurationError(f"cannot read the MCP config {path}{where}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigurationError(f"the MCP config {path} is not valid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise ConfigurationError(f'the MCP config {path} must be a JSON object with "mcpServers"')
    return replace(parse_servers(data, str(path)), named_by=named_by)


def parse_servers(data: Mapping[str, Any], source: str) -> Servers:
    """The servers of an `{"mcpServers": …}` (or VS Code's `{"servers": …}`) object, or of a MultiServerMCPClient
    `connections` dict (every value an entry with a `transport`)."""
    declared = data.get("mcpServers", data.get("servers"))
    connections = (
        declared is None and bool(data) and all(isinstance(v, Mapping) and "transport" in v for v in data.values())
    )
    if connections:
        declared = data
    if not isinstance(declared, Mapping):
        raise ConfigurationError(f'{source} has no "mcpServers" object: {{"mcpServers": {{"name": {{...}}}}}}')
    specs: list[ServerSpec] = []
    broken: dict[str, str] = {}
    seen: dict[str, str] = {}  # safe name → the name it was declared under
    for key, entry in declared.items():
        name = safe_name(str(key))
        if name in seen:
            broken[str(key)] = f"is named {name!r} in action names, as {seen[name]!r} is; rename one of them"
            continue
        seen[name] = str(key)
        try:
            spec = _spec(name, str(key), entry, connections)
        except (ValueError, ValidationError) as exc:
            broken[name] = f"has an invalid entry in {source}: {explain(exc)}"
            continue
        if spec is not None:
            specs.append(spec)
    return Servers(specs, broken, source)


def safe_name(declared: str) -> str:
    """A declared server name as it appears in action names: `acme.orders` → `acme_orders`."""
    return _UNSAFE_NAME.sub("_", declared).strip("_")[:NAME_CHARS] or "server"


def _spec(name: str, declared: str, entry: Any, connection: bool) -> ServerSpec | None:
    if not isinstance(entry, Mapping):
        raise ValueError("an entry is an object with `command` or `url`")
    if entry.get("disabled") is True:
        return None
    kind = str(entry.get("type") or entry.get("transport") or "")
    if kind and kind not in _TRANSPORTS:
        raise ValueError(f"unknown type {kind!r}; use stdio, http, sse or websocket")
    url = entry.get("url") or entry.get("serverUrl")
    transport = _TRANSPORTS[kind] if kind else "stdio" if entry.get("command") else _by_url(str(url or ""))
    own = {k: v for k, v in entry.items() if not (connection and k in _TRANSPORT_OPTIONS)}
    options = {k: entry[k] for k in _TRANSPORT_OPTIONS if connection and k in entry and transport != "stdio"}
    return ServerSpec.model_validate(
        {
            **own,
            "name": name,
            "declared": declared,
            "transport": transport,
            "options": options,
            "command": _expand(entry.get("command")),
            "args": [_expand(str(a)) for a in entry.get("args") or []],
            "env": {str(k): _expand(str(v)) for k, v in (entry.get("env") or {}).items()},
            "url": _expand(url),
            "headers": {str(k): _expand(str(v)) for k, v in (entry.get("headers") or {}).items()},
        }
    )


def _by_url(url: str) -> Transport:
    if url.startswith(("ws://", "wss://")):
        return "websocket"
    return "sse" if url.split("?", 1)[0].rstrip("/").endswith("/sse") else "streamable_http"


def _expand(value: Any) -> Any:
    """`${VAR}` from the environment; a variable that is not set makes the entry unusable (said by name)."""
    if not isinstance(value, str):
        return value

    def variable(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ValueError(f"${{{name}}} is used but the environment variable {name} is not set")
        return os.environ[name]

    return _VARIABLE.sub(variable, value)
