#!/usr/bin/env bash
# The npm packages of a release, from its archives:
#   scripts/release-npm.sh ARCHIVE_DIR TAG pack|publish [OUT_DIR]
# checks each archive against its .sha256, puts its binary into the platform's
# package (a copy of npm/platforms/PLATFORM with bin/elicit-check), then packs
# every platform package and the launcher (npm/elicit-check) into OUT_DIR
# (`npm pack`; default: ./npm-packages), or publishes them (`npm publish
# --access public`: the platform packages first, so the launcher's optional
# dependencies exist when it appears).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
archives="${1:?usage: release-npm.sh ARCHIVE_DIR TAG pack|publish [OUT_DIR]}"
tag="${2:?tag}"
mode="${3:?pack or publish}"
out="${4:-$PWD/npm-packages}"
case "$mode" in pack | publish) ;; *) echo "release-npm.sh: mode is pack or publish, not $mode" >&2; exit 2 ;; esac
archives="$(cd "$archives" && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# npm/platforms/<platform> -> the Rust target its archive was built for.
declare -A targets=(
  [linux-x64]=x86_64-unknown-linux-gnu
  [linux-arm64]=aarch64-unknown-linux-gnu
  [darwin-x64]=x86_64-apple-darwin
  [darwin-arm64]=aarch64-apple-darwin
)

ship() { # FOLDER: pack or publish one package folder
  if [ "$mode" = publish ]; then
    (cd "$1" && npm publish --access public)
  else
    (cd "$1" && npm pack --loglevel=error --pack-destination "$out" >/dev/null)
  fi
}

for folder in "$root"/npm/platforms/*/; do
  platform="$(basename "$folder")"
  target="${targets[$platform]:-}"
  if [ -z "$target" ]; then
    echo "release-npm.sh: npm/platforms/$platform has no Rust target here" >&2
    exit 1
  fi
  name="elicit-check-$tag-$target"
  archive="$archives/$name.tar.gz"
  if [ ! -f "$archive" ] || [ ! -f "$archive.sha256" ]; then
    echo "release-npm.sh: $name.tar.gz or its .sha256 is missing from $archives" >&2
    exit 1
  fi
  if command -v sha256sum >/dev/null 2>&1; then
    (cd "$archives" && sha256sum -c --quiet "$name.tar.gz.sha256") || {
      echo "release-npm.sh: $name.tar.gz does not match its SHA-256 sum" >&2
      exit 1
    }
  else
    (cd "$archives" && shasum -a 256 -c --quiet "$name.tar.gz.sha256") || {
      echo "release-npm.sh: $name.tar.gz does not match its SHA-256 sum" >&2
      exit 1
    }
  fi
  package="$scratch/$platform"
  mkdir -p "$package/bin"
  cp "$folder/package.json" "$package/"
  tar -xzf "$archive" -C "$scratch" "$name/elicit-check"
  mv "$scratch/$name/elicit-check" "$package/bin/elicit-check"
  chmod 755 "$package/bin/elicit-check"
  ship "$package"
done
mkdir -p "$scratch/elicit-check/bin"
cp "$root/npm/elicit-check/package.json" "$scratch/elicit-check/"
cp "$root/npm/elicit-check/bin/elicit-check.js" "$scratch/elicit-check/bin/"
ship "$scratch/elicit-check"
