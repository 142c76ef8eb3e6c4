#!/bin/bash
# The core plugin and the SDK library link no UCX; the network plugin does
# (gst/net/meson.build: one plugin per external dependency). Usage:
#   plugin-split.sh CORE_PLUGIN SDK_LIBRARY NET_PLUGIN
set -euo pipefail
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
for f in "$1" "$2"; do
  if needed "$f" | grep -E '^lib(ucp|ucs|uct|ucm)\.'; then
    echo "FAIL: $f links UCX (NEEDED above)"; exit 1
  fi
done
needed "$3" | grep -q '^libucp\.' || { echo "FAIL: $3 does not link libucp"; exit 1; }
echo "ok: $(basename "$1") and $(basename "$2") link no UCX; $(basename "$3") does"
