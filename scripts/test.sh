#!/usr/bin/env bash
# make test (what .ci/run calls): starts the dependencies when they are not
# running, then runs everything as lanes side by side, so the run takes
# about as long as its longest lane instead of the sum of its steps:
#
#   checks   gofmt, the README's package map, ARCHITECTURE references,
#            the free-port check (scripts/port-check.sh), go vet,
#            golangci-lint (.golangci.yml, depguard's layering rules
#            included) in every module, the Helm chart
#   fuzz     short fuzz runs of every target (one worker each)
#            (checks and fuzz run at nice 10: they give way to the tests,
#            whose services must start within their deadlines)
#   clients  make up in a fresh clone (up-test), then the third-party
#            clients (test-clients)
#   media    the media engines' packages without -race (NORACE below),
#            then the few tests of other packages that run them over long
#            media (SLOW_MEDIA_TESTS)
#   race     every other package of every module but e2e, with -race
#            (media and race test against the real Postgres, NATS and
#            MinIO, TEST_P packages at a time each; as one lane they
#            ended alone, on half the machine, minutes after the others)
#   e2e-N    the e2e suite with -race, its tests dealt to E2E_SHARDS
#            shards (default 3), longest first: each test starts its own
#            stack of processes and spends most of its time waiting on
#            them (the whole suite used 340 CPU-s in 10 min alone), so the
#            shards overlap their waiting
#
# Every package and test package is compiled once before the test lanes
# start (a clean clone's cgo packages are never in the cache, and lanes
# compiling the same packages at once would each do the work).
# Nothing here is shared by name between lanes: each test has its own
# schema, NATS namespace, bucket and loopback ports (pkg/testkit).
#
# Lanes write to .hookline/lane-<name>.log. The run ends with a summary
# (lane, exit status, seconds, processor seconds), the costliest test
# binaries and e2e tests (scripts/test-exec.sh), the failing lanes' go
# test failures or log tails, every go test output in .hookline/test.log,
# the run's seconds and processor seconds, "packages: N passed, N
# failed", and exits non-zero when any lane failed.
#
# TEST_SERIAL=1 runs the same lanes one after another (a slow machine
# whose tests miss their deadlines beside each other).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/deps.sh start)"
# -trimpath: a package's build cache key holds its directory unless paths
# are trimmed, so without it a fresh clone (CI's, and up-test's below)
# compiles every package of the repository again, cgo libraries included;
# with it a clone reuses what any other clone compiled.
# -ldflags=-w: test binaries and the services the tests start are linked
# without DWARF (no debugger reads them; stack traces, the race detector's
# reports and pprof use the symbol table, which stays). go test links every
# test binary again in each run, and the link without DWARF takes about
# half the processor time (thumbnails' app test with -race: 4.1 → 2.6 s).
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath -ldflags=-w"
# A test whose server is missing fails here instead of skipping.
export HOOKLINE_TEST_REQUIRE=1
# Every test binary runs through scripts/test-exec.sh, which appends its
# processor and wall seconds to .hookline/test-cpu.txt (e2e adds a line
# per test); the summary names the costliest.
export HOOKLINE_ROOT=$PWD HOOKLINE_TEST_CPU=$PWD/.hookline/test-cpu.txt
EXEC=(-exec "$PWD/scripts/test-exec.sh")
E2E_SHARDS=${E2E_SHARDS:-3}
TEST_P=${TEST_P:-2}
mkdir -p .hookline
rm -f .hookline/lane-*.log .hookline/lane-*.status .hookline/lane-*.time .hookline/lane-*.cpu "$HOOKLINE_TEST_CPU"

# Every module of go.work. The loop below stops the run when a module of
# go.work is missing here (bench is vetted and linted; its benchmarks are
# not tests).
MODULES=(e2e services/clips services/thumbnails services/webhooks services/billing services/assets services/gateway pkg sdk/go)
PATTERNS=("${MODULES[@]/#/./}"); PATTERNS=("${PATTERNS[@]/%//...}")
for m in $(sed -n 's|^[[:space:]]*\./||p' go.work); do
  [ "$m" = bench ] || [[ " ${MODULES[*]} " == *" $m "* ]] || { echo "scripts/test.sh: go.work module $m is not tested"; exit 1; }
done
# The e2e tests that take longest (their wall seconds in a run's
# .hookline/test-cpu.txt), dealt first so the shards end together; the
# others follow by name. A name here that no longer exists is ignored.
E2E_LONG=(TestHostileCaptionFilesRenderInsideTheFrame TestKilledThumbnailsSettlesEveryPaidSagaAtRestart
  TestReadYourWrites TestCLIThroughTheGateway TestRenderExportsAndCensorThroughTheGateway
  TestMCPThroughTheGateway TestClipRendersThroughTheGateway TestClipsThroughTheGateway
  TestCaptionsInSpanishThroughTheGateway TestClipPromptThroughTheGateway TestEditsThroughTheGateway)

# Each step of a lane ends it on failure (|| return 1: errexit does not
# hold inside a lane, which runs where its status is tested).
static_checks() {
  echo "== gofmt"
  unformatted=$(gofmt -l pkg sdk services e2e bench)
  if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; return 1; fi
  echo "== package map (README.md)"
  scripts/package-map.sh || return 1
  echo "== ARCHITECTURE references (docs/ARCHITECTURE.md)"
  scripts/arch-refs.sh || return 1
  echo "== free ports (scripts/port-check.sh)"
  scripts/port-check.sh || return 1
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

checks() {
  renice -n 10 -p "$BASHPID" >/dev/null && static_checks
}

fuzz() {
  echo "== fuzz (${FUZZTIME:-10s} per target, one worker)"
  renice -n 10 -p "$BASHPID" >/dev/null && FUZZTIME=${FUZZTIME:-10s} FUZZ_PARALLEL=1 scripts/fuzz.sh
}

clients() {
  # make up in a fresh clone with 4222, 8080 and 9000 taken.
  echo "== make up-test"
  scripts/up-test.sh || return 1
  echo "== make test-clients"
  scripts/test-clients.sh || return 1
}

# The media engines (pictures, video, speech) run without -race: their
# goroutines fan work out over disjoint frames, strips and segments and
# join it, while the detector multiplies their CPU several times over
# (clips' ffrender alone took 18 min with it in a clean-clone run on two
# cores). Everything that coordinates — services' app, use cases and
# adapters, pkg/platform, pkg/contracts, the budgets — keeps -race, and
# calls the engines in its own tests.
NORACE='/(ffrender|transcribe|media|matte|compose|critique|overlay|faceswap|adjust|backdrop|combine|instruct|tesseract|libvips|vision|dlib|imaging|scene|textai)$'
# Tests of coordinating packages whose cost is the engines' Go loops over
# long or large media (scenes, faces and loudness of minutes of video,
# background removal of full photos), which the detector multiplies as it
# does the engines' own: they run in the pass without -race. Their
# packages' other tests drive the same paths with -race on small media.
# A name here that no longer exists matches nothing.
SLOW_MEDIA_TESTS='^(TestRecordedTalkIsBuiltOnWhatWasSaid|TestBackgroundEditsKeepTheAstronautsNeck|TestBackgroundEditsCutAPlainSubject)$'
SLOW_MEDIA_PACKAGES=(./services/clips/internal/app ./services/thumbnails/internal/app)
split_packages() {
  go list "${PATTERNS[@]:1}" >.hookline/packages.txt
  grep -Ev "$NORACE" .hookline/packages.txt >.hookline/packages-race.txt || true
  grep -E "$NORACE" .hookline/packages.txt >.hookline/packages-norace.txt || true
}

media() {
  local rc=0
  go test "${EXEC[@]}" -count=1 -p "$TEST_P" -timeout 30m $(cat .hookline/packages-norace.txt) || rc=1
  go test "${EXEC[@]}" -count=1 -p "$TEST_P" -timeout 30m -run "$SLOW_MEDIA_TESTS" "${SLOW_MEDIA_PACKAGES[@]}" || rc=1
  return $rc
}

race() {
  go test "${EXEC[@]}" -race -count=1 -p "$TEST_P" -timeout 30m -skip "$SLOW_MEDIA_TESTS" $(cat .hookline/packages-race.txt)
}

# e2e_names prints the e2e tests, the long ones first.
e2e_names() {
  local all
  all=$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' e2e/*_test.go | sort)
  for n in "${E2E_LONG[@]}"; do grep -qx "$n" <<<"$all" && echo "$n"; done
  grep -vxF -f <(printf '%s\n' "${E2E_LONG[@]}") <<<"$all" || true
}

# e2e_shard i runs the e2e tests dealt to shard i: in e2e_names's order,
# to shards 0, 1, …, n-1, n-1, …, 0, 0, 1, … (so the longest two are apart).
e2e_shard() {
  local names
  names=$(e2e_names | awk -v n="$E2E_SHARDS" -v i="$1" '{ r = (NR - 1) % (2 * n); s = r < n ? r : 2 * n - 1 - r } s == i' | paste -sd '|')
  [ -n "$names" ] || return 0
  go test "${EXEC[@]}" -race -count=1 -timeout 40m -run "^($names)\$" ./e2e
}

# cpu_seconds prints the processor seconds (user + system) of everything
# this shell ran and waited for: the second line of bash's times (its
# children), written to a file first, since times in a pipe or $(…) would
# run in a fresh subshell, which has no children yet.
cpu_seconds() {
  local f
  f=$(mktemp)
  times >"$f"
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$f"
  rm -f "$f"
}

# lane name command...: runs the command in the background (in the
# foreground under TEST_SERIAL), its output in .hookline/lane-<name>.log,
# its exit status and seconds beside it.
pids=()
lanes=()
lane() {
  local name=$1; shift
  lanes+=("$name")
  (
    set +e
    t0=$(date +%s)
    "$@" >".hookline/lane-$name.log" 2>&1
    echo $? >".hookline/lane-$name.status"
    echo $(($(date +%s) - t0)) >".hookline/lane-$name.time"
    cpu_seconds >".hookline/lane-$name.cpu"
  ) &
  if [ -n "${TEST_SERIAL:-}" ]; then wait $! || true; else pids+=($!); fi
  echo "== lane $name started at $(($(date +%s) - start)) s"
}

start=$(date +%s)
lane checks checks
lane fuzz fuzz
# Everything the test lanes build, built once first (beside the checks,
# which run niced): the services (e2e links them once a test binary,
# testkit.BuildAll) and every package and test package with -race. go list
# -export compiles without linking; go test links each test binary once,
# when it runs it.
echo "== build"
if ! { go build $(printf "./%s " services/*/cmd/*) && split_packages && go list -race -test -export -deps ./e2e/... $(cat .hookline/packages-race.txt) >/dev/null && go list -test -export -deps $(cat .hookline/packages-norace.txt) "${SLOW_MEDIA_PACKAGES[@]}" >/dev/null; } >.hookline/build.log 2>&1; then
  cat .hookline/build.log
  echo "== build failed; waiting for the checks lane"
  for p in "${pids[@]}"; do wait "$p" || true; done
  exit 1
fi
echo "== built at $(($(date +%s) - start)) s"
lane media media
lane race race
lane clients clients
for ((i = 0; i < E2E_SHARDS; i++)); do lane "e2e-$i" e2e_shard "$i"; done
for p in "${pids[@]}"; do wait "$p" || true; done

status=0
cat .hookline/lane-media.log .hookline/lane-race.log .hookline/lane-e2e-*.log >.hookline/test.log
echo "== checks, fuzz and clients lanes (.hookline/lane-{checks,fuzz,clients}.log)"
grep -hE '^(== |fuzz: |up-test: |test-clients: |port-check: )' .hookline/lane-checks.log .hookline/lane-fuzz.log .hookline/lane-clients.log || true
for name in "${lanes[@]}"; do
  rc=$(cat ".hookline/lane-$name.status" 2>/dev/null || echo 1)
  if [ "$rc" != 0 ]; then
    status=1
    echo "== lane $name failed (exit $rc), .hookline/lane-$name.log:"
    if grep -qE '^(--- FAIL|FAIL)' ".hookline/lane-$name.log"; then
      grep -E '^(--- FAIL|FAIL|panic:)|^\s+\S+_test\.go:[0-9]+:' ".hookline/lane-$name.log" | head -100
    else
      tail -n 60 ".hookline/lane-$name.log"
    fi
  fi
done
echo "== summary"
printf '%-8s %6s %6s %7s  %s\n' lane exit s cpu-s log
for name in "${lanes[@]}"; do
  printf '%-8s %6s %6s %7s  %s\n' "$name" "$(cat ".hookline/lane-$name.status" 2>/dev/null || echo '?')" \
    "$(cat ".hookline/lane-$name.time" 2>/dev/null || echo '?')" "$(cat ".hookline/lane-$name.cpu" 2>/dev/null || echo '?')" ".hookline/lane-$name.log"
done
echo "== costliest test binaries and e2e tests (cpu-s, s; all in .hookline/test-cpu.txt)"
sort -rn "$HOOKLINE_TEST_CPU" 2>/dev/null | head -n 15 || true
pass=$(grep -c '^ok ' .hookline/test.log || true)
fail=$(grep -c "^FAIL	" .hookline/test.log || true)
cpu_seconds >.hookline/test.cpu
echo "make test: $(($(date +%s) - start)) s, $(cat .hookline/test.cpu) CPU-s (everything it ran but the dependencies' servers)"
echo "packages: $pass passed, $fail failed (.hookline/test.log)"
exit "$status"
