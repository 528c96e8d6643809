#!/usr/bin/env bash
# Serves zoekt-mcp for real. Installs what is missing, indexes the repositories listed in
# zoekt-config/repos (by default this repository), starts zoekt-webserver -rpc (or reuses one
# already answering on the port), then:
#   - with --http (and any other flags of dist/cli.js): serves MCP over HTTP in the foreground;
#   - spawned by an MCP client (stdin is not a terminal): serves MCP over stdio;
#   - run in a terminal: prints how to connect and keeps Zoekt running until Ctrl-C.
# Everything it says goes to stderr: on stdio, stdout belongs to the protocol.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
exec 3>&1 1>&2   # keep the real stdout (fd 3) for the MCP server alone

say() { echo "serve: $*"; }

# Ctrl-C and `kill -- -PGID` signal the whole process group. Zoekt and the HTTP server run in
# sessions of their own so that only this script's traps stop them, in order: the server drains
# its in-flight calls against a Zoekt that is still up, then Zoekt is stopped.
# (A command word, not a function: `$!` must be the process itself, for the traps to signal it.)
own_session=""
command -v setsid >/dev/null 2>&1 && own_session=setsid

bash scripts/setup.sh
# shellcheck source=../zoekt-config/zoekt.env
. zoekt-config/zoekt.env
bin="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/zoekt/$ZOEKT_VERSION/bin"
data="${ZOEKT_MCP_DATA:-$root/.data}"
index="$data/index"
port="${ZOEKT_PORT:-6070}"
list="${ZOEKT_MCP_REPOS:-$root/zoekt-config/repos}"
export CTAGS_COMMAND="$root/zoekt-config/universal-ctags"
mkdir -p "$index"

count=0
while IFS= read -r line || [ -n "$line" ]; do
  line="${line%%#*}"; line="${line#"${line%%[![:space:]]*}"}"; line="${line%"${line##*[![:space:]]}"}"
  [ -n "$line" ] || continue
  case "$line" in /*) dir="$line" ;; *) dir="$root/$line" ;; esac
  [ -d "$dir" ] || { say "skipping $line: not a directory"; continue; }
  if git -C "$dir" rev-parse --git-dir >/dev/null 2>&1; then
    say "indexing git repository $line"
    "$bin/zoekt-git-index" -index "$index" "$(git -C "$dir" rev-parse --show-toplevel)" 2>>"$data/index.log"
  else
    say "indexing directory $line"
    "$bin/zoekt-index" -index "$index" "$dir" 2>>"$data/index.log"
  fi
  count=$((count + 1))
done < "$list"
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
