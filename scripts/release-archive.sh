#!/usr/bin/env bash
# The release archive of one platform, from the wheel maturin built for it:
#   scripts/release-archive.sh WHEEL_DIR TARGET TAG OUT_DIR
# takes the `elicit-check` binary out of the one wheel in WHEEL_DIR (a wheel is
# a zip: `<name>.data/scripts/elicit-check`), and writes
#   OUT_DIR/elicit-check-TAG-TARGET.tar.gz   (elicit-check-TAG-TARGET/: the
#                                             binary, README.md, LICENSE)
#   OUT_DIR/elicit-check-TAG-TARGET.tar.gz.sha256   (`SUM  NAME`, as sha256sum -c reads it)
# One build per platform thus ships as the wheel, the archive and the npm package.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
wheels="${1:?usage: release-archive.sh WHEEL_DIR TARGET TAG OUT_DIR}"
target="${2:?target}"
tag="${3:?tag}"
out="${4:?out dir}"
shopt -s nullglob
found=("$wheels"/*.whl)
if [ "${#found[@]}" -ne 1 ]; then
  echo "release-archive.sh: expected one wheel in $wheels, found ${#found[@]}" >&2
  exit 1
fi
name="elicit-check-$tag-$target"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
python3 -m zipfile -e "${found[0]}" "$scratch/wheel"
binary=("$scratch"/wheel/*.data/scripts/elicit-check)
if [ "${#binary[@]}" -ne 1 ]; then
  echo "release-archive.sh: no *.data/scripts/elicit-check in ${found[0]}" >&2
  exit 1
fi
mkdir -p "$scratch/$name" "$out"
cp "${binary[0]}" "$scratch/$name/elicit-check"
chmod 755 "$scratch/$name/elicit-check"
cp "$root/README.md" "$root/LICENSE" "$scratch/$name/"
tar -C "$scratch" -czf "$out/$name.tar.gz" "$name"
if command -v sha256sum >/dev/null 2>&1; then
  (cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
else
  (cd "$out" && shasum -a 256 "$name.tar.gz" >"$name.tar.gz.sha256")
fi
echo "$out/$name.tar.gz"
