#!/bin/bash
# Runs the element-level CUDA scenarios on the GPU machine (no meson test:
# the build folder's paths are absolute). Usage, from the repo root, with
# .device (shared/device/prepare.sh) and the build folder carried:
#   tests/cuda-elements/gpu-run.sh build-cuda OUTDIR [scenario...]
B=${1:-build-cuda}; O=${2:-/tmp/out}; shift 2
mkdir -p "$O"
source .device/gstenv.sh
export GST_PLUGIN_PATH=$PWD/$B/gst
export DORADMA_SHM_DIR=/dev/shm
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  gst-launch-1.0 --version | head -1
  echo "--- ldd libgstdoradma.so"; ldd $B/gst/libgstdoradma.so
  echo "--- gst-inspect doradmasrc (pads, transport)"
  gst-inspect-1.0 doradmasrc 2>&1 | grep -A4 -E 'SRC template|transport|copy-to' | head -30
  gst-inspect-1.0 cudaupload 2>&1 | head -3
} > "$O/env.log" 2>&1
rc=0
for t in ${@:-unified ipc cudapool late late-copy late-nostream late-copy-nostream cudamem pitch copyto kill}; do
  if [ "$t" = pitch ]; then
    timeout 300 bash tests/cuda-elements/pitch.sh > "$O/$t.log" 2>&1
  else
    timeout 150 $B/tests/cuda-elements/cuda-elements $t > "$O/$t.log" 2>&1
  fi
  r=$?; echo "$t: exit $r" | tee -a "$O/summary.log"
  # 77: skipped, with its reason in the log (late: GStreamer < 1.24)
  [ $r -ne 0 ] && [ $r -ne 77 ] && rc=1
done
exit $rc
