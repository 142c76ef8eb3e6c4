#!/bin/bash
# Here (the build machine), before tests/net/gpu-run.sh on the GPU machine:
# copies the plugins and their library out of a CUDA + gstreamer-cuda + UCX
# build into BUILD/net-gpu/plugin (the core plugin finds the library through
# its RUNPATH $ORIGIN/doradma, the network plugin in plugin/net/ through
# $ORIGIN/../doradma, as in the build tree), and downloads Debian 12's UCX runtime into
# BUILD/net-gpu/debs (the GPU machine has no UCX and no package registry;
# its glibc is newer, so Debian's libraries run there). Usage, from the
# repo root:
#   bash tests/net/gpu-prepare.sh build
# then carry BUILD/net-gpu and .device (../shared/device/prepare.sh), and
# run there: source .device/gstenv.sh && bash tests/net/gpu-run.sh BUILD/net-gpu $OUT
set -euo pipefail
B=${1:-build}
K=$B/net-gpu
grep -q '#define HAVE_CUDA' "$B/config.h" ||
  { echo "FAIL: $B was built without CUDA (cuda.h)"; exit 1; }
grep -q -- '-DHAVE_GST_CUDA=1' "$B/build.ninja" ||
  { echo "FAIL: $B was built without gstreamer-cuda (-Dgst-cuda)"; exit 1; }
ninja -C "$B" gst/libgstdoradma.so > /dev/null
ninja -C "$B" gst/net/libgstdoradmanet.so > /dev/null ||
  { echo "FAIL: $B was built without UCX (-Ducx, libucx-dev)"; exit 1; }
rm -rf "$K"; mkdir -p "$K/plugin/doradma" "$K/plugin/net" "$K/debs"
cp "$B/gst/libgstdoradma.so" "$K/plugin/"
cp "$B/gst/net/libgstdoradmanet.so" "$K/plugin/net/"
# by its SONAME, as a plain file (a carried tree may drop symlinks)
cp -L "$B/gst/doradma/libgstdoradma-1.0.so.0" "$K/plugin/doradma/"
# libucx0 and what it links that Ubuntu 24.04 may lack (libibverbs is
# there; the copy here keeps one consistent set)
pkgs="libucx0 libnuma1 librdmacm1 libibverbs1"
# shellcheck disable=SC2086
(cd "$K/debs" && apt-get download $pkgs 2>&1 | grep -v '^W: ' || true)
for p in $pkgs; do
  ls "$K/debs/${p}_"*.deb > /dev/null 2>&1 ||
    { echo "FAIL: apt-get download $p failed"; exit 1; }
done
echo "prepared $K: $(du -sh "$K" | cut -f1) ($(ls "$K/debs" | wc -l) packages)"
