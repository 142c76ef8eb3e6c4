#!/bin/bash
# On the GPU machine: the installed SDK's Python example with --cuda. A live
# producer (gst-launch-1.0 videotestsrc ! doradmasink), the consumer
# examples/sdk/python-numpy.py with doradmasrc transport=unified: every
# frame is a NumPy view at the slot's host address, and its CUDA device
# address (GstDoradma.memory_get_device_pointer, exposed through
# __cuda_array_interface__) read back with cuMemcpyDtoH through ctypes
# holds the same bytes; both SHA-1s equal checksumsink's of the same frames.
# Usage, from the repo root, with .device and BUILD/sdk-gpu carried
# (tests/sdk/gpu-prepare.sh made the latter):
#   source .device/gstenv.sh && bash tests/sdk/gpu-run.sh build-sdk/sdk-gpu $OUT
# Files in $O (all small, at most 4, so that they come back from a run):
# env.log (versions, and the full error if the Python imports fail),
# unified.log (the example's output; its tail is also printed on failure),
# producer.log, summary.log, frames.log (tests/sdk/gpu-frames.py: the
# doradma module's __cuda_array_interface__ of unified and ipc frames). Scratch (registry, reference) goes to a temp dir.
set -u
K=${1:-build-sdk/sdk-gpu}; O=${2:-/tmp/out}; mkdir -p "$O"
T=$(mktemp -d /tmp/sdk-gpu-XXXXXX)
fail() { echo "FAIL: $*" | tee -a "$O/summary.log"; exit 1; }
. "$K/paths.sh"
P=${SDKPY:-/opt/sdkpy}   # where the Python runtime is unpacked
# unpacked again whenever the carried package set changes (a warm machine
# keeps $P from an earlier run)
stamp=$(cd "$K/debs" && ls)
if [ "$(cat $P/.debs 2>/dev/null)" != "$stamp" ]; then
  rm -rf $P; mkdir -p $P
  for f in "$K"/debs/*.deb; do dpkg -x "$f" $P; done
  echo "$stamp" > $P/.debs
fi
L=$PWD/$K/destdir$SDK_LIBDIR
A=$P/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$L:$A:$A/blas:$A/lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0
export GST_PLUGIN_SYSTEM_PATH=$L/gstreamer-1.0:${GST_PLUGIN_SYSTEM_PATH:-}
export GST_REGISTRY=$T/registry.bin
export GI_TYPELIB_PATH=$L/girepository-1.0:$A/girepository-1.0
export PYTHONPATH=$P/usr/lib/python3/dist-packages
export DORADMA_SHM_DIR=$(mktemp -d /dev/shm/doradma-sdkgpu-XXXXXX)
trap 'rm -rf "$DORADMA_SHM_DIR" "$T"' EXIT
py=$P/usr/bin/python3.11
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  $py -c 'import sys, numpy, gi; print(sys.version.split()[0], "numpy", numpy.__version__, "gi", gi.__version__)'
  # the example's imports on their own, with the whole error if they fail
  $py -c '
import gi
for ns in ("Gst", "GstVideo", "GstDoradma"):
    gi.require_version(ns, "1.0")
from gi.repository import Gst, GstVideo, GstDoradma
Gst.init(None)
print("imports ok:", Gst.version_string(), "GstDoradma from", GstDoradma.__path__)'
  for f in $P/usr/lib/python3/dist-packages/gi/*.so \
           $P/usr/lib/python3/dist-packages/gi/overrides/*.so; do
    ldd "$f" | grep 'not found' | sed "s|^|$(basename "$f"): |"
  done
  gst-inspect-1.0 doradma 2>/dev/null | grep -E 'Filename|Version'
  ldd "$L/gstreamer-1.0/libgstdoradma.so" | grep -E 'doradma|cuda|not found'
} > "$O/env.log" 2>&1
cat "$O/env.log"

CAPS="video/x-raw,format=RGBA,width=640,height=480,framerate=30/1"
N=30
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$N ! $CAPS ! checksumsink \
  | awk '{print $2}' > "$T/ref.txt"
[ "$(wc -l < "$T/ref.txt")" -eq $N ] || fail "no reference (checksumsink)"

channel=sdk-gpu-$$
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$N ! $CAPS ! \
  doradmasink channel=$channel mode=lossless wait-for-readers=1 sync=false \
  > "$O/producer.log" 2>&1 &
prod=$!
$py examples/sdk/python-numpy.py $channel $N --cuda --src-args "transport=unified" \
  > "$O/unified.log" 2>&1
r=$?
[ $r -eq 0 ] || kill $prod 2>/dev/null    # it would wait for a reader forever
wait $prod; pr=$?
if [ $r -ne 0 ]; then
  tail -40 "$O/unified.log" | tee -a "$O/summary.log"
  fail "python-numpy.py --cuda exited $r (unified.log, env.log)"
fi
head -3 "$O/unified.log"
[ $pr -eq 0 ] || fail "producer exited $pr (producer.log)"
sed -n 's/.* sha1 \([0-9a-f]*\) .*/\1/p' "$O/unified.log" | diff "$T/ref.txt" - || fail "host bytes differ from the producer's"
sed -n 's/.* device-sha1 \([0-9a-f]*\).*/\1/p' "$O/unified.log" | diff "$T/ref.txt" - || fail "device read-back differs from the producer's"
n=$(grep -c ' zero-copy .* device=0x[1-9a-f]' "$O/unified.log")
[ "$n" -eq $N ] || fail "$n of $N frames zero-copy with a device pointer"
echo "PASS: $N frames, NumPy view at the slot address, device pointer read back through ctypes equal" | tee -a "$O/summary.log"

# The doradma module (doradma.Frame): __cuda_array_interface__ read back
# byte-exact (SHA-1 = checksumsink's), also for a frame kept past the
# pipeline: unified frames (the slot's device alias), then ipc frames (a
# producer writing into CUDA IPC slots, the consumer asking for
# memory:CUDAMemory: device-only GstCudaMemory frames). Both go to frames.log.
[ -n "${SDK_PYDIR:-}" ] || fail "no doradma Python module in the install (python/, -Dpython)"
export PYTHONPATH=$PWD/$K/destdir$SDK_PYDIR:$PYTHONPATH
: > "$O/frames.log"
for tr in unified ipc; do
  channel=sdk-gpu-frames-$tr-$$
  # unified: the producer as in round 3 (shm slots; the reader registers
  # them); ipc: slots in the producer's GPU allocation
  sink_transport=; [ $tr = ipc ] && sink_transport=transport=ipc
  gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$N ! $CAPS ! \
    doradmasink channel=$channel $sink_transport mode=lossless wait-for-readers=1 sync=false \
    > "$T/producer-frames-$tr.log" 2>&1 &
  prod=$!
  $py tests/sdk/gpu-frames.py $channel $N $tr "$T/ref.txt" > "$T/frames-$tr.log" 2>&1
  r=$?
  [ $r -eq 0 ] || kill $prod 2>/dev/null
  wait $prod; pr=$?
  { echo "=== $tr (producer exit $pr)"; cat "$T/frames-$tr.log" "$T/producer-frames-$tr.log"; } >> "$O/frames.log"
  tail -3 "$T/frames-$tr.log"
  [ $r -eq 0 ] || { tail -40 "$T/frames-$tr.log" >> "$O/summary.log"; fail "gpu-frames.py $tr exited $r (frames.log)"; }
  [ $pr -eq 0 ] || fail "the $tr producer exited $pr (frames.log)"
  tail -1 "$T/frames-$tr.log" >> "$O/summary.log"
done
