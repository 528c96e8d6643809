#!/bin/sh
# Keeps a Zoekt index of some repositories up to date. Written for zoekt-mcp's indexer image
# (docker/Dockerfile, target indexer: Zoekt's indexers, Universal Ctags, git, Node and zoekt-mcp's
# symbol extractor); any POSIX shell with those commands runs it too. Repositories are indexed
# the way zoekt-mcp indexes everywhere, through ZOEKT_MCP_HOME/zoekt-config/index (default
# /opt/zoekt-mcp): symbols from tree-sitter for the languages it parses, Universal Ctags for the rest.
#
#   indexer.sh          index every REPOS_DIR repository and MIRROR_URLS mirror, then again every
#                       INDEX_INTERVAL seconds (0: once, then exit with the round's status)
#   indexer.sh health   exit 0 when the last round finished without failures and not long ago
#
# REPOS_DIR (default /repos, mounted from the host, read-only is fine): REPOS_DIR itself when it is
#   a repository, else each folder directly in it. A git checkout (or bare repository) is indexed
#   from git, with the branches in INDEX_BRANCHES (default HEAD), and named after its folder; any
#   other folder is indexed as plain files.
# MIRROR_URLS: git URLs separated by spaces, commas or new lines, cloned once as mirrors into
#   MIRROR_DIR (default DATA_DIR/mirrors), fetched again each round, and named after the URL
#   (https://github.com/acme/app.git is github.com/acme/app).
# MIRROR_URLS_FILE: a file of more such URLs (lines starting with # are comments), read again
#   each round, so a mounted Kubernetes ConfigMap can change the list without a restart.
# INDEX_DIR (default DATA_DIR/index, DATA_DIR default /data): where the shards go, for
#   zoekt-webserver -index to serve. zoekt-webserver picks up new shards by itself.
# SHARD (e.g. 1/2): index only the repositories whose name's CRC (POSIX cksum of the folder's
#   or mirror's name) modulo n is i - 1; n indexers with 1/n … n/n split the repositories
#   between n zoekt-webservers (zoekt-mcp --zoekt-url a,b,… serves them as one). A repository
#   keeps its shard when others are added or removed. A mirror that is no longer this shard's
#   (the list or n changed) is deleted with its index after a round without failures.
# DEFINITIONS_DIR (default INDEX_DIR/definitions): where each repository's definitions index goes
#   after its shards (zoekt-mcp definitions build: the definitions and doc comments of the indexed
#   commit, embedded, for description search; only changed files are read again). Of a repository
#   indexed at several INDEX_BRANCHES, the first one's. DEFINITIONS=0 builds none.
# ZOEKT_MCP_DEFINITIONS_URL: a Weaviate server the adapters search (zoekt-mcp --definitions-url):
#   after each round the definitions index is pushed to it (zoekt-mcp definitions push: only the
#   repositories whose commit changed, each switched to whole once it is in).
# SHARD_COUNT (e.g. 3), instead of SHARD: n, with i taken from SHARD_INDEX (0-based, such as a
#   StatefulSet pod's apps.kubernetes.io/pod-index label) or else from the number that ends
#   the host name (a StatefulSet pod is named <set>-<index>).
set -eu

ZOEKT_MCP_HOME=${ZOEKT_MCP_HOME:-/opt/zoekt-mcp}
INDEX="$ZOEKT_MCP_HOME/zoekt-config/index"
DATA_DIR=${DATA_DIR:-/data}
REPOS_DIR=${REPOS_DIR:-/repos}
INDEX_DIR=${INDEX_DIR:-$DATA_DIR/index}
MIRROR_DIR=${MIRROR_DIR:-$DATA_DIR/mirrors}
MIRROR_URLS=${MIRROR_URLS:-}
MIRROR_URLS_FILE=${MIRROR_URLS_FILE:-}
INDEX_INTERVAL=${INDEX_INTERVAL:-600}
INDEX_BRANCHES=${INDEX_BRANCHES:-HEAD}
DEFINITIONS=${DEFINITIONS:-1}
DEFINITIONS_DIR=${DEFINITIONS_DIR:-$INDEX_DIR/definitions}
# The outcome of the last round: its end time and its failures, for the health check.
STATUS_FILE=${STATUS_FILE:-$DATA_DIR/indexer.status}

say() { echo "indexer: $*" >&2; }

case $INDEX_INTERVAL in '' | *[!0-9]*) say "INDEX_INTERVAL must be a whole number of seconds, got '$INDEX_INTERVAL'"; exit 2 ;; esac
if [ -n "${SHARD_COUNT:-}" ]; then
  index=${SHARD_INDEX:-$(hostname | sed 's/.*-//')}
  for n in "$SHARD_COUNT" "$index"; do
    case $n in '' | *[!0-9]*) say "SHARD_COUNT and SHARD_INDEX (or a host name ending in -<index>) must be whole numbers, got '$SHARD_COUNT' and '$index'"; exit 2 ;; esac
  done
  SHARD=$((index + 1))/$SHARD_COUNT
fi
SHARD=${SHARD:-1/1}
case $SHARD in
  [0-9]*/[0-9]*) case $SHARD in */*/* | *[!0-9/]*) say "SHARD must be i/n (e.g. 1/2), got '$SHARD'"; exit 2 ;; esac ;;
  *) say "SHARD must be i/n (e.g. 1/2), got '$SHARD'"; exit 2 ;;
esac
shard_i=${SHARD%/*}
shard_n=${SHARD#*/}
if [ "$shard_n" -lt 1 ] || [ "$shard_i" -lt 1 ] || [ "$shard_i" -gt "$shard_n" ]; then
  say "SHARD must be i/n with 1 <= i <= n, got '$SHARD'"
  exit 2
fi

# Whether the repository named $1 is this indexer's.
mine() { [ $(($(printf '%s' "$1" | cksum | cut -d' ' -f1) % shard_n + 1)) -eq "$shard_i" ]; }
MIRROR_DIR=${MIRROR_DIR%/}

# Repositories mounted from the host belong to another user; git refuses those unless told.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
export GIT_TERMINAL_PROMPT=0

if [ "${1:-}" = health ]; then
  [ -f "$STATUS_FILE" ] || { echo "no round finished yet"; exit 1; }
  read -r ended failures <"$STATUS_FILE"
  age=$(($(date +%s) - ended))
  # A round that has not ended for two intervals and a bit has stalled.
  limit=$((2 * INDEX_INTERVAL + 300))
  if [ "$failures" -ne 0 ]; then echo "last round: $failures failure(s), see the container's log"; exit 1; fi
  if [ "$INDEX_INTERVAL" -gt 0 ] && [ "$age" -gt "$limit" ]; then echo "last round ended ${age}s ago"; exit 1; fi
  echo "last round ended ${age}s ago without failures"
  exit 0
fi

is_git() { [ -e "$1/.git" ] || { [ -f "$1/HEAD" ] && [ -d "$1/objects" ]; }; }

# The repository name a mirror URL gives: no scheme, user or port, no .git.
mirror_name() {
  case $1 in
    *://*) printf '%s\n' "$1" | sed -e 's#^[^:]*://##' -e 's#^[^/@]*@##' -e 's#^\([^/:]*\):[0-9]*/#\1/#' ;;
    *) printf '%s\n' "$1" | sed -e 's#^[^/@]*@##' -e 's#^\([^/:]*\):#\1/#' ;;
  esac | sed -e 's#/*$##' -e 's#\.git$##' -e 's#^/*##'
}

# definitions REPOSITORY [NAME]: its definitions index beside the shards, of the commit just indexed
# (the first of INDEX_BRANCHES). A failure is counted as the round's; the shards stay served.
definitions() {
  [ "$DEFINITIONS" = 0 ] && return 0
  def_commit=
  if is_git "$1"; then def_commit=${INDEX_BRANCHES%%,*}; fi
  "${ZOEKT_MCP_NODE:-node}" "$ZOEKT_MCP_HOME/dist/cli.js" definitions build --quiet --repo "$1" --out "$DEFINITIONS_DIR" \
    ${2:+--name "$2"} ${def_commit:+--commit "$def_commit"} >&2
}

index_git() {
  # -repo_cache names a mirror by its path under MIRROR_DIR.
  "$INDEX" git -index "$INDEX_DIR" -branches "$INDEX_BRANCHES" -allow_missing_branches "$@"
}

# The prefix of a repository's shard files in INDEX_DIR: its name as Go's url.QueryEscape
# writes it, for the characters a mirror's name holds.
shard_prefix() { printf '%s\n' "$1" | sed -e 's/%/%25/g' -e 's#/#%2F#g' -e 's/:/%3A/g' -e 's/@/%40/g' -e 's/+/%2B/g'; }

# Deletes the mirrors (and their index) whose names are not among the lines of $1.
prune_mirrors() {
  find "$MIRROR_DIR" -type d -name '*.git' -prune | while read -r dest; do
    name=$(git -C "$dest" config zoekt.name 2>/dev/null) || continue
    if ! printf '%s\n' "$1" | grep -qxF "$name"; then
      say "dropping $name: no longer one of this shard's repositories"
      rm -f "$INDEX_DIR/$(shard_prefix "$name")"_v*.zoekt "$INDEX_DIR/$(shard_prefix "$name")"_v*.zoekt.meta
      rm -rf "$dest"
    fi
  done
}

round() {
  failures=0
  kept=''
  mkdir -p "$INDEX_DIR" "$MIRROR_DIR"

  if [ -d "$REPOS_DIR" ]; then
    if is_git "$REPOS_DIR"; then set -- "$REPOS_DIR"; else set -- "$REPOS_DIR"/*; fi
    for dir in "$@"; do
      [ -d "$dir" ] || continue
      mine "$(basename "$dir")" || continue
      if is_git "$dir"; then
        say "indexing git repository $dir"
        index_git "$dir" || { failures=$((failures + 1)); say "failed: $dir"; continue; }
        definitions "$dir" || { failures=$((failures + 1)); say "definitions failed: $dir"; }
      else
        say "indexing folder $dir"
        "$INDEX" dir -index "$INDEX_DIR" "$dir" || { failures=$((failures + 1)); say "failed: $dir"; continue; }
        definitions "$dir" || { failures=$((failures + 1)); say "definitions failed: $dir"; }
      fi
    done
  fi

  urls=$MIRROR_URLS
  if [ -n "$MIRROR_URLS_FILE" ]; then
    if [ -r "$MIRROR_URLS_FILE" ]; then
      # Comments from # to the end of a line; Windows line ends.
      urls="$urls $(sed -e 's/#.*//' -e 's/\r$//' "$MIRROR_URLS_FILE")"
    else
      failures=$((failures + 1)); say "cannot read MIRROR_URLS_FILE $MIRROR_URLS_FILE"
    fi
  fi
  # No globbing of the URLs ($urls is split on blanks and commas only).
  set -f
  # shellcheck disable=SC2046
  set -- $(printf '%s\n' "$urls" | tr ',' ' ')
  set +f
  for url in "$@"; do
    name=$(mirror_name "$url")
    mine "$name" || continue
    kept="$kept$name
"

    dest="$MIRROR_DIR/$name.git"
    if [ -d "$dest" ]; then
      say "fetching $name"
      git -C "$dest" fetch --quiet --prune || { failures=$((failures + 1)); say "failed to fetch $name"; continue; }
    else
      say "cloning $name"
      mkdir -p "$(dirname "$dest")"
      if ! git clone --quiet --mirror "$url" "$dest"; then
        failures=$((failures + 1)); say "failed to clone $name"; rm -rf "$dest"; continue
      fi
      git -C "$dest" config zoekt.name "$name"
    fi
    say "indexing mirror $name"
    index_git -repo_cache "$MIRROR_DIR" "$dest" || { failures=$((failures + 1)); say "failed: $name"; continue; }
    definitions "$dest" "$name" || { failures=$((failures + 1)); say "definitions failed: $name"; }
  done

  # Only after a round that read the whole list: a list that failed to load drops nothing.
  [ "$failures" -ne 0 ] || prune_mirrors "$kept"

  if [ -n "${ZOEKT_MCP_DEFINITIONS_URL:-}" ] && [ "$DEFINITIONS" != 0 ] && [ -f "$DEFINITIONS_DIR/manifest.json" ]; then
    say "pushing the definitions index to $ZOEKT_MCP_DEFINITIONS_URL"
    "${ZOEKT_MCP_NODE:-node}" "$ZOEKT_MCP_HOME/dist/cli.js" definitions push --quiet --from "$DEFINITIONS_DIR" --weaviate "$ZOEKT_MCP_DEFINITIONS_URL" >&2 ||
      { failures=$((failures + 1)); say "definitions push failed"; }
  fi

  echo "$(date +%s) $failures" >"$STATUS_FILE.tmp" && mv "$STATUS_FILE.tmp" "$STATUS_FILE"
  say "round done, $failures failure(s)"
  [ "$failures" -eq 0 ]
}

# SIGTERM (docker stop) ends the wait between rounds at once, and a round once its current
# repository is done. $! is the only background job, the sleep between rounds: it is set as soon
# as the sleep starts. A TERM that reaches it before it has become `sleep` is taken by the shell
# handler it was forked with, and lost; so it is sent again until the process has ended (a
# zombie, state Z, has), for at most about 2 s.
stop_sleep() {
  pid=${!:-}
  [ -n "$pid" ] || return 0
  tries=0
  while kill "$pid" 2>/dev/null && [ "$tries" -lt 20 ]; do
    state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1) || return 0
    [ "$state" != Z ] || return 0
    tries=$((tries + 1))
    sleep 0.1
  done
}
trap 'say "stopping"; stop_sleep; exit 0' TERM INT
while :; do
  status=0
  round || status=1
  [ "$INDEX_INTERVAL" -gt 0 ] || exit "$status"
  sleep "$INDEX_INTERVAL" &
  wait "$!" || true
done
