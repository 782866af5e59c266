#!/usr/bin/env bash
# One shard of the full mutation run (docs/src/dev/mutation-testing.md,
# "Sharding"): `cargo mutants --config mutants.toml` over every examined file,
# keeping shard K of N of the mutant list.
#
#   scripts/mutants-shard.sh K N [ARG...]
#
# K counts from 1 to N (as the workflow's matrix does); cargo-mutants counts its
# shards from 0, so shard K here is cargo-mutants' `--shard K-1/N`. Every shard
# must run with the same N and the same ARGs (e.g. `--in-diff FILE`, or
# `-- -E 'kind(lib)'` for the tests after `--`), which go to cargo-mutants as
# they are. The proptest seed is pinned (PROPTEST_RNG_SEED=1), and the SDK peers
# are set up once under target/peers (or ELICIT_CHECK_PEERS_DIR) and reused by
# the copy of the tree cargo-mutants builds in. cargo-mutants and cargo-nextest
# are installed with `cargo install --locked` when missing.
#
# Output: mutants-shard-K-of-N/mutants.out/ (caught.txt, missed.txt,
# unviable.txt, timeout.txt, outcomes.json, the logs), in the current folder.
# Exit code: cargo-mutants' own (0 all caught or unviable, 2 a mutant missed,
# 3 a timeout, 4 the unmutated tree failed its tests), or 1 for wrong arguments.
#
# Join the shards with scripts/mutants-join.sh, once all N are done:
#   scripts/mutants-join.sh mutants-shard-*-of-N
set -euo pipefail

usage() {
  echo "usage: scripts/mutants-shard.sh K N [ARG...]   (1 <= K <= N)" >&2
  exit 1
}
[ "$#" -ge 2 ] || usage
shard=$1 shards=$2
shift 2
[[ "$shard" =~ ^[1-9][0-9]*$ && "$shards" =~ ^[1-9][0-9]*$ ]] || usage
[ "$shard" -le "$shards" ] || usage

root="$(cd "$(dirname "$0")/.." && pwd)"
output="$PWD/mutants-shard-$shard-of-$shards"
export PROPTEST_RNG_SEED=1
export ELICIT_CHECK_PEERS_DIR="${ELICIT_CHECK_PEERS_DIR:-$root/target/peers}"

# The tools a shard needs, installed as .ci/run installs them (mutants.toml
# runs the tests with nextest).
if ! cargo mutants --version >/dev/null 2>&1; then
  echo "mutants-shard: installing cargo-mutants (cargo install --locked cargo-mutants)"
  cargo install --locked cargo-mutants
fi
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "mutants-shard: installing cargo-nextest (cargo install --locked cargo-nextest)"
  cargo install --locked cargo-nextest
fi

echo "mutants-shard: shard $shard of $shards (cargo-mutants --shard $((shard - 1))/$shards), output in $output/mutants.out"
status=0
(cd "$root" && cargo mutants --config mutants.toml --shard "$((shard - 1))/$shards" \
  --output "$output" "$@") || status=$?
echo "mutants-shard: shard $shard of $shards: cargo-mutants exit $status"
exit "$status"
