#!/usr/bin/env bash
# A burst of concurrent tools/call POSTs against zoekt-mcp --http over Go's source tree
# ($(go env GOROOT)/src): answers by outcome, latencies, and the server's peak RSS and open fds.
# Reuses the index the test suite caches in .tools/goroot-index/ when there is one, else indexes
# the tree (about a minute with ctags). Starts zoekt-webserver -rpc on a free loopback port and
# stops it at the end. Prints figures; asserts nothing.
#   bash bench/burst.sh
#   BURST_REQUESTS=500 BURST_ARGS='--max-in-flight 8' bash bench/burst.sh
#   ZOEKT_MCP_CLI=/other/checkout/dist/cli.js bash bench/burst.sh   # the same burst against another build
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

goroot_index

start_zoekt "$index"
ZOEKT_URL="$zoekt_url" node bench/burst.mjs
