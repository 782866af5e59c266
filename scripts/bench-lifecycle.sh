#!/usr/bin/env bash
# The default `elicit-check check` of a server that ignores stdin close (a live
# background timer: `--linger`) beside its correct sibling, back to back in one
# run, so the ratio holds on a loaded machine (docs/src/dev/benchmarks.md, "A
# server that ignores stdin close").
#   scripts/bench-lifecycle.sh [BINARY]   (default: target/release/elicit-check)
# Needs the peers (scripts/peers.sh). Prints one line per pair:
#   server  correct: seconds (exit)  lingering: seconds (exit)  ratio
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/target/release/elicit-check}"
peers="${ELICIT_CHECK_PEERS_DIR:-$root/target/peers}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

timed() { # seconds and exit code of `check ARGS...`, as "SECONDS EXIT"
  local start end code=0
  start=$(date +%s.%N)
  "$binary" check --seed 1 "$@" >/dev/null 2>&1 || code=$?
  end=$(date +%s.%N)
  printf '%.1f %d' "$(echo "$end - $start" | bc)" "$code"
}

pair() { # NAME -- CHECK ARGS... (the server command last; --linger is appended)
  local name="$1"; shift 2
  local correct lingering
  correct=$(timed "$@")
  lingering=$(timed "$@" --linger)
  read -r c_s c_code <<<"$correct"
  read -r l_s l_code <<<"$lingering"
  printf '%-44s correct %6.1f s (exit %d)  lingering %6.1f s (exit %d)  %.1f x\n' \
    "$name" "$c_s" "$c_code" "$l_s" "$l_code" "$(echo "$l_s / $c_s" | bc -l)"
}

pair "Python SDK 2.x booking peer (both eras)" -- \
  --tool book --acted /booked -- \
  "$peers/python-sdk2/bin/python" "$root/fixtures/peers/python_sdk2_mrtr.py"

touch "$scratch/victim.txt"
pair "Python SDK 1.x deleter (one era)" -- \
  --tool delete_file --acted /deleted --setup "touch $scratch/victim.txt" -- \
  "$peers/python-sdk1/bin/python" "$root/fixtures/servers/stateful.py" deleter \
  --victim "$scratch/victim.txt"
