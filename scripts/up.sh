#!/usr/bin/env bash
# make up: installs what is missing, starts Postgres (the machine's, or a
# local cluster), its own NATS JetStream and MinIO, builds and starts every
# service, seeds a dev organization with a key and credits, writes
# .hookline/dev.env and waits. Ctrl-C stops it all.
#
# Ports: NATS 4222, MinIO 9000 (console 9001), gateway 8080, billing 8081,
# assets 8082, thumbnails 8083, clips 8084, the clips worker 8085, webhooks
# 8086; a port
# that is taken is replaced by the next free one, printed and written to
# .hookline/dev.env. HOOKLINE_UP_<NAME>_PORT (NATS, MINIO, MINIO_CONSOLE,
# GATEWAY, BILLING, ASSETS, THUMBNAILS, CLIPS, CLIPS_WORKER, WEBHOOKS) sets a
# start.
# A second make up in the same clone finds the first and prints its
# addresses. make test's servers (scripts/deps.sh) use other ports.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
STATE=$ROOT/.hookline
mkdir -p "$STATE/bin"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# pick <variable> <name> <default>: sets variable to the first free port
# from HOOKLINE_UP_<NAME>_PORT or default, skipping ports already picked.
picked=" "
pick() {
  local var="HOOKLINE_UP_${2}_PORT" p
  p=${!var:-$3}
  while port_open "$p" || [[ $picked == *" $p "* ]]; do p=$((p + 1)); done
  [ "$p" = "${!var:-$3}" ] || echo "up: port ${!var:-$3} ($2) is taken; using $p"
  picked+="$p "
  printf -v "$1" '%s' "$p"
}

if [ -f "$STATE/up.pid" ] && kill -0 "$(cat "$STATE/up.pid")" 2>/dev/null && [ -f "$STATE/dev.env" ]; then
  echo "up: already running in this clone (pid $(cat "$STATE/up.pid")):"
  cat "$STATE/dev.env"
  exit 0
fi
echo $$ >"$STATE/up.pid"

# Postgres, the pinned binaries and the media tools; the test servers
# deps.sh also starts (NATS 4233, MinIO 9100) stay up for make test.
eval "$(scripts/deps.sh start)"
eval "$(scripts/deps.sh up-env)"
scripts/deps.sh media

pick NATS_UP_PORT NATS 4222
pick MINIO_UP_PORT MINIO 9000
pick MINIO_CONSOLE_UP_PORT MINIO_CONSOLE 9001
pick GATEWAY_PORT GATEWAY 8080
pick BILLING_PORT BILLING 8081
pick ASSETS_PORT ASSETS 8082
pick THUMBNAILS_PORT THUMBNAILS 8083
pick CLIPS_PORT CLIPS 8084
pick CLIPS_WORKER_PORT CLIPS_WORKER 8085
pick WEBHOOKS_PORT WEBHOOKS 8086

# Secrets survive restarts so existing keys and principals stay valid.
# Each service has its own NATS user and Postgres role (least privilege).
SERVICES="gateway billing assets thumbnails clips webhooks"
NATS_USERS="$SERVICES"   # every user of deploy/nats/auth.conf
rand_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
touch "$STATE/secrets.env"; chmod 600 "$STATE/secrets.env"
add_secret() { grep -q "^$1=" "$STATE/secrets.env" || echo "$1=$2" >>"$STATE/secrets.env"; }
add_secret HOOKLINE_ADMIN_TOKEN "hk_admin_$(rand_hex 24)"
add_secret HOOKLINE_PRINCIPAL_SECRET "$(rand_hex 32)"
# nats-server parses a variable's value as a config token: a password that
# starts with a digit ("5e…") fails to parse, so these start with a letter
# (older secrets files are mended).
sed -i -E 's/^(HOOKLINE_NATS_[A-Z]+_PASSWORD=)([0-9])/\1n\2/' "$STATE/secrets.env"
for u in $NATS_USERS; do add_secret "HOOKLINE_NATS_${u^^}_PASSWORD" "n$(rand_hex 16)"; done
for svc in $SERVICES; do add_secret "HOOKLINE_PG_${svc^^}_PASSWORD" "$(rand_hex 16)"; done
# Only the shared settings are exported; each process gets its own
# credentials below.
. "$STATE/secrets.env"
export HOOKLINE_ADMIN_TOKEN HOOKLINE_PRINCIPAL_SECRET
set -a
HOOKLINE_S3_ENDPOINT=127.0.0.1:$MINIO_UP_PORT
HOOKLINE_S3_ACCESS_KEY=$HOOKLINE_MINIO_USER
HOOKLINE_S3_SECRET_KEY=$HOOKLINE_MINIO_PASSWORD
HOOKLINE_BILLING_URL=http://127.0.0.1:$BILLING_PORT
HOOKLINE_ASSETS_URL=http://127.0.0.1:$ASSETS_PORT
HOOKLINE_THUMBNAILS_URL=http://127.0.0.1:$THUMBNAILS_PORT
HOOKLINE_CLIPS_URL=http://127.0.0.1:$CLIPS_PORT
HOOKLINE_WEBHOOKS_URL=http://127.0.0.1:$WEBHOOKS_PORT
# The README's tour serves a sample talk on this loopback port for a clip
# project; the safe fetcher refuses every other loopback and private address.
HOOKLINE_FETCH_ALLOW_HOSTS=${HOOKLINE_FETCH_ALLOW_HOSTS:-127.0.0.1:8799}
set +a

pids=() nats_pid="" minio_pid=""
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
  for p in $nats_pid $minio_pid; do
    kill -TERM "$p" 2>/dev/null || true
    while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
  done
  rm -f "$STATE/up.pid"
}
trap cleanup EXIT
trap 'echo; echo "up: stopping"; exit 0' INT TERM

# The stack's own MinIO, its data in this clone.
minio_pid=$(scripts/deps.sh run-minio "$STATE/minio" "$MINIO_UP_PORT" "$MINIO_CONSOLE_UP_PORT" "$STATE/minio.log")

# The stack's own nats-server, with the users of deploy/nats/auth.conf
# (generated from pkg/platform/natsauth).
mkdir -p "$STATE/nats"
{ printf 'listen: "127.0.0.1:%s"\njetstream { store_dir: "%s" }\n' "$NATS_UP_PORT" "$STATE/nats"
  cat deploy/nats/auth.conf; } >"$STATE/nats.conf"
nats_passwords=()
for u in $NATS_USERS; do v="HOOKLINE_NATS_${u^^}_PASSWORD"; nats_passwords+=("$v=${!v}"); done
env "${nats_passwords[@]}" "$HOOKLINE_BIN/nats-server" -c "$STATE/nats.conf" >>"$STATE/nats.log" 2>&1 &
nats_pid=$!
for i in $(seq 1 150); do
  port_open "$NATS_UP_PORT" && break
  if [ "$i" = 150 ] || ! kill -0 "$nats_pid" 2>/dev/null; then
    echo "up: nats-server did not start on :$NATS_UP_PORT; the end of $STATE/nats.log:"; tail -5 "$STATE/nats.log"; exit 1
  fi
  sleep 0.2
done

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
go build -o "$STATE/bin/" ./services/billing/cmd/billing ./services/assets/cmd/assets ./services/gateway/cmd/gateway ./services/thumbnails/cmd/thumbnails ./services/clips/cmd/clips ./services/webhooks/cmd/webhooks

start_service() { # <svc> <addr> [role]: the clips worker is `clips worker`
  env $(service_env "$1") HOOKLINE_HTTP_ADDR="$2" HOOKLINE_DEBUG_ADDR="" "$STATE/bin/$1" ${3:-} >>"$STATE/$1${3:+-$3}.log" 2>&1 &
  pids+=($!)
}
start_service billing "127.0.0.1:$BILLING_PORT"
start_service assets "127.0.0.1:$ASSETS_PORT"
start_service thumbnails "127.0.0.1:$THUMBNAILS_PORT"
start_service clips "127.0.0.1:$CLIPS_PORT"
start_service clips "127.0.0.1:$CLIPS_WORKER_PORT" worker
start_service webhooks "127.0.0.1:$WEBHOOKS_PORT"
start_service gateway "127.0.0.1:$GATEWAY_PORT"

for svc in $BILLING_PORT $ASSETS_PORT $THUMBNAILS_PORT $CLIPS_PORT $CLIPS_WORKER_PORT $WEBHOOKS_PORT $GATEWAY_PORT; do
  for i in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$svc/readyz" >/dev/null 2>&1 && break
    [ "$i" = 100 ] && { echo "up: service on :$svc not ready; see $STATE/*.log"; exit 1; }
    sleep 0.2
  done
done

BASE=http://127.0.0.1:$GATEWAY_PORT/api/v1
admin() { curl -fsS -H "Authorization: Bearer $HOOKLINE_ADMIN_TOKEN" -H 'Content-Type: application/json' "$@"; }
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -1; }

key=""
if [ -f "$STATE/dev.env" ]; then
  key=$(sed -n 's/^HOOKLINE_API_KEY=//p' "$STATE/dev.env")
  curl -fsS -o /dev/null -H "Authorization: Bearer $key" "$BASE/auth/verify" 2>/dev/null || key=""
fi
if [ -z "$key" ]; then
  echo "up: seeding a dev organization"
  org=$(admin -d '{"name":"Dev organization","tier":"pro"}' "http://127.0.0.1:$GATEWAY_PORT/admin/v1/organizations" | field id)
  key=$(admin -d '{"name":"dev"}' "http://127.0.0.1:$GATEWAY_PORT/admin/v1/organizations/$org/keys" | field key)
  admin -d '{"credits":100,"kind":"purchased","reason":"dev seed"}' "http://127.0.0.1:$GATEWAY_PORT/admin/v1/organizations/$org/credits" >/dev/null
fi
cat >"$STATE/dev.env" <<ENV
HOOKLINE_BASE_URL=$BASE
HOOKLINE_ADMIN_TOKEN=$HOOKLINE_ADMIN_TOKEN
HOOKLINE_API_KEY=$key
HOOKLINE_UP_GATEWAY_PORT=$GATEWAY_PORT
HOOKLINE_UP_BILLING_PORT=$BILLING_PORT
HOOKLINE_UP_WEBHOOKS_PORT=$WEBHOOKS_PORT
HOOKLINE_UP_ASSETS_PORT=$ASSETS_PORT
HOOKLINE_UP_THUMBNAILS_PORT=$THUMBNAILS_PORT
HOOKLINE_UP_CLIPS_PORT=$CLIPS_PORT
HOOKLINE_UP_CLIPS_WORKER_PORT=$CLIPS_WORKER_PORT
HOOKLINE_UP_NATS_PORT=$NATS_UP_PORT
HOOKLINE_UP_MINIO_PORT=$MINIO_UP_PORT
HOOKLINE_UP_MINIO_CONSOLE_PORT=$MINIO_CONSOLE_UP_PORT
ENV

cat <<MSG

Hookline is up.
  base URL     $BASE
  docs         http://127.0.0.1:$GATEWAY_PORT/docs
  ports        gateway $GATEWAY_PORT, services $BILLING_PORT-$CLIPS_WORKER_PORT (see dev.env), NATS $NATS_UP_PORT, MinIO $MINIO_UP_PORT (console $MINIO_CONSOLE_UP_PORT)
  admin token  $HOOKLINE_ADMIN_TOKEN
  API key      $key
  (also in .hookline/dev.env; logs in .hookline/*.log)

  curl -H "Authorization: Bearer $key" $BASE/account/credits

Ctrl-C stops everything.
MSG
wait
