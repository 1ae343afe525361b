"""The ground every layer stands on: state, schemas, context, errors, the model client, persistence and stores.

It imports nothing of paor's above it (tests/unit/test_layers.py): tools stand on it, nodes on tools, the agent that
assembles the graph (graph/) on nodes, and the front ends (cli/, server/) on all of them.
"""
