#!/usr/bin/env bash
# make lint and make test: fails when Go code picks a "free" port by
# listening on port 0, reading the port and closing the listener, so that
# something else listens on it later. Between the close and the second
# listen any process on the machine may take the port (issue 37: billing
# lost its port to another test process, "bind: address already in use").
# A process under test listens on port 0 itself (httptest) or inherits a
# socket the harness holds for the whole test (testkit.ReservePort, the
# service's HOOKLINE_HTTP_ADDR=fd:N, platform.Listen).
#
# Flagged, in every tracked .go file of the repository:
#   - a helper named like freePort / pickPort / unusedPort / getFreePort;
#   - a port number read from a listener's address (Addr().(*net.TCPAddr).Port),
#     the step between listening and closing;
#   - a listener on port 0 closed within 15 lines of opening it, other
#     than by defer.
# A line that must stay says why with a "port-check: ok" comment.
set -euo pipefail
cd "$(dirname "$0")/.."

files=$(git ls-files --cached --others --exclude-standard '*.go')
[ -n "$files" ] || { echo "port-check: no Go files found"; exit 1; }
found=0
report() { echo "port-check: $1"; found=1; }

while IFS= read -r hit; do
  [ -n "$hit" ] && report "$hit: a free-port helper (listen, read the port, close, listen again races other processes)"
done < <(echo "$files" | xargs grep -nE '\b([Gg]et)?([Ff]ree|[Pp]ick|[Uu]nused|[Aa]vailable|[Rr]andom)_?[Pp]ort\b' | grep -v 'port-check: ok' || true)

while IFS= read -r hit; do
  [ -n "$hit" ] && report "$hit: a port read from a listener to be reused elsewhere"
done < <(echo "$files" | xargs grep -nE 'Addr\(\)\.\(\*net\.TCPAddr\)\.Port' | grep -v 'port-check: ok' || true)

while IFS= read -r hit; do
  [ -n "$hit" ] && report "$hit: a listener on port 0 closed right after it was opened"
done < <(echo "$files" | xargs awk '
  FNR == 1 { v = ""; n = 0 }
  /port-check: ok/ { next }
  /Listen[A-Za-z]*\(.*:0"/ && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*:?=/ {
    v = $0; sub(/^[ \t]*/, "", v); sub(/[ \t]*,.*/, "", v); n = 15; line = FNR; next
  }
  n > 0 {
    n--
    if (v != "" && index($0, v ".Close()") && $0 !~ /defer/) { print FILENAME ":" line; n = 0 }
  }
' 2>/dev/null || true)

if [ "$found" = 1 ]; then
  echo "port-check: let the process listen on port 0 itself and report its address, or hold the port with testkit.ReservePort and pass it as fd:N"
  exit 1
fi
echo "port-check: no test picks a free port by listening and closing"
