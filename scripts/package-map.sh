#!/usr/bin/env bash
# Checks the package map in the README's "Repository" section against the
# tree: every directory of Go files under pkg/ and services/ is listed
# exactly once, and every listed path exists. The map is a tree: each line's
# first word is a path relative to the nearest less indented line above it
# (two spaces a level); words after it describe it.
set -euo pipefail
cd "$(dirname "$0")/.."

listed=$(awk '
  /^## Repository/ { section = 1; next }
  section && /^## / { exit }
  section && /^```/ { block = !block; next }
  section && block && NF {
    match($0, /^ */); depth = RLENGTH / 2
    name = $1; sub(/\/$/, "", name)
    stack[depth] = name
    path = stack[0]
    for (i = 1; i <= depth; i++) path = path "/" stack[i]
    print path
  }' README.md)

want=$(find pkg services -name '*.go' -not -path '*/testdata/*' -printf '%h\n' | sort -u)
status=0
for dir in $want; do
  n=$(grep -cx -- "$dir" <<<"$listed" || true)
  if [ "$n" != 1 ]; then echo "package-map: $dir is listed $n times in README.md (want once)"; status=1; fi
done
for path in $listed; do
  case $path in pkg|services|pkg/*|services/*) ;; *) continue ;; esac
  if [ ! -d "$path" ]; then echo "package-map: README.md lists $path, which is not in the tree"; status=1; fi
done
exit $status
