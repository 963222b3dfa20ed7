#!/usr/bin/env bash
# make test: starts the dependencies when they are not running, then runs
# gofmt, go vet, golangci-lint (.golangci.yml, depguard's layering rules
# included) in every module, every test with -race against them, and short
# fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/deps.sh start)"
export GOFLAGS=${GOFLAGS:--buildvcs=false}
mkdir -p .hookline

# Every module of go.work, longest tests first: go test starts packages
# in the order of its patterns, two at a time on two cores, so the e2e
# suite (about ten minutes) and the clips renderer start at once instead
# of running alone at the end. The loop below stops the run when a module
# of go.work is missing here (bench is vetted and linted; its benchmarks
# are not tests).
MODULES=(e2e services/clips services/thumbnails services/webhooks services/billing services/assets services/gateway pkg sdk/go)
PATTERNS=("${MODULES[@]/#/./}"); PATTERNS=("${PATTERNS[@]/%//...}")
for m in $(sed -n 's|^[[:space:]]*\./||p' go.work); do
  [ "$m" = bench ] || [[ " ${MODULES[*]} " == *" $m "* ]] || { echo "scripts/test.sh: go.work module $m is not tested"; exit 1; }
done

echo "== gofmt"
unformatted=$(gofmt -l pkg sdk services e2e bench)
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
echo "== package map (README.md)"
scripts/package-map.sh
echo "== go vet"
go vet "${PATTERNS[@]}" ./bench/...
echo "== golangci-lint"
scripts/deps.sh lint-tools
eval "$(scripts/deps.sh env)"
for m in "${MODULES[@]}" bench; do
  # --allow-parallel-runners: several clones on one machine may lint at once.
  (cd "$m" && "$HOOKLINE_BIN/golangci-lint" run --allow-parallel-runners ./...) || { echo "golangci-lint failed in $m"; exit 1; }
done
echo "== helm chart (scripts/chart-check.sh)"
scripts/chart-check.sh
echo "== go test -race"
set +e
go test -race -count=1 -timeout 25m "${PATTERNS[@]}" 2>&1 | tee .hookline/test.log
status=${PIPESTATUS[0]}
set -e
if [ "$status" -eq 0 ]; then
  echo "== fuzz (${FUZZTIME:-10s} per target)"
  FUZZTIME=${FUZZTIME:-10s} scripts/fuzz.sh
  # make up in a fresh clone with 4222, 8080 and 9000 taken (~100 s).
  echo "== make up-test"
  scripts/up-test.sh
  echo "== make test-clients" && scripts/test-clients.sh
fi
pass=$(grep -c '^ok ' .hookline/test.log || true)
fail=$(grep -c "^FAIL	" .hookline/test.log || true)
echo "packages: $pass passed, $fail failed"
exit "$status"
