#!/usr/bin/env bash
# Fan-out cost: the same searches through zoekt-mcp's fleet of two Zoekt backends, each serving
# half of the repositories (the fixtures plus four npm packages), against each backend's own
# latency for the same request. Starts two zoekt-webservers on free loopback ports and stops them
# at the end. Prints figures; asserts nothing.
#   bash bench/fanout.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh >&2
# shellcheck source=../zoekt-config/zoekt.env
. zoekt-config/zoekt.env
bin="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/zoekt/$ZOEKT_VERSION/bin"
export CTAGS_COMMAND="$root/zoekt-config/universal-ctags"

work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-fanout-XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/repos" "$work/a" "$work/b"
for dir in test/fixtures/*/; do cp -r "$dir" "$work/repos/$(basename "$dir")"; done
for pkg in typescript/lib zod @modelcontextprotocol/sdk undici; do
  cp -r "node_modules/$pkg" "$work/repos/npm-$(echo "$pkg" | tr '/@' '--' | sed 's/^-//')"
done
i=0
for dir in "$work"/repos/*; do
  half=$([ $((i % 2)) -eq 0 ] && echo a || echo b)
  "$bin/zoekt-index" -require_ctags -index "$work/$half" "$dir" 2>>"$work/index.log" >&2
  i=$((i + 1))
done
echo "bench: indexed $i repositories into two halves" >&2

# Each backend gets a core of its own, as it would have a machine of its own; without that, two
# Zoekts on one machine's cores slow each other down and the figure measures the machine.
pin() { if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
urls=()
core=0
for half in a b; do
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  GOMAXPROCS=1 ZOEKT_WATCHDOG_ERRORS=0 pin "$core" "$bin/zoekt-webserver" -rpc -index "$work/$half" -listen "127.0.0.1:$port" >>"$work/webserver.log" 2>&1 &
  core=$((core + 1))
  pids+=($!)
  urls+=("http://127.0.0.1:$port")
  for _ in $(seq 1 100); do curl -fsS -m 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
done

ZOEKT_URLS="$(IFS=,; echo "${urls[*]}")" node bench/fanout.mjs
