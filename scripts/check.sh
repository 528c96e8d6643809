#!/usr/bin/env bash
# The type-check and the linter side by side (npm run check; npm test runs it beside the tests).
# Both always run and report; the check fails if either does.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit
npm run -s lint &
lint=$!
npm run -s typecheck
typecheck=$?
wait "$lint"
lint=$?
[ "$typecheck" -eq 0 ] || echo "check: the type-check failed" >&2
[ "$lint" -eq 0 ] || echo "check: the linter failed" >&2
exit $((typecheck || lint))
