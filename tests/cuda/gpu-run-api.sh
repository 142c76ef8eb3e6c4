#!/bin/bash
# One GPU-machine pass for the public stream/copy API refactor (see
# docs/gpu-validation.md, "Public stream/event/copy API"): tests/allocator
# (all), compute-sanitizer memcheck of allocator-reuse and allocator-kernel,
# tests/cuda (all), tests/cuda-elements (all scenarios), the hostreg-read
# benchmark. Run from the repo root with .device and the build carried:
#   tests/cuda/gpu-run-api.sh build-gpu OUTDIR
# Writes six logs to OUTDIR (env, allocator, memcheck, cuda, elements, bench).
B=${1:-build-gpu}; O=${2:-/tmp/out}
mkdir -p "$O"
source .device/gstenv.sh
export GST_PLUGIN_PATH=$PWD/$B/gst GST_PLUGIN_PATH_1_0=$PWD/$B/gst
export DORADMA_SHM_DIR=/dev/shm CK_DEFAULT_TIMEOUT=120 G_DEBUG=fatal-criticals
export GST_REGISTRY_1_0=/tmp/doradma-registry.bin
CS=/usr/local/cuda/bin/compute-sanitizer
{
  date -u; uname -r
  nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv
  $CS --version | tail -1
  echo "--- ldd $B/gst/libgstdoradma.so"; ldd $B/gst/libgstdoradma.so
  echo "--- /dev/shm before"; ls -la /dev/shm
} > "$O/env.log" 2>&1
rc=0
for t in nocuda probe reuse budget kernel dmabuf; do
  echo "=== allocator-$t"
  timeout 150 $B/tests/allocator/allocator-$t; r=$?; echo "allocator-$t: rc=$r"
  [ $r -ne 0 ] && rc=1
done > "$O/allocator.log" 2>&1
for t in reuse kernel; do
  echo "=== memcheck allocator-$t"
  timeout 240 $CS --tool memcheck --leak-check full --error-exitcode 99 \
    --print-limit 30 $B/tests/allocator/allocator-$t
  r=$?; echo "memcheck allocator-$t: rc=$r"; [ $r -ne 0 ] && rc=1
done > "$O/memcheck.log" 2>&1
for t in loader hostreg-readonly ipc-fork slab-reuse slab-budget slab-kernel \
    slab-dmabuf stream-copy; do
  echo "=== cuda-$t"
  timeout 120 $B/tests/cuda/cuda-$t; r=$?; echo "cuda-$t: rc=$r"
  [ $r -ne 0 ] && rc=1
done > "$O/cuda.log" 2>&1
tests/cuda-elements/gpu-run.sh $B /tmp/ce-out > /dev/null 2>&1 || rc=1
for f in /tmp/ce-out/*.log; do
  echo "=== $f"; cat "$f"
done > "$O/elements.log" 2>&1
timeout 120 $B/tests/cuda/cuda-bench-hostreg-read 256 10 > "$O/bench.log" 2>&1 \
  || rc=1
{ echo "--- /dev/shm after"; ls -la /dev/shm; echo "overall rc=$rc"; } \
  >> "$O/env.log" 2>&1
exit $rc
