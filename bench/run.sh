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
mkdir -p "$work/repos" "$work/index"
for dir in test/fixtures/*/; do
  cp -r "$dir" "$work/repos/$(basename "$dir")"
done
# Larger repositories: real TypeScript and JavaScript of some size.
for pkg in typescript/lib zod @modelcontextprotocol/sdk undici; do
  name="npm-$(echo "$pkg" | tr '/@' '--' | sed 's/^-//')"
  cp -r "node_modules/$pkg" "$work/repos/$name"
done
for dir in "$work"/repos/*; do
  "$bin/zoekt-index" -require_ctags -index "$work/index" "$dir" 2>>"$work/index.log" >&2
done
echo "bench: indexed $(ls "$work/repos" | wc -l) repositories in $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2

start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" node bench/bench.mjs
