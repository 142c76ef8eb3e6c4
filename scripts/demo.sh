#!/bin/bash
# README command 1: installs the dependencies, builds doradma (build-demo) and
# runs the two-process demo, pipelines/demo.sh: a producer pipeline ending in
# doradmasink and a consumer pipeline starting with doradmasrc, as two
# separate processes sharing frames through /dev/shm.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC"
BUILD=${DORADMA_BUILD_DIR:-$SRC/build-demo}

bash "$SRC/scripts/install-deps.sh"

if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" -Dtests=disabled -Dbench=disabled
fi
ninja -C "$BUILD"

# Use the freshly built plugin, not an installed one.
export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_PLUGIN_PATH="$BUILD/gst"
export DORADMA_BUILD_DIR="$BUILD"

if [ ! -f "$SRC/pipelines/demo.sh" ]; then
  echo "demo.sh: pipelines/demo.sh is missing in this checkout" >&2
  exit 1
fi
exec bash "$SRC/pipelines/demo.sh" "$@"
