#!/usr/bin/env bash
# The type-check and the linter side by side, and after the type-check the command given, if any
# (npm test gives the unit tests): the linter is about one core's work for as long as the other two
# together, so on two cores the three take the linter's time. All of them always run and report;
# the check fails if any does.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit
npm run -s lint &
lint=$!
npm run -s typecheck
typecheck=$?
after=0
if [ $# -gt 0 ]; then
  "$@"
  after=$?
fi
wait "$lint"
lint=$?
[ "$typecheck" -eq 0 ] || echo "check: the type-check failed" >&2
[ "$lint" -eq 0 ] || echo "check: the linter failed" >&2
[ "$after" -eq 0 ] || echo "check: $* failed" >&2
exit $((typecheck || lint || after))
