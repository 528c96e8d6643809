#!/usr/bin/env bash
# Installs what zoekt-mcp needs from Zoekt: zoekt-webserver, zoekt-index and zoekt-git-index at
# the version pinned in zoekt-config/zoekt.env, into .tools/ (git-ignored), and Universal Ctags
# for symbols. Quick when everything is present; says what it did.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../zoekt-config/zoekt.env
. "$root/zoekt-config/zoekt.env"
bin_dir="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/zoekt/$ZOEKT_VERSION/bin"

say() { echo "install-zoekt: $*" >&2; }

missing=()
for cmd in $ZOEKT_COMMANDS; do
  [ -x "$bin_dir/$cmd" ] || missing+=("$cmd")
done

if [ ${#missing[@]} -eq 0 ]; then
  say "zoekt $ZOEKT_VERSION present in ${bin_dir#"$root"/}"
else
  command -v go >/dev/null 2>&1 || { say "Go is needed to build Zoekt (https://go.dev/dl/); not found on PATH"; exit 1; }
  say "building ${missing[*]} at $ZOEKT_VERSION (first time only, usually about 2 minutes): downloading, then compiling"
  started=$SECONDS
  # A long step: every 15 s, how long it has taken and roughly how far along it is against the
  # usual 120 s; near or past that, that it is taking longer than usual rather than "100%".
  (while sleep 15; do
    t=$((SECONDS - started))
    if [ "$t" -lt 110 ]; then say "still building Zoekt: ${t} s so far, about $((t * 100 / 120))% of the usual time"
    else say "still building Zoekt: ${t} s so far, longer than usual (a slow network or a busy machine)"; fi
  done) &
  ticker=$!
  work=$(mktemp -d)
  trap 'kill "$ticker" 2>/dev/null || true; rm -rf "$work"' EXIT
  # A throwaway module pins the version: 'go install pkg@version' would also ask the proxy for
  # the module's version list, which is not served for every module.
  printf 'module zoekt-mcp-tools\n\ngo 1.23\n\nrequire %s %s\n' "$ZOEKT_MODULE" "$ZOEKT_VERSION" > "$work/go.mod"
  export GONOSUMDB="$ZOEKT_MODULE" GOFLAGS=-mod=mod
  sum=$(cd "$work" && go mod download -json "$ZOEKT_MODULE@$ZOEKT_VERSION" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
  if [ "$sum" != "$ZOEKT_SUM" ]; then
    say "module hash mismatch for $ZOEKT_MODULE@$ZOEKT_VERSION: got '$sum', pinned '$ZOEKT_SUM'"
    exit 1
  fi
  say "downloaded Zoekt's sources in $((SECONDS - started)) s; compiling"
  pkgs=()
  for cmd in $ZOEKT_COMMANDS; do pkgs+=("$ZOEKT_MODULE/cmd/$cmd"); done
  mkdir -p "$bin_dir"
  (cd "$work" && go build -trimpath -o "$bin_dir/" "${pkgs[@]}")
  kill "$ticker" 2>/dev/null || true
  say "installed $ZOEKT_COMMANDS into ${bin_dir#"$root"/} in $((SECONDS - started)) s"
fi

if command -v ctags-universal >/dev/null 2>&1 || command -v universal-ctags >/dev/null 2>&1; then
  say "universal-ctags present ($( (ctags-universal --version 2>/dev/null || universal-ctags --version) | head -n1))"
else
  if [ "$(id -u)" -eq 0 ]; then apt=(apt-get -o DPkg::Lock::Timeout=300); elif command -v sudo >/dev/null 2>&1; then apt=(sudo -n apt-get -o DPkg::Lock::Timeout=300); else apt=(); fi
  if [ ${#apt[@]} -eq 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "universal-ctags is missing and cannot be installed here: install it (Debian/Ubuntu: apt-get install universal-ctags; macOS: brew install universal-ctags)"
    exit 1
  fi
  say "installing Debian's universal-ctags"
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq universal-ctags >/dev/null
  say "universal-ctags installed ($(ctags-universal --version | head -n1))"
fi

# Zoekt refuses a ctags without the interactive mode it drives it through.
ctags_help=$("$root/zoekt-config/universal-ctags" --help 2>/dev/null || true)
if [[ "$ctags_help" != *+interactive* ]]; then
  say "this universal-ctags lacks +interactive, which Zoekt needs for symbols"
  exit 1
fi
