#!/usr/bin/env bash
# search_symbols by description on the held-out sets (bench/describe-meaning.mjs): the
# descriptions of bench/describe-meaning.json over the four-tree corpus of bench/fetch-plan.mjs
# (indexed once into .tools/bench-corpus-index/) and semver's README set over its five libraries,
# for this checkout's build and, with BEFORE_REV, that commit built in a temporary worktree,
# interleaved. Prints top-1/3/10, misses and warm p50/p95/p99; asserts nothing.
#   bash bench/describe-meaning.sh                     # this checkout's build only
#   BEFORE_REV=1a8e93c bash bench/describe-meaning.sh  # + that commit
#   BENCH_ADAPTER_ARGS=… BENCH_ADAPTER_ENV='NAME=value …' BENCH_DEFINITIONS_BUILD_ARGS=…
#                                                      # a definitions index (see the .mjs)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# What the run needs: the model, npm packages and the pinned Zoekt (not a build: dist/ is measured as it is).
bash scripts/setup.sh model node zoekt >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-describe-meaning-XXXXXX")
before_tree=""
cleanup() {
  if [ -n "$before_tree" ]; then git -C "$root" worktree remove --force "$before_tree" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# A signal ends the script through its EXIT trap.
trap 'exit 130' INT
trap 'exit 143' TERM

# This checkout's build, copied as it is now: a rebuild while the run goes on does not change
# what is measured.
if [ -z "${ZOEKT_MCP_CLI:-}" ]; then
  mkdir -p "$work/after"
  cp -r dist package.json zoekt-config "$work/after/"
  ln -s "$root/node_modules" "$work/after/node_modules"
  echo "describe-meaning: after: dist/ of $(git rev-parse --short HEAD), built $(date -r dist/cli.js -u +%FT%TZ), with $(git status --short -- src | wc -l) file(s) of src/ changed since" >&2
  export ZOEKT_MCP_CLI="$work/after/dist/cli.js"
fi
if [ -z "${ZOEKT_MCP_BEFORE_CLI:-}" ] && [ -n "${BEFORE_REV:-}" ]; then
  before_tree="$work/before"
  echo "describe-meaning: building $BEFORE_REV in $before_tree" >&2
  git -C "$root" worktree add --detach "$before_tree" "$BEFORE_REV" >&2
  ln -s "$root/node_modules" "$before_tree/node_modules"
  ln -s "$root/.tools" "$before_tree/.tools"
  (cd "$before_tree" && npm run -s build) >&2
  export ZOEKT_MCP_BEFORE_CLI="$before_tree/dist/cli.js"
fi
node bench/describe-meaning.mjs
