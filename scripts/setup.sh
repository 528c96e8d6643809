#!/usr/bin/env bash
# Installs what is missing, in steps: "node" (npm packages), "zoekt" (Zoekt + Universal Ctags),
# "build" (compile the server). No argument: all three. Quick when everything is present.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(node zoekt build)

for step in "${steps[@]}"; do
  case "$step" in
    node)
      if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        echo "setup: installing npm packages" >&2
        npm ci --no-audit --no-fund >&2
      fi
      ;;
    zoekt) bash scripts/install-zoekt.sh ;;
    build) node_modules/.bin/tsc -p tsconfig.build.json ;;
    *) echo "setup: unknown step '$step' (node, zoekt, build)" >&2; exit 2 ;;
  esac
done
