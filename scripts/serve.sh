#!/usr/bin/env bash
# Serves zoekt-mcp for real, in one step. Installs what is missing (first run only, with progress
# on stderr), then runs the local serve command (src/serve-cli.ts, src/local/serve.ts), which:
#   - takes a lease on the per-user supervisor of the data folder, starting it if none runs: it
#     owns zoekt-webserver and the index, indexes the repositories of zoekt-config/repos (by
#     default this repository) in the background, follows their changes, and stops a while after
#     its last client quit, so any number of clients share one Zoekt;
#   - serves MCP at once: over stdio when an MCP client spawned it, over HTTP with --http (any flag
#     of dist/cli.js can follow), or, in a terminal, prints how to connect.
# --setup installs, indexes with progress and exits; with --repo PATH (repeatable) it first adds
# PATH to your own list of repositories (repos in the data folder), which every client that spawns
# this script without --repo then serves. Without --setup, --repo PATH serves PATH instead of a list.
# Everything it says goes to stderr: on stdio, stdout belongs to the protocol.
#
# Installed from npm (the zoekt-mcp-serve command) there is no checkout to index and the package
# folder may be read-only or replaced on upgrade: ZOEKT_MCP_REPOS (or --repo) must name the
# repositories, and Zoekt and the index live under the user's cache and data folders.
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
# How the user called it, for messages: the npm package's command by its name, else as typed.
case "$(basename "$0")" in zoekt-mcp-serve) command=zoekt-mcp-serve ;; *) command=$0 ;; esac
export ZOEKT_MCP_SERVE_COMMAND="$command"
# --help needs nothing installed and nothing to index (in a checkout, only the build).
help=false
for arg in "$@"; do case "$arg" in -h | --help) help=true ;; esac; done
# shellcheck source=../zoekt-config/zoekt.env
. "$root/zoekt-config/zoekt.env"

if [ -f "$root/src/cli.ts" ]; then
  tools="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}"
else
  tools="${ZOEKT_MCP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zoekt-mcp/tools}"
fi
case "$tools" in /*) ;; *) tools="$PWD/$tools" ;; esac

# Set up when something is missing or stale; on a set-up machine these are a few file tests.
ready=true
for cmd in $ZOEKT_COMMANDS; do [ -x "$tools/zoekt/$ZOEKT_VERSION/bin/$cmd" ] || ready=false; done
command -v ctags-universal >/dev/null 2>&1 || command -v universal-ctags >/dev/null 2>&1 || ready=false
if [ -f "$root/src/cli.ts" ]; then
  # A checkout: npm packages and the build must be current too.
  if [ ! -f "$root/node_modules/.package-lock.json" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ] ||
    [ ! -f "$root/dist/.built" ] || [ -n "$(find "$root/src" "$root/package-lock.json" "$root/tsconfig.json" "$root/scripts/compile.mjs" "$root/scripts/bundle.mjs" -newer "$root/dist/.built" -print -quit)" ] ||
    [ ! -f "$root/dist/model/potion-base-8M/.installed" ]; then
    ready=false
  fi
  steps="model node zoekt build"
  $help && steps="node build"
  # shellcheck disable=SC2086 # the steps are words
  $ready || ZOEKT_MCP_TOOLS_DIR="$tools" bash "$root/scripts/setup.sh" $steps >&2
elif ! $help; then
  # The npm package: nothing to index unless told, and that is said before any long install.
  named=false
  case "${1:-}" in --repo | --repo=*) named=true ;; -*) ;; ?*) [ -d "$1" ] && named=true ;; esac
  for arg in "$@"; do case "$arg" in --repo | --repo=*) named=true ;; esac; done
  # Your own list, made by `--setup --repo PATH`, names them too.
  data="${ZOEKT_MCP_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/zoekt-mcp}"
  [ -f "$data/repos" ] && named=true
  if ! $named && [ -z "${ZOEKT_MCP_REPOS:-}" ]; then
    echo "serve: set ZOEKT_MCP_REPOS to the repository to index (a folder), or to a file listing one path per line, or pass --repo PATH" >&2
    exit 2
  fi
  $ready || ZOEKT_MCP_TOOLS_DIR="$tools" bash "$root/scripts/install-zoekt.sh" >&2
fi

export ZOEKT_MCP_TOOLS_DIR="$tools"
exec node "$root/dist/serve-cli.js" "$@"
