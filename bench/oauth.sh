#!/usr/bin/env bash
# What checking an OAuth access token costs an HTTP call (bench/oauth.mjs): p50 and server CPU per
# call with the static token and in resource-server mode, tokens from oidc-provider on loopback.
# Over the bench corpus (test fixtures + four npm packages); starts zoekt-webserver -rpc on a free
# loopback port and stops it at the end. Prints figures; asserts nothing.
#   bash bench/oauth.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

copy_corpus "$work/repos"
index_corpus "$work/repos" "$work/index"
start_zoekt "$work/index"
ZOEKT_URL="$zoekt_url" node bench/oauth.mjs
