#!/usr/bin/env bash
# The type-check and the linter side by side: each is about one core's work, so on two cores the
# pair takes as long as the linter alone. Both always run and report; the check fails if either does.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit
npm run -s typecheck &
typecheck=$!
npm run -s lint
lint=$?
wait "$typecheck"
typecheck=$?
[ "$typecheck" -eq 0 ] || echo "check: the type-check failed" >&2
[ "$lint" -eq 0 ] || echo "check: the linter failed" >&2
exit $((typecheck || lint))
