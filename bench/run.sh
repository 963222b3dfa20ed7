#!/usr/bin/env bash
# make bench: each part of bench/RESULTS.md's table of current figures.
# Output goes to bench/out/<part>.txt; figures are copied by hand into
# bench/RESULTS.md with the machine and date.
#
#   bench/run.sh [all|billing|gateway|ratelimit|assets|thumbnails|text|clips|clips-batch|edits|webhooks|go|serve|budget|hostile]
#
# billing: reserve latency at 500/s, outbox lag, sagas/s (bench/cmd/loadgen
# over NATS; only billing runs). gateway: GET /account/credits through the
# gateway vs straight to billing, with nginx and a bare Go reverse proxy as
# peers (wrk; billing and the gateway run). ratelimit: admitted vs limit
# across gateway replicas. assets, thumbnails, text, clips, edits: their
# requests through the gateway and their engines in process. webhooks:
# clips.project.ready events published into the CLIPS stream at 50/s for
# 60 s, delivered by the webhooks service to loadgen's receiver (latency
# from the event's occurredAt), then the same load through
# bench/cmd/plainforwarder, the floor, with the service stopped. go: the Go
# benchmarks of pkg/media/vision, assets' style, the rate limiter and
# pkg/platform/messaging (no service runs). serve starts the whole stack as the
# measurements see it, writes the key and principal to bench/out/serve.env
# and waits, for measuring by hand. budget (not part of all: it configures
# the thumbnails process its own way) sends 20 background-removes of a
# 39.6 MP JPEG at once straight to a thumbnails process with a 1 GiB image
# memory budget and reads its RSS during the burst and 30 s after. hostile
# (not part of all either) is issue 30's probe: billing and thumbnails with
# its default configuration, 40 MP JPEGs and zero-filled PNGs at the pixel
# limit (and one claiming 60000x60000) through every endpoint that decodes
# a picture, 6 at once for 90 s, reading thumbnails' RSS and VmHWM;
# HOSTILE_LIMIT=bytes also gives it HOOKLINE_MEMORY_LIMIT, as the chart does.
# clips-batch (not part of all: clips ends with it) is clips' two batches of
# 10 renders alone, one worker process then two, back to back; the workers
# size themselves from the CPUs they have unless HOOKLINE_CLIPS_WORKERS /
# HOOKLINE_CLIPS_RENDER_THREADS are exported; BATCH_RENDERS=n renders n in
# each batch instead of 10.
#
# Knobs for investigating: WRK_CONNS (default 32), WRK_TRACE=1 (also hit
# billing with a sampled traceparent), GATEWAY_PROCS / GATEWAY_GOGC / BILLING_PROCS / BILLING_GOGC (the
# gateway's GOMAXPROCS / GOGC, billing's GOMAXPROCS / GOGC), GATEWAY_DEBUG_ADDR / BILLING_DEBUG_ADDR
# (pprof and /metrics of those processes while the load runs), BENCH_NO_BUILD=1
# (run the binaries already in .hookline/bin, for A/B comparisons),
# GATEWAY_PEERS=0 (skip the gateway's peers).
set -euo pipefail
PART=${1:-all}
want() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=$ROOT/bench/out
mkdir -p "$OUT" .hookline/bin
eval "$(scripts/deps.sh start)"
scripts/deps.sh bench-tools

RUN=b$(date +%s)
export HOOKLINE_DATABASE_URL=$HOOKLINE_TEST_DATABASE_URL HOOKLINE_NATS_URL=$HOOKLINE_TEST_NATS_URL
export HOOKLINE_NATS_NAMESPACE=$RUN HOOKLINE_LOG_LEVEL=warn
export HOOKLINE_PRINCIPAL_SECRET=bench-principal-secret-0123456789abcdef
export HOOKLINE_ADMIN_TOKEN=bench-admin-token-0123456789
# One tier table for gateway and billing (pkg/contracts/tiers): "bench" accounts hold
# plenty of credits, and no tier's rate limit or quota gets in the way.
fast='"billingCycle":"monthly","rateLimit":{"perSecond":1000000,"burst":1000000}'
export HOOKLINE_TIERS='{"tiers":[{"name":"bench","monthlyCredits":100000000,'"$fast"'},{"name":"pro","monthlyCredits":500,'"$fast"'},{"name":"free","monthlyCredits":10,'"$fast"'}]}'

# The services a part measures, and no others: an idle service still wakes
# up (its outbox relay, consumers, recovery passes) on the cores the
# measurement shares. The gateway makes the organization and key of the
# HTTP measurements.
case $PART in
  billing) services="billing" ;;
  gateway|ratelimit) services="billing gateway" ;;
  assets) services="billing assets gateway" ;;
  budget) services="thumbnails" ;;
  hostile) services="billing thumbnails" ;;
  webhooks) services="" ;; # started by its part, alone
  go) services="" ;;
  clips-batch) services="billing assets clips gateway" ;;
  *) services="billing assets thumbnails clips gateway" ;;
esac
runs() { [[ " $services " == *" $1 "* ]]; }
if [ "$PART" = budget ]; then
  # A 1 GiB image budget in a container of that plus the process's 384 MiB
  # overhead (services/thumbnails/README.md, "Memory and CPU"); the
  # picture comes from a file server on 127.0.0.1.
  export HOOKLINE_IMAGE_MEMORY_MIB=1024 HOOKLINE_MEMORY_LIMIT=$((1408 << 20)) HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1
fi
if [ "$PART" = hostile ]; then
  export HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1
  [ -z "${HOSTILE_LIMIT:-}" ] || export HOOKLINE_MEMORY_LIMIT=$HOSTILE_LIMIT
fi
bins=(./bench/cmd/loadgen ./bench/cmd/plainproxy ./bench/cmd/plainforwarder)
want webhooks && bins+=(./services/webhooks/cmd/webhooks)
for svc in $services; do bins+=("./services/$svc/cmd/$svc"); done
[ -n "${BENCH_NO_BUILD:-}" ] || go build -o .hookline/bin/ "${bins[@]}"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -s "$OUT/nginx/nginx.pid" ] && kill "$(cat "$OUT/nginx/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  for svc in billing assets gateway thumbnails clips webhooks; do
    psql "$HOOKLINE_DATABASE_URL" -qc "DROP SCHEMA IF EXISTS ${RUN}_$svc CASCADE" 2>/dev/null || true
  done
  # JetStream would keep the run's events for a week, and sync their files
  # to the disk Postgres commits on.
  .hookline/bin/loadgen cleanup -namespace "$RUN" -nats "$HOOKLINE_NATS_URL" 2>/dev/null || true
}
trap cleanup EXIT
ports=()
if runs billing; then
  GOMAXPROCS=${BILLING_PROCS:-} GOGC=${BILLING_GOGC:-100} HOOKLINE_DEBUG_ADDR=${BILLING_DEBUG_ADDR:-} HOOKLINE_DB_SCHEMA=${RUN}_billing HOOKLINE_HTTP_ADDR=127.0.0.1:18081 .hookline/bin/billing >"$OUT/billing.log" 2>&1 &
  pids+=($!) ports+=(18081)
fi
if runs assets; then
  HOOKLINE_DB_SCHEMA=${RUN}_assets HOOKLINE_HTTP_ADDR=127.0.0.1:18082 HOOKLINE_S3_ENDPOINT=$HOOKLINE_TEST_S3_ENDPOINT \
    HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_TEST_S3_ACCESS_KEY HOOKLINE_S3_SECRET_KEY=$HOOKLINE_TEST_S3_SECRET_KEY HOOKLINE_S3_BUCKET=bench \
    .hookline/bin/assets >"$OUT/assets.log" 2>&1 &
  pids+=($!) ports+=(18082)
fi
if runs thumbnails; then
  HOOKLINE_DB_SCHEMA=${RUN}_thumbnails HOOKLINE_HTTP_ADDR=127.0.0.1:18090 HOOKLINE_S3_ENDPOINT=$HOOKLINE_TEST_S3_ENDPOINT \
    HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_TEST_S3_ACCESS_KEY HOOKLINE_S3_SECRET_KEY=$HOOKLINE_TEST_S3_SECRET_KEY HOOKLINE_S3_BUCKET=bench \
    .hookline/bin/thumbnails >"$OUT/thumbnails.log" 2>&1 &
  thumbnails_pid=$!
  pids+=($!) ports+=(18090)
fi
if runs clips; then
  # The clips API (no worker: creation is what is measured here), fetching
  # the bench's own media server on 127.0.0.1.
  HOOKLINE_DB_SCHEMA=${RUN}_clips HOOKLINE_HTTP_ADDR=127.0.0.1:18091 HOOKLINE_S3_ENDPOINT=$HOOKLINE_TEST_S3_ENDPOINT \
    HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_TEST_S3_ACCESS_KEY HOOKLINE_S3_SECRET_KEY=$HOOKLINE_TEST_S3_SECRET_KEY HOOKLINE_S3_BUCKET=bench \
    HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1 .hookline/bin/clips >"$OUT/clips.log" 2>&1 &
  clips_pid=$!
  pids+=($!) ports+=(18091)
fi
if runs gateway; then
  GOMAXPROCS=${GATEWAY_PROCS:-} HOOKLINE_DEBUG_ADDR=${GATEWAY_DEBUG_ADDR:-} GOGC=${GATEWAY_GOGC:-100} HOOKLINE_DB_SCHEMA=${RUN}_gateway HOOKLINE_HTTP_ADDR=127.0.0.1:18080 HOOKLINE_BILLING_URL=http://127.0.0.1:18081 HOOKLINE_ASSETS_URL=http://127.0.0.1:18082 HOOKLINE_THUMBNAILS_URL=http://127.0.0.1:18090 \
    HOOKLINE_CLIPS_URL=http://127.0.0.1:18091 .hookline/bin/gateway >"$OUT/gateway.log" 2>&1 &
  pids+=($!) ports+=(18080)
fi
for port in "${ports[@]}"; do
  for i in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
done

admin() { curl -fsS -H "Authorization: Bearer $HOOKLINE_ADMIN_TOKEN" -H 'Content-Type: application/json' "$@"; }
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -1; }
lg() { .hookline/bin/loadgen "$1" -namespace "$RUN" -nats "$HOOKLINE_NATS_URL" "${@:2}"; }
if runs gateway; then
  # An organization and key for the HTTP measurements.
  org=$(admin -d '{"name":"bench","tier":"pro"}' http://127.0.0.1:18080/admin/v1/organizations | field id)
  key=$(admin -d '{"name":"bench"}' "http://127.0.0.1:18080/admin/v1/organizations/$org/keys" | field key)
  prin=$(.hookline/bin/loadgen principal -org "$org")
fi
if [ "$PART" = serve ]; then
  printf 'key=%s\nprin=%s\nRUN=%s\n' "$key" "$prin" "$RUN" >"$OUT/serve.env"
  echo "serving; key and principal in $OUT/serve.env; Ctrl-C stops"
  wait
fi
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc --all) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

if want billing; then
  {
    # Warm-up (connections, prepared statements, account cache), then the
    # steady measurement.
    lg reserve -rate 500 -duration 5s -accounts 100 >/dev/null
    # The load generator shares the two cores with what it measures, so
    # the latency run keeps it small: one P (half the wake-ups of two at
    # this rate) and no subscriber of billing's events. The outbox lag is
    # measured in a run of its own, at the same rate.
    GOMAXPROCS=1 lg reserve -rate 500 -duration 20s -accounts 100 -lag=false
    echo "# the same load with a subscriber of billing.credit.reserved.v1, for the outbox lag:"
    GOMAXPROCS=1 lg reserve -rate 500 -duration 10s -accounts 100
    lg sagas -accounts 100 -workers 64 -duration 15s
    lg sagas -accounts 1 -workers 32 -duration 15s
  } | tee "$OUT/billing.txt"
fi

# Gateway overhead: the same GET /account/credits through the gateway and
# straight to billing (with a principal signed as the gateway would).
if want gateway; then
  {
    echo "## wrk -t2 -c${WRK_CONNS:-32} -d15s GET /account/credits"
    # Warm-up: the first seconds after start pay for new connections on
    # every hop, prepared statements and heap growth, which a cold run's
    # p99 shows; the measurements are of the steady state.
    wrk -t2 -c"${WRK_CONNS:-32}" -d5s -H "Authorization: Bearer $key" http://127.0.0.1:18080/api/v1/account/credits >/dev/null
    echo "### through the gateway"
    wrk -t2 -c"${WRK_CONNS:-32}" -d15s --latency -H "Authorization: Bearer $key" http://127.0.0.1:18080/api/v1/account/credits
    echo "### the gateway alone (GET /auth/verify, answered by the gateway)"
    wrk -t2 -c"${WRK_CONNS:-32}" -d15s --latency -H "Authorization: Bearer $key" http://127.0.0.1:18080/api/v1/auth/verify
    echo "### straight to billing"
    wrk -t2 -c"${WRK_CONNS:-32}" -d15s --latency -H "X-Hookline-Principal: $prin" http://127.0.0.1:18081/account/credits
    if [ "${GATEWAY_PEERS:-1}" != 0 ]; then
      mkdir -p "$OUT/nginx"
      cat >"$OUT/nginx/nginx.conf" <<NGINX
worker_processes 2;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $OUT/nginx;
  proxy_temp_path $OUT/nginx;
  upstream billing { server 127.0.0.1:18081; keepalive 256; }
  server {
    listen 127.0.0.1:18097;
    location / { proxy_pass http://billing; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
      nginx -c "$OUT/nginx/nginx.conf" >/dev/null 2>&1
      # (inside this pipeline a background process must not hold its stdout)
      .hookline/bin/plainproxy -listen 127.0.0.1:18098 -upstream http://127.0.0.1:18081 >"$OUT/plainproxy.log" 2>&1 &
      plain=$!
      sleep 1
      echo "### peer: nginx in front of billing (keepalive upstream)"
      wrk -t2 -c"${WRK_CONNS:-32}" -d15s --latency -H "X-Hookline-Principal: $prin" http://127.0.0.1:18097/account/credits
      nginx -c "$OUT/nginx/nginx.conf" -s stop
      echo "### peer: bare Go httputil.ReverseProxy in front of billing (bench/cmd/plainproxy)"
      wrk -t2 -c"${WRK_CONNS:-32}" -d15s --latency -H "X-Hookline-Principal: $prin" http://127.0.0.1:18098/account/credits
      kill "$plain"
    fi
    if [ -n "${WRK_TRACE:-}" ]; then
      echo "### straight to billing, with a sampled traceparent as the gateway sends"
      wrk -t2 -c"${WRK_CONNS:-32}" -d15s --latency -H "X-Hookline-Principal: $prin" \
        -H "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" http://127.0.0.1:18081/account/credits
    fi
  } | tee "$OUT/gateway.txt"
fi

# Rate limits across replicas: a key offered three times its limit through
# one gateway, through two sharing the buckets in Postgres, and through two
# limiting per process; then the latency of a key under its limit with the
# shared and the per-process limiter.
if want ratelimit; then
  RL_TIERS='{"tiers":[{"name":"free","monthlyCredits":10,"billingCycle":"monthly","rateLimit":{"perSecond":100,"burst":100}},{"name":"pro","monthlyCredits":500,"billingCycle":"monthly","rateLimit":{"perSecond":1000,"burst":1000}}]}'
  for spec in 18083:true 18084:true 18085:false 18086:false; do
    HOOKLINE_TIERS=$RL_TIERS HOOKLINE_RATE_LIMIT_SHARED=${spec#*:} HOOKLINE_DB_SCHEMA=${RUN}_gateway HOOKLINE_HTTP_ADDR=127.0.0.1:${spec%%:*} \
      .hookline/bin/gateway >"$OUT/gateway-${spec%%:*}.log" 2>&1 &
    pids+=($!)
  done
  for port in 18083 18084 18085 18086; do
    for i in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
  done
  newkey() {
    local o
    o=$(admin -d "{\"name\":\"rl\",\"tier\":\"$1\"}" http://127.0.0.1:18080/admin/v1/organizations | field id)
    admin -d '{"name":"rl"}' "http://127.0.0.1:18080/admin/v1/organizations/$o/keys" | field key
  }
  rl() { .hookline/bin/loadgen ratelimit -gateways "$1" -key "$2" -rate "$3" -duration 10s; }
  {
    echo "## a free key (100/s, burst 100) offered 300/s for 10 s"
    rl http://127.0.0.1:18083 "$(newkey free)" 300
    rl http://127.0.0.1:18083,http://127.0.0.1:18084 "$(newkey free)" 300
    echo "### per-process buckets (HOOKLINE_RATE_LIMIT_SHARED=false)"
    rl http://127.0.0.1:18085,http://127.0.0.1:18086 "$(newkey free)" 300
    echo "## a pro key (1000/s) at 500/s: latency of the shared and the per-process limiter"
    for i in 1 2; do
      rl http://127.0.0.1:18083,http://127.0.0.1:18084 "$(newkey pro)" 500
      rl http://127.0.0.1:18085,http://127.0.0.1:18086 "$(newkey pro)" 500
    done
  } | tee "$OUT/ratelimit.txt"
fi

if want assets; then
  lg assets -gateway http://127.0.0.1:18080 -key "$key" -rate 200 -duration 10s | tee "$OUT/assets.txt"
fi

if want thumbnails; then
  # A tier with plenty of credits; the local engine, 2 draws at once (one per core).
  torg=$(admin -d '{"name":"bench thumbnails","tier":"bench"}' http://127.0.0.1:18080/admin/v1/organizations | field id)
  tkey=$(admin -d '{"name":"bench"}' "http://127.0.0.1:18080/admin/v1/organizations/$torg/keys" | field key)
  sleep 2 # the account opens from the organization-created event
  {
    echo "## POST /thumbnails through the gateway (reserve, compose 1280x720, S3 put, settle)"
    lg thumbnails -gateway http://127.0.0.1:18080 -key "$tkey" -workers 1 -duration 15s -pid "$thumbnails_pid"
    lg thumbnails -gateway http://127.0.0.1:18080 -key "$tkey" -workers 4 -duration 30s -pid "$thumbnails_pid"
    lg thumbnails -gateway http://127.0.0.1:18080 -key "$tkey" -workers 8 -duration 60s -pid "$thumbnails_pid"
    echo "## the bare engine, in process (same prompt, no face or style)"
    go test -run '^$' -bench 'BenchmarkGeneratePrompt|BenchmarkGenerate$' -benchtime 60x ./services/thumbnails/internal/generate/compose | grep -E '^Benchmark'
  } | tee "$OUT/thumbnails.txt"
fi

if want text; then
  # POST /seo/description of a 60-minute transcript (~9,000 words), local text engine.
  torg=$(admin -d '{"name":"bench text","tier":"bench"}' http://127.0.0.1:18080/admin/v1/organizations | field id)
  tkey=$(admin -d '{"name":"bench"}' "http://127.0.0.1:18080/admin/v1/organizations/$torg/keys" | field key)
  lg transcript -body "$OUT/description.json"
  {
    echo "## POST /seo/description, 60-minute transcript, through the gateway"
    lg post -gateway http://127.0.0.1:18080 -key "$tkey" -path /api/v1/seo/description -body "$OUT/description.json" -want 200 -workers 1 -duration 15s -pid "$thumbnails_pid"
    lg post -gateway http://127.0.0.1:18080 -key "$tkey" -path /api/v1/seo/description -body "$OUT/description.json" -want 200 -workers 4 -duration 15s -pid "$thumbnails_pid"
    echo "## the local text engine in process (60-minute transcript)"
    go test -run '^$' -bench 'Benchmark.*60Min' -benchmem ./services/thumbnails/internal/textai ./pkg/ai/nlp | grep -E '^Benchmark'
  } | tee "$OUT/text.txt"
fi

if want clips || [ "$PART" = clips-batch ]; then
  # A 10-minute 1280x720 source with a caption sidecar (the three-topic
  # test captions, 4 s a line, repeated), served by a plain file server.
  media=$OUT/media
  mkdir -p "$media"
  if [ ! -s "$media/talk10.mp4" ]; then
    ffmpeg -v error -y -f lavfi -i testsrc2=s=1280x720:r=30:d=600 -f lavfi -i "sine=f=220:d=600" \
      -c:v libx264 -preset veryfast -c:a aac -shortest "$media/talk10.mp4"
  fi
  { echo WEBVTT; echo
    grep -v '^#' pkg/ai/nlp/testdata/three_topics.txt | grep -v '^ *$' | awk '{ lines[n++] = $0 } END {
      for (i = 0; i < 150; i++) { s = i * 4; printf "%02d:%02d:%02d.000 --> %02d:%02d:%02d.000\n%s\n\n",
        s/3600, (s%3600)/60, s%60, (s+4)/3600, ((s+4)%3600)/60, (s+4)%60, lines[i % n] } }'
  } >"$media/talk10.vtt"
  (cd "$media" && exec python3 -m http.server 18095 --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  for i in $(seq 1 50); do curl -fsS -o /dev/null -r 0-0 http://127.0.0.1:18095/talk10.mp4 && break; sleep 0.2; done
  printf '{"video_site_url":"http://127.0.0.1:18095/talk10.mp4"}' >"$OUT/clips.json"
  corg=$(admin -d '{"name":"bench clips","tier":"bench"}' http://127.0.0.1:18080/admin/v1/organizations | field id)
  ckey=$(admin -d '{"name":"bench"}' "http://127.0.0.1:18080/admin/v1/organizations/$corg/keys" | field key)
  {
   if want clips; then
    echo "## POST /clips/projects, 10-minute direct MP4 with a VTT sidecar (probe, captions, rank, insert + job), through the gateway"
    lg post -gateway http://127.0.0.1:18080 -key "$ckey" -path /api/v1/clips/projects -body "$OUT/clips.json" -want 201 -workers 1 -duration 15s -pid "$clips_pid"
    lg post -gateway http://127.0.0.1:18080 -key "$ckey" -path /api/v1/clips/projects -body "$OUT/clips.json" -want 201 -workers 4 -duration 15s -pid "$clips_pid"
    echo "## preparation of the 10-minute source without the download (probe + measure), and ranking an hour, in process"
    go test -run '^$' -bench 'BenchmarkAnalyze10Min' -benchtime 3x ./services/clips/internal/media | grep -E '^Benchmark'
    go test -run '^$' -bench 'BenchmarkRank60Min' -benchtime 20x ./services/clips/internal/moments | grep -E '^Benchmark'
    echo "## a 30 s portrait render (1080x1920, captions, face-tracked crop, progress bar, loudnorm) from a 1080p source, and the hand-written ffmpeg peer, side by side"
    go test -run '^$' -bench 'BenchmarkRender30s|BenchmarkHandFFmpeg30s' -benchtime 3x -timeout 30m ./services/clips/internal/ffrender | grep -E '^Benchmark'
   fi
    echo "## a batch of ${BATCH_RENDERS:-10} renders of the 10-minute source through the gateway (1080x1920, progress bar)"
    # The block runs in a subshell (| tee): its workers are stopped here,
    # not by the cleanup trap.
    wpids=()
    worker() { # <http addr>
      HOOKLINE_DB_SCHEMA=${RUN}_clips HOOKLINE_HTTP_ADDR=$1 HOOKLINE_S3_ENDPOINT=$HOOKLINE_TEST_S3_ENDPOINT \
        HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_TEST_S3_ACCESS_KEY HOOKLINE_S3_SECRET_KEY=$HOOKLINE_TEST_S3_SECRET_KEY HOOKLINE_S3_BUCKET=bench \
        HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1 HOOKLINE_LOG_LEVEL=info .hookline/bin/clips worker >>"$OUT/clips-worker.log" 2>&1 &
      wpids+=($!)
      for i in $(seq 1 100); do curl -fsS "http://$1/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
    }
    # The workers' processor seconds, their ffmpeg children's included
    # (utime, stime, cutime, cstime of /proc/PID/stat, in clock ticks).
    cpu() { local t=0 p f; for p in "${wpids[@]}"; do f=($(sed 's/.*) //' "/proc/$p/stat")); t=$((t + f[11] + f[12] + f[13] + f[14])); done
      echo "$t"; }
    batch() { # title
      echo "### $1 ($(uptime | sed 's/.*load/load/'))"
      local c0; c0=$(cpu)
      lg renders -gateway http://127.0.0.1:18080 -key "$ckey" -body "$OUT/clips.json" -count "${BATCH_RENDERS:-10}"
      echo "workers' processor time, preparation included: $(( ($(cpu) - c0) / $(getconf CLK_TCK) )) s"
    }
    worker 127.0.0.1:18092
    grep -h '"worker concurrency"' "$OUT/clips-worker.log" | tail -1 || true
    batch "one worker"
    worker 127.0.0.1:18093
    batch "two workers"
    echo "(done: $(uptime | sed 's/.*load/load/'))"
    kill "${wpids[@]}" 2>/dev/null || true
  } | tee "$OUT/$([ "$PART" = clips-batch ] && echo clips-batch || echo clips).txt"
fi

if want edits; then
  # Thumbnail edits (issue 15) against imgproxy, side by side on the same
  # 1280x720 JPEG: pigo's sample face photo, tiled (native photo detail),
  # uploaded to the bench bucket through the API. Ours fetches it from
  # MinIO (S3), imgproxy from MinIO's public URL (HTTP); the same client,
  # concurrency and duration on both sides. imgproxy's open-source build
  # has no saturation/brightness (adjust is imgproxy Pro), so the
  # color-enhance peers are the same-size re-encode (the floor under any
  # adjust) and a same-size sharpen (a full-frame Lab pass, as ours).
  imgproxy=$(bench/imgproxy/build.sh)
  eorg=$(admin -d '{"name":"bench edits","tier":"bench"}' http://127.0.0.1:18080/admin/v1/organizations | field id)
  ekey=$(admin -d '{"name":"bench"}' "http://127.0.0.1:18080/admin/v1/organizations/$eorg/keys" | field key)
  pigo=$(cd services/thumbnails && go list -m -f '{{.Dir}}' github.com/esimov/pigo)
  ffmpeg -v error -y -i "$pigo/testdata/sample.jpg" -filter_complex \
    '[0]crop=320:360:0:20,split=4[a][b][c][d];[b]hflip[bf];[d]hflip[df];[a][bf][c][df]hstack=4,split=2[r1][r];[r]hflip[r2];[r1][r2]vstack' \
    -frames:v 1 -q:v 2 "$OUT/edits-source.jpg"
  IMGPROXY_BIND=127.0.0.1:18096 IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true IMGPROXY_LOG_LEVEL=warn \
    "$imgproxy" >"$OUT/imgproxy.log" 2>&1 &
  imgproxy_pid=$!
  pids+=($!)
  for i in $(seq 1 100); do curl -fsS http://127.0.0.1:18096/health >/dev/null 2>&1 && break; sleep 0.2; done
  sleep 2 # the account opens from the organization-created event
  src=$(.hookline/bin/loadgen upload -gateway http://127.0.0.1:18080 -key "$ekey" -file "$OUT/edits-source.jpg")
  peer=http://127.0.0.1:18096/insecure
  rm -f "$OUT/edits.jsonl"
  edit() { .hookline/bin/loadgen edits -gateway http://127.0.0.1:18080 -key "$ekey" -image "$src" -workers 4 -record "$OUT/edits.jsonl" "$@"; }
  {
    echo "## source: $src ($(stat -c %s "$OUT/edits-source.jpg") bytes, 1280x720, ffmpeg -q:v 2), imgproxy $("$imgproxy" version) on libvips $(pkg-config --modversion vips)"
    echo "## c=4, 20 s each after a 3 s warm-up: our edit through the gateway; imgproxy's equivalent GET (JPEG q90, as ours)"
    edit -op upscale2x -duration 20s -pid "$thumbnails_pid"
    edit -op upscale2x -duration 20s -pid "$imgproxy_pid" -label 'imgproxy rs:fit:2560:1440/el:1/sh:1' -peer "$peer/rs:fit:2560:1440/el:1/sh:1/q:90/plain/$src"
    edit -op color-enhance -duration 20s -pid "$thumbnails_pid"
    edit -op color-enhance -duration 20s -pid "$imgproxy_pid" -label 'imgproxy re-encode (q:90)' -peer "$peer/q:90/plain/$src"
    edit -op color-enhance -duration 20s -pid "$imgproxy_pid" -label 'imgproxy sh:1 (same size)' -peer "$peer/sh:1/q:90/plain/$src"
    echo "## 60 s of 4x upscales (5120x2880) at c=4: the thumbnails process's RSS"
    edit -op upscale4x -duration 60s -pid "$thumbnails_pid"
    echo "## summary"
    .hookline/bin/loadgen edits-table -record "$OUT/edits.jsonl"
    echo "## the engines in process (1280x720)"
    go test -run '^$' -bench 'BenchmarkUpscale2x$|BenchmarkColorEnhance$' -benchtime 40x ./services/thumbnails/internal/edits/adjust | grep -E '^Benchmark'
    OMP_THREAD_LIMIT=1 go test -run '^$' -bench 'BenchmarkCritique1280x720$' -benchtime 60x ./services/thumbnails/internal/analyze/critique | grep -E '^Benchmark'
    go test -run '^$' -bench 'BenchmarkRemove1280x720$|BenchmarkRemovePhoto1280x720$' -benchtime 20x ./services/thumbnails/internal/edits/matte | grep -E '^Benchmark'
  } | tee "$OUT/edits.txt"
fi

if [ "$PART" = budget ]; then
  # pigo's sample face enlarged to 7680x5160: a 39.6 MP JPEG of under 1 MB
  # whose subject fills the frame, the costly case of the cut-out.
  media=$OUT/media
  mkdir -p "$media"
  pigo=$(cd services/thumbnails && go list -m -f '{{.Dir}}' github.com/esimov/pigo)
  [ -s "$media/face-39mp.jpg" ] || ffmpeg -v error -y -i "$pigo/testdata/sample.jpg" -vf scale=7680:5160 -q:v 4 "$media/face-39mp.jpg"
  (cd "$media" && exec python3 -m http.server 18094 --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  for i in $(seq 1 50); do curl -fsS -o /dev/null -r 0-0 http://127.0.0.1:18094/face-39mp.jpg && break; sleep 0.2; done
  bprin=$(.hookline/bin/loadgen principal -org "$(cat /proc/sys/kernel/random/uuid)")
  .hookline/bin/loadgen budget -url http://127.0.0.1:18090 -principal "$bprin" -image http://127.0.0.1:18094/face-39mp.jpg \
    -n 20 -pid "$thumbnails_pid" -settle 30s | tee "$OUT/budget.txt"
fi

if [ "$PART" = hostile ]; then
  # pigo's sample face at 7744x5164 (40.0 MP, the pixel limit), zero-filled
  # PNGs of 40 MP (8-bit RGBA) and 20 MP (16-bit RGBA, 160 MB decoded each),
  # and a PNG whose header claims 60000x60000 over a few bytes of data.
  media=$OUT/media
  mkdir -p "$media"
  pigo=$(cd services/thumbnails && go list -m -f '{{.Dir}}' github.com/esimov/pigo)
  [ -s "$media/face-40mp.jpg" ] || ffmpeg -v error -y -i "$pigo/testdata/sample.jpg" -vf scale=7744:5164 -q:v 6 "$media/face-40mp.jpg"
  [ -s "$media/zero-40mp.png" ] || ffmpeg -v error -y -f lavfi -i color=black@0:s=7744x5164,format=rgba -frames:v 1 "$media/zero-40mp.png"
  [ -s "$media/zero16-20mp.png" ] || ffmpeg -v error -y -f lavfi -i color=black:s=4472x4472,format=rgba64be -frames:v 1 -pix_fmt rgba64be "$media/zero16-20mp.png"
  [ -s "$media/huge.png" ] || python3 - "$media/huge.png" <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
row = b'\0' + b'\0' * 60000 * 3
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 60000, 60000, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(row * 16, 9)) + chunk(b'IEND', b''))
PY
  (cd "$media" && exec python3 -m http.server 18094 --bind 127.0.0.1 >/dev/null 2>&1) &
  pids+=($!)
  for i in $(seq 1 50); do curl -fsS -o /dev/null -r 0-0 http://127.0.0.1:18094/huge.png && break; sleep 0.2; done
  lg hostile -accounts 1 -url http://127.0.0.1:18090 -media http://127.0.0.1:18094 \
    -pictures face-40mp.jpg,zero-40mp.png,zero16-20mp.png,huge.png -workers 6 -duration "${HOSTILE_DURATION:-90s}" \
    -pid "$thumbnails_pid" | tee "$OUT/hostile.txt"
fi

if want webhooks; then
  # The webhooks service alone (its HTTP API straight, with a principal as
  # the gateway would send), its receiver on loopback (the operator's
  # allow-list). Each run makes a fresh organization and endpoint; a 5 s
  # run first warms connections and prepared statements. Not in a
  # { } | tee block: the processes started here are the cleanup's.
  : >"$OUT/webhooks.txt"
  HOOKLINE_DB_SCHEMA=${RUN}_webhooks HOOKLINE_HTTP_ADDR=127.0.0.1:18087 HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1 \
    .hookline/bin/webhooks >"$OUT/webhooks.log" 2>&1 &
  wh=$!
  pids+=($!)
  for i in $(seq 1 100); do curl -fsS http://127.0.0.1:18087/readyz >/dev/null 2>&1 && break; sleep 0.2; done
  echo "## clips.project.ready published into CLIPS at 50/s for 60 s; latency from the event's occurredAt to the receiver" | tee -a "$OUT/webhooks.txt"
  lg webhooks -service http://127.0.0.1:18087 -rate 50 -duration 5s -label warm-up >/dev/null
  lg webhooks -service http://127.0.0.1:18087 -rate 50 -duration 60s -pid "$wh" | tee -a "$OUT/webhooks.txt"
  kill "$wh"; wait "$wh" 2>/dev/null || true
  .hookline/bin/plainforwarder -nats "$HOOKLINE_NATS_URL" -namespace "$RUN" -target http://127.0.0.1:18099/hook >"$OUT/plainforwarder.log" 2>&1 &
  fw=$!
  pids+=($!)
  sleep 1
  lg webhooks -rate 50 -duration 5s -label warm-up >/dev/null
  lg webhooks -rate 50 -duration 60s -label 'peer: plainforwarder' -pid "$fw" | tee -a "$OUT/webhooks.txt"
  kill "$fw"; wait "$fw" 2>/dev/null || true
fi

if want go; then
  go test -run "^$" -bench . -benchmem ./pkg/media/vision ./services/assets/internal/style ./services/gateway/internal/ratelimit ./pkg/platform/messaging 2>&1 | tee "$OUT/gobench.txt" | grep -E '^(Benchmark|ok|FAIL)'
fi
