"""Requests without a key (clicked links) are in their address's budget (server/traffic.py), and the budgets of
addresses that went quiet are forgotten rather than kept for ever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server import counters, traffic
from server.traffic import KEYLESS, Traffic


async def _served(_scope: Any, _receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def _get(middleware: Traffic, peer: str) -> int:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/paor/threads/x", "headers": [], "client": (peer, 1)}
    asyncio.run(middleware(scope, receive, send))
    return int(sent[0]["status"])


def test_quiet_addresses_budgets_are_forgotten_past_the_most_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "keyless-test-key")
    monkeypatch.setattr(traffic, "MAX_SHARES", 3)
    clock = iter(range(0, 10_000, 10))  # ten seconds between requests: each address's budget is whole again
    monkeypatch.setattr(counters.time, "monotonic", lambda: float(next(clock)))
    middleware = Traffic(_served)
    for n in range(10):
        assert _get(middleware, f"10.0.0.{n}") == 200
    assert len(middleware.shares) <= 4 and f"{KEYLESS}10.0.0.9" in middleware.shares
