#!/usr/bin/env bash
# go test -exec for make test: runs one test binary (its path and flags are
# the arguments, the package's directory the working directory), then
# appends a line "<processor seconds> <wall seconds> <package directory>"
# to $HOOKLINE_TEST_CPU, so that make test can name the packages that cost
# most. Processor seconds are the binary's and everything it waited for
# (the services, ffmpeg and tools it ran): bash's times after the child.
# The test binary's exit status is this script's.
set -u
t0=$(date +%s)
"$@"
rc=$?
if [ -n "${HOOKLINE_TEST_CPU:-}" ]; then
  f=$(mktemp)
  times >"$f"
  cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$f")
  rm -f "$f"
  echo "$cpu $(($(date +%s) - t0)) ${PWD#"${HOOKLINE_ROOT:-}"/}" >>"$HOOKLINE_TEST_CPU"
fi
exit $rc
