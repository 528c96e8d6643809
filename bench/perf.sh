#!/usr/bin/env bash
# The performance figures of the adapter in one run (bench/perf.mjs): each against raw Zoekt or
# an MCP echo server (bench/echo-server.mjs) measured in the same run. Indexes the bench corpus
# (test fixtures + four npm packages, ~3k files), starts zoekt-webserver -rpc on a free loopback
# port and stops it at the end. Prints figures; asserts nothing.
#   bash bench/perf.sh
#   ZOEKT_MCP_CLI=/other/checkout/dist/cli.js bash bench/perf.sh   # another build, same corpus
#   BENCH_ROUNDS=20 BENCH_CALLS=5500 bash bench/perf.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

copy_corpus "$work/repos"
index_corpus "$work/repos" "$work/index"
start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" ZOEKT_PID="${zoekt_pids[0]}" node bench/perf.mjs
