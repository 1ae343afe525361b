"""Actions a graph brings of its own: LangChain tools and the tools of MCP servers, as catalog entries.

See docs/tools.md for declaring them; `actions.ExtraActions` is what a compiled graph holds.
"""
