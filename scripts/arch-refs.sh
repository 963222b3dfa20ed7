#!/usr/bin/env bash
# Every "§n" (or "§n.m") in the tree cites a section of docs/ARCHITECTURE.md
# ("## n." or "### n.m" there); this fails, listing the citations, when one
# names a section that does not exist. Run by make lint and make test.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/ARCHITECTURE.md
[ -f "$doc" ] || { echo "arch-refs: $doc is missing"; exit 1; }
sections=$(sed -nE 's/^##+ ([0-9]+(\.[0-9]+)*)\.? .*/\1/p' "$doc")
bad=0
while IFS=: read -r file line ref; do
  n=${ref#§}
  if ! grep -qxF "$n" <<<"$sections"; then
    echo "arch-refs: $file:$line cites ARCHITECTURE §$n, which $doc does not have"
    bad=1
  fi
done < <(git ls-files -z --cached --others --exclude-standard | xargs -0 grep -IonE '§ ?[0-9]+(\.[0-9]+)*' | sed -E 's/§ /§/')
[ "$bad" = 0 ] || { echo "arch-refs: sections are: $(tr '\n' ' ' <<<"$sections")"; exit 1; }
