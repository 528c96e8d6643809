#!/usr/bin/env bash
# Many agents at once, quiet and beside connections that never finish a request, against
# zoekt-mcp --http over Go's source tree (see bench/agents.mjs). Reuses the index the test suite
# caches in .tools/goroot-index/ when there is one. Starts zoekt-webserver -rpc on a free loopback
# port and stops it at the end. Prints figures; asserts nothing.
#   bash bench/agents.sh
#   ZOEKT_MCP_BEFORE_CLI=/other/checkout/dist/cli.js bash bench/agents.sh   # before/after in one run
#   AGENTS=50 AGENTS_SECONDS=20 bash bench/agents.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

goroot_index
start_zoekt "$index"
ZOEKT_URL="$zoekt_url" ZOEKT_PID="${zoekt_pids[-1]}" node bench/agents.mjs
