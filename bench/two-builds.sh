#!/usr/bin/env bash
# Local mode: how many index builds at a time. Go's source tree ($(go env GOROOT)/src, copied
# twice as git repositories) is indexed as the local supervisor indexes it (zoekt-config/index
# git), BENCH_ROUNDS times each way (default 2), the ways alternating within a round:
#   one-shard    Zoekt's default shard size (100 MB of text: Go's tree is one shard, one core)
#   shards       32 MB shards built as many at a time as there are cores (what the supervisor asks)
#   two-after    both copies, one after the other, with 32 MB shards
#   two-at-once  both copies at the same time, with 32 MB shards
# Prints the median wall and CPU time of each way. Asserts nothing.
#   bash bench/two-builds.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rounds=${BENCH_ROUNDS:-2}
cores=$(node -e 'console.log(Math.max(1, Math.min(4, require("os").availableParallelism())))')
shards=(-shard_limit $((32 << 20)) -parallelism "$cores")

copy() {
  cp -r "$(go env GOROOT)/src" "$work/$1"
  git -C "$work/$1" init -q -b main
  git -C "$work/$1" config zoekt.name "go/$1"
  git -C "$work/$1" add -A
  git -C "$work/$1" -c user.name=b -c user.email=b@b commit -q -m src
}
copy a
copy b
echo "bench: Go's tree: $(git -C "$work/a" ls-files | wc -l) files, $cores cores" >&2

index() { "$root/zoekt-config/index" git -submodules=false "$@" >/dev/null 2>>"$work/index.log"; }

# run WAY: indexes as WAY says into a fresh folder; prints "wall_ms cpu_ms".
run() {
  local out=$work/index started cpu_before cpu_after
  rm -rf "$out" && mkdir -p "$out"
  times >"$work/times"
  cpu_before=$(children_cpu_ms <"$work/times")
  started=$(date +%s%N)
  case $1 in
    one-shard) index -index "$out" "$work/a" ;;
    shards) index "${shards[@]}" -index "$out" "$work/a" ;;
    two-after) index "${shards[@]}" -index "$out" "$work/a" && index "${shards[@]}" -index "$out" "$work/b" ;;
    two-at-once)
      index "${shards[@]}" -index "$out" "$work/a" &
      index "${shards[@]}" -index "$out" "$work/b"
      wait $!
      ;;
  esac
  local wall=$(( ($(date +%s%N) - started) / 1000000 ))
  times >"$work/times"
  cpu_after=$(children_cpu_ms <"$work/times")
  echo "$wall $(( cpu_after - cpu_before ))"
}


ways=(one-shard shards two-after two-at-once)
declare -A wall=() cpu=()
for round in $(seq 1 "$rounds"); do
  for way in "${ways[@]}"; do
    read -r w c < <(run "$way")
    wall[$way]+="$w "
    cpu[$way]+="$c "
    echo "bench: round $round $way: ${w} ms wall, ${c} ms CPU" >&2
  done
done
printf '%-12s %10s %10s\n' way wall_ms cpu_ms
for way in "${ways[@]}"; do
  printf '%-12s %10s %10s\n' "$way" "$(tr ' ' '\n' <<<"${wall[$way]}" | grep . | median)" "$(tr ' ' '\n' <<<"${cpu[$way]}" | grep . | median)"
done
