#!/usr/bin/env bash
# search_symbols by description against raw Zoekt over Go's source tree (see bench/describe.mjs).
# Reuses the index the test suite caches in .tools/goroot-index/ when there is one. Prints figures;
# asserts nothing.
#   bash bench/describe.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

goroot_index
start_zoekt "$index"
ZOEKT_URL="$zoekt_url" node bench/describe.mjs
