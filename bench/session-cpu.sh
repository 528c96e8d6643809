#!/usr/bin/env bash
# A short stdio session's server CPU (see bench/session-cpu.mjs) against Zoekt over Go's source
# tree, reusing the index the test suite caches in .tools/goroot-index/ when there is one. Starts
# zoekt-webserver -rpc on a free loopback port and stops it at the end. Prints figures; asserts nothing.
#   bash bench/session-cpu.sh [RUNS] [CALLS]
#   ZOEKT_MCP_BEFORE_CLI=/other/checkout/dist/cli.js bash bench/session-cpu.sh   # before/after in one run
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

goroot_index
start_zoekt "$index"
ZOEKT_URL="$zoekt_url" node bench/session-cpu.mjs "$@"
