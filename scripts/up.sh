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
# Each service has its own NATS user and Postgres role (least privilege).
SERVICES="gateway billing assets thumbnails clips"
NATS_USERS="$SERVICES"   # every user of deploy/nats/auth.conf
rand_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
touch "$STATE/secrets.env"; chmod 600 "$STATE/secrets.env"
add_secret() { grep -q "^$1=" "$STATE/secrets.env" || echo "$1=$2" >>"$STATE/secrets.env"; }
add_secret HOOKLINE_ADMIN_TOKEN "hk_admin_$(rand_hex 24)"
add_secret HOOKLINE_PRINCIPAL_SECRET "$(rand_hex 32)"
for u in $NATS_USERS; do add_secret "HOOKLINE_NATS_${u^^}_PASSWORD" "$(rand_hex 16)"; done
for svc in $SERVICES; do add_secret "HOOKLINE_PG_${svc^^}_PASSWORD" "$(rand_hex 16)"; done
# Only the shared settings are exported; each process gets its own
# credentials below.
. "$STATE/secrets.env"
export HOOKLINE_ADMIN_TOKEN HOOKLINE_PRINCIPAL_SECRET
set -a
HOOKLINE_S3_ENDPOINT=$HOOKLINE_TEST_S3_ENDPOINT
HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_TEST_S3_ACCESS_KEY
HOOKLINE_S3_SECRET_KEY=$HOOKLINE_TEST_S3_SECRET_KEY
HOOKLINE_BILLING_URL=http://127.0.0.1:8081
HOOKLINE_ASSETS_URL=http://127.0.0.1:8082
HOOKLINE_THUMBNAILS_URL=http://127.0.0.1:8083
HOOKLINE_CLIPS_URL=http://127.0.0.1:8084
set +a

# The stack's own nats-server, with the users of deploy/nats/auth.conf
# (generated from pkg/natsauth); the shared test server on :4233 stays open.
NATS_UP_PORT=${HOOKLINE_UP_NATS_PORT:-4222}
if port_open "$NATS_UP_PORT"; then
  echo "up: port $NATS_UP_PORT is taken; set HOOKLINE_UP_NATS_PORT"; exit 1
fi
pids=() nats_pid=""
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
  [ -n "$nats_pid" ] && { kill -TERM "$nats_pid" 2>/dev/null || true; wait "$nats_pid" 2>/dev/null || true; }
  if [ "$own_deps" = 1 ]; then scripts/deps.sh stop; fi
}
trap cleanup EXIT
trap 'echo; echo "up: stopping"; exit 0' INT TERM
mkdir -p "$STATE/nats"
{ printf 'listen: "127.0.0.1:%s"\njetstream { store_dir: "%s" }\n' "$NATS_UP_PORT" "$STATE/nats"
  cat deploy/nats/auth.conf; } >"$STATE/nats.conf"
nats_passwords=()
for u in $NATS_USERS; do v="HOOKLINE_NATS_${u^^}_PASSWORD"; nats_passwords+=("$v=${!v}"); done
env "${nats_passwords[@]}" "$HOOKLINE_BIN/nats-server" -c "$STATE/nats.conf" >>"$STATE/nats.log" 2>&1 &
nats_pid=$!
for i in $(seq 1 50); do port_open "$NATS_UP_PORT" && break; [ "$i" = 50 ] && { echo "up: nats-server did not start; see $STATE/nats.log"; exit 1; }; sleep 0.2; done

# One Postgres role per service, owning only its schema.
pg_url() { # <role> <password>: the test database URL logged in as role
  echo "$HOOKLINE_TEST_DATABASE_URL" | sed -E "s#^(postgres(ql)?://)[^@/]*@#\1$1:$2@#"
}
for svc in $SERVICES; do
  pw_var="HOOKLINE_PG_${svc^^}_PASSWORD"
  HOOKLINE_ROLE_PASSWORD=${!pw_var} deploy/postgres/service-role.sh "$HOOKLINE_TEST_DATABASE_URL" "hookline_$svc" "$svc"
done
# service_env <svc>: the service's own credentials.
service_env() {
  local nats_var="HOOKLINE_NATS_${1^^}_PASSWORD" pg_var="HOOKLINE_PG_${1^^}_PASSWORD"
  echo "HOOKLINE_NATS_URL=nats://127.0.0.1:$NATS_UP_PORT HOOKLINE_NATS_USER=$1 HOOKLINE_NATS_PASSWORD=${!nats_var}"
  echo "HOOKLINE_DATABASE_URL=$(pg_url "hookline_$1" "${!pg_var}")"
}

echo "up: building services"
go build -o "$STATE/bin/" ./services/billing/cmd/billing ./services/assets/cmd/assets ./services/gateway/cmd/gateway ./services/thumbnails/cmd/thumbnails ./services/clips/cmd/clips

start_service() { # <svc> <addr> [role]: the clips worker is `clips worker`
  env $(service_env "$1") HOOKLINE_HTTP_ADDR="$2" HOOKLINE_DEBUG_ADDR="" "$STATE/bin/$1" ${3:-} >>"$STATE/$1${3:+-$3}.log" 2>&1 &
  pids+=($!)
}
start_service billing 127.0.0.1:8081
start_service assets 127.0.0.1:8082
start_service thumbnails 127.0.0.1:8083
start_service clips 127.0.0.1:8084
start_service clips 127.0.0.1:8085 worker
start_service gateway 127.0.0.1:8080

for svc in 8081 8082 8083 8084 8085 8080; do
  for i in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$svc/readyz" >/dev/null 2>&1 && break
    [ "$i" = 100 ] && { echo "up: service on :$svc not ready; see $STATE/*.log"; exit 1; }
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
