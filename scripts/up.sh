#!/usr/bin/env bash
# make up: installs what is missing, starts Postgres, NATS JetStream and
# MinIO, builds and starts every service, seeds a dev organization with a
# key and credits, writes .hookline/dev.env and waits. Ctrl-C stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
STATE=$ROOT/.hookline
mkdir -p "$STATE/bin"

# Stop on exit only the dependencies this run started.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
own_deps=1
if port_open 4233 && port_open 9000; then own_deps=0; fi
eval "$(scripts/deps.sh start)"
scripts/deps.sh media

# Secrets survive restarts so existing keys and principals stay valid.
if [ ! -f "$STATE/secrets.env" ]; then
  umask 077
  cat >"$STATE/secrets.env" <<SECRETS
HOOKLINE_ADMIN_TOKEN=hk_admin_$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
HOOKLINE_PRINCIPAL_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
SECRETS
fi
set -a
. "$STATE/secrets.env"
HOOKLINE_DATABASE_URL=$HOOKLINE_TEST_DATABASE_URL
HOOKLINE_NATS_URL=$HOOKLINE_TEST_NATS_URL
HOOKLINE_S3_ENDPOINT=$HOOKLINE_TEST_S3_ENDPOINT
HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_TEST_S3_ACCESS_KEY
HOOKLINE_S3_SECRET_KEY=$HOOKLINE_TEST_S3_SECRET_KEY
HOOKLINE_BILLING_URL=http://127.0.0.1:8081
HOOKLINE_ASSETS_URL=http://127.0.0.1:8082
set +a

echo "up: building services"
go build -o "$STATE/bin/" ./services/billing/cmd/billing ./services/assets/cmd/assets ./services/gateway/cmd/gateway

pids=()
stop() {
  echo; echo "up: stopping"
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ "$own_deps" = 1 ] && scripts/deps.sh stop
  exit 0
}
trap stop INT TERM

HOOKLINE_HTTP_ADDR=127.0.0.1:8081 "$STATE/bin/billing" >>"$STATE/billing.log" 2>&1 &
pids+=($!)
HOOKLINE_HTTP_ADDR=127.0.0.1:8082 "$STATE/bin/assets" >>"$STATE/assets.log" 2>&1 &
pids+=($!)
HOOKLINE_HTTP_ADDR=127.0.0.1:8080 "$STATE/bin/gateway" >>"$STATE/gateway.log" 2>&1 &
pids+=($!)

for svc in 8081 8082 8080; do
  for i in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$svc/readyz" >/dev/null 2>&1 && break
    [ "$i" = 100 ] && { echo "up: service on :$svc not ready; see $STATE/*.log"; stop; }
    sleep 0.2
  done
done

BASE=http://127.0.0.1:8080/api/v1
admin() { curl -fsS -H "Authorization: Bearer $HOOKLINE_ADMIN_TOKEN" -H 'Content-Type: application/json' "$@"; }
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -1; }

key=""
if [ -f "$STATE/dev.env" ]; then
  key=$(sed -n 's/^HOOKLINE_API_KEY=//p' "$STATE/dev.env")
  curl -fsS -o /dev/null -H "Authorization: Bearer $key" "$BASE/auth/verify" 2>/dev/null || key=""
fi
if [ -z "$key" ]; then
  echo "up: seeding a dev organization"
  org=$(admin -d '{"name":"Dev organization","tier":"pro"}' http://127.0.0.1:8080/admin/v1/organizations | field id)
  key=$(admin -d '{"name":"dev"}' "http://127.0.0.1:8080/admin/v1/organizations/$org/keys" | field key)
  admin -d '{"credits":100,"kind":"purchased","reason":"dev seed"}' "http://127.0.0.1:8080/admin/v1/organizations/$org/credits" >/dev/null
fi
cat >"$STATE/dev.env" <<ENV
HOOKLINE_BASE_URL=$BASE
HOOKLINE_ADMIN_TOKEN=$HOOKLINE_ADMIN_TOKEN
HOOKLINE_API_KEY=$key
ENV

cat <<MSG

Hookline is up.
  base URL     $BASE
  admin token  $HOOKLINE_ADMIN_TOKEN
  API key      $key
  (also in .hookline/dev.env; logs in .hookline/*.log)

  curl -H "Authorization: Bearer $key" $BASE/account/credits

Ctrl-C stops everything.
MSG
wait
