#!/usr/bin/env bash
# The symbol truth of the TypeScript and JavaScript tests on any folder: each file through the
# extractor (in process, no Zoekt) against the declarations of the TypeScript compiler, recall and
# precision per kind and per depth (test/support/truth/folder.ts). Asserts nothing.
#   bash bench/symbol-truth.sh FOLDER
#   TRUTH_VERBOSE=1 bash bench/symbol-truth.sh FOLDER     # and every miss
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: bash bench/symbol-truth.sh FOLDER" >&2; exit 2; }
folder=$(cd "$1" && pwd)
# Bundled next to the checkout's node_modules (.tools/ is ignored): the extractor finds its
# grammars in their packages and its query files in src/extractor/queries/.
out="$root/.tools/symbol-truth/run.mjs"
"$root/node_modules/.bin/esbuild" "$root/test/support/truth/folder.ts" --bundle --platform=node --format=esm \
  --external:web-tree-sitter --external:typescript --outfile="$out" --log-level=warning
node "$out" "$folder"
