#!/usr/bin/env node
// The `elicit-check` command of the npm package: runs the prebuilt binary of
// the optional dependency that matches this platform (one package per
// platform, `@elicit-check/<os>-<cpu>`, as esbuild and biome ship theirs; npm
// installs only the one whose `os` and `cpu` match). Arguments, stdio and the
// exit code pass through unchanged; a signal that ends the binary ends this
// process the same way.
//
// No binary for this platform (Windows: the binary needs Unix process groups;
// or an install with optional dependencies left out): exit 1 with how to build
// it instead.
"use strict";

const { spawnSync } = require("node:child_process");

const PLATFORMS = {
  "linux-x64": "@elicit-check/linux-x64",
  "linux-arm64": "@elicit-check/linux-arm64",
  "darwin-x64": "@elicit-check/darwin-x64",
  "darwin-arm64": "@elicit-check/darwin-arm64",
};

/** The binary's path, or why there is none. */
function binary() {
  const platform = `${process.platform}-${process.arch}`;
  const name = PLATFORMS[platform];
  if (name === undefined) {
    return {
      why: `no prebuilt elicit-check for ${platform} (prebuilt: ${Object.keys(PLATFORMS).join(", ")})`,
    };
  }
  try {
    return { path: require.resolve(`${name}/bin/elicit-check`) };
  } catch {
    return {
      why: `the package ${name} with the binary for ${platform} is not installed (was the install run with --omit=optional or --no-optional?)`,
    };
  }
}

const found = binary();
if (found.path === undefined) {
  process.stderr.write(
    `elicit-check: ${found.why}; build it with Rust instead: cargo install --locked elicit-check\n`,
  );
  process.exit(1);
}
const done = spawnSync(found.path, process.argv.slice(2), { stdio: "inherit" });
if (done.error !== undefined) {
  process.stderr.write(`elicit-check: cannot run ${found.path}: ${done.error.message}\n`);
  process.exit(1);
}
if (done.signal !== null) {
  process.kill(process.pid, done.signal);
}
process.exit(done.status ?? 1);
