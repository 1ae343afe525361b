"""A tiny in-process OpenAI-compatible stub for LangGraph's prebuilt `create_react_agent`.

The shared ScriptedLLM only answers with a tool call when the request forces one; a ReAct agent's requests bind
tools without forcing them, so this stub decides by itself: while the history holds fewer than `steps` tool
results it calls `ai_process`, then it answers. Requests without tools (the tool's own generation call) get the
scripted text. It runs behind `httpx.MockTransport`, so the real `ChatOpenAI` client builds every request.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from langchain_openai import ChatOpenAI

from bench.common import prompt_tokens
from core.tokens import count_tokens


class ReactStub:
    def __init__(self, steps: int, answer: Callable[[int], str], latency: Any = None) -> None:
        self.steps = steps
        self.answer = answer
        self.latency = latency  # a tests.support.scripted_llm.Latency: each answer sleeps its time_scale share
        self.spans: list[tuple[float, float]] = []  # when each answer slept (perf_counter)
        self.bodies: list[dict[str, Any]] = []
        self.answers: list[str] = []  # the text (or tool-call arguments) of each answer, in order
        self._ids = itertools.count(1)
        self._produced = itertools.count(1)
        self._lock = threading.Lock()

    def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        done = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")
        if body.get("tools") and done < self.steps:
            call = {
                "id": f"call_{next(self._ids)}",
                "type": "function",
                "function": {
                    "name": "ai_process",
                    "arguments": json.dumps({"aiPrompt": f"Write regional section {done + 1} with sources."}),
                },
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        elif body.get("tools"):
            message, finish = {"role": "assistant", "content": "The analysis covers every region."}, "stop"
        else:
            message, finish = {"role": "assistant", "content": self.answer(next(self._produced))}, "stop"
        return {
            "id": f"chatcmpl-stub-{next(self._ids)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "stub",
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        with self._lock:
            self.bodies.append(body)
            reply = self._reply(body)
            message = reply["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            answer = message.get("content") or "".join(c["function"]["arguments"] for c in calls)
            self.answers.append(answer)
        if self.latency is not None and self.latency.time_scale > 0:
            seconds = self.latency.base_s + prompt_tokens(body) / self.latency.prompt_tps
            seconds += count_tokens(answer) / self.latency.output_tps
            slept = time.perf_counter()
            time.sleep(seconds * self.latency.time_scale)
            with self._lock:
                self.spans.append((slept, time.perf_counter()))
        return httpx.Response(200, json=reply)

    def model(self) -> ChatOpenAI:
        return ChatOpenAI(
            model="stub",
            base_url="http://stub.invalid/v1",
            api_key="sk-stub",
            max_retries=0,
            disable_streaming=True,
            http_client=httpx.Client(transport=httpx.MockTransport(self._handle)),
        )


def make_ai_process_tool(llm: ChatOpenAI) -> Any:
    """The baseline's ai.process: like paor's, one model call per action whose answer is the tool output."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_core.tools import tool

    @tool
    def ai_process(aiPrompt: str) -> str:
        """LLM over documents: write, summarise, translate, compute, deliver data."""
        answer = llm.invoke([SystemMessage("Deliver exactly what the task asks for."), HumanMessage(aiPrompt)])
        return str(answer.content)

    return ai_process
