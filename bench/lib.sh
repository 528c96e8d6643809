# shellcheck shell=bash
# Shared by the bench scripts (sourced): the pinned Zoekt and Universal Ctags, a work folder, and
# zoekt-webservers on free loopback ports; all of it is stopped and removed when the script exits.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
bash scripts/setup.sh >&2
# shellcheck source=zoekt-config/zoekt.env
. zoekt-config/zoekt.env
tools="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}"
bin="$tools/zoekt/$ZOEKT_VERSION/bin"
# Indexes are built as zoekt-mcp builds them everywhere: zoekt-config/index with the pinned Zoekt.
export ZOEKT_BIN="$bin"
index_dir() { "$root/zoekt-config/index" dir -require_ctags "$@"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-bench-XXXXXX")
zoekt_pids=()
cleanup() {
  for pid in "${zoekt_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# A signal (Ctrl-C, timeout) ends the script through its EXIT trap, so its servers stop too.
trap 'exit 130' INT
trap 'exit 143' TERM

# start_zoekt INDEX_DIR [CORE]: serves INDEX_DIR on a free loopback port (pinned to CORE, with one
# Go thread, when given) and sets zoekt_url once it answers.
start_zoekt() {
  local port
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  local run=()
  if [ -n "${2:-}" ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then run=(env GOMAXPROCS=1 taskset -c "$2"); fi
  # Its watchdog is off: a bench's server lives no longer than the bench.
  ZOEKT_WATCHDOG_ERRORS=0 "${run[@]}" "$bin/zoekt-webserver" -rpc -index "$1" -listen "127.0.0.1:$port" >>"$work/webserver.log" 2>&1 &
  zoekt_pids+=($!)
  zoekt_url="http://127.0.0.1:$port"
  for _ in $(seq 1 100); do
    curl -fsS -m 1 "$zoekt_url/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "bench: zoekt-webserver did not start on $zoekt_url; see $work/webserver.log" >&2
  return 1
}

# copy_corpus DIR: the bench corpus, one repository per folder: the test fixtures and four npm
# packages of real TypeScript and JavaScript (about 3k files).
copy_corpus() {
  mkdir -p "$1"
  for dir in test/fixtures/*/; do cp -r "$dir" "$1/$(basename "$dir")"; done
  for pkg in typescript/lib zod @modelcontextprotocol/sdk undici; do
    cp -r "node_modules/$pkg" "$1/npm-$(echo "$pkg" | tr '/@' '--' | sed 's/^-//')"
  done
}

# index_corpus REPOS_DIR INDEX_DIR: each repository with symbols.
index_corpus() {
  mkdir -p "$2"
  for dir in "$1"/*; do
    index_dir -index "$2" "$dir" 2>>"$work/index.log" >&2
  done
}

# goroot_index: sets $index to an index of Go's source tree ($(go env GOROOT)/src): the one the
# test suite caches in .tools/goroot-index/ when there is one, else a fresh one (about half a
# minute).
goroot_index() {
  index=""
  for marker in "$tools/goroot-index/$ZOEKT_VERSION-$(go env GOVERSION)"-*/complete.json; do
    [ -f "$marker" ] && index="$(dirname "$marker")/index" && return 0
  done
  index="$work/index"
  mkdir -p "$index"
  echo "bench: indexing $(go env GOROOT)/src" >&2
  index_dir -index "$index" "$(go env GOROOT)/src" 2>>"$work/index.log" >&2
}

# The CPU time (ms) of a shell's finished children (their own children included), from the
# output of `times` (written to a file: in a command substitution it would be another shell's).
children_cpu_ms() {
  tail -n 1 | tr 'ms' '  ' | awk '{ printf "%d\n", ($1 * 60 + $2 + $3 * 60 + $4) * 1000 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
