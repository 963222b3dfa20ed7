#!/usr/bin/env bash
# make test (what .ci/run calls): starts the dependencies when they are not
# running, then runs everything, as lanes side by side so the run takes as
# long as its longest lane instead of their sum:
#
#   checks  gofmt, the README's package map, ARCHITECTURE references,
#           go vet, golangci-lint (.golangci.yml, depguard's layering rules
#           included) in every module, the Helm chart; then short fuzz runs
#           of every target; then make up-test (make up in a fresh clone)
#   tests   every test of every module but e2e, with -race, against the
#           real Postgres, NATS and MinIO
#   e2e-N   the e2e suite with -race, its tests split into E2E_SHARDS
#           shards (default 2): each test runs its own stack of processes,
#           so shards overlap their waiting instead of queueing
#
# Lanes write to .hookline/<lane>.log; a lane's log is printed when it
# fails. The run ends with every lane's go test output (also in
# .hookline/test.log) and a "packages: N passed, N failed" line, and exits
# non-zero when any lane failed.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/deps.sh start)"
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# A test whose server is missing fails here instead of skipping.
export HOOKLINE_TEST_REQUIRE=1
E2E_SHARDS=${E2E_SHARDS:-2}
mkdir -p .hookline
rm -f .hookline/lane-*.log .hookline/lane-*.status

# Every module of go.work, longest tests first: go test starts packages in
# the order of its patterns. The loop below stops the run when a module of
# go.work is missing here (bench is vetted and linted; its benchmarks are
# not tests).
MODULES=(e2e services/clips services/thumbnails services/webhooks services/billing services/assets services/gateway pkg sdk/go)
PATTERNS=("${MODULES[@]/#/./}"); PATTERNS=("${PATTERNS[@]/%//...}")
for m in $(sed -n 's|^[[:space:]]*\./||p' go.work); do
  [ "$m" = bench ] || [[ " ${MODULES[*]} " == *" $m "* ]] || { echo "scripts/test.sh: go.work module $m is not tested"; exit 1; }
done

# Each step of a lane ends it on failure (|| return 1: errexit does not
# hold inside a lane, which runs where its status is tested).
checks() {
  # The static checks yield the cores to the tests, whose services must
  # start within their deadlines; fuzzing and the up-test do not.
  (renice -n 10 -p "$BASHPID" >/dev/null && static_checks) || return 1
  echo "== fuzz (${FUZZTIME:-10s} per target)"
  FUZZTIME=${FUZZTIME:-10s} scripts/fuzz.sh || return 1
  # make up in a fresh clone with 4222, 8080 and 9000 taken (~100 s).
  echo "== make up-test"
  scripts/up-test.sh || return 1
  # More suites that need no lane of their own go here, one line each:
  #   echo "== clients"; scripts/test-clients.sh || return 1
}

static_checks() {
  echo "== gofmt"
  unformatted=$(gofmt -l pkg sdk services e2e bench)
  if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; return 1; fi
  echo "== package map (README.md)"
  scripts/package-map.sh || return 1
  echo "== ARCHITECTURE references (docs/ARCHITECTURE.md)"
  scripts/arch-refs.sh || return 1
  echo "== go vet"
  go vet "${PATTERNS[@]}" ./bench/... || return 1
  echo "== golangci-lint"
  scripts/deps.sh lint-tools || return 1
  for m in "${MODULES[@]}" bench; do
    # --allow-parallel-runners: several clones on one machine may lint at once.
    (cd "$m" && "$HOOKLINE_BIN/golangci-lint" run --allow-parallel-runners ./...) || { echo "golangci-lint failed in $m"; return 1; }
  done
  echo "== helm chart (scripts/chart-check.sh)"
  scripts/chart-check.sh || return 1
}

tests() {
  go test -race -count=1 -timeout 25m "${PATTERNS[@]:1}"
}

# e2e_shard i runs the e2e tests whose index in the list is i modulo
# E2E_SHARDS.
e2e_shard() {
  local names
  names=$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' e2e/*_test.go | sort |
    awk -v n="$E2E_SHARDS" -v i="$1" 'NR % n == i' | paste -sd '|')
  [ -n "$names" ] || return 0
  go test -race -count=1 -timeout 25m -run "^($names)\$" ./e2e
}

# lane name command...: runs the command in the background, its output in
# .hookline/lane-<name>.log and its exit status in .hookline/lane-<name>.status.
pids=()
lane() {
  local name=$1; shift
  (
    set +e
    "$@" >".hookline/lane-$name.log" 2>&1
    echo $? >".hookline/lane-$name.status"
  ) &
  pids+=($!)
  echo "== lane $name started"
}

start=$(date +%s)
lane checks checks
# Everything the test lanes build, built once first: lanes that compiled
# the same packages at once would each do the work (a clean clone's cgo
# packages are never in the cache), and so would the e2e tests' own
# builds of the services.
echo "== build"
go build $(printf "./%s " services/*/cmd/*) || { echo "build failed"; wait; exit 1; }
go test -race -run '^$' "${PATTERNS[@]}" >.hookline/build.log 2>&1 || { cat .hookline/build.log; wait; exit 1; }
echo "== built in $(($(date +%s) - start)) s"
lane tests tests
for ((i = 0; i < E2E_SHARDS; i++)); do lane "e2e-$i" e2e_shard "$i"; done
for p in "${pids[@]}"; do wait "$p" || true; done

status=0
lanes=(checks tests)
for ((i = 0; i < E2E_SHARDS; i++)); do lanes+=("e2e-$i"); done
for name in "${lanes[@]}"; do
  rc=$(cat ".hookline/lane-$name.status" 2>/dev/null || echo 1)
  echo "== lane $name: exit $rc"
  if [ "$rc" != 0 ]; then
    status=1
    [ "$name" = checks ] && cat ".hookline/lane-$name.log"
  fi
done
echo "== checks (.hookline/lane-checks.log)"
grep '^== ' .hookline/lane-checks.log || true
echo "== go test -race (all lanes; .hookline/test.log)"
cat .hookline/lane-tests.log .hookline/lane-e2e-*.log | tee .hookline/test.log
pass=$(grep -c '^ok ' .hookline/test.log || true)
fail=$(grep -c "^FAIL	" .hookline/test.log || true)
echo "make test: $(($(date +%s) - start)) s of lanes"
echo "packages: $pass passed, $fail failed"
exit "$status"
