#!/usr/bin/env bash
# tools/call over Streamable HTTP by protocol era (bench/eras.mjs): 2025 and 2026-07-28 plain POSTs
# of the same calls, p50 and the server's CPU per call, for this checkout's build and, when
# ZOEKT_MCP_BEFORE_CLI names one, another. Over the bench corpus (test fixtures + four npm
# packages); starts zoekt-webserver -rpc on a free loopback port and stops it at the end. Prints
# figures; asserts nothing.
#   bash bench/eras.sh
#   ZOEKT_MCP_BEFORE_CLI=/tmp/before/dist/cli.js bash bench/eras.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

copy_corpus "$work/repos"
index_corpus "$work/repos" "$work/index"
start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" node bench/eras.mjs
