#!/usr/bin/env bash
# make test-unit: every test of every go.work module that needs no
# Postgres, NATS JetStream or MinIO, in a few minutes. The HOOKLINE_TEST_*
# addresses are unset, so pkg/testkit skips the tests that need a server
# (with the reason); the image, vision and media libraries and tools are
# installed when missing (scripts/deps.sh unit-tools), since those tests
# run the real engines. make test runs everything.
#
# Every such test runs, the long media ones too (evaluation photos, every
# seeded template and caption style, recorded speech: they skip under
# go test -short, for a quicker look at a package).
# -race: the packages whose own code runs goroutines against each other
# (RACE below) are tested with the race detector; the rest without, which
# keeps the lane fast (make test runs everything with -race).
set -euo pipefail
cd "$(dirname "$0")/.."
# -trimpath: the build cache is shared with every clone; -ldflags=-w: links
# without DWARF (both: scripts/test.sh).
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath -ldflags=-w"
scripts/deps.sh unit-tools >&2
eval "$(scripts/deps.sh env)"
unset HOOKLINE_TEST_DATABASE_URL HOOKLINE_TEST_NATS_URL HOOKLINE_TEST_S3_ENDPOINT \
  HOOKLINE_TEST_S3_ACCESS_KEY HOOKLINE_TEST_S3_SECRET_KEY HOOKLINE_TEST_REQUIRE
mkdir -p .hookline

MODULES=(e2e services/clips services/thumbnails services/webhooks services/billing services/assets services/gateway pkg sdk/go)
PATTERNS=("${MODULES[@]/#/./}"); PATTERNS=("${PATTERNS[@]/%//...}")
# The packages run with -race, by their last path element (found with go
# list, so they are found where they move): the ones whose own code
# coordinates goroutines (budgets, the bus, the process lifecycle, credits,
# fair shares, rate limits, deliveries).
RACE=($(go list -f '{{.ImportPath}}' "${PATTERNS[@]}" | grep -E '/(membudget|messaging|platform|credits|fairshare|ratelimit|delivery)$'))
[ "${#RACE[@]}" -ge 7 ] || { echo "scripts/test-unit.sh: the -race packages were not found: ${RACE[*]}"; exit 1; }

# The packages whose tests take longest (media work: go test's times in
# bench/RESULTS.md, make test-unit), named first so go test starts them
# first and the others fill the second core beside them; each is tested
# once. One that has moved is left out here (its module's pattern still
# tests it).
LONG=()
for d in services/clips/internal/ffrender services/thumbnails/internal/generate/compose \
  services/clips/internal/transcribe services/thumbnails/internal/analyze/critique \
  services/clips/internal/media services/thumbnails/internal/edits/matte; do
  [ -d "$d" ] && LONG+=("./$d")
done

set +e
{
  go test -count=1 -timeout 25m "${LONG[@]}" "${PATTERNS[@]}"
  a=$?
  go test -race -count=1 -timeout 25m "${RACE[@]}"
  b=$?
  exit $((a | b))
} 2>&1 | tee .hookline/test-unit.log
status=${PIPESTATUS[0]}
set -e
pass=$(grep -c '^ok ' .hookline/test-unit.log || true)
fail=$(grep -c "^FAIL	" .hookline/test-unit.log || true)
echo "packages: $pass passed, $fail failed (make test-unit; tests that need a server skip)"
exit "$status"
