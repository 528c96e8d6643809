#!/usr/bin/env bash
# Fan-out cost: the same searches through zoekt-mcp's fleet of two Zoekt backends, each serving
# half of the repositories (the fixtures plus four npm packages), against each backend's own
# latency for the same request. Starts two zoekt-webservers on free loopback ports and stops them
# at the end. Prints figures; asserts nothing.
#   bash bench/fanout.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$work/repos" "$work/a" "$work/b"
for dir in test/fixtures/*/; do cp -r "$dir" "$work/repos/$(basename "$dir")"; done
for pkg in typescript/lib zod @modelcontextprotocol/sdk undici; do
  cp -r "node_modules/$pkg" "$work/repos/npm-$(echo "$pkg" | tr '/@' '--' | sed 's/^-//')"
done
i=0
for dir in "$work"/repos/*; do
  half=$([ $((i % 2)) -eq 0 ] && echo a || echo b)
  index_dir -index "$work/$half" "$dir" 2>>"$work/index.log" >&2
  i=$((i + 1))
done
echo "bench: indexed $i repositories into two halves" >&2

# Each backend gets a core of its own, as it would have a machine of its own; without that, two
# Zoekts on one machine's cores slow each other down and the figure measures the machine.
start_zoekt "$work/a" 0
url_a=$zoekt_url
start_zoekt "$work/b" 1
ZOEKT_URLS="$url_a,$zoekt_url" node bench/fanout.mjs
