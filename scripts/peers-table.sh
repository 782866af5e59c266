#!/usr/bin/env bash
# Prints the cross-SDK table (docs/src/peers.md, "The cross-SDK table") as
# Markdown on stdout: sets the SDK peers up (scripts/peers.sh), runs
# `elicit-check run` on each of the six (the test tests/peers.rs, which builds
# the table; its `transports` column comes from the peers list in src/peers.rs),
# and prints the table it built. When the table changed, the test
# leaves it in snapshots/cross_sdk_table.snap.new for review (`cargo insta review`) and that
# new table is printed; nothing is accepted silently.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/peers.sh >&2
INSTA_FORCE_PASS=1 cargo test --locked --test main peers::sdk_peers >&2
file=snapshots/cross_sdk_table.snap
if [ -f "$file.new" ]; then
  file="$file.new"
fi
# The snapshot's header ends at its second `---` line.
awk 'seen >= 2 { print } /^---$/ { seen++ }' "$file"
