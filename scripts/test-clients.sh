#!/usr/bin/env bash
# make test-clients: the API and its MCP server through the tools
# integrators use, none of them written here. Installs them at exact
# versions (oapi-codegen and ogen with go install into ~/.cache/hookline/bin;
# the npm packages of scripts/clients/package-lock.json with npm ci
# --ignore-scripts into ~/.cache/hookline/clients-npm-<lock hash>), then
# runs e2e's TestThirdPartyClients: it starts the stack as every e2e test
# does and runs scripts/clients/run.sh against it (generate, compile and
# call the Go and TypeScript clients; the MCP SDK and inspector against
# /mcp; a webhook delivery verified with standardwebhooks).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
eval "$(scripts/deps.sh start)"
scripts/deps.sh client-tools
# -trimpath: the build cache is shared with every clone; -ldflags=-w: links
# without DWARF (both: scripts/test.sh).
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath -ldflags=-w"

command -v npm >/dev/null || { [ "$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
cache=${HOOKLINE_CACHE:-$HOME/.cache/hookline}
lock=scripts/clients/package-lock.json
npmdir=$cache/clients-npm-$(sha256sum "$lock" | cut -c1-12)
if [ ! -f "$npmdir/.installed" ]; then
  echo "test-clients: installing the npm packages of $lock into $npmdir"
  rm -rf "$npmdir" && mkdir -p "$npmdir"
  cp scripts/clients/package.json "$lock" "$npmdir/"
  (cd "$npmdir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  touch "$npmdir/.installed"
fi

mkdir -p .hookline
HOOKLINE_CLIENTS_NPM=$npmdir HOOKLINE_CLIENTS_WORK=$PWD/.hookline/clients \
  go test -count=1 -timeout 15m -run '^TestThirdPartyClients$' -v ./e2e/ 2>&1 | tee .hookline/test-clients.log
status=${PIPESTATUS[0]}
echo "test-clients: $(( $(date +%s) - started )) s"
exit "$status"
