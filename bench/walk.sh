#!/usr/bin/env bash
# Walking every page of broad queries over Go's source tree ($(go env GOROOT)/src, ~11k files),
# in ratio to one raw Zoekt request for the same files. Reuses the index the test suite caches in
# .tools/goroot-index/ when there is one, else indexes the tree (about a minute with ctags).
# Starts zoekt-webserver -rpc on a free loopback port and stops it at the end. Prints figures.
#   bash bench/walk.sh
#   ZOEKT_MCP_CLI=/other/checkout/dist/cli.js bash bench/walk.sh   # the same walks through another build
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh >&2
# shellcheck source=../zoekt-config/zoekt.env
. zoekt-config/zoekt.env
tools="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}"
bin="$tools/zoekt/$ZOEKT_VERSION/bin"

work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-walk-XXXXXX")
zoekt_pid=""
cleanup() {
  [ -n "$zoekt_pid" ] && kill "$zoekt_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

index=""
for marker in "$tools"/goroot-index/"$ZOEKT_VERSION-$(go env GOVERSION)"-*/complete.json; do
  [ -f "$marker" ] && index="$(dirname "$marker")/index" && break
done
if [ -z "$index" ]; then
  index="$work/index"
  mkdir -p "$index"
  echo "bench: indexing $(go env GOROOT)/src" >&2
  CTAGS_COMMAND="$root/zoekt-config/universal-ctags" "$bin/zoekt-index" -require_ctags -index "$index" "$(go env GOROOT)/src" 2>>"$work/index.log" >&2
fi

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$bin/zoekt-webserver" -rpc -index "$index" -listen "127.0.0.1:$port" 2>>"$work/webserver.log" &
zoekt_pid=$!
for _ in $(seq 1 100); do
  curl -fsS -m 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

ZOEKT_URL="http://127.0.0.1:$port" node bench/walk.mjs
