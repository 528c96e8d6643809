#!/usr/bin/env bash
# search_symbols by description over Go's source tree (see bench/describe.mjs): times and hits of
# the 22 descriptions of test/support/describe-go.json, for this build and, with
# ZOEKT_MCP_BEFORE_CLI, another. Reuses the index the test suite caches in .tools/goroot-index/
# when there is one. Prints figures; asserts nothing.
#   bash bench/describe.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

goroot_index
start_zoekt "$index"
ZOEKT_URL="$zoekt_url" node bench/describe.mjs
