# Sourced by a bench script that compares builds, with `root` set to the checkout and `name` to
# the bench's name: makes `work` (a temporary folder, removed at exit with any worktree in it),
# copies this checkout's dist/ there as it is now (a rebuild while the run goes on does not change
# what is measured) as ZOEKT_MCP_CLI, and builds BEFORE_REV in a worktree as ZOEKT_MCP_BEFORE_CLI
# (either given already is kept).
work=$(mktemp -d "${TMPDIR:-/tmp}/zoekt-mcp-$name-XXXXXX")
before_tree=""
cleanup() {
  if [ -n "$before_tree" ]; then git -C "$root" worktree remove --force "$before_tree" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# A signal ends the script through its EXIT trap.
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -z "${ZOEKT_MCP_CLI:-}" ]; then
  mkdir -p "$work/after"
  cp -r "$root/dist" "$root/package.json" "$root/zoekt-config" "$work/after/"
  ln -s "$root/node_modules" "$work/after/node_modules"
  echo "$name: after: dist/ of $(git -C "$root" rev-parse --short HEAD), built $(date -r "$root/dist/cli.js" -u +%FT%TZ), with $(git -C "$root" status --short -- src | wc -l) file(s) of src/ changed since" >&2
  export ZOEKT_MCP_CLI="$work/after/dist/cli.js"
fi
if [ -z "${ZOEKT_MCP_BEFORE_CLI:-}" ] && [ -n "${BEFORE_REV:-}" ]; then
  before_tree="$work/before"
  echo "$name: building $BEFORE_REV in $before_tree" >&2
  git -C "$root" worktree add --detach "$before_tree" "$BEFORE_REV" >&2
  ln -s "$root/node_modules" "$before_tree/node_modules"
  ln -s "$root/.tools" "$before_tree/.tools"
  # The commit builds as its own package.json says.
  (cd "$before_tree" && npm run -s build) >&2
  export ZOEKT_MCP_BEFORE_CLI="$before_tree/dist/cli.js"
fi
