"""MCP servers as paor actions: the config file, the live sessions, the stderr logs (see docs/tools.md)."""
