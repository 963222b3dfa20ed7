#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 10s). Fuzz targets are
# found by name, so a new one is picked up without editing this file.
# A failing input is written by Go to the package's testdata/fuzz/ and
# becomes a regular test case; the output is shown when a run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' pkg services | xargs -n1 dirname | sort -u); do
  for target in $(grep -h '^func Fuzz' "$dir"/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
    echo "fuzz: $dir $target ($FUZZTIME)"
    if ! go test -run='^$' -fuzz="^$target\$" -fuzztime="$FUZZTIME" "./$dir" >"$log" 2>&1; then
      cat "$log"
      exit 1
    fi
  done
done
