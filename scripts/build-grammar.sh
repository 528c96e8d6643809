#!/usr/bin/env bash
# Builds the WebAssembly of a tree-sitter grammar whose npm package ships only native code, from
# that package's C sources, into src/extractor/grammars/<file>.wasm.gz (gzip -n: the same bytes
# on every build). The extractor loads it like the grammars npm packages ship (bundle.mjs
# unpacks it into dist/grammars/). Needs Emscripten (Debian: apt-get install emscripten).
#   bash scripts/build-grammar.sh swift
#
# Built with Debian bookworm's Emscripten 3.1.6 and the flags tree-sitter's own `build --wasm`
# passes: a side module exporting the language function, loaded by web-tree-sitter.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

case ${1:-} in
  swift) package=tree-sitter-swift version=0.7.1 name=swift sources=(src/parser.c src/scanner.c) ;;
  *)
    echo "usage: $0 swift" >&2
    exit 2
    ;;
esac

command -v emcc >/dev/null || {
  echo "build-grammar: emcc is missing (Debian: apt-get install emscripten)" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# npm checks the tarball against the registry's integrity hash.
(cd "$work" && npm pack --silent "$package@$version" >/dev/null && tar xzf ./*.tgz)
out="$root/src/extractor/grammars/tree-sitter-$name.wasm.gz"
# tree-sitter-swift 0.7.1's scanner allocates its state with calloc(0, …) and then writes to it:
# harmless with glibc's malloc, it corrupts the heap of the WebAssembly module, where parses of the
# same text then differ. One element is what it meant.
if [ "$name" = swift ]; then
  sed -i 's/calloc(0, sizeof(struct ScannerState))/calloc(1, sizeof(struct ScannerState))/' "$work/package/src/scanner.c"
  grep -q 'calloc(1, sizeof(struct ScannerState))' "$work/package/src/scanner.c"
fi
mkdir -p "$(dirname "$out")"
(cd "$work/package" && emcc -o "$work/grammar.wasm" -Os -fno-exceptions -s WASM=1 -s SIDE_MODULE=2 \
  -s "EXPORTED_FUNCTIONS=[\"_tree_sitter_$name\"]" -I src "${sources[@]}")
gzip -9 -n -c "$work/grammar.wasm" >"$out"
echo "build-grammar: $package $version -> $out ($(wc -c <"$out") bytes, emcc $(emcc --version | head -n1 | grep -o '[0-9][0-9.]*' | head -n1))"
