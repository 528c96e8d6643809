#!/usr/bin/env bash
# Cursor walks of broad queries (bench/broad-walk.mjs) for this checkout's build and, with
# BEFORE_REV, that commit built in a temporary worktree. Prints figures; asserts nothing.
#   bash bench/broad-walk.sh
#   BEFORE_REV=9642624 BENCH_PAGES=20 bash bench/broad-walk.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh node zoekt >&2
name=broad-walk
source "$root/bench/builds.sh"
node bench/broad-walk.mjs
