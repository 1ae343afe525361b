#!/usr/bin/env bash
# The MCP servers tests/mcp runs against, from the registries: mcp-server-time and mcp-server-git come with the dev
# extra (PyPI); @modelcontextprotocol/server-everything and -filesystem are installed here with npm from the lock file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/servers"
npm ci --no-audit --no-fund
