#!/usr/bin/env bash
# make tour: runs the README's tour (every ```sh tour block, in order, in
# one bash with -euo pipefail, from the repository's root) against the
# running make up stack of this clone, so the tour a reader copies is the
# tour that works. TOUR_TIMEOUT (seconds, default 600) bounds the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f .hookline/dev.env ] || { echo "tour: no .hookline/dev.env; run make up first" >&2; exit 1; }
script=$(mktemp /tmp/hookline-tour.XXXXXX.sh)
trap 'rm -f "$script"' EXIT
awk '/^```sh tour$/ {on = 1; n++; print "echo \"tour: block " n "\" >&2"; next}
     /^```$/ && on {on = 0; next}
     on {print}' README.md >"$script"
blocks=$(grep -c '^```sh tour$' README.md || true)
[ "$blocks" -gt 0 ] || { echo "tour: README.md has no sh tour block" >&2; exit 1; }
echo "tour: $blocks blocks from README.md"
start=$(date +%s)
timeout "${TOUR_TIMEOUT:-600}" bash -euo pipefail -x "$script"
echo "tour: ok in $(($(date +%s) - start)) s"
