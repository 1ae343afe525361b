"""The paor graph, top to bottom: intent → (direct |) select → parameters → act → validate → learn → refine ↺ |
finalize.

`make_builder(services)` is the uncompiled graph; the servers load `server.served.graph`, compiled inside the
server's trust zone. `build_graph()` is the Python and CLI entry point — the caller is on their own machine, so
local paths stay allowed — with an optional model, checkpointer and store; it starts loading what a run will need
on a thread of its own (graph/warmup.py), as a server does before its first request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from core.context import MAX_STEPS_LIMIT, Context
from core.llm import Models
from core.state import InputState, OutputState, State
from graph.instrument import instrumented
from graph.warmup import warm as warm  # the server's lifespan calls it
from graph.warmup import warm_in_background
from nodes.act import act
from nodes.direct import answering_directly, direct
from nodes.failure import FAIL_NODE, fail, outage_stopped, resumes_stopped_round
from nodes.finalize import finalize
from nodes.intent import intent, refuse
from nodes.learn import learn
from nodes.parameters import parameters
from nodes.plan import plan, plan_step
from nodes.refine import refine
from nodes.select import select
from nodes.services import Services
from nodes.takeover import announcing
from nodes.validate import validate
from tools.extra.actions import ExtraActions
from tools.mcp.config import McpConfig

# Each step passes six nodes; refine stops at max_steps, so this limit is never what ends a run.
RECURSION_LIMIT = 6 * MAX_STEPS_LIMIT + 10


def durability_key() -> str:
    """The config key under which a compiled graph keeps its default durability.

    LangGraph offers `durability=` per call but no public way to bind a default to a compiled graph, so this is
    the one place that reaches into its internals; tests/e2e/test_durability.py fails loudly when LangGraph moves
    or ignores the key."""
    from langgraph._internal._constants import CONFIG_KEY_DURABILITY

    return str(CONFIG_KEY_DURABILITY)


# Write each checkpoint before the next node starts (LangGraph's default writes them in the background), so a
# killed process resumes exactly after its last finished node and never repeats a finished action.
# A caller's `durability=` argument still overrides this.
CRASH_SAFE_CONFIG: RunnableConfig = {
    "recursion_limit": RECURSION_LIMIT,
    "configurable": {durability_key(): "sync"},
}


def after_intent(state: State) -> Literal["direct", "select", "plan", "refuse"]:
    """React loops one action at a time, after a one-call answer where one can do (`direct`); the legacy
    Actionplan mode plans everything first. A chat request that cannot start has its AI message in the thread
    already; `refuse` fails the run with the reason."""
    if state.get("refused"):
        return "refuse"
    if state.get("workflow_mode") == "Actionplan":
        return "plan"
    return "direct" if state.get("direct") else "select"


def next_planned(state: State) -> Literal["plan_step", "finalize"]:
    return "plan_step" if int(state.get("step") or 0) < len(state.get("plan") or []) else "finalize"


def after_plan_step(state: State) -> Literal["act", "plan_step", "finalize"]:
    return "act" if state.get("parameters") is not None else next_planned(state)


def after_learn(state: State) -> Literal["refine", "plan_step", "finalize"]:
    """Actionplan executes its list without the refine loop; React always refines."""
    return next_planned(state) if state.get("workflow_mode") == "Actionplan" else "refine"


def after_select(state: State) -> Literal["parameters", "refine"]:
    """A selection that failed twice skips the action; refine decides whether another step is worth it."""
    return "parameters" if state.get("selection") else "refine"


def after_parameters(state: State) -> Literal["act", "refine"]:
    return "refine" if state.get("step_error") else "act"


def after_refine(state: State) -> Literal["direct", "select", "finalize"]:
    """A failed direct answer is answered once more with the checks' hint (one call, not Stage 1 and Stage 2);
    after that the ordinary loop goes on."""
    decision = state.get("decision") or {}
    if decision.get("decision") != "continue":
        return "finalize"
    return "direct" if answering_directly(state, int(state.get("step") or 0) + 1) else "select"


def make_builder(services: Services | None = None) -> StateGraph[State, Context, InputState, OutputState]:
    services = services or Services()
    builder = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    for name, fn in (
        ("intent", intent),
        ("direct", direct),
        ("select", select),
        ("parameters", parameters),
        ("act", act),
        ("validate", validate),
        ("learn", learn),
        ("refine", refine),
        ("finalize", finalize),
        ("plan", plan),
        ("plan_step", plan_step),
    ):
        handler = outage_stopped if services.failure_messages else None
        node = instrumented(name, announcing(fn), services)
        builder.add_node(name, node, error_handler=handler)  # type: ignore[call-overload]
    builder.add_node("refuse", refuse)
    if services.failure_messages:  # an outage's message and record, then the run fails; resumed from there later
        builder.add_node(FAIL_NODE, fail)
        builder.add_conditional_edges(START, resumes_stopped_round)
    else:
        builder.add_edge(START, "intent")
    builder.add_conditional_edges("intent", after_intent)
    builder.add_conditional_edges("select", after_select)
    builder.add_conditional_edges("parameters", after_parameters)
    builder.add_edge("direct", "act")
    builder.add_edge("act", "validate")
    builder.add_edge("validate", "learn")
    builder.add_conditional_edges("learn", after_learn)
    builder.add_conditional_edges("refine", after_refine)
    builder.add_conditional_edges("plan", next_planned)
    builder.add_conditional_edges("plan_step", after_plan_step)
    builder.add_edge("finalize", END)
    return builder


def build_graph(
    *,
    llm: BaseChatModel | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
    store: BaseStore | None = None,
    tools: Sequence[BaseTool] = (),
    mcp_config: McpConfig = None,
) -> CompiledStateGraph[State, Context, InputState, OutputState]:
    """Compile paor for Python use; `llm` replaces the ChatOpenAI that Context/env would configure.

    `tools` (any LangChain tools) and the servers of `mcp_config` (a `{"mcpServers": …}` file or dict; None:
    the file PAOR_MCP_CONFIG names) become actions of this graph (docs/tools.md).
    Without a checkpointer there is nothing to write synchronously (LangGraph's sync durability then fails).
    Returns at once: what a run needs loads on a thread of its own meanwhile (graph/warmup.py)."""
    services = Services(Models(injected=llm), actions=ExtraActions.build(tools, mcp_config))
    warm_in_background(services.models)
    compiled = make_builder(services).compile(checkpointer=checkpointer, store=store, name="paor")
    if checkpointer is None:
        return compiled.with_config(recursion_limit=RECURSION_LIMIT)
    return compiled.with_config(CRASH_SAFE_CONFIG)


def __getattr__(name: str) -> object:
    """`graph.builder.graph` and `.builder` were the served graph until the layers were put in order; they moved to
    `server.served` (CHANGELOG.md). Said here rather than served from here: this module stands below the server."""
    if name in ("graph", "builder"):
        raise AttributeError(f"graph.builder.{name} moved to server.served.{name} (the graph the servers load)")
    raise AttributeError(name)
