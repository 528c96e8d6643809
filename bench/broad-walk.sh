#!/usr/bin/env bash
# Cursor walks of broad queries (bench/broad-walk.mjs) for this checkout's build and, with
# BEFORE_REV, that commit built in a temporary worktree. Prints figures; asserts nothing.
#   bash bench/broad-walk.sh
#   BEFORE_REV=9642624 BENCH_PAGES=20 bash bench/broad-walk.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh node zoekt >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-broad-walk-XXXXXX")
before_tree=""
cleanup() {
  if [ -n "$before_tree" ]; then git -C "$root" worktree remove --force "$before_tree" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "${ZOEKT_MCP_CLI:-}" ]; then
  mkdir -p "$work/after"
  cp -r dist package.json zoekt-config "$work/after/"
  ln -s "$root/node_modules" "$work/after/node_modules"
  export ZOEKT_MCP_CLI="$work/after/dist/cli.js"
fi
if [ -z "${ZOEKT_MCP_BEFORE_CLI:-}" ] && [ -n "${BEFORE_REV:-}" ]; then
  before_tree="$work/before"
  git -C "$root" worktree add --detach "$before_tree" "$BEFORE_REV" >&2
  ln -s "$root/node_modules" "$before_tree/node_modules"
  (cd "$before_tree" && npm run -s build) >&2
  export ZOEKT_MCP_BEFORE_CLI="$before_tree/dist/cli.js"
fi
node bench/broad-walk.mjs
