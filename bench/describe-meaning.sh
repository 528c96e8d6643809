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
name=describe-meaning
source "$root/bench/builds.sh"
node bench/describe-meaning.mjs
