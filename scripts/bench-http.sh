#!/usr/bin/env bash
# `elicit-check run` on the Python SDK peers over stdio and over Streamable HTTP,
# back to back in one run (the same cases, seed and -j), so the ratio holds on a
# loaded machine (docs/src/dev/benchmarks.md, "Streamable HTTP beside stdio").
#   scripts/bench-http.sh [BINARY]      (default: target/release/elicit-check)
# Needs the peers (scripts/peers.sh). Prints one line per peer and mode:
#   peer  mode  cases  stdio s  HTTP s  stdio cases/s  HTTP cases/s  HTTP/stdio time
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/target/release/elicit-check}"
peers="${ELICIT_CHECK_PEERS_DIR:-$root/target/peers}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

seconds() { # the run's wall time, from its run.json
  python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["seconds"])' "$1/run.json"
}

printf '%-12s %-14s %5s %8s %8s %14s %14s %6s\n' peer mode cases "stdio s" "HTTP s" "stdio cases/s" "HTTP cases/s" ratio
for sdk in python-sdk1 python-sdk2; do
  command=("$peers/$sdk/bin/python" "$root/fixtures/peers/${sdk/-/_}.py" --variant correct)
  for mode in fresh-process session; do
    options=(--cases 16 --seed 1 -j 2)
    [ "$mode" = session ] && options+=(--session)
    "$binary" run "${options[@]}" --output "$out/stdio" -- "${command[@]}" >/dev/null 2>&1 || true
    "$binary" run "${options[@]}" --output "$out/http" --url 'http://127.0.0.1:{port}/mcp' \
      -- "${command[@]}" --port '{port}' >/dev/null 2>&1 || true
    stdio=$(seconds "$out/stdio"); http=$(seconds "$out/http")
    cases=$((19 + 16))
    python3 - "$sdk" "$mode" "$cases" "$stdio" "$http" <<'PY'
import sys
sdk, mode, cases, stdio, http = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print(f"{sdk:<12} {mode:<14} {cases:5d} {stdio:8.1f} {http:8.1f} {cases/stdio:14.2f} {cases/http:14.2f} {http/stdio:6.2f}")
PY
  done
done
