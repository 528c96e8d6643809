#!/usr/bin/env bash
# The protocol layer before and after (bench/protocol.mjs), in one run: another build of the server
# (ZOEKT_MCP_BEFORE_CLI, e.g. an older commit's dist/cli.js) beside this checkout's, over the bench
# corpus (test fixtures + four npm packages, ~3k files). Starts zoekt-webserver -rpc on a free
# loopback port and stops it at the end. Prints figures; asserts nothing.
#   git worktree add /tmp/before <rev> && (cd /tmp/before && npm ci && npm run build)
#   ZOEKT_MCP_BEFORE_CLI=/tmp/before/dist/cli.js bash bench/protocol.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${ZOEKT_MCP_BEFORE_CLI:?set ZOEKT_MCP_BEFORE_CLI to the dist/cli.js of the build to compare with}"

copy_corpus "$work/repos"
index_corpus "$work/repos" "$work/index"
start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" node bench/protocol.mjs
