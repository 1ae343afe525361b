#!/usr/bin/env bash
# What the browser test needs, installed from the registries only (Playwright's browser download is not used):
# Debian's chromium, the playwright package, and the chat page built with npm from its lock file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
command -v chromium >/dev/null || apt-get install -y --no-install-recommends chromium
python -m pip install -q -c "$repo/constraints.txt" -e "$repo[browser]"
cd "$here/page"
npm ci --no-audit --no-fund
npm run build
