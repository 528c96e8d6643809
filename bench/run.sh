#!/usr/bin/env bash
# Benchmark: indexes a corpus (the test fixtures plus a few large npm packages as extra
# repositories), starts zoekt-webserver -rpc on a free loopback port, and runs bench/bench.mjs
# against it through real MCP clients. Prints figures; asserts nothing.
#   bash bench/run.sh            # default rounds
#   BENCH_ROUNDS=100 bash bench/run.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

started=$(date +%s%N)
copy_corpus "$work/repos"
index_corpus "$work/repos" "$work/index"
echo "bench: indexed $(ls "$work/repos" | wc -l) repositories in $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2

start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" node bench/bench.mjs
