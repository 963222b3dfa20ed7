#!/usr/bin/env bash
# Generates clients from the document a running gateway serves, compiles
# them and makes real calls through each, with third-party tools only:
# oapi-codegen and ogen (Go), @hey-api/openapi-ts and openapi-typescript
# (TypeScript), the official MCP TypeScript SDK and inspector CLI against
# /mcp, and the standardwebhooks package for a webhook delivery.
# e2e's TestThirdPartyClients runs it against the stack it starts; see
# scripts/test-clients.sh, which installs the tools and sets:
#   HOOKLINE_BASE_URL, HOOKLINE_API_KEY  the gateway and a key with credits
#   HOOKLINE_BIN                         oapi-codegen and ogen
#   HOOKLINE_CLIENTS_NPM                 a folder with node_modules (package-lock.json)
#   HOOKLINE_CLIENTS_WORK                where to generate (emptied first)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${HOOKLINE_BASE_URL:?}" "${HOOKLINE_API_KEY:?}" "${HOOKLINE_BIN:?}" "${HOOKLINE_CLIENTS_NPM:?}" "${HOOKLINE_CLIENTS_WORK:?}"
work=$HOOKLINE_CLIENTS_WORK
rm -rf "$work" && mkdir -p "$work"
step() { echo "== $* ($(date -u +%T))"; }

step "the served document"
curl -fsS "$HOOKLINE_BASE_URL/api/v1/openapi.json" -o "$work/openapi.json"

step "Go: oapi-codegen $("$HOOKLINE_BIN/oapi-codegen" -version | tail -1) and ogen, generated, compiled, called"
cp -r "$here/go" "$work/go"
cd "$work/go"
"$HOOKLINE_BIN/oapi-codegen" -config oapi-codegen.yaml ../openapi.json
# ogen logs a line per header it canonicalises; only a failure is shown.
"$HOOKLINE_BIN/ogen" --target ogen --package ogen --clean ../openapi.json 2>ogen.log || { cat ogen.log; exit 1; }
GOWORK=off GOFLAGS=-mod=mod go build -o bin/ ./oapicalls ./ogencalls
bin/oapicalls
bin/ogencalls

step "TypeScript: @hey-api/openapi-ts and openapi-typescript, compiled with tsc --strict, called"
cp -r "$here/ts" "$work/ts"
cd "$work/ts"
ln -s "$HOOKLINE_CLIENTS_NPM/node_modules" node_modules
node_modules/.bin/openapi-ts --input ../openapi.json --output hey >hey.log || { cat hey.log; exit 1; }
node_modules/.bin/openapi-typescript ../openapi.json --output schema.d.ts >/dev/null
node_modules/.bin/tsc -p .
node dist/calls.js

step "MCP: the official TypeScript SDK's client against /mcp"
cp "$here/mcp.mjs" "$here/webhook.mjs" .
node mcp.mjs

step "MCP: the inspector CLI calls get_thumbnail with a malformed id"
node_modules/.bin/mcp-inspector --cli "$HOOKLINE_BASE_URL/mcp" --transport http \
  --header "Authorization: Bearer $HOOKLINE_API_KEY" \
  --method tools/call --tool-name get_thumbnail --tool-arg id=not-a-uuid 2>&1 | grep -v '^$' | tee inspector.out
grep -q '"isError": true' inspector.out && grep -q 'invalid_request' inspector.out && grep -q 'HTTP 400' inspector.out ||
  { echo "the inspector did not show the 400's message and code"; exit 1; }

step "Webhooks: a delivery verified with standardwebhooks"
node webhook.mjs
step "every client passed"
