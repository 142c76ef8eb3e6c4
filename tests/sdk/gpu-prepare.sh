#!/bin/bash
# Here (the build machine), before tests/sdk/gpu-run.sh on the GPU machine:
# installs the SDK from a CUDA-enabled build into BUILD/sdk-gpu/destdir and
# downloads the Python runtime the example needs there (the GPU machine has
# neither GLib nor Python's gi/numpy; Debian 12's python3.11 runs on its
# newer glibc, unpacked under /opt/sdkpy). Usage, from the repo root:
#   bash tests/sdk/gpu-prepare.sh build-sdk
# then carry BUILD/sdk-gpu and .device (../shared/device/prepare.sh).
set -euo pipefail
B=${1:-build-sdk}
K=$B/sdk-gpu
grep -q '#define HAVE_CUDA' "$B/config.h" || { echo "$B was built without CUDA (cuda.h)"; exit 1; }
rm -rf "$K"; mkdir -p "$K/debs"
meson install -C "$B" --no-rebuild --destdir "$PWD/$K/destdir" --quiet
meson introspect "$B" --buildoptions | /usr/bin/python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print("SDK_PREFIX=%s\nSDK_LIBDIR=%s/%s" % (o["prefix"], o["prefix"], o["libdir"]))' > "$K/paths.sh"
# the doradma Python module's site directory under the prefix (python/)
pydir=$(find "$K/destdir" -path '*/doradma/__init__.py' | head -1)
[ -n "$pydir" ] && echo "SDK_PYDIR=$(dirname "$(dirname "${pydir#"$K/destdir"}")")" >> "$K/paths.sh"
# libpython3.11: python3-gst-1.0's overrides module (_gi_gst) links
# libpython3.11.so.1.0, which python3.11-minimal does not ship and the GPU
# machine (Ubuntu 24.04, Python 3.12) lacks: without it "from gi.repository
# import Gst" fails there with an ImportError while plain "import gi" works.
pkgs="python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11
  python3-gi python3-gst-1.0 gir1.2-glib-2.0 gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0 libgirepository-1.0-1 python3-numpy libblas3
  liblapack3 libgfortran5 libquadmath0"
# shellcheck disable=SC2086
(cd "$K/debs" && apt-get download $pkgs 2>&1 | grep -v '^W: ' || true)
for p in $pkgs; do
  ls "$K/debs/${p}_"*.deb > /dev/null 2>&1 || { echo "apt-get download $p failed"; exit 1; }
done
echo "prepared $K: $(du -sh "$K" | cut -f1) ($(ls "$K/debs" | wc -l) packages)"
