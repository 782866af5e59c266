#!/usr/bin/env bash
# The default `elicit-check check` on the SDK peers, timed beside one cold start
# of the same server (initialize + tools/list), back to back in one run, so the
# ratio holds on a loaded machine (docs/src/dev/benchmarks.md, "check as a CI gate").
#   scripts/bench-check.sh [BINARY]      (default: target/release/elicit-check)
# Needs the peers (scripts/peers.sh). Prints one line per peer:
#   peer  cold start (median of 5)  check wall time  ratio  exit code
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/target/release/elicit-check}"
peers="${ELICIT_CHECK_PEERS_DIR:-$root/target/peers}"
py="$peers/python-sdk1/bin/python"

cold_start() { # median seconds from spawn to the tools/list reply, over 5 starts
  python3 - "$@" <<'PY'
import json, statistics, subprocess, sys, time
times = []
for _ in range(5):
    start = time.monotonic()
    server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    def ask(message):
        server.stdin.write(json.dumps(message) + "\n"); server.stdin.flush()
        while "id" not in json.loads(server.stdout.readline()):
            pass
    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}})
    server.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    times.append(time.monotonic() - start)
    server.stdin.close(); server.wait()
print(f"{statistics.median(times):.2f}")
PY
}

row() { # NAME TOOL ACTED -- COMMAND...
  local name="$1" tool="$2" acted="$3"; shift 4
  local cold start end code=0
  cold=$(cold_start "$@")
  start=$(date +%s.%N)
  "$binary" check --tool "$tool" --acted "$acted" --seed 1 -- "$@" >/dev/null 2>&1 || code=$?
  end=$(date +%s.%N)
  python3 -c "import sys; c, s = float(sys.argv[2]), float(sys.argv[3]); print(f'{sys.argv[1]:<26} cold {c:5.2f} s  check {s:7.1f} s  {s / c:6.1f}x  exit {sys.argv[4]}')" \
    "$name" "$cold" "$(echo "$end - $start" | bc)" "$code"
}

row python-sdk1-correct calculate /computed -- "$py" "$root/fixtures/peers/python_sdk1.py"
row python-sdk1-naive calculate /computed -- "$py" "$root/fixtures/peers/python_sdk1.py" --variant naive
row booking.py book /booked -- "$py" "$root/fixtures/servers/booking.py"
row booking.py-lenient book /booked -- "$py" "$root/fixtures/servers/booking.py" --bug lenient-numbers
row typescript-correct calculate /computed -- node "$peers/node/server.mjs"
row typescript-naive calculate /computed -- node "$peers/node/server.mjs" --variant naive
# The SDK v2 peers speak both eras: the default `--protocol auto` checks both.
py2="$peers/python-sdk2/bin/python"
row python-sdk2-mrtr book /booked -- "$py2" "$root/fixtures/peers/python_sdk2_mrtr.py"
row typescript-v2 book /booked -- node "$peers/node-v2/booking.mjs"
