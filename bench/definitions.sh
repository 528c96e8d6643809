#!/usr/bin/env bash
# What the definitions index costs beside Zoekt's own: Go's source tree ($(go env GOROOT)/src,
# a copy, indexed as a folder) indexed by zoekt-config/index dir (zoekt-index with the symbol
# extractor), then its definitions index built whole (zoekt-mcp definitions build, fresh folder),
# then one file edited and both built again (Zoekt whole, as zoekt-index always does; the
# definitions index incrementally). BENCH_ROUNDS rounds (default 1); prints median wall and CPU
# (of the command and every process it started) and the ratios. Asserts nothing.
#   bash bench/definitions.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash scripts/setup.sh model build >&2

rounds=${BENCH_ROUNDS:-1}
tree="$work/src"
cp -r "$(go env GOROOT)/src" "$tree"
edited=$tree/strings/strings.go

# timed NAME COMMAND...: runs it, prints "wall_ms cpu_ms".
timed() {
  local started cpu_before cpu_after
  started=$(date +%s%N)
  times >"$work/times"
  cpu_before=$(children_cpu_ms <"$work/times")
  "$@" >>"$work/run.log" 2>&1
  times >"$work/times"
  cpu_after=$(children_cpu_ms <"$work/times")
  echo "$(( ($(date +%s%N) - started) / 1000000 )) $(( cpu_after - cpu_before ))"
}

zoekt_index() { rm -rf "$work/index" && index_dir -index "$work/index" "$tree"; }
definitions_full() { rm -rf "$work/definitions" && node dist/cli.js definitions build --quiet --repo "$tree" --out "$work/definitions"; }
definitions_again() { node dist/cli.js definitions build --quiet --repo "$tree" --out "$work/definitions"; }

declare -A wall=() cpu=()
for round in $(seq 1 "$rounds"); do
  for step in zoekt_index definitions_full edit zoekt_index_after_edit definitions_after_edit; do
    case $step in
      edit) printf '\n// Edited by the bench, round %s.\nfunc benchEdit%s() {}\n' "$round" "$round" >>"$edited"; continue ;;
      zoekt_index_after_edit) read -r w c < <(timed zoekt_index) ;;
      definitions_after_edit) read -r w c < <(timed definitions_again) ;;
      *) read -r w c < <(timed "$step") ;;
    esac
    wall[$step]+="$w "
    cpu[$step]+="$c "
    echo "bench: $step round $round: ${w} ms wall, ${c} ms CPU" >&2
  done
done
grep '^src@' "$work/run.log" >&2 || true

declare -A W=() C=()
printf '%-24s %10s %10s\n' step wall_ms cpu_ms
for step in zoekt_index definitions_full zoekt_index_after_edit definitions_after_edit; do
  W[$step]=$(tr ' ' '\n' <<<"${wall[$step]}" | grep . | median)
  C[$step]=$(tr ' ' '\n' <<<"${cpu[$step]}" | grep . | median)
  printf '%-24s %10s %10s\n' "$step" "${W[$step]}" "${C[$step]}"
done
ratio() { bc -l <<<"$1 / $2"; }
printf 'definitions / zoekt (full):        wall %.2f  cpu %.2f\n' "$(ratio "${W[definitions_full]}" "${W[zoekt_index]}")" "$(ratio "${C[definitions_full]}" "${C[zoekt_index]}")"
printf 'definitions / zoekt (after edit):  wall %.2f  cpu %.2f\n' "$(ratio "${W[definitions_after_edit]}" "${W[zoekt_index_after_edit]}")" "$(ratio "${C[definitions_after_edit]}" "${C[zoekt_index_after_edit]}")"
echo "index sizes: zoekt $(du -sb "$work/index" | cut -f1) bytes, definitions $(du -sb "$work/definitions" | cut -f1) bytes"
