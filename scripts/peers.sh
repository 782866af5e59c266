#!/usr/bin/env bash
# Sets up the environments of the SDK peer servers (docs/src/peers.md) under target/peers/:
#   target/peers/python-sdk1/  venv with fixtures/peers/requirements-sdk1.txt (mcp 1.x)
#   target/peers/python-sdk2/  venv with fixtures/peers/requirements-sdk2.txt (mcp 2.x)
#   target/peers/fastmcp/      venv with fixtures/peers/requirements-fastmcp.txt (standalone fastmcp 4.x)
#   target/peers/pytest/       venv with examples/pytest/requirements.txt (pytest)
#   target/peers/maturin/      venv with scripts/maturin-requirements.txt (maturin)
#   target/peers/node/         `npm ci` of fixtures/peers/typescript/package-lock.json
#   target/peers/node-v2/      `npm ci` of fixtures/peers/typescript-v2/package-lock.json (SDK v2)
#   target/peers/workflow-lint/ `npm ci` of scripts/workflow-lint/package-lock.json (action-validator)
# Every version is pinned in those files. Idempotent: an environment whose pins
# have not changed since its last successful set-up is left as it is (a stamp
# file holds a copy of the pins). Needs python3 >= 3.10 (with venv) and
# node >= 18 with npm; says so and exits 1 when one is missing.
# The peer tests (tests/peers.rs) run this script themselves when an environment
# is missing, so `cargo test` is the whole set-up.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peers="$root/fixtures/peers"
dest="${ELICIT_CHECK_PEERS_DIR:-$root/target/peers}"
mkdir -p "$dest"
# One set-up at a time: `cargo nextest run` starts a process per test, and
# several of them may find an environment missing at once (two `python -m venv`
# in one folder break each other). The later ones wait, then find it up to date.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dest/.lock"
  flock 9
fi

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "peers.sh: $1 not found on PATH: the SDK peers need $2" >&2
    exit 1
  fi
}
need python3 "python3 >= 3.10 with the venv module"
need node "node >= 18"
need npm "npm (it comes with node)"
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || {
  echo "peers.sh: python3 is $(python3 --version 2>&1); the MCP Python SDK needs >= 3.10" >&2
  exit 1
}
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' || {
  echo "peers.sh: node is $(node --version); the MCP TypeScript SDK needs >= 18" >&2
  exit 1
}

# python_env NAME REQUIREMENTS: a venv at $dest/NAME with exactly those pins.
python_env() {
  local env="$dest/$1" requirements="$2"
  if cmp -s "$requirements" "$env/.pins" 2>/dev/null; then
    echo "peers.sh: $1 is up to date"
    return
  fi
  echo "peers.sh: setting up $1 from $(basename "$requirements")"
  rm -rf "$env"
  python3 -m venv "$env"
  "$env/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$requirements"
  "$env/bin/python" -m pip check
  cp "$requirements" "$env/.pins"
}

python_env python-sdk1 "$peers/requirements-sdk1.txt"
python_env python-sdk2 "$peers/requirements-sdk2.txt"
python_env fastmcp "$peers/requirements-fastmcp.txt"
# pytest, for the example of a server's own test suite (examples/pytest/).
python_env pytest "$root/examples/pytest/requirements.txt"
# maturin, for the test of the Python package's wheel (pyproject.toml).
python_env maturin "$root/scripts/maturin-requirements.txt"

# js_env NAME SOURCE: `npm ci` at $dest/NAME from SOURCE's package(-lock).json
# (SOURCE under fixtures/peers/, or an absolute path).
js_env() {
  local env="$dest/$1" source="$2"
  case "$source" in /*) ;; *) source="$peers/$source" ;; esac
  if cmp -s "$source/package-lock.json" "$env/.pins" 2>/dev/null; then
    echo "peers.sh: $1 is up to date"
    return
  fi
  echo "peers.sh: setting up $1 from $2/package-lock.json"
  rm -rf "$env"
  mkdir -p "$env"
  cp "$source/package.json" "$source/package-lock.json" "$env/"
  (cd "$env" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$source/package-lock.json" "$env/.pins"
}

js_env node typescript
js_env node-v2 typescript-v2
# action-validator, for the test of the release workflow and the Action.
js_env workflow-lint "$root/scripts/workflow-lint"
node_env="$dest/node"
node_v2_env="$dest/node-v2"
# Node resolves a module's imports from the node_modules beside its real path,
# so the servers are copied (not linked) next to them, on every run.
cp "$peers/typescript/server.mjs" "$node_env/server.mjs"
cp "$peers/typescript/refund.mjs" "$node_env/refund.mjs"
cp "$peers/typescript/arrival.mjs" "$node_env/arrival.mjs"
cp "$peers/typescript/form_peer.mjs" "$node_env/form_peer.mjs"
cp "$peers/typescript/standalone_form.mjs" "$node_env/standalone_form.mjs"
cp "$peers/typescript-v2/"*.mjs "$node_v2_env/"
# The before/after pairs of the fix guide (fixtures/fixes/), beside the same packages.
mkdir -p "$node_env/fixes" "$node_v2_env/fixes"
cp "$root/fixtures/fixes/typescript/"*.mjs "$node_env/fixes/"
cp "$root/fixtures/fixes/typescript-v2/"*.mjs "$node_v2_env/fixes/"
echo "peers.sh: peers ready in $dest"
