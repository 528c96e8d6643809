#!/usr/bin/env bash
# Benchmark: indexes a corpus (the test fixtures plus a few large npm packages as extra
# repositories), starts zoekt-webserver -rpc on a free loopback port, and runs bench/bench.mjs
# against it through real MCP clients. Prints figures; asserts nothing.
#   bash bench/run.sh            # default rounds
#   BENCH_ROUNDS=100 bash bench/run.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh >&2
# shellcheck source=../zoekt-config/zoekt.env
. zoekt-config/zoekt.env
bin="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/zoekt/$ZOEKT_VERSION/bin"
export CTAGS_COMMAND="$root/zoekt-config/universal-ctags"

work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-bench-XXXXXX")
zoekt_pid=""
cleanup() {
  [ -n "$zoekt_pid" ] && kill "$zoekt_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

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

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$bin/zoekt-webserver" -rpc -index "$work/index" -listen "127.0.0.1:$port" 2>>"$work/webserver.log" &
zoekt_pid=$!
for _ in $(seq 1 100); do
  curl -fsS -m 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

ZOEKT_URL="http://127.0.0.1:$port" node bench/bench.mjs
