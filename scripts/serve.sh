#!/usr/bin/env bash
# Serves zoekt-mcp for real. Installs what is missing, indexes the repositories listed in
# zoekt-config/repos (by default this repository), starts zoekt-webserver -rpc (or reuses one
# already answering on the port), then:
#   - with --http (and any other flags of dist/cli.js): serves MCP over HTTP in the foreground;
#   - spawned by an MCP client (stdin is not a terminal): serves MCP over stdio;
#   - run in a terminal: prints how to connect and keeps Zoekt running until Ctrl-C.
# Everything it says goes to stderr: on stdio, stdout belongs to the protocol.
#
# Installed from npm (the zoekt-mcp-serve command) there is no checkout to index and the package
# folder may be read-only or replaced on upgrade: ZOEKT_MCP_REPOS must name the repositories, and
# Zoekt and the index live under the user's cache and data folders instead of the package.
set -euo pipefail
# npm links the command into a bin folder: find the package through the link.
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
# Paths given in the environment are relative to where the command was started.
absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
for var in ZOEKT_MCP_REPOS ZOEKT_MCP_DATA ZOEKT_MCP_TOOLS_DIR; do
  if [ -n "${!var:-}" ]; then export "$var=$(absolute "${!var}")"; fi
done
cd "$root"
exec 3>&1 1>&2   # keep the real stdout (fd 3) for the MCP server alone

say() { echo "serve: $*"; }

# Ctrl-C and `kill -- -PGID` signal the whole process group. Zoekt and the HTTP server run in
# sessions of their own so that only this script's traps stop them, in order: the server drains
# its in-flight calls against a Zoekt that is still up, then Zoekt is stopped.
# (A command word, not a function: `$!` must be the process itself, for the traps to signal it.)
own_session=""
command -v setsid >/dev/null 2>&1 && own_session=setsid

if [ -f "$root/src/cli.ts" ]; then
  # A checkout: npm packages, Zoekt, the build; the index and Zoekt live in the checkout.
  bash scripts/setup.sh
  tools="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}"
  data="${ZOEKT_MCP_DATA:-$root/.data}"
  list="${ZOEKT_MCP_REPOS:-$root/zoekt-config/repos}"
  base="$root"   # relative lines of the list are relative to the checkout
else
  # The npm package: already built; only Zoekt is missing the first time.
  tools="${ZOEKT_MCP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zoekt-mcp/tools}"
  data="${ZOEKT_MCP_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/zoekt-mcp}"
  list="${ZOEKT_MCP_REPOS:-}"
  if [ -z "$list" ]; then
    say "set ZOEKT_MCP_REPOS to the repository to index (a folder), or to a file listing one path per line"
    exit 2
  fi
  base="$(dirname "$list")"   # relative lines of the list are relative to the list
  ZOEKT_MCP_TOOLS_DIR="$tools" bash scripts/install-zoekt.sh
fi
# shellcheck source=../zoekt-config/zoekt.env
. zoekt-config/zoekt.env
bin="$tools/zoekt/$ZOEKT_VERSION/bin"
index="$data/index"
port="${ZOEKT_PORT:-6070}"
export CTAGS_COMMAND="$root/zoekt-config/universal-ctags"
mkdir -p "$index"

# ZOEKT_MCP_REPOS may name one repository directly instead of a list of them.
if [ -d "$list" ]; then repos=("$list"); else
  [ -f "$list" ] || { say "ZOEKT_MCP_REPOS: $list is neither a folder nor a file"; exit 2; }
  repos=()
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%%#*}"; line="${line#"${line%%[![:space:]]*}"}"; line="${line%"${line##*[![:space:]]}"}"
    [ -n "$line" ] && repos+=("$line")
  done < "$list"
fi

count=0
for line in ${repos[@]+"${repos[@]}"}; do
  case "$line" in /*) dir="$line" ;; *) dir="$base/$line" ;; esac
  [ -d "$dir" ] || { say "skipping $line: not a directory"; continue; }
  if git -C "$dir" rev-parse --git-dir >/dev/null 2>&1; then
    say "indexing git repository $line"
    "$bin/zoekt-git-index" -index "$index" "$(git -C "$dir" rev-parse --show-toplevel)" 2>>"$data/index.log"
  else
    say "indexing directory $line"
    "$bin/zoekt-index" -index "$index" "$dir" 2>>"$data/index.log"
  fi
  count=$((count + 1))
done
[ "$count" -gt 0 ] || say "warning: $list lists no repositories; Zoekt will serve an empty index"

url="http://127.0.0.1:$port"
zoekt_pid=""
if curl -fsS -m 2 "$url/healthz" >/dev/null 2>&1; then
  say "reusing the zoekt-webserver already answering at $url"
else
  $own_session "$bin/zoekt-webserver" -rpc -index "$index" -listen "127.0.0.1:$port" 2>>"$data/webserver.log" &
  zoekt_pid=$!
  trap '[ -n "$zoekt_pid" ] && kill "$zoekt_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    curl -fsS -m 1 "$url/healthz" >/dev/null 2>&1 && break
    kill -0 "$zoekt_pid" 2>/dev/null || { say "zoekt-webserver failed to start; see $data/webserver.log"; exit 1; }
    sleep 0.1
  done
  say "zoekt-webserver serving $index at $url (log: $data/webserver.log)"
fi

http=false
for arg in "$@"; do [ "$arg" = "--http" ] && http=true; done

if $http; then
  # MCP over HTTP in the foreground (flags as in `node dist/cli.js --help`); Ctrl-C or SIGTERM
  # shuts it down gracefully, then Zoekt is stopped.
  say "serving MCP over HTTP"
  ZOEKT_URL="$url" $own_session node dist/cli.js "$@" >&3 &
  mcp_pid=$!
  signalled=false
  trap 'signalled=true; kill -TERM "$mcp_pid" 2>/dev/null || true' INT TERM
  status=0
  wait "$mcp_pid" || status=$?
  # A signal interrupts the first wait; the second gives the server's own exit status.
  if $signalled; then status=0; wait "$mcp_pid" || status=$?; fi
  exit "$status"
elif [ -t 0 ]; then
  cat <<MSG

Zoekt is serving at $url. Connect an MCP client with this server entry (stdio):

  {
    "mcpServers": {
      "zoekt": {
        "command": "node",
        "args": ["$root/dist/cli.js"],
        "env": { "ZOEKT_URL": "$url" }
      }
    }
  }

or let the client run this script itself ("command": "bash", "args": ["$root/scripts/serve.sh"]).
Press Ctrl-C to stop Zoekt.
MSG
  wait "$zoekt_pid" 2>/dev/null || sleep infinity
else
  say "serving MCP over stdio"
  ZOEKT_URL="$url" node dist/cli.js "$@" >&3
fi
