"""The graph both servers load (`paor` in langgraph.json and aegra.json): paor inside the server's trust zone.

`server.policy` makes it: upload references, URLs and an operator-opened folder as inputs, never a path of the
host; download links on deliverables. `build_graph()` (graph/builder.py) is the Python and CLI entry point, where the
caller is on their own machine and local paths stay allowed.
"""

from __future__ import annotations

from graph.builder import RECURSION_LIMIT, make_builder
from server.policy import server_services

builder = make_builder(server_services())
graph = builder.compile(name="paor").with_config(recursion_limit=RECURSION_LIMIT)
