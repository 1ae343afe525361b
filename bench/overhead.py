"""Framework overhead per iteration: instant in-process models and tools, SqliteSaver on a temporary file.

paor (six nodes per step, structured prompts, deterministic checks, learning store) against one model+tool round
of LangGraph's prebuilt `create_react_agent`. The models answer instantly, so what is timed is the frameworks.
"""

from __future__ import annotations

import itertools
import json
import re
import time
import warnings
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from bench.common import INTENT, PROMPT, prepare_environment, print_report, tempdir

STEPS = 20
REPEATS = 5
_SCHEMA = re.compile(r"JSON object of schema `(\w+)`")
_ANSWER = "## Region\n\nResidential storage grew 12.5 % (source 3). Prices fell to 410 USD/kWh (source 7).\n"


def _section(number: int) -> str:
    """The action's answer of call `number`: each a new section, as a real model writes. The same text every step
    is no progress, and paor stops a round that makes none for three steps."""
    return _ANSWER.replace("## Region", f"## Region {number}").replace("12.5", f"{10 + number}.5")


def _text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


class InstantPaorModel(BaseChatModel):
    """Answers paor's prompts instantly through its plain-text JSON fallback (no structured-output support)."""

    steps: int = STEPS
    judged: Any = None
    written: Any = None
    chosen: Any = None

    @property
    def _llm_type(self) -> str:
        return "instant-paor"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        match = _SCHEMA.search(_text(messages))
        route = match.group(1) if match else "text"
        if self.judged is None:
            object.__setattr__(self, "judged", itertools.count(1))
            object.__setattr__(self, "written", itertools.count(1))
            object.__setattr__(self, "chosen", itertools.count(1))
        # Each step asks for the next section by its number, as a real model does: paor runs no action twice with
        # the same parameters in a round.
        section = next(self.chosen) if route in ("ActionSelection", "ParametersAnswer") else 0
        answers = {
            "Intent": INTENT,
            "ActionSelection": {
                "action": "ai.process",
                "actionObjective": f"Write regional section {section}",
                "learnings": [],
                "requiredInputDocuments": [],
                "requiredConnection": None,
                "parametersContext": "Write the next region's section, citing sources.",
                "parametersSchema": {
                    "fields": [{"name": "aiPrompt", "type": "string", "required": True, "description": "the task"}]
                },
            },
            "ParametersAnswer": {"schema": "parameters_v1", "parameters": {"aiPrompt": f"Write section {section}."}},
        }
        if route == "ContentJudgement":
            met = next(self.judged) >= self.steps
            verdict = {"criteriaMet": [met, met], "qualityScore": 0.95 if met else 0.5}
            content = json.dumps({**verdict, "decision": "stop" if met else "continue"})
        elif route in answers:
            content = json.dumps(answers[route])
        else:
            content = _section(next(self.written))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content))])


class InstantToolCaller(BaseChatModel):
    """Calls `ai_process` until `steps` tool results are in the history, then answers."""

    steps: int = STEPS

    @property
    def _llm_type(self) -> str:
        return "instant-tool-caller"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        done = sum(isinstance(m, ToolMessage) for m in messages)
        if done < self.steps:
            message = AIMessage(
                "", tool_calls=[{"name": "ai_process", "args": {"aiPrompt": f"section {done + 1}"}, "id": f"c{done}"}]
            )
        else:
            message = AIMessage("done")
        return ChatResult(generations=[ChatGeneration(message=message)])


def time_paor(steps: int = STEPS, durability: str | None = None) -> float:
    """ms per step; `durability=None` keeps paor's crash-safe default ("sync"), "async" matches the baseline's."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.sqlite import SqliteStore

    from core.context import Context
    from graph.builder import build_graph

    root = tempdir("overhead-paor")
    db = str(root / "paor.sqlite")
    with SqliteSaver.from_conn_string(db) as saver, SqliteStore.from_conn_string(db) as store:
        store.setup()
        graph = build_graph(llm=InstantPaorModel(steps=steps), checkpointer=saver, store=store)
        context = Context(
            max_steps=steps, store_dir=str(root / "store"), documents_dir=str(root / "docs"), token_budget=10**9
        )
        start = time.perf_counter()
        out = graph.invoke(
            {"prompt": PROMPT},
            {"configurable": {"thread_id": "bench"}},
            context=context,
            durability=durability,  # type: ignore[arg-type]
        )
        elapsed = time.perf_counter() - start
    history = out.get("history") or []
    failed = [h.get("step") for h in history if h.get("outcome") == "failed"]
    if len(history) != steps or failed:  # a failed step costs less than a step: it would flatter paor's figure
        raise RuntimeError(f"paor did {len(history)} steps, failed {failed}: {out.get('stop_reason')}")
    return elapsed / steps


def time_create_react_agent(steps: int = STEPS) -> float:
    from langchain_core.tools import tool
    from langgraph.checkpoint.sqlite import SqliteSaver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    @tool
    def ai_process(aiPrompt: str) -> str:
        """LLM over documents: write, summarise, translate, compute, deliver data."""
        return _ANSWER

    db = str(tempdir("overhead-react") / "react.sqlite")
    with SqliteSaver.from_conn_string(db) as saver:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = create_react_agent(InstantToolCaller(steps=steps), [ai_process], checkpointer=saver)
        start = time.perf_counter()
        out = agent.invoke(
            {"messages": [("user", PROMPT)]},
            {"configurable": {"thread_id": "bench"}, "recursion_limit": 4 * steps + 10},
        )
        elapsed = time.perf_counter() - start
    if sum(isinstance(m, ToolMessage) for m in out["messages"]) != steps:
        raise RuntimeError("create_react_agent did not do every round")
    return elapsed / steps


def run_all() -> dict[str, float]:
    prepare_environment(tempdir("overhead"))
    time_paor(2), time_create_react_agent(2)  # warm imports and caches
    return {
        "paor React": min(time_paor() for _ in range(REPEATS)) * 1000,
        "paor React, durability=async (the baseline's setting)": min(
            time_paor(durability="async") for _ in range(REPEATS)
        )
        * 1000,
        "create_react_agent": min(time_create_react_agent() for _ in range(REPEATS)) * 1000,
    }


def table(results: dict[str, float]) -> str:
    baseline = results["create_react_agent"]
    lines = [
        f"| system ({STEPS} iterations, instant model and tool, SqliteSaver; best of {REPEATS}) "
        "| ms / iteration | vs create_react_agent |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {ms:.1f} | {ms / baseline:.2f}× |" for name, ms in results.items()]
    return "\n".join(lines)


def verdicts(results: dict[str, float]) -> list[str]:
    ratio = results["paor React"] / results["create_react_agent"]
    return [
        f"paor overhead per iteration ≤ 2 × a create_react_agent round: {results['paor React']:.1f} ms vs "
        f"{results['create_react_agent']:.1f} ms = {ratio:.2f}× → {'MET' if ratio <= 2 else 'NOT MET'}"
    ]


def main() -> None:
    results = run_all()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
