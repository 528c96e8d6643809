#!/usr/bin/env bash
# Characters of text and structuredContent per result (bench/output-size.mjs), beside the bytes
# of Zoekt's own answers for the same calls, over the bench corpus (test fixtures + four npm
# packages, ~3k files). Starts zoekt-webserver -rpc on a free loopback port and stops it at the
# end. Prints figures; asserts nothing.
#   bash bench/output-size.sh
#   ZOEKT_MCP_BEFORE_CLI=/other/checkout/dist/cli.js bash bench/output-size.sh   # two builds, one run
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

copy_corpus "$work/repos"
index_corpus "$work/repos" "$work/index"
start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" node bench/output-size.mjs
