#!/usr/bin/env bash
# Builds imgproxy, the peer of the edits benchmark (bench/run.sh edits),
# from a local mirror of its repository at a pinned commit, against the
# machine's libvips (Debian's libvips-dev, through pkg-config), into
# $HOOKLINE_CACHE/bin/imgproxy. The Go module proxy does not serve
# imgproxy, so it is built from its git repository; a stamp file beside the
# binary records the commit, and a second run at the same commit does
# nothing.
#
#   bench/imgproxy/build.sh            prints the binary's path on stdout
#
# IMGPROXY_MIRROR overrides where the repository is cloned from.
set -euo pipefail

# imgproxy v4 (the "Merge branch 'version/4.0'" snapshot).
IMGPROXY_COMMIT=eef3b31299727e05cb7d35c02cfbb009666dafa6
MIRROR=${IMGPROXY_MIRROR:-/work/.mirror/imgproxy+imgproxy/repo}
CACHE=${HOOKLINE_CACHE:-$HOME/.cache/hookline}
BIN=$CACHE/bin
stamp=$BIN/.imgproxy-$IMGPROXY_COMMIT

log() { echo "imgproxy: $*" >&2; }

if [ -x "$BIN/imgproxy" ] && [ -f "$stamp" ]; then
  echo "$BIN/imgproxy"
  exit 0
fi
if ! git --git-dir="$MIRROR" cat-file -e "$IMGPROXY_COMMIT^{commit}" 2>/dev/null; then
  log "no imgproxy repository holding commit $IMGPROXY_COMMIT at $MIRROR"
  log "(clone https://github.com/imgproxy/imgproxy somewhere and set IMGPROXY_MIRROR to its .git directory)"
  exit 1
fi
if ! pkg-config --exists vips; then
  log "libvips is not visible to pkg-config: install libvips-dev (apt-get install libvips-dev)"
  exit 1
fi

src=$(mktemp -d "${TMPDIR:-/tmp}/imgproxy-src.XXXXXX")
trap 'rm -rf "$src"' EXIT
log "building commit ${IMGPROXY_COMMIT:0:12} against libvips $(pkg-config --modversion vips) (the first build downloads its modules and takes a few minutes)"
git clone -q --no-checkout "$MIRROR" "$src"
git -C "$src" -c advice.detachedHead=false checkout -q "$IMGPROXY_COMMIT"
mkdir -p "$BIN"
# GOTOOLCHAIN=local: build with the machine's Go, as the rest of the repo
# does; go.mod's go line says which version that must at least be.
(cd "$src" && CGO_ENABLED=1 GOWORK=off GOFLAGS=-buildvcs=false GOTOOLCHAIN=local go build -trimpath -o "$BIN/imgproxy.new" ./cli)
mv "$BIN/imgproxy.new" "$BIN/imgproxy"
rm -f "$BIN"/.imgproxy-*
touch "$stamp"
echo "$BIN/imgproxy"
