#!/bin/sh
# Installs the published reference server @modelcontextprotocol/server-everything
# (npm, pinned) under target/server-everything/, for `elicit-check check` and
# tests/check/cli.rs (docs/src/check.md, "What it finds in
# @modelcontextprotocol/server-everything"). Idempotent: does nothing when the
# pinned version is already there. Needs node >= 18 and npm; prints where the server is.
#
#   scripts/server-everything.sh
#   node target/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
set -eu
VERSION=2026.8.31
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR="$ROOT/target/server-everything"
PACKAGE="$DIR/node_modules/@modelcontextprotocol/server-everything"
# Prints the server's path and exits when the pinned version is installed.
done_if_installed() {
    if [ -f "$PACKAGE/package.json" ] && grep -q "\"version\": \"$VERSION\"" "$PACKAGE/package.json"; then
        echo "$PACKAGE/dist/index.js"
        exit 0
    fi
}
done_if_installed
mkdir -p "$DIR"
# One install at a time (`cargo nextest run` starts a process per test): the
# later ones wait, then find the pinned version there.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$DIR/.lock"
    flock 9
    done_if_installed
fi
cd "$DIR"
[ -f package.json ] || echo '{"name":"elicit-check-server-everything","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact "@modelcontextprotocol/server-everything@$VERSION" >&2
echo "$PACKAGE/dist/index.js"
