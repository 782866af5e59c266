#!/usr/bin/env bash
# The release tag is the crate's version: `scripts/release-version.sh vX.Y.Z`
# exits 1, saying which differs, unless Cargo.toml and every npm package
# (npm/elicit-check, npm/platforms/*, and the launcher's optional
# dependencies) are at X.Y.Z. Run by .github/workflows/release.yml first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tag="${1:?usage: release-version.sh vX.Y.Z}"
want="${tag#v}"
crate=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -1)
status=0
if [ "$crate" != "$want" ]; then
  echo "release-version.sh: the tag $tag is not the crate's version $crate (Cargo.toml)" >&2
  status=1
fi
node - "$root" "$want" <<'JS' || status=1
const [root, want] = process.argv.slice(2);
const fs = require("node:fs");
const path = require("node:path");
const read = (file) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8"));
let wrong = [];
const main = read("npm/elicit-check/package.json");
if (main.version !== want) wrong.push(`npm/elicit-check is at ${main.version}`);
for (const [name, version] of Object.entries(main.optionalDependencies)) {
  if (version !== want) wrong.push(`npm/elicit-check depends on ${name}@${version}`);
}
for (const platform of fs.readdirSync(path.join(root, "npm/platforms"))) {
  const version = read(`npm/platforms/${platform}/package.json`).version;
  if (version !== want) wrong.push(`npm/platforms/${platform} is at ${version}`);
}
for (const line of wrong) console.error(`release-version.sh: ${line}, not ${want}`);
process.exit(wrong.length === 0 ? 0 : 1);
JS
exit "$status"
