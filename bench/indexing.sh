#!/usr/bin/env bash
# Indexing with the symbol extractor against Universal Ctags alone, in one run: Go's source tree
# ($(go env GOROOT)/src), a TypeScript tree (the sources of the `effect` package, 572 files,
# 22 MB) and CPython's standard library (the Python 3 found on PATH, without site-packages).
# Each tree is indexed with zoekt-index, BENCH_ROUNDS times each way (default 3, the ways
# alternating), into fresh folders; prints the median wall and CPU times, the index size and the
# symbols, and the ratios. With BEFORE_REV, that commit's extractor, built in a worktree, is a
# third way. Asserts nothing.
#   bash bench/indexing.sh
#   BENCH_ROUNDS=5 BEFORE_REV=c62de42^ bash bench/indexing.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rounds=${BENCH_ROUNDS:-3}
python_lib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
trees=("go:$(go env GOROOT)/src" "typescript:$root/node_modules/effect/src" "python:$python_lib")
ways=(ctags extractor)

before_tree=""
if [ -n "${BEFORE_REV:-}" ]; then
  before_tree="$work/before"
  echo "bench: building $BEFORE_REV in $before_tree" >&2
  git -C "$root" worktree add --detach "$before_tree" "$BEFORE_REV" >&2
  trap 'git -C "$root" worktree remove --force "$before_tree" >/dev/null 2>&1 || true; cleanup' EXIT
  ln -s "$root/node_modules" "$before_tree/node_modules"
  # The commit builds as its own package.json says (the build changed in 3418a36).
  (cd "$before_tree" && npm run -s build) >&2
  ways+=(before)
fi

# index_with WAY TREE OUT: indexes TREE into a fresh OUT with WAY (ctags, extractor, or before:
# BEFORE_REV's extractor) and prints "wall_ms cpu_ms" (CPU of the indexer and every process it
# started, the parsers included). Site-packages is not the standard library.
index_with() {
  local way=$1 tree=$2 out=$3 started cpu_before cpu_after
  rm -rf "$out" && mkdir -p "$out"
  started=$(date +%s%N)
  times >"$work/times"
  cpu_before=$(children_cpu_ms <"$work/times")
  if [ "$way" = extractor ]; then
    "$root/zoekt-config/index" dir -require_ctags -ignore_dirs .git,site-packages -index "$out" "$tree" 2>>"$work/index.log" >&2
  elif [ "$way" = before ]; then
    "$before_tree/zoekt-config/index" dir -require_ctags -ignore_dirs .git,site-packages -index "$out" "$tree" 2>>"$work/index.log" >&2
  else
    CTAGS_COMMAND="$root/zoekt-config/universal-ctags" "$bin/zoekt-index" -require_ctags -ignore_dirs .git,site-packages -index "$out" "$tree" 2>>"$work/index.log" >&2
  fi
  times >"$work/times"
  cpu_after=$(children_cpu_ms <"$work/times")
  echo "$(( ($(date +%s%N) - started) / 1000000 )) $(( cpu_after - cpu_before ))"
}


# How many symbols an index holds.
symbols_of() {
  start_zoekt "$1"
  curl -fsS -X POST "$zoekt_url/api/search" -d '{"Q":"sym:.","Opts":{"MaxDocDisplayCount":1,"ShardMaxMatchCount":100000000,"TotalMaxMatchCount":100000000}}' |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).Result.MatchCount))'
  kill "${zoekt_pids[-1]}" 2>/dev/null || true
}

printf '%-11s %-10s %10s %10s %12s %10s\n' tree way wall_ms cpu_ms index_bytes symbols
for entry in "${trees[@]}"; do
  name=${entry%%:*}
  tree=${entry#*:}
  declare -A wall=() cpu=()
  for round in $(seq 1 "$rounds"); do
    for way in "${ways[@]}"; do
      read -r w c < <(index_with "$way" "$tree" "$work/$name-$way")
      wall[$way]+="$w "
      cpu[$way]+="$c "
      echo "bench: $name $way round $round: ${w} ms wall, ${c} ms CPU" >&2
    done
  done
  for way in "${ways[@]}"; do
    w=$(tr ' ' '\n' <<<"${wall[$way]}" | grep . | median)
    c=$(tr ' ' '\n' <<<"${cpu[$way]}" | grep . | median)
    size=$(du -sb "$work/$name-$way" | cut -f1)
    syms=$(symbols_of "$work/$name-$way")
    printf '%-11s %-10s %10s %10s %12s %10s\n' "$name" "$way" "$w" "$c" "$size" "$syms"
    eval "${way}_wall=$w ${way}_cpu=$c ${way}_size=$size"
  done
  # shellcheck disable=SC2154 # set by the eval above
  awk -v name="$name" -v w1="$ctags_wall" -v w2="$extractor_wall" -v c1="$ctags_cpu" -v c2="$extractor_cpu" -v s1="$ctags_size" -v s2="$extractor_size" \
    'BEGIN { printf "%-11s extractor / ctags: wall %.2fx, CPU %.2fx, index size %.3fx\n", name, w2 / w1, c2 / c1, s2 / s1 }'
  if [ -n "$before_tree" ]; then
    # shellcheck disable=SC2154 # set by the eval above
    awk -v name="$name" -v w1="$before_wall" -v w2="$extractor_wall" -v c1="$before_cpu" -v c2="$extractor_cpu" -v s1="$before_size" -v s2="$extractor_size" \
      'BEGIN { printf "%-11s extractor / before: wall %.2fx, CPU %.2fx, index size %.3fx\n", name, w2 / w1, c2 / c1, s2 / s1 }'
  fi
  unset wall cpu
done
