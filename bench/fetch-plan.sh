#!/usr/bin/env bash
# The fetch plan (bench/fetch-plan.mjs): bytes and latency per query kind against raw Zoekt, an
# older build and another Zoekt MCP adapter, in one interleaved run over Go's source tree,
# CPython's Lib, TypeScript's lib.*.d.ts and /usr/include (indexed once into
# .tools/bench-corpus-index/). Builds what it is asked to build in a temporary folder and removes
# it at the end; the .mjs starts and stops its own zoekt-webserver. Prints figures; asserts nothing.
#   bash bench/fetch-plan.sh                                    # this checkout's build only
#   BEFORE_REV=0ef9d5a bash bench/fetch-plan.sh                 # + that commit, built in a worktree
#   OTHER_GIT_DIR=/work/.mirror/jahales+mcp-zoekt/repo bash bench/fetch-plan.sh
#                                                               # + jahales/mcp-zoekt (npm install + build)
#   ZOEKT_MCP_BEFORE_CLI=…/dist/cli.js OTHER_ADAPTER=…/dist/index.js bash bench/fetch-plan.sh
#   BENCH_ROUNDS=7 BENCH_BROAD_ROUNDS=1 BENCH_TIME_BUDGET_S=480 BENCH_LOAD_SECONDS=10 BENCH_STARTS=10
#                                                               # (the defaults; rounds stop at the time budget)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
name=fetch-plan
source "$root/bench/builds.sh"
if [ -z "${OTHER_ADAPTER:-}" ] && [ -n "${OTHER_GIT_DIR:-}" ]; then
  echo "fetch-plan: building jahales/mcp-zoekt from $OTHER_GIT_DIR" >&2
  mkdir -p "$work/other"
  git --git-dir="$OTHER_GIT_DIR" archive HEAD zoekt-mcp | tar -x -C "$work/other"
  (cd "$work/other/zoekt-mcp" && npm install --no-audit --no-fund && npm run build) >&2
  export OTHER_ADAPTER="$work/other/zoekt-mcp/dist/index.js"
fi
node bench/fetch-plan.mjs
