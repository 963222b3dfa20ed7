#!/usr/bin/env bash
# make up-test: `make up` starts on a machine whose usual ports are taken.
# Occupies 4222, 8080 and 9000 with listeners of its own (a port something
# else already holds stays taken all the same), clones the committed HEAD
# afresh, runs `make up` there, reads the base URL it prints and asks the
# seeded organization's credits through it with the printed API key. Then
# stops make up with Ctrl-C (SIGINT) and checks that its ports are closed.
#
# make test runs it last (about 100 s once deps.sh has built the pinned
# servers: make up's service build and start dominate).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TIMEOUT=${UP_TEST_TIMEOUT:-1200} # seconds for make up to come up, builds included
work=$(mktemp -d /tmp/hookline-up-test.XXXXXX)
pids=()
up_pid=""
finish() {
  [ -n "$up_pid" ] && kill -INT -- "-$up_pid" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap finish EXIT
log() { echo "up-test: $*"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Listeners of our own on the ports make up would take first.
for port in 4222 8080 9000; do
  if port_open "$port"; then
    log "port $port is already taken by another process"
    continue
  fi
  python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
while True: time.sleep(3600)' "$port" &
  pids+=($!)
  for _ in $(seq 1 50); do port_open "$port" && break; sleep 0.1; done
  port_open "$port" || { log "could not listen on $port"; exit 1; }
  log "listening on $port ourselves"
done

git clone --quiet "$ROOT" "$work/hookline"
log "fresh clone of $(git -C "$work/hookline" rev-parse --short HEAD) in $work/hookline; running make up"
start=$(date +%s)
# A process group of its own, so Ctrl-C reaches make, up.sh and its children.
setsid make -C "$work/hookline" up >"$work/up.log" 2>&1 &
up_pid=$!

for _ in $(seq 1 "$TIMEOUT"); do
  grep -q '^Hookline is up' "$work/up.log" && break
  if ! kill -0 "$up_pid" 2>/dev/null; then
    log "make up exited before it was up:"; cat "$work/up.log"
    tail -n 5 "$work"/hookline/.hookline/*.log 2>/dev/null; exit 1
  fi
  sleep 1
done
grep -q '^Hookline is up' "$work/up.log" || { log "make up not up within ${TIMEOUT}s:"; cat "$work/up.log"; exit 1; }
log "make up was up after $(($(date +%s) - start)) s; it printed:"
sed -n '/taken; using/p;/^Hookline is up/,$p' "$work/up.log"

base=$(sed -n 's/^  base URL *//p' "$work/up.log")
key=$(sed -n 's/^  API key *//p' "$work/up.log")
case "$base" in
  http://127.0.0.1:8080/*) log "the gateway took 8080, which this test holds"; exit 1 ;;
  http://127.0.0.1:*/api/v1) ;;
  *) log "no base URL printed"; exit 1 ;;
esac
grep -q "^HOOKLINE_BASE_URL=$base\$" "$work/hookline/.hookline/dev.env" || { log "dev.env does not hold $base"; exit 1; }
for p in 4222 9000; do
  grep -q "^HOOKLINE_UP_[A-Z_]*_PORT=$p\$" "$work/hookline/.hookline/dev.env" && { log "make up took port $p, which this test holds"; exit 1; }
done

credits=$(curl -fsS -H "Authorization: Bearer $key" "$base/account/credits")
log "GET $base/account/credits: $credits"
echo "$credits" | grep -q '"purchased":100' || { log "the seeded organization's 100 purchased credits are missing"; exit 1; }
verify=$(curl -fsS -H "Authorization: Bearer $key" "$base/auth/verify")
echo "$verify" | grep -q 'Dev organization' || { log "auth/verify: $verify"; exit 1; }

# A second make up in the same clone finds the first.
make -C "$work/hookline" up >"$work/up2.log" 2>&1 || { log "second make up failed:"; cat "$work/up2.log"; exit 1; }
grep -q "already running" "$work/up2.log" || { log "second make up did not find the first:"; cat "$work/up2.log"; exit 1; }

gw_port=${base#http://127.0.0.1:}; gw_port=${gw_port%%/*}
kill -INT -- "-$up_pid"
for _ in $(seq 1 300); do kill -0 "$up_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$up_pid" 2>/dev/null && { log "make up did not stop on Ctrl-C"; exit 1; }
up_pid=""
port_open "$gw_port" && { log "gateway port $gw_port still open after Ctrl-C"; exit 1; }
log "ok"
