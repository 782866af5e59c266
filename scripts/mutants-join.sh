#!/usr/bin/env bash
# Joins the shards of a mutation run (scripts/mutants-shard.sh;
# docs/src/dev/mutation-testing.md, "Sharding"): the counts of caught, missed,
# unviable and timeout mutants of each shard and their sums, then the missed
# and timed-out mutants, one a line as cargo-mutants names them.
#
#   scripts/mutants-join.sh DIR...
#
# Each DIR is a shard's output: a folder holding mutants.out/ (what
# `cargo mutants --output DIR` writes), or a mutants.out folder itself (what an
# artifact of one holds). Its caught.txt, missed.txt, unviable.txt and
# timeout.txt list one mutant a line; a missing list counts 0.
# Exit code: 0 when no shard missed a mutant or timed out, 1 when one did, 2
# when a DIR holds no cargo-mutants output (a shard that never ran) or none is
# given.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/mutants-join.sh DIR..." >&2
  exit 2
fi

outcomes=(caught missed unviable timeout)
declare -A total=([caught]=0 [missed]=0 [unviable]=0 [timeout]=0)
outs=()
for dir in "$@"; do
  if [ -d "$dir/mutants.out" ]; then
    out="$dir/mutants.out"
  else
    out="$dir"
  fi
  found=0
  for file in outcomes.json caught.txt missed.txt unviable.txt timeout.txt; do
    if [ -f "$out/$file" ]; then
      found=1
    fi
  done
  if [ "$found" = 0 ]; then
    echo "mutants-join: no cargo-mutants output in $dir" >&2
    exit 2
  fi
  outs+=("$out")
  line="$dir:"
  for outcome in "${outcomes[@]}"; do
    count=0
    if [ -f "$out/$outcome.txt" ]; then
      count=$(grep -c '' "$out/$outcome.txt" || true)
    fi
    total[$outcome]=$((total[$outcome] + count))
    line+=" $outcome $count"
  done
  echo "$line"
done
echo "total over $# shards: caught ${total[caught]}, missed ${total[missed]}, unviable ${total[unviable]}, timeout ${total[timeout]}"

for outcome in missed timeout; do
  if [ "${total[$outcome]}" -gt 0 ]; then
    echo "-- $outcome:"
    for out in "${outs[@]}"; do
      if [ -f "$out/$outcome.txt" ]; then
        # awk 1: the last line ends with a newline even when the file does not.
        awk 1 "$out/$outcome.txt"
      fi
    done
  fi
done
if [ "${total[missed]}" -gt 0 ] || [ "${total[timeout]}" -gt 0 ]; then
  exit 1
fi
