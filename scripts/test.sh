#!/usr/bin/env bash
# npm test: the type-check and the linter (scripts/check.mjs) beside the tests, which start at once:
# the unit tests, then the integration tests. The suite is bound by CPU, and the checks fill what
# the tests leave idle (their start, the integration set-up's waits), where one after the other
# the checks alone took half a minute. The integration tests do not start when the unit tests
# failed, or the checks already did; the checks' output comes at the end, with what failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit
out=$(mktemp)
trap 'rm -f "$out"' EXIT
node scripts/check.mjs >"$out" 2>&1 &
check=$!
checked=

vitest run --project unit
unit=$?
integration=0
if [ "$unit" -ne 0 ]; then
  echo "test: the unit tests failed; the integration tests were not run" >&2
else
  # Still running counts as passing so far; finished, its result is kept for the end.
  if ! kill -0 "$check" 2>/dev/null; then
    wait "$check"
    checked=$?
  fi
  if [ "${checked:-0}" -ne 0 ]; then
    echo "test: the checks failed (below); the integration tests were not run" >&2
  else
    vitest run --project integration
    integration=$?
  fi
fi
if [ -z "$checked" ]; then
  wait "$check"
  checked=$?
fi
cat "$out" >&2
[ "$checked" -eq 0 ] || echo "test: the type-check or the linter failed (above)" >&2
exit $((checked || unit || integration))
