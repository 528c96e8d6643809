#!/usr/bin/env bash
# Installs weaviate-server at the version pinned here into .tools/weaviate/<version>/ (git-ignored):
# the engine that holds the definitions index when several replicas share it (Helm), and that its
# tests run for real. Built from the Go module proxy; quick when present; says what it did.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WEAVIATE_MODULE=github.com/weaviate/weaviate
WEAVIATE_VERSION=v1.35.2
# go.sum-style hash of the module zip, checked after download.
WEAVIATE_SUM=h1:D/cB4Lz8BIhE8s6cMUa4dRhlz356r1LRqDLgr5pKhPA=
out="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/weaviate/$WEAVIATE_VERSION/weaviate-server"

say() { echo "install-weaviate: $*" >&2; }

if [ -x "$out" ]; then
  say "weaviate $WEAVIATE_VERSION present in ${out#"$root"/}"
  exit 0
fi
command -v go >/dev/null 2>&1 || { say "Go is needed to build Weaviate (https://go.dev/dl/); not found on PATH"; exit 1; }
say "building weaviate-server $WEAVIATE_VERSION (first time only, usually about 5 minutes): downloading, then compiling"
started=$SECONDS
# A long step: every 20 s, how long it has taken against the usual 300 s.
(while sleep 20; do
  t=$((SECONDS - started))
  if [ "$t" -lt 280 ]; then say "still building Weaviate: ${t} s so far, about $((t * 100 / 300))% of the usual time"
  else say "still building Weaviate: ${t} s so far, longer than usual (a slow network or a busy machine)"; fi
done) &
ticker=$!
work=$(mktemp -d)
trap 'kill "$ticker" 2>/dev/null || true; rm -rf "$work" "$out.part.$$"' EXIT
printf 'module zoekt-mcp-tools\n\ngo 1.23\n' >"$work/go.mod"
info=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$WEAVIATE_MODULE@$WEAVIATE_VERSION")
sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$info")
dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$info")
if [ "$sum" != "$WEAVIATE_SUM" ]; then
  say "module hash mismatch for $WEAVIATE_MODULE@$WEAVIATE_VERSION: got '$sum', pinned '$WEAVIATE_SUM'"
  exit 1
fi
say "downloaded Weaviate's sources in $((SECONDS - started)) s; compiling"
mkdir -p "$(dirname "$out")"
# Built inside the module itself, so its own go.mod (and any replace directives) applies; pure Go,
# so the binary runs on any glibc or musl machine.
(cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -o "$out.part.$$" ./cmd/weaviate-server)
mv "$out.part.$$" "$out"
kill "$ticker" 2>/dev/null || true
say "installed weaviate-server into ${out#"$root"/} in $((SECONDS - started)) s"
