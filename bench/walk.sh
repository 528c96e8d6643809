#!/usr/bin/env bash
# Walking every page of broad queries over Go's source tree ($(go env GOROOT)/src, ~11k files),
# in ratio to one raw Zoekt request for the same files. Reuses the index the test suite caches in
# .tools/goroot-index/ when there is one, else indexes the tree (about a minute with ctags).
# Starts zoekt-webserver -rpc on a free loopback port and stops it at the end. Prints figures.
#   bash bench/walk.sh
#   ZOEKT_MCP_CLI=/other/checkout/dist/cli.js bash bench/walk.sh   # the same walks through another build
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

goroot_index

start_zoekt "$index"
ZOEKT_URL="$zoekt_url" node bench/walk.mjs
