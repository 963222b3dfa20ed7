#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 10s), with
# FUZZ_PARALLEL workers when set (go test -parallel; default GOMAXPROCS):
# make test sets 1, so fuzzing beside the tests takes one core. Fuzz targets are
# found by name, so a new one is picked up without editing this file.
# A failing input is written by Go to the package's testdata/fuzz/ and
# becomes a regular test case; the output is shown when a run fails.
#
# Go 1.26's fuzzing coordinator can fail a duration-bounded run with a bare
# "context deadline exceeded" when its workers are starved at the deadline
# (golang/go#75804, fixed in Go 1.27): no input failed and none is written.
# Such a run, and only such a run, is retried, up to twice (a clean-clone
# run of make test met it twice in a row on one target).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# inputs counts the failing inputs Go has saved for a target.
inputs() { if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi; }

# fuzz runs one target; it fails with the target's output on a real failure.
fuzz() {
  local dir=$1 target=$2 attempt before after
  for attempt in 1 2 3; do
    before=$(inputs "$dir/testdata/fuzz/$target")
    if go test -run='^$' -fuzz="^$target\$" -fuzztime="$FUZZTIME" ${FUZZ_PARALLEL:+-parallel="$FUZZ_PARALLEL"} "./$dir" >"$log" 2>&1; then
      return 0
    fi
    after=$(inputs "$dir/testdata/fuzz/$target")
    if [ "$attempt" != 3 ] && [ "$after" = "$before" ] && grep -qx '    context deadline exceeded' "$log" &&
      ! grep -q 'Failing input written to' "$log"; then
      echo "fuzz: $dir $target hit the Go coordinator's deadline race (golang/go#75804), no failing input; retrying"
      continue
    fi
    cat "$log"
    return 1
  done
}

for dir in $(grep -rl --include='*_test.go' '^func Fuzz' pkg services | xargs -n1 dirname | sort -u); do
  for target in $(grep -h '^func Fuzz' "$dir"/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
    echo "fuzz: $dir $target ($FUZZTIME)"
    fuzz "$dir" "$target"
  done
done
