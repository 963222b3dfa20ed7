#!/usr/bin/env bash
# Installs (when missing) and starts the dependencies of Hookline on this
# kind of machine: Postgres (the machine's, or a local cluster), a pinned
# nats-server with JetStream and a pinned MinIO. Idempotent: servers that
# already answer are left alone. Prints `export` lines for the addresses.
#
#   scripts/deps.sh install   build/install what is missing
#   scripts/deps.sh start     install, then start what is not running
#   scripts/deps.sh stop      stop the servers this script started
#   scripts/deps.sh env       print the environment for tests and services
#   scripts/deps.sh bench-tools  install wrk (and nginx, a peer proxy) for make bench
#   scripts/deps.sh lint-tools   install golangci-lint for make lint
#   scripts/deps.sh client-tools install oapi-codegen and ogen (make test-clients)
#   scripts/deps.sh chart-tools  install helm, kustomize and kubeconform (scripts/chart-check.sh)
#   scripts/deps.sh media     install ffmpeg and the caption fonts (make up)
#   scripts/deps.sh unit-tools  install what make test-unit needs: the image,
#                             vision and media libraries and tools, no server
#   scripts/deps.sh speech    install ONNX Runtime, the Moonshine speech model and real test speech (clips)
#   scripts/deps.sh emoji     install the object art thumbnails' local engine draws (Fluent Emoji 3D)
#   scripts/deps.sh translation  install Apertium and its English language pairs (clips' caption translation)
set -euo pipefail

# The NATS and MinIO versions of make up, compose, the testcontainers path
# (pkg/testkit/images.go) and the manifests under deploy/:
# pkg/testkit's TestPinnedVersionsAgree fails when one of them differs.
# MinIO: the last release published as an image; make up builds the same
# commit from source (MINIO_VERSION is its Go pseudo-version).
NATS_VERSION=v2.11.9
MINIO_RELEASE=RELEASE.2025-09-07T16-13-09Z
MINIO_VERSION=v0.0.0-20250907161309-07c3a429bfed
GOLANGCI_LINT_VERSION=v2.15.0
# The Go client generators make test-clients builds clients with
# (scripts/test-clients.sh; their npm counterparts are pinned in
# scripts/clients/package-lock.json).
OAPI_CODEGEN_VERSION=v2.8.2
OGEN_VERSION=v1.25.0
# The Helm chart's offline checks (scripts/chart-check.sh).
HELM_VERSION=v3.22.0
KUSTOMIZE_VERSION=v5.8.1
KUBECONFORM_VERSION=v0.8.0
# onnxruntime's C API version must match github.com/yalue/onnxruntime_go
# (v1.27.0 wants 1.24); the library comes from the npm package (MIT).
ONNXRUNTIME_VERSION=1.24.1
# clips' offline speech model: Moonshine tiny (English, MIT: the package's
# LICENSE, section 1), its quantized ONNX encoder and decoder from the npm
# package; the tokenizer's vocabulary is the one moonshine-js bundles from
# llama-tokenizer-js (MIT), dumped to a text file at install.
MOONSHINE_JS_VERSION=0.1.29
LLAMA_TOKENIZER_JS_VERSION=1.2.2
# Real speech with its transcript, for clips' recogniser tests and its
# BenchmarkRecognisers: Asterisk's English prompts (Allison Smith, CC-BY-SA-3.0),
# 16 kHz G.722, with core-sounds-en.txt, from Debian (not installed, only
# unpacked into the cache).
ASTERISK_SOUNDS_VERSION=1.6.1-1
# thumbnails' object art: Microsoft's Fluent Emoji in 3D (MIT), one WebP a
# code point, from @lobehub/fluent-emoji-3d, found by the English labels
# and tags of emojibase-data (MIT).
FLUENT_EMOJI_3D_VERSION=1.1.0
EMOJIBASE_DATA_VERSION=17.0.0
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${HOOKLINE_CACHE:-$HOME/.cache/hookline}
BIN=$CACHE/bin
# Server data and pid files live beside the binaries, not in the checkout:
# servers started from one clone are reused by the next (CI clones afresh),
# so their data must not vanish with the clone that started them.
STATE=${HOOKLINE_STATE:-$CACHE/state}
# The test servers' ports. make up runs its own NATS and MinIO on other
# ports (4222, 9000 and 9001, or free ones), so make test and make up run
# side by side; only Postgres is shared (tests use schemas of their own).
NATS_PORT=${HOOKLINE_NATS_PORT:-4233}
MINIO_PORT=${HOOKLINE_MINIO_PORT:-9100}
MINIO_CONSOLE_PORT=${HOOKLINE_MINIO_CONSOLE_PORT:-9101}
PG_HOST=127.0.0.1
# A Postgres cluster this script started on another port (5432 was taken
# by something else) is remembered in $STATE/pg.port.
PG_PORT=${HOOKLINE_PG_PORT:-$(cat "$STATE/pg.port" 2>/dev/null || echo 5432)}
MINIO_USER=hookline
MINIO_PASSWORD=hookline-dev-secret

log() { echo "deps: $*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port <port>: port when nothing listens on it, else the next free one.
free_port() {
  local p=$1
  while port_open "$p"; do p=$((p + 1)); done
  echo "$p"
}

wait_port() {
  local port=$1 what=$2
  for _ in $(seq 1 150); do
    port_open "$port" && return 0
    sleep 0.2
  done
  log "$what did not open port $port; see $STATE/*.log"
  return 1
}

# install_go_bin builds module@version once into $BIN/<name>-<version> and
# points $BIN/<name> at it. Every version built stays: clones that pin
# different versions share the cache without rebuilding in turn.
install_go_bin() {
  local name=$1 module=$2 version=$3
  local versioned=$BIN/$name-$version
  # A binary of the former layout (a stamp file beside it) is adopted.
  if [ ! -x "$versioned" ] && [ -f "$BIN/.$name-$version" ] && [ -x "$BIN/$name" ] && [ ! -L "$BIN/$name" ]; then
    cp "$BIN/$name" "$versioned"
  fi
  if [ ! -x "$versioned" ]; then
    log "building $name $version with go install (cached in $BIN; the first MinIO build takes several minutes)"
    local tmp
    mkdir -p "$BIN"; tmp=$(mktemp -d "$BIN/.build-XXXXXX")
    GOBIN=$tmp GOFLAGS=-buildvcs=false GOWORK=off go install "$module@$version"
    mv "$tmp"/* "$versioned"; rm -rf "$tmp"
  fi
  [ "$(readlink "$BIN/$name" 2>/dev/null)" = "$name-$version" ] || ln -sfn "$name-$version" "$BIN/$name"
}

# install_apt installs Debian packages for the commands named, when missing
# (wrk for make bench; pg_isready to probe Postgres; yt-dlp, which
# pkg/media/videosite runs to download a hosted video; the clips service's media
# tools).
install_apt() {
  local missing=()
  local cmd pkg
  for pair in "$@"; do
    cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} from Debian"
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
      log "not root: install ${missing[*]} yourself (sudo apt-get install ${missing[*]})"
    fi
  fi
}

install() {
  install_go_bin nats-server github.com/nats-io/nats-server/v2 "$NATS_VERSION"
  install_go_bin minio github.com/minio/minio "$MINIO_VERSION"
  install_apt pg_isready:postgresql-client yt-dlp:yt-dlp
  install_libvips
  install_vision
  install_clips_media
  install_onnxruntime
  install_moonshine
  install_speech_eval
  install_emoji
  install_translation
}

# install_vision installs the face and text models pkg/media/vision and the
# critique run: dlib with its 68-point landmark model (libdlib-data,
# CC0), the BLAS/LAPACK it links, and tesseract with its English data.
install_vision() {
  if [ -f /usr/share/dlib/shape_predictor_68_face_landmarks.dat ] &&
    [ -f /usr/include/dlib/image_processing.h ] && pkg-config --exists tesseract lept 2>/dev/null &&
    [ -f /usr/share/tesseract-ocr/5/tessdata/eng.traineddata ]; then return 0; fi
  log "installing dlib, its landmark model and tesseract from Debian (pkg/media/vision, critique)"
  install_apt_pkgs libdlib-dev libdlib-data libblas-dev liblapack-dev libjpeg-dev libpng-dev \
    tesseract-ocr-eng libtesseract-dev libleptonica-dev pkg-config
}

# install_onnxruntime unpacks libonnxruntime from the npm package
# onnxruntime-node: thumbnails runs a user-supplied background-matting
# model with it (HOOKLINE_BG_MODEL), and its tests run a model they build.
install_onnxruntime() {
  local dir=$CACHE/onnxruntime-$ONNXRUNTIME_VERSION
  if [ -f "$dir/libonnxruntime.so.1" ]; then return 0; fi
  command -v npm >/dev/null || install_apt npm:npm
  log "fetching onnxruntime-node@$ONNXRUNTIME_VERSION from npm for its libonnxruntime (~85 MB, once)"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "onnxruntime-node@$ONNXRUNTIME_VERSION" >/dev/null &&
    tar -xzf "onnxruntime-node-$ONNXRUNTIME_VERSION.tgz" package/bin/napi-v6/linux/x64/libonnxruntime.so.1)
  mkdir -p "$dir"
  mv "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$dir/"
  rm -rf "$tmp"
}

# install_moonshine unpacks Moonshine tiny (quantized encoder_model.onnx
# and decoder_model_merged.onnx, with the package's LICENSE) from the npm
# package @moonshine-ai/moonshine-js and writes its tokenizer vocabulary,
# one token a line in id order, as tiny/tokens.txt: moonshine-js decodes with
# llama-tokenizer-js, whose vocabulary it bundles, so the file is dumped
# from that package at the version moonshine-js depends on.
install_moonshine() {
  local dir=$CACHE/moonshine-js-$MOONSHINE_JS_VERSION
  if [ -f "$dir/tiny/tokens.txt" ]; then return 0; fi
  command -v npm >/dev/null || install_apt npm:npm
  log "fetching @moonshine-ai/moonshine-js@$MOONSHINE_JS_VERSION from npm for Moonshine tiny (~21 MB, once)"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@moonshine-ai/moonshine-js@$MOONSHINE_JS_VERSION" \
    "llama-tokenizer-js@$LLAMA_TOKENIZER_JS_VERSION" >/dev/null &&
    mkdir m t && tar -xzf "moonshine-ai-moonshine-js-$MOONSHINE_JS_VERSION.tgz" -C m &&
    tar -xzf "llama-tokenizer-js-$LLAMA_TOKENIZER_JS_VERSION.tgz" -C t &&
    node --input-type=module -e "import t from '$tmp/t/package/llama-tokenizer.js'; process.stdout.write(t.vocabById.join('\\n') + '\\n')" >tokens.txt)
  mkdir -p "$dir/tiny"
  mv "$tmp"/m/package/dist/model/tiny/quantized/*.onnx "$dir/tiny/"
  mv "$tmp/m/package/LICENSE" "$dir/"
  mv "$tmp/t/package/LICENSE.md" "$dir/LICENSE.tokens.md"
  mv "$tmp/tokens.txt" "$dir/tiny/"
  rm -rf "$tmp"
}

# install_speech_eval unpacks Asterisk's English prompts and their
# transcript into $CACHE/speech-eval: real recordings for clips'
# recogniser tests and the word error rate of BenchmarkRecognisers.
install_speech_eval() {
  local dir=$CACHE/speech-eval/asterisk-core-sounds-en-$ASTERISK_SOUNDS_VERSION
  if [ -f "$dir/core-sounds-en.txt" ]; then return 0; fi
  log "fetching asterisk-core-sounds-en(-g722) $ASTERISK_SOUNDS_VERSION from Debian (real speech for the recogniser's tests, ~11 MB, once)"
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp" # apt's download user writes into it
  local debs=("asterisk-core-sounds-en=$ASTERISK_SOUNDS_VERSION" "asterisk-core-sounds-en-g722=$ASTERISK_SOUNDS_VERSION")
  # A machine whose package lists were never fetched knows neither.
  (cd "$tmp" && { apt-get download -qq "${debs[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get download -qq "${debs[@]}" >/dev/null; }; } &&
    for deb in ./*.deb; do dpkg-deb -x "$deb" x; done)
  mkdir -p "$dir"
  mv "$tmp"/x/usr/share/asterisk/sounds/en_US_f_Allison/* "$dir/"
  gzip -dc "$tmp/x/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz" >"$dir/core-sounds-en.txt"
  rm -rf "$tmp"
}

# install_emoji unpacks the Fluent Emoji 3D art (assets/*.webp) and
# emojibase's English data.json, with their licences, into one directory
# (HOOKLINE_EMOJI_DIR).
install_emoji() {
  local dir=$CACHE/fluent-emoji-$FLUENT_EMOJI_3D_VERSION-emojibase-$EMOJIBASE_DATA_VERSION
  if [ -f "$dir/data.json" ] && [ -d "$dir/assets" ]; then return 0; fi
  command -v npm >/dev/null || install_apt npm:npm
  log "fetching @lobehub/fluent-emoji-3d@$FLUENT_EMOJI_3D_VERSION and emojibase-data@$EMOJIBASE_DATA_VERSION from npm (~22 MB, once)"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@lobehub/fluent-emoji-3d@$FLUENT_EMOJI_3D_VERSION" "emojibase-data@$EMOJIBASE_DATA_VERSION" >/dev/null &&
    mkdir f e && tar -xzf "lobehub-fluent-emoji-3d-$FLUENT_EMOJI_3D_VERSION.tgz" -C f &&
    tar -xzf "emojibase-data-$EMOJIBASE_DATA_VERSION.tgz" -C e package/en/data.json package/LICENSE)
  mkdir -p "$dir"
  mv "$tmp/f/package/assets" "$dir/"
  mv "$tmp/f/package/README.md" "$dir/README.fluent-emoji-3d.md"
  mv "$tmp/e/package/LICENSE" "$dir/LICENSE.emojibase"
  mv "$tmp/e/package/en/data.json" "$dir/"
  rm -rf "$tmp"
}

# install_clips_media installs what the clips service runs: ffmpeg and
# ffprobe (probe, measure, cut), pocketsphinx with its US English model
# (the recognised words' timings, and the pocketsphinx recogniser),
# WordNet's database (wordnet-base, the WordNet licence: a prompt's
# synonyms; without the recommended GUI) and espeak-ng (the tests' known
# speech).
install_clips_media() {
  install_apt ffmpeg:ffmpeg ffprobe:ffmpeg espeak-ng:espeak-ng pocketsphinx_continuous:pocketsphinx
  if [ ! -d /usr/share/pocketsphinx/model/en-us ]; then install_apt_pkgs pocketsphinx-en-us; fi
  if [ ! -f /usr/share/wordnet/data.noun ]; then install_apt_pkgs --no-install-recommends wordnet-base; fi
}

# TRANSLATION_PKGS are clips' offline caption translator: Apertium and
# every pair Debian 12 has from English (Spanish, Catalan, Galician,
# Esperanto; the others it has translate into English only). The service
# finds the installed pairs at start (apertium -l).
TRANSLATION_PKGS=(apertium apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eo-en)

# install_translation installs the TRANSLATION_PKGS that are missing.
install_translation() {
  local missing=() p
  for p in "${TRANSLATION_PKGS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  log "installing ${missing[*]} from Debian (clips' offline caption translation)"
  install_apt_pkgs "${missing[@]}"
}

# install_apt_pkgs installs Debian packages that bring no command.
install_apt_pkgs() {
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    log "not root: install $* yourself (sudo apt-get install $*)"
  fi
}

# install_libvips installs what the thumbnails service needs to build and
# draw: libvips with its headers (govips links it through cgo and
# pkg-config) and the fonts its compositor falls back to.
install_libvips() {
  if pkg-config --exists vips 2>/dev/null; then return 0; fi
  log "installing libvips-dev from Debian (thumbnails links libvips)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libvips-dev pkg-config >/dev/null
  else
    log "not root: install libvips-dev yourself (sudo apt-get install libvips-dev pkg-config)"; return 1
  fi
}

start_postgres() {
  if pg_isready -q -h "$PG_HOST" -p "$PG_PORT" 2>/dev/null; then return 0; fi
  if ls /etc/postgresql >/dev/null 2>&1 && command -v pg_ctlcluster >/dev/null; then
    log "starting the machine's Postgres cluster"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    for _ in $(seq 1 50); do pg_isready -q -h "$PG_HOST" -p "$PG_PORT" && return 0; sleep 0.2; done
  fi
  local initdb
  initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$initdb" ]; then
    log "no Postgres found: installing it from Debian"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    initdb=$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)
  fi
  local pgbin; pgbin=$(dirname "$initdb")
  if port_open "$PG_PORT"; then
    local taken=$PG_PORT
    PG_PORT=$(free_port "$PG_PORT")
    log "port $taken is taken by something that is not Postgres: the local cluster uses $PG_PORT"
  fi
  mkdir -p "$STATE"; echo "$PG_PORT" >"$STATE/pg.port"
  log "starting a local Postgres cluster in $STATE/pg on :$PG_PORT"
  mkdir -p "$STATE"
  if [ ! -f "$STATE/pg/PG_VERSION" ]; then
    if [ "$(id -u)" = 0 ]; then
      mkdir -p "$STATE/pg" && chown postgres "$STATE/pg"
      su postgres -c "$initdb -D $STATE/pg -U postgres --auth=trust" >/dev/null
    else
      "$initdb" -D "$STATE/pg" -U postgres --auth=trust >/dev/null
    fi
  fi
  local ctl="$pgbin/pg_ctl -D $STATE/pg -l $STATE/pg.log -o '-p $PG_PORT -k /tmp' -w start"
  if [ "$(id -u)" = 0 ]; then su postgres -c "$ctl" >/dev/null; else eval "$ctl" >/dev/null; fi
}

start_nats() {
  port_open "$NATS_PORT" && return 0
  mkdir -p "$STATE/nats-$NATS_PORT"
  log "starting nats-server $NATS_VERSION with JetStream on :$NATS_PORT"
  # setsid: a session of its own, so a Ctrl-C meant for make up (or
  # whatever started this) does not stop the shared test server.
  setsid nohup "$BIN/nats-server" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$STATE/nats-$NATS_PORT" \
    >"$STATE/nats-$NATS_PORT.log" 2>&1 &
  echo $! >"$STATE/nats-$NATS_PORT.pid"
  wait_port "$NATS_PORT" nats-server
}

# minio_ready <port>: a MinIO answers its readiness probe there.
minio_ready() { curl -fsS -m 2 "http://127.0.0.1:$1/minio/health/ready" >/dev/null 2>&1; }

# run_minio <dir> <port> <console port> <log>: starts MinIO in the
# background (make up runs its own with it) and waits until it is ready;
# prints its pid.
run_minio() {
  local dir=$1 port=$2 console=$3 logf=$4
  mkdir -p "$dir"
  MINIO_ROOT_USER=$MINIO_USER MINIO_ROOT_PASSWORD=$MINIO_PASSWORD MINIO_BROWSER=off \
    setsid nohup "$BIN/minio" server "$dir" --quiet --address "127.0.0.1:$port" \
    --console-address "127.0.0.1:$console" >"$logf" 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do
    minio_ready "$port" && { echo "$pid"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  log "MinIO did not become ready on :$port; see $logf"; return 1
}

start_minio() {
  minio_ready "$MINIO_PORT" && return 0
  if port_open "$MINIO_PORT"; then
    log "port $MINIO_PORT is taken by something that is not MinIO; set HOOKLINE_MINIO_PORT"; return 1
  fi
  log "starting MinIO on :$MINIO_PORT"
  mkdir -p "$STATE"
  run_minio "$STATE/minio-$MINIO_PORT" "$MINIO_PORT" "$MINIO_CONSOLE_PORT" "$STATE/minio-$MINIO_PORT.log" >"$STATE/minio-$MINIO_PORT.pid"
}

stop() {
  local f
  for f in "$STATE"/nats*.pid "$STATE"/minio*.pid; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
}

print_env() {
  cat <<ENV
export HOOKLINE_TEST_DATABASE_URL='postgres://postgres@$PG_HOST:$PG_PORT/postgres?sslmode=disable'
export HOOKLINE_TEST_NATS_URL='nats://127.0.0.1:$NATS_PORT'
export HOOKLINE_TEST_S3_ENDPOINT='127.0.0.1:$MINIO_PORT'
export HOOKLINE_TEST_S3_ACCESS_KEY='$MINIO_USER'
export HOOKLINE_TEST_S3_SECRET_KEY='$MINIO_PASSWORD'
export HOOKLINE_BIN='$BIN'
export HOOKLINE_ONNXRUNTIME_LIB='$CACHE/onnxruntime-$ONNXRUNTIME_VERSION/libonnxruntime.so.1'
export HOOKLINE_MOONSHINE_DIR='$CACHE/moonshine-js-$MOONSHINE_JS_VERSION/tiny'
export HOOKLINE_SPEECH_EVAL_DIR='$CACHE/speech-eval/asterisk-core-sounds-en-$ASTERISK_SOUNDS_VERSION'
export HOOKLINE_EMOJI_DIR='$CACHE/fluent-emoji-$FLUENT_EMOJI_3D_VERSION-emojibase-$EMOJIBASE_DATA_VERSION'
# libtesseract's OpenMP teams spin on idle cores; the critique keeps a
# handle per core instead (services/thumbnails/internal/tesseract). Read when libgomp loads.
export OMP_THREAD_LIMIT=1
ENV
}

case "${1:-start}" in
  install) install ;;
  unit-tools) install_libvips; install_vision; install_clips_media; install_onnxruntime; install_emoji; install_translation ;;
  bench-tools) install_apt wrk:wrk psql:postgresql-client nginx:nginx-light ;;
  lint-tools) install_go_bin golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION" ;;
  client-tools) install_go_bin oapi-codegen github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen "$OAPI_CODEGEN_VERSION"
                install_go_bin ogen github.com/ogen-go/ogen/cmd/ogen "$OGEN_VERSION" ;;
  chart-tools) install_go_bin helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"
               install_go_bin kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION"
               install_go_bin kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION" ;;
  speech) install_onnxruntime; install_moonshine; install_speech_eval ;;
  emoji) install_emoji ;;
  translation) install_translation ;;
  media) install_clips_media; install_apt fc-list:fontconfig
         for f in fonts-inter fonts-bebas-neue fonts-dejavu-core; do
           dpkg -s "$f" >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$f" >/dev/null || log "could not install $f"; }
         done ;;
  start) install; start_postgres; start_nats; start_minio; print_env ;;
  stop) stop ;;
  env) print_env ;;
  # For scripts/up.sh: the pinned binaries and MinIO's credentials.
  up-env) echo "export HOOKLINE_BIN='$BIN' HOOKLINE_MINIO_USER='$MINIO_USER' HOOKLINE_MINIO_PASSWORD='$MINIO_PASSWORD'" ;;
  run-minio) shift; run_minio "$@" ;;
  *) echo "usage: $0 install|start|stop|env|up-env|run-minio|bench-tools|lint-tools|client-tools|chart-tools|media|speech|emoji|translation" >&2; exit 2 ;;
esac
